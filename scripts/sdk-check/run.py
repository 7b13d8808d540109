#!/usr/bin/env python3
"""Runs sdk-check.html in headless Chromium against a Hearth server on loopback.

The official Firebase JS SDK is third-party code and is never committed: fetch the built 9.8.1
modules (firebase/firebase-bower: firebase-app.js, firebase-database.js), rewrite the
firebase-database.js import of https://www.gstatic.com/.../firebase-app.js to ./firebase-app.js,
and pass their directory as --sdk. Start Hearth with --emulator on --hearth-port first.

    python3 scripts/sdk-check/run.py --sdk /tmp/sdk --hearth-port 9000

auth-check.html (also needs firebase-auth.js, its import rewritten the same way) signs up, in and
out with the Auth SDK against a server with the shipped rules (--emulator optional); --data is
that server's data directory, whose reset outbox the page reads at /outbox:

    python3 scripts/sdk-check/run.py --sdk /tmp/sdk --hearth-port 9000 --page auth-check.html --data DIR

functions-check.html (also needs firebase-auth.js and firebase-functions.js, imports rewritten the
same way) signs three users up and calls the chat callables with httpsCallable after
connectFunctionsEmulator, from this page's origin (CORS), against a server with the shipped rules
and a small contact quota (`hearth serve --contact-quota 50`):

    python3 scripts/sdk-check/run.py --sdk /tmp/sdk --hearth-port 9000 --page functions-check.html

contacts-check.html (firebase-auth.js and firebase-functions.js too, as for functions-check.html)
signs four users up against a server with the shipped rules and checks contacts and conversation
requests: a contact added with set() (a stranger's uid, another user's list and a non-boolean
favorite refused with PERMISSION_DENIED), a favorite toggled and queried, matchContacts with
add: true, createChat between strangers flagging the other's entry (seen by an onValue
listener), and the flag cleared by acceptChat, by a reply and by adding the starter as a contact;
acceptChat's not-found, invalid-argument and unauthenticated:

    python3 scripts/sdk-check/run.py --sdk /tmp/sdk --hearth-port 9000 --page contacts-check.html

mock-token-check.html connects with the SDK's mockUserToken ({sub: "alice"}: unsigned, iat 0)
from apps whose projectId is not the server's, sets per-user rules over REST as the emulator
admin (Bearer owner) and checks that rules see the users; start `hearth serve --emulator` with
the default project (no rules file needed). Without --emulator the mock tokens are refused and
the page reports failures:

    python3 scripts/sdk-check/run.py --sdk /tmp/sdk --hearth-port 9000 --page mock-token-check.html

storage-check.html (also needs firebase-storage.js, its import rewritten the same way) uploads with
uploadBytes and uploadString, reads with getMetadata, getDownloadURL + fetch and getBytes, lists
with list (pages) and listAll, deletes, and checks that a caller without credentials gets
storage/unauthorized; start `hearth serve --emulator` (the mock token `owner` is the admin):

    python3 scripts/sdk-check/run.py --sdk /tmp/sdk --hearth-port 9000 --page storage-check.html

blocking-check.html (firebase-auth.js and firebase-functions.js too) blocks and unblocks with
httpsCallable("blockUser"/"unblockUser") against a server with the shipped rules: the blocked
user's createChat is functions/not-found, their push() into the private chat PERMISSION_DENIED,
the blocker's list unreadable to them, and all works again after unblocking; also both
callables' errors:

    python3 scripts/sdk-check/run.py --sdk /tmp/sdk --hearth-port 9000 --page blocking-check.html

calls-check.html (firebase-auth.js and firebase-functions.js too) signals a call with
httpsCallable("startCall"/"answerCall"/"endCall") against a server with the shipped rules: an
onValue listener on the call sees ringing → accepted → ended, both parties push ICE candidates,
a stranger reads nothing, no client writes a call or a call message; also the callables' errors:

    python3 scripts/sdk-check/run.py --sdk /tmp/sdk --hearth-port 9000 --page calls-check.html

devices-check.html (firebase-auth.js and firebase-functions.js too) checks every rule of
`devices/$uid/$deviceId` and `userChats/$uid/$chatId/muted` against a server with the shipped
rules: a device registered with set() (each platform; updatedAt the server's), seen by onValue and
get(), its token refreshed with update(), removed; another user reads, writes and removes none of
it; each field's type and bounds, a missing or extra field and a device list that is not a list
are PERMISSION_DENIED; the member mutes and unmutes (set(true/false), remove()), the message
trigger and markRead keep the flag; nobody mutes on another's list, a chat not on their own or
after leaving it, or writes another field of the entry; signed out, the listeners are cancelled
and nothing is read or written:

    python3 scripts/sdk-check/run.py --sdk /tmp/sdk --hearth-port 9000 --page devices-check.html

push-check.html (firebase-auth.js and firebase-functions.js too) checks end to end that the
pushes honour what the SDK wrote: this script starts a webhook receiver on --webhook-port
(webhook_receiver.py; the page reads what it got at /pushes) that checks each Hearth-Signature
with --admin-secret; start `hearth serve` with the shipped rules, that admin secret and
`--push-webhook http://127.0.0.1:WEBHOOK_PORT/`. Of a group's offline members, the one with a
device registered (and its token refreshed) by the SDK gets exactly one push per message, the one
who muted the chat none until she unmutes; an online member, the sender and a removed device
get none; a private chat's push is titled with the sender's name; a group call rings the offline
members by push ({chatId, callId}) and, cancelled, pushes its call message ("Missed call"):

    hearth serve --port 9000 --admin-secret S --push-webhook http://127.0.0.1:9598/
    python3 scripts/sdk-check/run.py --sdk /tmp/sdk --hearth-port 9000 --page push-check.html \
        --webhook-port 9598 --admin-secret S

presence-check.html (also needs firebase-auth.js) signs a watcher and a subject up and checks,
with an onValue listener on the subject's presence/<uid>, that the subject comes online and goes
offline within 1 s through goOffline(), a page it opens and closes (presence-subject.html;
popups are allowed), and a second browser process that the page asks this script to start
(`POST /spawn`) and to kill (`POST /kill`: SIGKILL of its process group); start
`hearth serve` with the shipped rules (the default namespace keeps presence):

    python3 scripts/sdk-check/run.py --sdk /tmp/sdk --hearth-port 9000 --page presence-check.html
"""
import argparse, http.server, json, os, shutil, signal, subprocess, sys, tempfile, threading, time
from webhook_receiver import WebhookReceiver

parser = argparse.ArgumentParser()
parser.add_argument("--sdk", required=True)
parser.add_argument("--hearth-port", type=int, default=9000)
parser.add_argument("--port", type=int, default=9599, help="port of this page server")
parser.add_argument("--chromium", default="chromium")
parser.add_argument("--timeout", type=float, default=120)
parser.add_argument("--page", default="sdk-check.html")
parser.add_argument("--ns", help="the namespace the page uses (default: a new sdkcheck<time>)")
parser.add_argument("--data", help="the server's data directory (auth-check.html reads its outbox)")
parser.add_argument("--webhook-port", type=int, help="start a push webhook receiver on this port (push-check.html)")
parser.add_argument("--admin-secret", help="the server's admin secret: the webhook receiver checks Hearth-Signature with it")
args = parser.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
results = []
finished = threading.Event()

class Handler(http.server.SimpleHTTPRequestHandler):
    def translate_path(self, path):
        path = path.split("?")[0]
        if path == "/outbox" and args.data:
            outbox = os.path.join(args.data, "accounts", "outbox.jsonl")
            return outbox if os.path.exists(outbox) else os.devnull
        if path.startswith("/sdk/"):
            return os.path.join(args.sdk, path[len("/sdk/"):])
        return os.path.join(here, path.lstrip("/"))
    def do_GET(self):
        if self.path.split("?")[0] != "/pushes":
            return super().do_GET()
        body = json.dumps(receiver.pushes() if receiver else None).encode()
        self.send_response(200 if receiver else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path in ("/spawn", "/kill"):
            return self.control(body)
        results.append(body)
        if body["name"] == "done":
            finished.set()
        self.send_response(204)
        self.end_headers()
    def log_message(self, *a):
        pass
    def control(self, body):
        """presence-check.html's second browser: start one on a page, or SIGKILL it."""
        if self.path == "/spawn":
            profile = tempfile.mkdtemp(prefix="hearth-sdk-subject-")
            extra.append((subprocess.Popen(
                [args.chromium, "--headless=new", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
                 f"http://127.0.0.1:{args.port}/{body['page']}"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True), profile))
        elif extra:
            os.killpg(extra[-1][0].pid, signal.SIGKILL)
            extra[-1][0].wait(10)
        self.send_response(204)
        self.end_headers()

extra = []  # browsers started for a page (`POST /spawn`), killed at the end if still running
# push-check.html's webhook receiver: what it got is at GET /pushes (404 without --webhook-port)
receiver = WebhookReceiver(args.webhook_port, args.admin_secret) if args.webhook_port else None

server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{args.port}/{args.page}?port={args.hearth_port}&ns={args.ns or f'sdkcheck{int(time.time())}'}"
profile = tempfile.TemporaryDirectory(ignore_cleanup_errors=True)  # a fresh browser profile
browser = subprocess.Popen([args.chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                            "--disable-popup-blocking", "--remote-debugging-port=0", f"--user-data-dir={profile.name}", url],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
finished.wait(args.timeout)
browser.terminate()
browser.wait(10)
for other, other_profile in extra:
    if other.poll() is None:
        os.killpg(other.pid, signal.SIGKILL)
        other.wait(10)
    shutil.rmtree(other_profile, ignore_errors=True)
profile.cleanup()
server.shutdown()
if receiver:
    receiver.shutdown()
failed = 0
for r in results:
    if r["name"] == "done":
        continue
    print(("ok   " if r["ok"] else "FAIL ") + r["name"] + (": " + r["detail"][:300] if r["detail"] else ""))
    failed += 0 if r["ok"] else 1
if not finished.is_set():
    print("FAIL the page did not finish within the timeout")
    failed += 1
print(f"{len([r for r in results if r['name'] != 'done']) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
