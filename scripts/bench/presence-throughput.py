#!/usr/bin/env python3
"""Message throughput with presence on: prints one JSON object.

Starts a `hearth serve` of its own (release binary, shipped rules, `--chat-ns bench`, so `bench`
keeps presence) and runs `hearth-bench --scenario chat-messages` (100 members, WebSocket, 4
connections) alternately with no realtime client connected and with --idle idle signed-in
WebSockets of as many users held open (presence-storm.py's client process; every one of them
`online`), --pairs times each. Reported: each run's messages/s, the medians and their ratio
(target ≥ 0.95).

    python3 scripts/bench/presence-throughput.py --hearth .build/release/hearth \\
        --bench .build/release/hearth-bench

Loopback only; the server is stopped and its directory removed at the end.
"""
import argparse, json, os, resource, shutil, signal, statistics, subprocess, sys, tempfile, time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ADMIN, JWT = "throughput-admin", "throughput-jwt-secret"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hearth", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--port", type=int, default=9330)
    parser.add_argument("--idle", type=int, default=1000)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--duration", type=float, default=5)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.idle * 2 + 1000)), hard))
    repository = os.path.dirname(os.path.dirname(HERE))
    directory = tempfile.mkdtemp(prefix="hearth-presence-throughput-")
    os.makedirs(f"{directory}/rules")
    shutil.copy(f"{repository}/rules/database.rules.json", f"{directory}/rules/")
    with open(f"{directory}/empty.json", "w") as seed:
        seed.write("{}")
    server = subprocess.Popen(
        [args.hearth, "serve", "--port", str(args.port), "--data", f"{directory}/data",
         "--rules", f"{directory}/rules/database.rules.json", "--seed", f"{directory}/empty.json",
         "--admin-secret", ADMIN, "--jwt-secret", JWT, "--chat-ns", "bench", "--log-level", "warning"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{args.port}"
    runs = {"none": [], "idle": []}
    online = []
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{base}/.well-known/hearth/health", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        for pair in range(args.pairs):
            for mode in ("none", "idle") if pair % 2 == 0 else ("idle", "none"):
                clients = None
                if mode == "idle":
                    clients = subprocess.Popen(
                        [sys.executable, f"{HERE}/presence-storm.py", "--client", "--port", str(args.port),
                         "--ns", "bench", "--conns", str(args.idle), "--users", str(args.idle),
                         "--jwt-secret", JWT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                    assert clients.stdout.readline().strip() == "ready", "the client process failed"
                    time.sleep(1)  # the online transitions are written before the measured run
                    with urllib.request.urlopen(f"{base}/presence.json?ns=bench&auth={ADMIN}", timeout=10) as reply:
                        entries = json.loads(reply.read()) or {}
                    online.append(sum(1 for e in entries.values() if e.get("state") == "online"))
                done = subprocess.run(
                    [args.bench, "--url", base, "--admin-secret", ADMIN, "--ns", "bench", "--scenario",
                     "chat-messages", "--members", "100", "--fanout-via", "ws", "--duration", str(args.duration),
                     "--warmup", "1"], capture_output=True, text=True, timeout=300)
                report = json.loads(done.stdout[done.stdout.index("{"):])
                runs[mode].append(report["chat_messages"]["runs"][0]["messages_per_s"])
                if clients:
                    clients.stdin.write("drop\n")
                    clients.stdin.flush()
                    clients.wait()
                    time.sleep(1)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(directory, ignore_errors=True)
    none, idle = statistics.median(runs["none"]), statistics.median(runs["idle"])
    print(json.dumps({"scenario": "chat-messages, 100 members, ws, 4 connections",
                      "idle_signed_in_clients": args.idle, "online_entries_seen": online,
                      "messages_per_s": runs, "median_none": none, "median_idle": idle,
                      "ratio": round(idle / none, 3)}, indent=2))


if __name__ == "__main__":
    main()
