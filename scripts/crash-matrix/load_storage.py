"""Load on Firebase Storage's client API (`/v0/b/{bucket}/o`, as the admin): media, multipart
and resumable uploads and deletes, each name written by one worker in order, recorded in an
`ObjectLedger`; and the checks after the restart: every acknowledged upload is there with its
bytes (MD5) and metadata, every acknowledged delete is gone, no object is torn (its bytes hash
to the MD5 its metadata names), and what unacknowledged uploads left was swept at the start (no
file in `storage/objects` that no object names, nothing in `storage/tmp`)."""
import base64
import hashlib
import json
import os
import threading
import urllib.parse

import load_attachments
from ledger import ACKED, PENDING, Entry

BUCKET = "crash.appspot.com"
NAMES_PER_WORKER = 5


def object_target(name, query=None):
    target = f"/v0/b/{BUCKET}/o/{urllib.parse.quote(name, safe='')}"
    return target + ("?" + query if query else "")


def upload_target(name):
    return f"/v0/b/{BUCKET}/o?name={urllib.parse.quote(name, safe='')}"


def md5_of(data):
    return base64.b64encode(hashlib.md5(data).digest()).decode()


class ObjectLedger:
    """Per object name, its uploads (value: md5, size and the custom metadata token) and
    deletes (value None), in the order one worker sent them."""

    def __init__(self):
        self.lock = threading.Lock()
        self.names = {}  # name -> [Entry]
        self.kinds = {}  # id(entry) -> media, multipart, resumable or delete

    def record(self, name, value, kind):
        entry = Entry(value)
        with self.lock:
            self.names.setdefault(name, []).append(entry)
            self.kinds[id(entry)] = kind
        return entry

    def counts(self):
        """Entries by state and kind: {"acked": {"media": n, ...}, "pending": {...}, ...}."""
        counts = {}
        for history in self.names.values():
            for entry in history:
                by_kind = counts.setdefault(entry.state, {})
                kind = self.kinds[id(entry)]
                by_kind[kind] = by_kind.get(kind, 0) + 1
        return counts

    def acked(self):
        return sum(self.counts().get(ACKED, {}).values())

    def allowed(self, name):
        """What `name` may hold now: its last acknowledged value (or nothing, before any), or a
        later one still pending at the kill."""
        history = self.names[name]
        last = max((i for i, entry in enumerate(history) if entry.state == ACKED), default=None)
        allowed = [None] if last is None else [history[last].value]
        start = 0 if last is None else last + 1
        return allowed + [entry.value for entry in history[start:] if entry.state == PENDING]


def admin(ctx, extra=None):
    headers = {"Authorization": f"Bearer {ctx.admin_secret}"}
    headers.update(extra or {})
    return headers


def uploads(ctx, rng, worker):
    """One worker's uploads and deletes of its own names, one request at a time."""
    names = [f"crash/it{ctx.iteration}/w{worker}/o{k}" for k in range(NAMES_PER_WORKER)]
    while not ctx.stop.is_set():
        name = rng.choice(names)
        choice = rng.random()
        if choice < 0.2:
            entry = ctx.objects.record(name, None, "delete")
            answer = ctx.rest.request("DELETE", object_target(name), headers=admin(ctx))
            if answer.status == 404:  # nothing to delete: the name holds nothing either way
                entry.ack()
                continue
            ctx.settle(entry, answer, "storage DELETE")
            continue
        # Mostly small (avatars, photos); one in twenty 1-4 MB, so kills land while bytes stream.
        data = rng.randbytes(rng.randint(1 << 20, 4 << 20) if rng.random() < 0.05 else rng.randint(0, 200_000))
        token = f"t{ctx.iteration}-{rng.getrandbits(40):010x}"
        if choice < 0.5:
            entry = ctx.objects.record(name, {"md5": md5_of(data), "size": len(data), "token": None}, "media")
            answer = ctx.rest.request("POST", upload_target(name), data, admin(ctx, {"Content-Type": "application/octet-stream"}), raw=True)
        elif choice < 0.75:
            entry = ctx.objects.record(name, {"md5": md5_of(data), "size": len(data), "token": token}, "multipart")
            answer = multipart(ctx, name, data, token)
        else:
            answer = resumable(ctx, rng, name, data, token)
            if answer is None:
                continue
            entry, answer = answer
        ctx.settle(entry, answer, "storage upload")


def multipart(ctx, name, data, token):
    boundary = "crash-b0undary"
    metadata = json.dumps({"name": name, "contentType": "application/x-crash", "metadata": {"token": token}})
    body = (f"--{boundary}\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{metadata}\r\n"
            f"--{boundary}\r\nContent-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--".encode()
    headers = admin(ctx, {"X-Goog-Upload-Protocol": "multipart", "Content-Type": f"multipart/related; boundary={boundary}"})
    return ctx.rest.request("POST", upload_target(name), body, headers, raw=True)


def resumable(ctx, rng, name, data, token):
    """start, a first chunk, then the last chunk with finalize (only that one is recorded: the
    object exists from the finalize on). Answers (entry, answer), or None when the session
    could not be started or continued (the kill's doing, or noted)."""
    start = ctx.rest.request("POST", upload_target(name), {"metadata": {"token": token}}, admin(ctx, {
        "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
        "X-Goog-Upload-Header-Content-Length": str(len(data)),
        "X-Goog-Upload-Header-Content-Type": "application/x-crash"}))
    if not start.ok:
        ctx.expect(start, "resumable start")
    session = start.header("X-Goog-Upload-URL") or ""
    session = session[session.index("/v0/"):] if "/v0/" in session else None
    if session is None:
        ctx.note(f"resumable start without a session URL: {start!r}")
        return None
    half = rng.randint(0, len(data))
    first = ctx.rest.request("POST", session, data[:half], {"X-Goog-Upload-Command": "upload",
                                                             "X-Goog-Upload-Offset": "0"}, raw=True)
    ctx.expect(first, "resumable chunk")
    entry = ctx.objects.record(name, {"md5": md5_of(data), "size": len(data), "token": token}, "resumable")
    answer = ctx.rest.request("POST", session, data[half:], {"X-Goog-Upload-Command": "upload, finalize",
                                                             "X-Goog-Upload-Offset": str(half)}, raw=True)
    return entry, answer


def online_checks(ctx, state):
    """On the restarted server: every name holds an allowed value, untorn; objects checked in
    earlier iterations are unchanged; no file without an object, nothing in tmp/."""
    violations = []
    for name in sorted(ctx.objects.names):
        allowed = ctx.objects.allowed(name)
        found, problem = read_object(ctx, name)
        if problem:
            violations.append(problem)
            continue
        if found not in allowed:
            history = ", ".join(f"{entry.value}:{entry.state}" for entry in ctx.objects.names[name][-4:])
            violations.append(f"lost or wrong storage object {name}: found {found}, expected one of {allowed} (last: {history})")
        if found is not None:
            state.objects[name] = found
        else:
            state.objects.pop(name, None)
    for name, expected in sorted(state.objects.items()):
        if name in ctx.objects.names:
            continue
        answer = ctx.rest.request("GET", object_target(name), headers=admin(ctx))
        md5 = (answer.json() or {}).get("md5Hash") if answer.ok else None
        if md5 != expected["md5"]:
            violations.append(f"storage object {name} of an earlier iteration changed: {answer!r}, expected md5 {expected['md5']}")
    violations += stray_files(ctx)
    return violations


def read_object(ctx, name):
    """(what `name` holds as a ledger value or None, a violation or None)."""
    meta = ctx.rest.request("GET", object_target(name), headers=admin(ctx))
    if meta.status == 404:
        return None, None
    if not meta.ok:
        return None, f"GET of storage object {name} answered {meta!r}"
    metadata = meta.json()
    download = ctx.rest.request("GET", object_target(name, "alt=media"), headers=admin(ctx))
    media = download.data
    if not download.ok:
        return None, f"download of storage object {name} answered {download!r}"
    if md5_of(media) != metadata.get("md5Hash") or str(len(media)) != metadata.get("size"):
        return None, (f"torn storage object {name}: {len(media)} bytes with md5 {md5_of(media)}, its metadata says "
                      f"{metadata.get('size')} bytes, md5 {metadata.get('md5Hash')}")
    return {"md5": metadata["md5Hash"], "size": len(media), "token": (metadata.get("metadata") or {}).get("token")}, None


def stray_files(ctx):
    """Files the sweep at the start should have removed: any in `storage/objects` that no
    object names, any in `storage/tmp`."""
    generations = set()
    # The storage clients' bucket and the default one (the attachments client's files).
    for bucket in (BUCKET, load_attachments.BUCKET):
        token = None
        for _ in range(10_000):  # bounded: pages of 1000
            query = "maxResults=1000" + (f"&pageToken={urllib.parse.quote(token)}" if token else "")
            answer = ctx.rest.request("GET", f"/v0/b/{bucket}/o?{query}", headers=admin(ctx))
            if not answer.ok:
                return [f"listing the bucket {bucket} answered {answer!r}"]
            page = answer.json()
            for item in page.get("items", []):
                target = f"/v0/b/{bucket}/o/{urllib.parse.quote(item['name'], safe='')}"
                meta = ctx.rest.request("GET", target, headers=admin(ctx))
                if meta.ok:
                    generations.add(meta.json()["generation"])
            token = page.get("nextPageToken")
            if not token:
                break
    storage = os.path.join(ctx.server.data, "storage")
    violations = []
    orphans = sorted(set(os.listdir(os.path.join(storage, "objects"))) - generations)
    if orphans:
        violations.append(f"files in storage/objects that no object names after the start: {orphans[:10]}")
    leftovers = os.listdir(os.path.join(storage, "tmp"))
    if leftovers:
        violations.append(f"part files left in storage/tmp after the start: {leftovers[:10]}")
    return violations
