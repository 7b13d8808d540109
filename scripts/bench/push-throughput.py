#!/usr/bin/env python3
"""Message throughput with push notifications on: prints one JSON object.

Alternates two configurations of the same release binary, --pairs times each: `hearth serve`
without a push provider ("off"), and with `--push-webhook` to a lean C receiver
(`push-receiver.c`, compiled here; "on"). Each run starts a fresh server (shipped rules,
`--chat-ns bench`), marks members u000-u049 online and gives u050-u099 two devices each (admin
writes of `presence` and `devices`), then runs `hearth-bench --scenario chat-messages`
(100-member group, WebSocket, --connections closed loops): every message queues one push for
each of the 50 offline members' 2 devices, 100 pushes a message. After an "on" run it waits
until the queue drained (`GET /.settings/push.json`) and checks every push was delivered once:
the receiver's ids are distinct, and their number is 100 x the messages in the group.

Reported: each run's messages/s, the medians and their ratio (target >= 0.85), and for "on" runs
the pushes expected and received, duplicates, and how long the queue took to drain after the
load stopped.

    python3 scripts/bench/push-throughput.py --hearth .build/release/hearth \\
        --bench .build/release/hearth-bench

Loopback only; each server is stopped and its directory removed; every wait is bounded.
"""
import argparse, json, os, shutil, statistics, subprocess, tempfile, time
import urllib.request

from benchproc import stop

HERE = os.path.dirname(os.path.abspath(__file__))
ADMIN, JWT = "push-throughput-admin", "push-throughput-jwt-secret"


def request(method, url, body=None, timeout=30):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    with urllib.request.urlopen(req, timeout=timeout) as reply:
        return json.loads(reply.read() or b"null")


def start_server(args, directory, webhook):
    command = [args.hearth, "serve", "--port", str(args.port), "--data", f"{directory}/data",
               "--rules", f"{directory}/rules/database.rules.json", "--seed", f"{directory}/empty.json",
               "--admin-secret", ADMIN, "--jwt-secret", JWT, "--chat-ns", "bench", "--log-level", "warning"]
    if webhook:
        command += ["--push-webhook", webhook]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{args.port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(f"{base}/.well-known/hearth/health", timeout=1)
            return server, base
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("the server did not start")


def seed(base):
    """Members u000-u049 online, u050-u099 with two devices each (the bench's user ids)."""
    update = {}
    for n in range(50):
        update[f"presence/u{n:03d}"] = {"state": "online", "lastChanged": 1}
    for n in range(50, 100):
        for device in ("phone", "tablet"):
            update[f"devices/u{n:03d}/{device}"] = {"token": f"t-u{n:03d}-{device}", "platform": "fcm",
                                                     "updatedAt": 1}
    request("PATCH", f"{base}/.json?ns=bench&auth={ADMIN}", update)


def run_bench(args, base):
    done = subprocess.run(
        [args.bench, "--url", base, "--admin-secret", ADMIN, "--ns", "bench", "--scenario", "chat-messages",
         "--members", "100", "--fanout-via", "ws", "--fanout-connections", str(args.connections),
         "--duration", str(args.duration), "--warmup", "1"], capture_output=True, text=True, timeout=600)
    report = json.loads(done.stdout[done.stdout.index("{"):])
    return report["chat_messages"]["runs"][0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hearth", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--port", type=int, default=9340)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--duration", type=float, default=5)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--drain-timeout", type=float, default=600)
    parser.add_argument("--receiver-nice", type=int, default=0)
    args = parser.parse_args()
    repository = os.path.dirname(os.path.dirname(HERE))
    work = tempfile.mkdtemp(prefix="hearth-push-throughput-")
    receiver_bin = f"{work}/push-receiver"
    subprocess.run(["cc", "-O2", "-o", receiver_bin, f"{HERE}/push-receiver.c"], check=True)
    rates = {"off": [], "on": []}
    deliveries = []
    try:
        for pair in range(args.pairs):
            for mode in ("off", "on") if pair % 2 == 0 else ("on", "off"):
                directory = tempfile.mkdtemp(prefix=f"run-{mode}-", dir=work)
                os.makedirs(f"{directory}/rules")
                shutil.copy(f"{repository}/rules/database.rules.json", f"{directory}/rules/")
                with open(f"{directory}/empty.json", "w") as empty:
                    empty.write("{}")
                receiver = None
                webhook = None
                if mode == "on":
                    receiver = subprocess.Popen(
                        [receiver_bin, "--port", "0", "--ids", f"{directory}/ids.txt", "--seconds",
                         str(int(args.duration + args.drain_timeout + 120)), "--nice", str(args.receiver_nice)],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                    webhook = f"http://127.0.0.1:{receiver.stdout.readline().split()[1]}/push"
                server, base = start_server(args, directory, webhook)
                try:
                    seed(base)
                    run = run_bench(args, base)
                    rates[mode].append(run["messages_per_s"])
                    if mode == "on":
                        ended = time.time()
                        chat = run["chat"]
                        messages = len(request("GET", f"{base}/messages/{chat}.json?ns=bench&shallow=true&auth={ADMIN}")
                                       or {})
                        deadline = ended + args.drain_timeout
                        while time.time() < deadline:
                            figures = request("GET", f"{base}/.settings/push.json?ns=bench&auth={ADMIN}")
                            queue = figures["namespaces"].get("bench", {})
                            if queue.get("queued", 1) == 0 and queue.get("intents", 1) == 0:
                                break
                            time.sleep(0.5)
                        drained = time.time() - ended
                        stop(server, timeout=30)
                        server = None
                        stop(receiver, timeout=30)
                        with open(f"{directory}/ids.txt") as file:
                            ids = [line.strip() for line in file if line.strip()]
                        deliveries.append({"messages": messages, "pushes_expected": messages * 100,
                                           "pushes_received": len(ids), "distinct": len(set(ids)),
                                           "duplicates": len(ids) - len(set(ids)),
                                           "drain_seconds_after_load": round(drained, 1),
                                           "queue": queue})
                finally:
                    if server:
                        stop(server, timeout=30)
                    if receiver and receiver.poll() is None:
                        stop(receiver, timeout=30)
                    shutil.rmtree(directory, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    off, on = statistics.median(rates["off"]), statistics.median(rates["on"])
    print(json.dumps({"scenario": f"chat-messages, 100 members (50 online, 50 offline x 2 devices), ws, "
                                  f"{args.connections} connections, {args.duration} s",
                      "messages_per_s": rates, "median_off": off, "median_on": on, "ratio": round(on / off, 3),
                      "receiver_nice": args.receiver_nice, "deliveries": deliveries,
                      "every_push_once": all(d["pushes_received"] == d["distinct"] == d["pushes_expected"]
                                             for d in deliveries)}, indent=2))


if __name__ == "__main__":
    main()
