#!/usr/bin/env python3
"""The chat message as shipped, against its storage anchor: prints one JSON object.

The workload of issue 38's first row, measured the way users run Hearth: `hearth serve` with the
repository's `rules/database.rules.json` (the chat lists indexed on `lastMessageAt` and `unread`)
and `seed/fireside.json`, the `default` database, the chat app on (it always serves `default`).
For each member count M (--members, default 10,100,500) and each transport (rest, ws):

  1. a fresh data directory and a fresh server;
  2. --senders (4) groups of M members: every member is a real account signed up through
     `accounts:signUp` (anonymous: no password, so no scrypt; the ID token is one Hearth signed)
     with a profile written by the member itself (`PUT users/$uid`, as the app does), and each
     group made by its first member with the `createGroup` callable (the others as participants);
     with --one-chat, one group of M whose first --senders members send (a busy group chat: every
     message writes the same members' counters);
     with --opened N, each group then gets N messages from its sender and an ordered read of
     them (`orderBy="sentAt"`, as a client showing the chat), so that past 128 its list keeps
     index entries (decision 0024) and every later message writes its entry;
  3. `chat-load` (scripts/bench/chat-load.c, compiled here with cc -O2): each group's first member
     sends messages into the group, one connection and one request in flight each, REST
     `POST /messages/$chat.json?auth=<ID token>` or a WebSocket `p` of `/messages/$chat/<push id>`
     after an `auth` request; --warmup then --duration seconds; the server's CPU in the window;
  4. a check: every group holds exactly the messages acknowledged, and a member's `unreadTotals`
     equals them (the trigger ran for each); optionally (--chat-check) `hearth chat check` on the
     stopped data directory.

Alternating with each M's Hearth runs: `leveldb-fanout` (../shared/anchors/leveldb-fanout,
compiled here with -lleveldb) `DIR --members M --rmw 1 --seconds D` on a fresh directory. Per
(transport, M): each run's messages/s, the medians, the ratio of the medians to the anchor's, and
the server's CPU per message.

    flock /tmp/bench.lock python3 scripts/bench/chat-shipped.py --hearth .build/release/hearth --pairs 3

Loopback only; each server is stopped (SIGTERM) and its directory removed; every wait is bounded.
"""
import argparse
import concurrent.futures
import datetime
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from benchproc import free_port, stop

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ADMIN = "chat-shipped-admin"
API_KEY = "chat-shipped"  # Hearth accepts any key, as the Auth emulator does


def log(*parts):
    print("chat-shipped:", *parts, file=sys.stderr, flush=True)


class Client:
    """One keep-alive HTTP connection per thread to the server under test."""

    def __init__(self, port):
        self.port = port
        self.local = threading.local()

    def call(self, method, path, body=None, headers=None):
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.local.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        data = None if body is None else json.dumps(body).encode()
        hdrs = {"Content-Type": "application/json"}
        hdrs.update(headers or {})
        try:
            conn.request(method, path, body=data, headers=hdrs)
            reply = conn.getresponse()
            text = reply.read()
        except (OSError, http.client.HTTPException):
            conn.close()
            self.local.conn = None
            raise
        if reply.status >= 300:
            raise RuntimeError(f"{method} {path.split('?')[0]}: HTTP {reply.status}: {text[:300]!r}")
        return json.loads(text or b"null")


def build(out):
    """chat-load and leveldb-fanout, compiled into `out`."""
    load = os.path.join(out, "chat-load")
    subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-o", load, os.path.join(HERE, "chat-load.c"), "-lpthread"],
                   check=True)
    return load


def build_anchor(out, source):
    anchor = os.path.join(out, "fanout")
    subprocess.run(["cc", "-O2", "-o", anchor, source, "-lleveldb"], check=True)
    return anchor


def start_server(args, directory, port, extra=()):
    """`hearth serve` of the shipped configuration in `directory` (`extra`: more flags)."""
    command = [args.hearth, "serve", "--port", str(port), "--data", os.path.join(directory, "data"),
               "--rules", args.rules, "--seed", args.seed, "--admin-secret", ADMIN, "--log-level", "warning",
               *extra]
    logfile = open(os.path.join(directory, "server.log"), "wb")
    server = subprocess.Popen(command, stdout=logfile, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            break
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"GET /.well-known/hearth/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                if s.recv(64).startswith(b"HTTP/1.1 200"):
                    return server
        except OSError:
            pass
        time.sleep(0.1)
    stop(server)
    raise SystemExit("chat-shipped: the server did not start")


def sign_up(client, group, index):
    """A new account (anonymous sign-up, a real ID token) and its profile, written by the member."""
    account = client.call("POST", f"/identitytoolkit.googleapis.com/v1/accounts:signUp?key={API_KEY}",
                          {"returnSecureToken": True})
    uid, token = account["localId"], account["idToken"]
    client.call("PUT", f"/users/{uid}.json?auth={token}",
                {"displayName": f"Member {group}-{index}", "createdAt": {".sv": "timestamp"}})
    return uid, token


def make_groups(client, members, groups, threads, one_chat=False):
    """`groups` groups of `members` members each; returns [(chatId, sender uid, sender token, last
    member's uid)]. `one_chat`: one group of `members`, its first `groups` members sending."""
    if one_chat:
        with concurrent.futures.ThreadPoolExecutor(threads) as pool:
            row = [f.result() for f in [pool.submit(sign_up, client, 0, i) for i in range(members)]]
        chat = create_groups(client, [row], "Bench group")[0][0]
        return [(chat, uid, token, row[-1][0]) for uid, token in row[:groups]]
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        futures = [[pool.submit(sign_up, client, g, i) for i in range(members)] for g in range(groups)]
        accounts = [[f.result() for f in row] for row in futures]
    return [sender + (row[-1][0],) for sender, row in zip(create_groups(client, accounts, "Bench group"), accounts)]


def create_groups(client, accounts, label):
    """One group per row of [(uid, token)], created by its first account with the others;
    returns [(chatId, sender uid, sender token)]."""
    senders = []
    for g, row in enumerate(accounts):
        (uid, token), others = row[0], [u for u, _ in row[1:]]
        result = client.call("POST", "/functions/createGroup",
                             {"data": {"name": f"{label} {g}", "participants": others}},
                             {"Authorization": f"Bearer {token}"})
        senders.append((result["result"]["chatId"], uid, token))
    return senders


def open_chats(client, senders, count):
    """Each group as a chat its members opened: `count` messages from its sender (REST, as the
    load sends them), then the messages read ordered by `sentAt` (the shipped rules' index), as a
    client showing the chat asks. Past `smallListLimit` (128) children the list then keeps index
    entries (decision 0024), and every later message writes its entry. Returns the messages sent."""
    sent = 0
    for chat, uid, token in {(s[0], s[1], s[2]) for s in senders}:
        for _ in range(count):
            client.call("POST", f"/messages/{chat}.json?auth={token}",
                        {"sender": uid, "kind": "text", "text": "Hello from the chat benchmark",
                         "sentAt": {".sv": "timestamp"}})
            sent += 1
        client.call("GET", f'/messages/{chat}.json?orderBy=%22sentAt%22&limitToLast=20&auth={token}')
    time.sleep(1)  # the writer builds the lists' entries in jobs of their own
    return sent


def verify(client, senders, acked):
    """Every group holds the messages acknowledged, and its last member's unread total counts them."""
    stored = unread = 0
    for chat, _, _, last in {(s[0], 0, 0, s[3]) for s in senders}:
        keys = client.call("GET", f"/messages/{chat}.json?shallow=true&auth={ADMIN}") or {}
        stored += len(keys)
        unread += client.call("GET", f"/unreadTotals/{last}.json?auth={ADMIN}") or 0
    return {"acked": acked, "stored": stored, "unread_totals": unread,
            "verified": stored == acked and unread == acked}


def hearth_run(args, load, transport, members):
    directory = tempfile.mkdtemp(prefix="chat-shipped-")
    try:
        return measure(args, load, transport, members, directory)
    except BaseException:
        log_path = os.path.join(directory, "server.log")
        if os.path.exists(log_path):
            with open(log_path, "rb") as f:
                log("the server's last log lines:\n" + f.read()[-2000:].decode(errors="replace"))
        raise
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def measure(args, load, transport, members, directory):
    """One Hearth run in `directory`: a fresh server, its members and groups, the load, the check."""
    port = args.port or free_port()
    server = start_server(args, directory, port)
    try:
        client = Client(port)
        t0 = time.monotonic()
        senders = make_groups(client, members, args.senders, args.setup_threads, args.one_chat)
        setup_s = time.monotonic() - t0
        sender_file = os.path.join(directory, "senders.txt")
        with open(sender_file, "w") as f:
            for chat, uid, token, _ in senders:
                f.write(f"{chat} {uid} {token}\n")
        seeded = open_chats(client, senders, args.opened) if args.opened else 0
        time.sleep(args.settle)
        load_avg = os.getloadavg()[0]
        command = [load, "--mode", transport, "--senders", sender_file, "--port", str(port),
                   "--duration", str(args.duration), "--warmup", str(args.warmup), "--server-pid", str(server.pid)]
        perf = None
        if args.perf_dir:  # a profile of the measured window; its overhead makes the run's figures unfit to report
            name = os.path.join(args.perf_dir, f"{transport}-{members}-{time.strftime('%H%M%S')}.data")
            perf = threading.Timer(args.warmup, subprocess.run, [[
                "perf", "record", "-F", "499", "-g", "-o", name, "-p", str(server.pid), "--", "sleep",
                str(args.duration)]], {"capture_output": True, "timeout": args.duration + 60})
            perf.start()
        out = subprocess.run(command, capture_output=True, text=True, timeout=args.duration + args.warmup + 90)
        if perf:
            perf.join()
        if out.stderr:
            sys.stderr.write(out.stderr)
        if out.returncode != 0:
            raise SystemExit(f"chat-shipped: chat-load exited {out.returncode}")
        result = json.loads(out.stdout)
        result.update(verify(client, senders, result["acked_total"] + seeded))
        result["seeded_messages"] = seeded
        result["setup_s"] = round(setup_s, 1)
        result["load_avg_1m"] = round(load_avg, 2)
    finally:
        stop(server)
    if args.chat_check:
        check = subprocess.run([args.hearth, "chat", "check", "--data", os.path.join(directory, "data")],
                               capture_output=True, text=True, timeout=300)
        result["chat_check"] = "clean" if check.returncode == 0 else (check.stdout + check.stderr)[-500:]
    return result


def anchor_run(args, anchor, members):
    directory = tempfile.mkdtemp(prefix="chat-shipped-anchor-")
    try:
        out = subprocess.run([anchor, os.path.join(directory, "db"), "--members", str(members), "--rmw", "1",
                              "--seconds", str(args.duration)],
                             capture_output=True, text=True, timeout=args.duration + 60, check=True)
        return json.loads(out.stdout)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def median(values):
    return statistics.median(values) if values else None


def summarize(runs, anchors):
    rates = [r["messages_per_s"] for r in runs]
    cpu = [r.get("server_cpu_ms_per_msg") for r in runs if r.get("server_cpu_ms_per_msg") is not None]
    anchor = median(anchors)
    return {
        "messages_per_s": rates,
        "median_messages_per_s": median(rates),
        "anchor_median_messages_per_s": anchor,
        "ratio_of_medians": round(median(rates) / anchor, 3) if anchor else None,
        "ratio_per_pair": [round(r / a, 3) for r, a in zip(rates, anchors)],
        "server_cpu_ms_per_msg": cpu,
        "median_server_cpu_ms_per_msg": median(cpu),
        "median_server_cores": median([r.get("server_cores", 0) for r in runs]),
        "median_server_sys_share": median([round(r["server_sys_s"] / r["server_cpu_s"], 3)
                                           for r in runs if r.get("server_cpu_s")]),
        "median_client_cpu_s": median([r["client_cpu_s"] for r in runs]),
        # the server's busiest threads in each run's window, CPU seconds (names as the kernel shows them)
        "server_threads": [[f'{t["name"]}:{t["cpu_s"]}' for t in r.get("server_threads", [])[:4]] for r in runs],
        "median_p50_ms": median([r["p50_ms"] for r in runs]),
        "median_p99_ms": median([r["p99_ms"] for r in runs]),
        "errors": sum(r["errors"] for r in runs),
        "verified": all(r["verified"] for r in runs),
        "chat_check": sorted({r["chat_check"] for r in runs if "chat_check" in r}) or None,
        "load_avg_1m": [r["load_avg_1m"] for r in runs],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hearth", required=True, help="the release `hearth` binary")
    parser.add_argument("--pairs", type=int, default=3, help="rounds of anchor, then Hearth per transport")
    parser.add_argument("--members", default="10,100,500")
    parser.add_argument("--transports", default="rest,ws")
    parser.add_argument("--senders", type=int, default=4, help="groups, one sender each")
    parser.add_argument("--one-chat", action="store_true",
                        help="one group instead, whose first --senders members send (its counters are hot keys)")
    parser.add_argument("--duration", type=float, default=5)
    parser.add_argument("--warmup", type=float, default=2)
    parser.add_argument("--settle", type=float, default=1, help="seconds of quiet between setup and load")
    parser.add_argument("--port", type=int, default=0, help="default: a free one")
    parser.add_argument("--rules", default=os.path.join(REPO, "rules", "database.rules.json"))
    parser.add_argument("--seed", default=os.path.join(REPO, "seed", "fireside.json"))
    parser.add_argument("--anchor-source",
                        default=os.path.join(REPO, "..", "shared", "anchors", "leveldb-fanout", "fanout.c"))
    parser.add_argument("--setup-threads", type=int, default=8)
    parser.add_argument("--opened", type=int, default=0, metavar="N",
                        help="before the load, N messages into each group and an ordered read of them "
                             "(orderBy sentAt), as a client opening the chat: past 128 the list keeps index "
                             "entries (0: none, the groups as created)")
    parser.add_argument("--chat-check", action="store_true", help="`hearth chat check` after each run")
    parser.add_argument("--keep-going", action="store_true", help="go on after a run fails its check")
    parser.add_argument("--perf-dir", help="record `perf record -g` of the server's measured window into this "
                        "directory (slows the server: for finding where time goes, not for figures)")
    args = parser.parse_args()
    members = [int(m) for m in args.members.split(",")]
    transports = args.transports.split(",")
    if not 1 <= args.pairs <= 20 or args.duration > 120 or args.warmup > 60 or args.senders > 64:
        raise SystemExit("chat-shipped: --pairs 1-20, --duration <= 120, --warmup <= 60, --senders <= 64")
    if any(not 3 <= m <= 501 for m in members):
        raise SystemExit("chat-shipped: --members from 3 to 501 (createGroup takes at most 500 participants)")
    args.hearth = os.path.abspath(args.hearth)
    if args.perf_dir:
        os.makedirs(args.perf_dir, exist_ok=True)

    tools = tempfile.mkdtemp(prefix="chat-shipped-tools-")
    try:
        load = build(tools)
        anchor = build_anchor(tools, args.anchor_source)
        runs = {(t, m): [] for t in transports for m in members}
        anchors = {m: [] for m in members}
        for pair in range(args.pairs):
            order = transports if pair % 2 == 0 else list(reversed(transports))
            for m in members:
                a = anchor_run(args, anchor, m)
                anchors[m].append(a["messages_per_s"])
                log(f"pair {pair + 1} members {m}: leveldb-fanout {a['messages_per_s']:.0f}/s")
                for t in order:
                    r = hearth_run(args, load, t, m)
                    runs[(t, m)].append(r)
                    log(f"pair {pair + 1} members {m} {t}: {r['messages_per_s']:.0f}/s, "
                        f"{r.get('server_cpu_ms_per_msg', 0):.3f} ms server CPU/msg, errors {r['errors']}, "
                        f"verified {r['verified']} (setup {r['setup_s']} s)")
                    if not r["verified"] and not args.keep_going:
                        raise SystemExit(f"chat-shipped: the run failed its check: {json.dumps(r)}")
    finally:
        shutil.rmtree(tools, ignore_errors=True)

    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    report = {
        "benchmark": "chat-shipped",
        "date": datetime.date.today().isoformat(),
        "commit": commit.stdout.strip(),
        "hearth": args.hearth,
        "pairs": args.pairs, "senders": args.senders, "duration_s": args.duration, "warmup_s": args.warmup,
        "opened": args.opened,
        "anchor": {str(m): {"messages_per_s": anchors[m], "median": median(anchors[m])} for m in members},
        "results": {t: {str(m): summarize(runs[(t, m)], anchors[m]) for m in members} for t in transports},
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
