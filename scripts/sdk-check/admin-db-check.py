#!/usr/bin/env python3
"""Drives Hearth's database with firebase-admin (Python) itself, as an app's server would: its
`db` module reaching Hearth through FIREBASE_DATABASE_EMULATOR_HOST (so it sends the emulator's
admin credential, `Bearer owner`: start `hearth serve --emulator`). Sets, reads, updates, pushes,
runs transactions from several threads at once (ETag-conditional PUTs), queries by key, listens
(Server-Sent Events), writes a 2 MB value and deletes; every result is checked.

    python3 -m pip install firebase-admin
    python3 scripts/sdk-check/admin-db-check.py --port PORT

With --cluster HEARTH (a release `hearth` binary) it starts its own private PostgreSQL (the
cluster benchmarks' `clusterproc.py`) and two `hearth serve --emulator --cluster` nodes, makes the
first own the namespace, and drives the second: every request is relayed to the owner (REST
through the channel-level relay, the listener's stream through the router's forward).

    python3 scripts/sdk-check/admin-db-check.py --cluster .build/release/hearth

Prints `N passed, M failed` and exits 1 when anything failed.
"""
import argparse, os, sys, tempfile, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, help="a Hearth node started with --emulator")
parser.add_argument("--cluster", metavar="HEARTH", help="start a two-node cluster of this binary and drive its non-owner")
parser.add_argument("--ns", default=f"admindb{int(time.time())}")
args = parser.parse_args()
if not args.port and not args.cluster:
    parser.error("give --port or --cluster")

cleanup = []
port = args.port
if args.cluster:
    import urllib.request
    from benchproc import stop
    from clusterproc import Postgres, start_node
    work = tempfile.mkdtemp(prefix="hearth-admin-db-")
    os.chmod(work, 0o755)
    pg = Postgres(work)
    cleanup.append(pg.stop)
    url = pg.database()
    nodes = []
    for name in ("owner", "entry"):
        process, node_port = start_node(args.cluster, f"{work}/{name}", ["--emulator", "--lease-seconds", "5"], cluster=url)
        cleanup.append(lambda process=process: stop(process))
        nodes.append(node_port)
    # The first node to serve the namespace takes its lease.
    request = urllib.request.Request(f"http://127.0.0.1:{nodes[0]}/claim.json?ns={args.ns}", data=b"true",
                                     method="PUT", headers={"Authorization": "Bearer owner"})
    urllib.request.urlopen(request, timeout=30).read()
    port = nodes[1]

import firebase_admin
from firebase_admin import credentials, db

os.environ["FIREBASE_DATABASE_EMULATOR_HOST"] = f"127.0.0.1:{port}"
app = firebase_admin.initialize_app(credentials.Base(), {
    "databaseURL": f"http://127.0.0.1:{port}?ns={args.ns}",
    "projectId": "hearth",
})

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok  ", name)
    else:
        failed += 1
        print("FAIL", name, detail)


try:
    root = db.reference("/")
    users = db.reference("users")
    users.set({"ada": {"name": "Ada", "n": 3}, "bob": {"name": "Bob", "n": 1}})
    check("set then get", users.get() == {"ada": {"name": "Ada", "n": 3}, "bob": {"name": "Bob", "n": 1}}, users.get())

    root.update({"users/ada/n": 4, "users/cy": {"name": "Cy", "n": 2}})
    check("multi-path update", users.child("ada/n").get() == 4 and users.child("cy/name").get() == "Cy")

    pushed = db.reference("messages").push({"text": "hi", "at": {".sv": "timestamp"}})
    message = pushed.get()
    check("push with a server timestamp", isinstance(pushed.key, str) and len(pushed.key) == 20
          and message["text"] == "hi" and isinstance(message["at"], int) and message["at"] > 1_600_000_000_000, message)

    value, etag = users.child("bob").get(etag=True)
    check("get with ETag", value == {"name": "Bob", "n": 1} and isinstance(etag, str) and etag)
    changed, snapshot, current = users.child("bob/n").set_if_unchanged("not-the-etag", 9)
    check("set_if_unchanged refused on a stale ETag", not changed and snapshot == 1 and current, (changed, snapshot))
    changed, snapshot, current = users.child("bob/n").set_if_unchanged(current, 5)
    check("set_if_unchanged with the current ETag", changed and users.child("bob/n").get() == 5, (changed, snapshot))

    counter = db.reference("counter")
    counter.set(0)
    errors = []

    def bump():
        try:
            for _ in range(10):
                counter.transaction(lambda current: (current or 0) + 1)
        except Exception as error:  # noqa: BLE001: reported below
            errors.append(error)

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    check("40 transactions from 4 threads", not errors and counter.get() == 40, (errors[:1], counter.get()))

    keys = list(users.order_by_key().limit_to_first(2).get().keys())
    check("query by key, first two", keys == ["ada", "bob"], keys)
    check("shallow get", db.reference("users").get(shallow=True) == {"ada": True, "bob": True, "cy": True})

    events = []
    seen = threading.Event()

    def listener(event):
        events.append((event.event_type, event.path, event.data))
        if event.data == "live":
            seen.set()

    # Closing a listener makes firebase-admin's reading thread fail inside urllib3 (its own race,
    # whatever the server): not reported.
    threading.excepthook = lambda hook: None if hook.thread and "listen" in hook.thread.name else sys.__excepthook__(
        hook.exc_type, hook.exc_value, hook.exc_traceback)
    registration = db.reference("feed").listen(listener)
    try:
        time.sleep(0.5)
        db.reference("feed/status").set("live")
        check("a listener hears a write (SSE)", seen.wait(10), events)
    finally:
        registration.close()

    big = {f"k{i:05d}": "x" * 200 for i in range(10_000)}
    db.reference("big").set(big)
    check("a 2 MB value round-trips", db.reference("big").get() == big)

    users.child("cy").delete()
    check("delete", users.child("cy").get() is None and sorted(users.get().keys()) == ["ada", "bob"])
    check("what was set is there", users.get() == {"ada": {"name": "Ada", "n": 4}, "bob": {"name": "Bob", "n": 5}}, users.get())
    if args.cluster:
        import urllib.request
        metrics = urllib.request.urlopen(urllib.request.Request(
            f"http://127.0.0.1:{port}/metrics", headers={"Authorization": "Bearer owner"}), timeout=10).read().decode()
        relayed = sum(float(line.split()[-1]) for line in metrics.splitlines()
                      if line.startswith("hearth_cluster_relayed_requests_total"))
        check(f"the entry relayed {relayed:.0f} requests to the owner", relayed >= 20, relayed)
except Exception as error:  # noqa: BLE001: a client error is a failure, not a crash
    check("no client error", False, repr(error))
finally:
    firebase_admin.delete_app(app)
    for step in reversed(cleanup):
        step()

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
