"""Attachments under kill -9: chat user 1 uploads a file under its group's folder in the default
bucket, sends it as an image message (its download URL as `attachmentUrl`, a caption tracked as
the message's text) and deletes most of these messages with `deleteMessage`, one call at a
time. The file's deletion is queued in the same commit as the message's (docs/design.md,
"Attachments"), so after the restart, once the server's file-deletion worker has drained what
the kill left, a file is gone exactly when its message is: an acknowledged message that is still
there keeps its file, a message a `deleteMessage` removed (acknowledged, or pending at the kill
and applied) has none."""
import threading
import time
import urllib.parse

from ledger import PENDING

#: The server's default bucket (`<projectID>.appspot.com`; `hearth serve`'s project is `hearth`).
BUCKET = "hearth.appspot.com"


class Attachments:
    """This iteration's attachments: (chat, message key, object name, whether a deleteMessage
    was sent), recorded once the message was acknowledged."""

    def __init__(self):
        self.lock = threading.Lock()
        self.sent = []

    def record(self, chat, key, name):
        item = {"chat": chat, "key": key, "name": name, "deleting": False}
        with self.lock:
            self.sent.append(item)
        return item

    def all(self):
        with self.lock:
            return list(self.sent)


def target(name, query=None):
    return f"/v0/b/{BUCKET}/o/{urllib.parse.quote(name, safe='')}" + ("?" + query if query else "")


def admin(ctx, extra=None):
    headers = {"Authorization": f"Bearer {ctx.admin_secret}"}
    headers.update(extra or {})
    return headers


def attachments(ctx, rng):
    user = ctx.chat.users[1]
    chat = ctx.chat.group
    number = 0
    while not ctx.stop.is_set():
        name = f"chats/{chat}/crash/it{ctx.iteration}/a{number}.png"
        number += 1
        upload = ctx.rest.request("POST", f"/v0/b/{BUCKET}/o?name={urllib.parse.quote(name, safe='')}",
                                  rng.randbytes(rng.randint(1, 20_000)), admin(ctx, {"Content-Type": "image/png"}), raw=True)
        ctx.expect(upload, "attachment upload")
        url = f"http://127.0.0.1:{ctx.port}{target(name, 'alt=media&token=' + upload.json()['downloadTokens'])}"
        caption = f"att-{ctx.iteration}-{rng.getrandbits(40):010x}"
        message = {"sender": user.uid, "text": caption, "kind": "image", "attachmentUrl": url,
                   "sentAt": {".sv": "timestamp"}}
        answer = ctx.rest.db("POST", f"messages/{chat}", message, token=user.id_token)
        ctx.expect(answer, "image message POST")
        key = answer.json()["name"]
        ctx.ledger.write(f"messages/{chat}/{key}/text", caption).ack()
        item = ctx.attachments.record(chat, key, name)
        if rng.random() < 0.7:
            entry = ctx.ledger.write(f"messages/{chat}/{key}/text", None)
            item["deleting"], item["deletion"] = True, entry
            ctx.settle(entry, ctx.rest.call("deleteMessage", {"chatId": chat, "messageId": key}, user.id_token),
                       "deleteMessage of an image message")
        ctx.stop.wait(rng.uniform(0, 0.05))


def pending_deletions(ctx):
    answer = ctx.rest.request("GET", "/metrics", headers=admin(ctx))
    for line in answer.body.splitlines():
        if line.startswith("hearth_file_deletions_pending "):
            return float(line.split()[1])
    return None


def online_checks(ctx, lookup, timeout=30.0):
    """After the restart: the queued file deletions drain (`hearth_file_deletions_pending`
    reaches 0 within `timeout`), then each attachment's file exists exactly when its message
    does."""
    violations = []
    deadline = time.monotonic() + timeout
    pending = pending_deletions(ctx)
    while pending != 0 and time.monotonic() < deadline:
        time.sleep(0.1)
        pending = pending_deletions(ctx)
    if pending != 0:
        violations.append(f"file deletions still queued {timeout:.0f} s after the restart: {pending}")
    ctx.attachment_counts = {"sent": 0, "deleted": 0, "kept": 0, "deleting_at_kill": 0}
    for item in ctx.attachments.all():
        message = lookup("default", f"messages/{item['chat']}/{item['key']}")
        answer = ctx.rest.request("GET", target(item["name"]), headers=admin(ctx))
        if answer.status not in (200, 404):
            violations.append(f"GET of attachment {item['name']} answered {answer!r}")
            continue
        exists = answer.status == 200
        ctx.attachment_counts["sent"] += 1
        ctx.attachment_counts["kept" if message is not None else "deleted"] += 1
        if item["deleting"] and item["deletion"].state == PENDING:
            ctx.attachment_counts["deleting_at_kill"] += 1
        if message is not None and not exists:
            violations.append(f"attachment {item['name']} deleted while its message /messages/{item['chat']}/{item['key']} is there")
        if message is None and exists:
            violations.append(f"attachment {item['name']} left behind: its message /messages/{item['chat']}/{item['key']} "
                              f"is gone (deleteMessage {'sent' if item['deleting'] else 'never sent'})")
    return violations


def keep(ctx):
    """For --inject kept-attachment: uploads again the file of a deleted message, as a deletion
    lost with the crash would leave it (once the deletions queued at the start are done, so
    none of them removes it again)."""
    deadline = time.monotonic() + 30
    while pending_deletions(ctx) != 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    for item in ctx.attachments.all():
        if item["deleting"]:
            ctx.rest.request("POST", f"/v0/b/{BUCKET}/o?name={urllib.parse.quote(item['name'], safe='')}",
                             b"kept", admin(ctx, {"Content-Type": "image/png"}), raw=True)
            return
