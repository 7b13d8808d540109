#!/usr/bin/env python3
"""Drives Hearth's files with firebase-admin (Python) itself, as an app's server would: an app
initialised with the project, the default bucket and a credential that sends Hearth's admin
credential (`Bearer <admin secret>`; with `hearth serve --emulator`, `owner`), reaching Hearth
through STORAGE_EMULATOR_HOST. Uploads, downloads, lists and deletes through
`firebase_admin.storage.bucket()`, then reads through the client API what firebase-admin wrote.

    python3 -m pip install firebase-admin
    python3 scripts/sdk-check/admin-check.py PORT [ADMIN_SECRET]
"""
import json, os, sys, urllib.request
import firebase_admin
from firebase_admin import credentials, storage
from google.auth.credentials import Credentials

port = sys.argv[1]
secret = sys.argv[2] if len(sys.argv) > 2 else "owner"

class HearthAdmin(Credentials):
    """A fixed bearer token: Hearth's admin secret (or `owner` under --emulator)."""
    def __init__(self):
        super().__init__()
        self.token = secret
    def refresh(self, request):
        self.token = secret
    @property
    def expired(self):
        return False
    @property
    def valid(self):
        return True

class HearthCredential(credentials.Base):
    def get_credential(self):
        return HearthAdmin()

os.environ["STORAGE_EMULATOR_HOST"] = "http://127.0.0.1:" + port
app = firebase_admin.initialize_app(HearthCredential(), {"projectId": "hearth", "storageBucket": "hearth.appspot.com"})
bucket = storage.bucket()
passed = failed = 0
def check(name, cond, detail=""):
    global passed, failed
    print(("ok   " if cond else "FAIL ") + name, detail)
    passed, failed = (passed + 1, failed) if cond else (passed, failed + 1)

blob = bucket.blob("admin-check/report.txt")
blob.upload_from_string("written by firebase-admin", content_type="text/plain")
check("storage.bucket().blob().upload_from_string", blob.size == 25 and blob.content_type == "text/plain", blob.size)
check("download_as_bytes", bucket.blob("admin-check/report.txt").download_as_bytes() == b"written by firebase-admin")
image = bucket.blob("admin-check/pixel.png")
image.metadata = {"owner": "server"}
image.upload_from_string(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100, content_type="image/png")
fetched = bucket.get_blob("admin-check/pixel.png")
check("get_blob with custom metadata", fetched is not None and fetched.metadata.get("owner") == "server", fetched and fetched.metadata)
names = sorted(b.name for b in bucket.list_blobs(prefix="admin-check/"))
check("list_blobs", names == ["admin-check/pixel.png", "admin-check/report.txt"], names)
# What firebase-admin wrote is a Firebase object: the client API serves it with a download token.
with urllib.request.urlopen(urllib.request.Request(
    f"http://127.0.0.1:{port}/v0/b/hearth.appspot.com/o/admin-check%2Freport.txt",
    headers={"Authorization": f"Bearer {secret}"})) as answer:
    resource = json.load(answer)
token = resource.get("downloadTokens", "").split(",")[0]
with urllib.request.urlopen(f"http://127.0.0.1:{port}/v0/b/hearth.appspot.com/o/admin-check%2Freport.txt?alt=media&token={token}") as answer:
    check("the client API serves it by download token", answer.read() == b"written by firebase-admin", token)
blob.delete()
image.delete()
check("delete", list(bucket.list_blobs(prefix="admin-check/")) == [])
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
