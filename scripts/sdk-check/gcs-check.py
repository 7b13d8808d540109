#!/usr/bin/env python3
"""Drives Hearth's Cloud Storage JSON API with the official google-cloud-storage client (what
firebase-admin's storage.bucket() is), through STORAGE_EMULATOR_HOST, as the emulator's admin
(`Authorization: Bearer owner`, so start `hearth serve --emulator`): upload_from_string with a
content type, download_as_bytes (checksums validated by the client), get_blob, patch, list_blobs,
a 1 MiB upload with a ranged download, a 10 MiB resumable upload, copy_blob (copyTo), rewrite
(rewriteTo), rename_blob (a copy, then a delete), delete; a gzip object (content_encoding gzip)
read decompressed by the client, raw (as stored) and by a client that does not accept gzip (served
decompressed); make_public / make_private / acl.save_predefined read back through acl.reload.

    python3 -m pip install google-cloud-storage
    python3 scripts/sdk-check/gcs-check.py PORT
"""
import gzip, os, sys, urllib.request
from google.auth.credentials import Credentials
from google.cloud import storage

class Owner(Credentials):
    """The emulator's admin credential: Authorization: Bearer owner."""
    def __init__(self):
        super().__init__()
        self.token = "owner"
    def refresh(self, request):
        self.token = "owner"
    @property
    def expired(self):
        return False
    @property
    def valid(self):
        return True

os.environ["STORAGE_EMULATOR_HOST"] = "http://127.0.0.1:" + sys.argv[1]
client = storage.Client(project="hearth", credentials=Owner())
bucket = client.bucket("hearth.appspot.com")
ok = 0
def check(name, cond, detail=""):
    global ok
    print(("ok   " if cond else "FAIL ") + name, detail)
    ok += 1 if cond else 0
blob = bucket.blob("admin/hello.txt")
blob.upload_from_string("hello from python", content_type="text/plain")
check("upload_from_string", blob.size == 17, blob.size)
got = bucket.blob("admin/hello.txt").download_as_bytes()
check("download_as_bytes", got == b"hello from python", got)
b = bucket.get_blob("admin/hello.txt")
check("get_blob", b is not None and b.content_type == "text/plain" and b.md5_hash is not None, (b.content_type, b.md5_hash, b.crc32c))
b.metadata = {"reviewed": "yes"}
b.patch()
check("patch", bucket.get_blob("admin/hello.txt").metadata.get("reviewed") == "yes", bucket.get_blob("admin/hello.txt").metadata)
names = [x.name for x in client.list_blobs(bucket, prefix="admin/")]
check("list_blobs", names == ["admin/hello.txt"], names)
big = bytes(range(256)) * 4096  # 1 MiB: google-cloud-storage uses multipart below 8 MiB
bucket.blob("admin/big.bin").upload_from_string(big)
check("1 MiB upload and ranged download", bucket.blob("admin/big.bin").download_as_bytes(start=10, end=19) == big[10:20])
large = bytes(range(256)) * (40 * 1024)  # 10 MiB: past 8 MiB the client uploads resumably
bucket.blob("admin/large.bin").upload_from_string(large, content_type="application/octet-stream")
check("10 MiB resumable upload", bucket.blob("admin/large.bin").download_as_bytes() == large)
copied = bucket.copy_blob(bucket.blob("admin/hello.txt"), client.bucket("backup.appspot.com"), "kept/hello.txt")
check("copy_blob", copied.download_as_bytes() == b"hello from python" and copied.md5_hash == b.md5_hash, copied.name)
target = bucket.blob("admin/rewritten.txt")
token, done, total = target.rewrite(bucket.blob("admin/hello.txt"))
check("rewrite", token is None and done == total == 17 and target.download_as_bytes() == b"hello from python")
renamed = bucket.rename_blob(bucket.blob("admin/rewritten.txt"), "admin/renamed.txt")
check("rename_blob", renamed.download_as_bytes() == b"hello from python" and bucket.get_blob("admin/rewritten.txt") is None)
bucket.blob("admin/hello.txt").delete()
check("delete", bucket.get_blob("admin/hello.txt") is None)
text = b"".join(b"line %d of a gzip-compressed log\n" % i for i in range(20000))
packed = gzip.compress(text)
zipped = bucket.blob("admin/log.txt")
zipped.content_encoding = "gzip"
zipped.upload_from_string(packed, content_type="text/plain")
check("gzip object read (the client decompresses)", bucket.blob("admin/log.txt").download_as_bytes() == text)
check("gzip object read raw (as stored)", bucket.blob("admin/log.txt").download_as_bytes(raw_download=True) == packed)
plain = urllib.request.Request(bucket.get_blob("admin/log.txt").media_link,
                               headers={"Authorization": "Bearer owner", "Accept-Encoding": "identity"})
with urllib.request.urlopen(plain) as answer:
    body, encoding = answer.read(), answer.headers.get("Content-Encoding")
check("gzip object to a client without gzip (decompressed)", body == text and encoding is None, (len(body), encoding))
shared = bucket.blob("admin/log.txt")
shared.make_public()
again = bucket.blob("admin/log.txt")
again.acl.reload()
check("make_public", "READER" in again.acl.all().get_roles(), list(again.acl))
shared.make_private()
again.acl.reload()
check("make_private", not again.acl.all().get_roles(), list(again.acl))
again.acl.save_predefined("authenticatedRead")
again.acl.reload()
check("acl.save_predefined", "READER" in again.acl.all_authenticated().get_roles(), list(again.acl))
print(f"{ok} passed")
sys.exit(0 if ok == 17 else 1)
