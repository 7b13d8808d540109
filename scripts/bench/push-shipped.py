#!/usr/bin/env python3
"""Message throughput with push notifications on, as users run Hearth: prints one JSON object.

The shipped configuration of `chat-shipped.py` (the repository's rules with their chat-list
indexes and `seed/fireside.json` in the default database, signed-in members, the lean C client
`chat-load.c` with one request in flight per sender, each sender in a 100-member group of its
own), run alternately without a push provider ("off") and with `--push-webhook` to the lean C
receiver `push-receiver.c` ("on"). In each group the first 50 members are `online` (an admin
write of their presence) and the other 50 registered two devices each themselves (`set` of
`devices/$uid/$deviceId` with their own ID token, as an app does): every message makes 100
pushes. After an "on" run it waits for the queue to drain (`GET /.settings/push.json`) and checks
that every push was received once: as many distinct ids as 100 x the messages stored.

    python3 scripts/bench/push-shipped.py --hearth .build/release/hearth --pairs 3 --transport ws

Loopback only; each server is stopped and its directory removed; every wait is bounded.
"""
import argparse, concurrent.futures, importlib.util, json, os, shutil, statistics, subprocess, sys, tempfile, time

from benchproc import free_port, stop

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("chat_shipped", os.path.join(HERE, "chat-shipped.py"))
shipped = importlib.util.module_from_spec(spec)
spec.loader.exec_module(shipped)
ADMIN = shipped.ADMIN
MEMBERS, ONLINE = 100, 50


def register_device(client, uid, token, device):
    client.call("PUT", f"/devices/{uid}/{device}.json?auth={token}",
                {"token": f"t-{uid}-{device}", "platform": "fcm", "updatedAt": {".sv": "timestamp"}})


def make_groups(client, groups, threads):
    """Each group: MEMBERS accounts, the first its sender; members 1..ONLINE-1 and the sender
    online, the rest with two devices each. Returns [(chatId, sender uid, sender token)]."""
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        rows = [[pool.submit(shipped.sign_up, client, g, i) for i in range(MEMBERS)] for g in range(groups)]
        accounts = [[f.result() for f in row] for row in rows]
        devices = [pool.submit(register_device, client, uid, token, device)
                   for row in accounts for uid, token in row[ONLINE:] for device in ("phone", "tablet")]
        for f in devices:
            f.result()
    presence = {f"presence/{uid}": {"state": "online", "lastChanged": 1}
                for row in accounts for uid, _ in row[:ONLINE]}
    client.call("PATCH", f"/.json?auth={ADMIN}", presence)
    return shipped.create_groups(client, accounts, "Push group")


def run(args, tools, mode):
    directory = tempfile.mkdtemp(prefix=f"push-shipped-{mode}-")
    receiver = None
    try:
        webhook = None
        if mode == "on":
            receiver = subprocess.Popen(
                [tools["receiver"], "--port", "0", "--ids", os.path.join(directory, "ids.txt"), "--seconds",
                 str(int(args.duration + args.warmup + args.drain_timeout + 300))],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            webhook = f"http://127.0.0.1:{receiver.stdout.readline().split()[1]}/push"
        port = free_port()
        server = shipped.start_server(args, directory, port, ["--push-webhook", webhook] if webhook else [])
        client = shipped.Client(port)
        try:
            senders = make_groups(client, args.senders, args.setup_threads)
            sender_file = os.path.join(directory, "senders.txt")
            with open(sender_file, "w") as f:
                for chat, uid, token in senders:
                    f.write(f"{chat} {uid} {token}\n")
            time.sleep(args.settle)
            out = subprocess.run([tools["load"], "--mode", args.transport, "--senders", sender_file, "--port",
                                  str(port), "--duration", str(args.duration), "--warmup", str(args.warmup),
                                  "--server-pid", str(server.pid)],
                                 capture_output=True, text=True, timeout=args.duration + args.warmup + 90)
            if out.returncode != 0:
                raise SystemExit(f"push-shipped: chat-load exited {out.returncode}: {out.stderr[-500:]}")
            result = json.loads(out.stdout)
            run = {"messages_per_s": result["messages_per_s"], "errors": result.get("errors"),
                   "server_cpu_ms_per_message": result.get("server_cpu_ms_per_msg")}
            if mode == "on":
                ended = time.monotonic()
                stored = sum(len(client.call("GET", f"/messages/{chat}.json?shallow=true&auth={ADMIN}") or {})
                             for chat, _, _ in senders)
                queue = {}
                while time.monotonic() < ended + args.drain_timeout:
                    queue = client.call("GET", f"/.settings/push.json?auth={ADMIN}")["namespaces"].get("default", {})
                    if queue.get("queued", 1) == 0 and queue.get("intents", 1) == 0:
                        break
                    time.sleep(0.5)
                run["drain_s"] = round(time.monotonic() - ended, 1)
        finally:
            stop(server)
        if mode == "on":
            stop(receiver)
            with open(os.path.join(directory, "ids.txt")) as f:
                ids = [line.strip() for line in f if line.strip()]
            run.update({"messages": stored, "pushes_expected": stored * 2 * (MEMBERS - ONLINE),
                        "pushes_received": len(ids), "duplicates": len(ids) - len(set(ids))})
            run["every_push_once"] = run["pushes_received"] == len(set(ids)) == run["pushes_expected"]
        return run
    finally:
        if receiver and receiver.poll() is None:
            stop(receiver)
        shutil.rmtree(directory, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hearth", required=True)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--transport", default="ws", choices=["rest", "ws"])
    parser.add_argument("--senders", type=int, default=4, help="groups, one sender each")
    parser.add_argument("--duration", type=float, default=5)
    parser.add_argument("--warmup", type=float, default=2)
    parser.add_argument("--settle", type=float, default=1)
    parser.add_argument("--drain-timeout", type=float, default=600)
    parser.add_argument("--setup-threads", type=int, default=8)
    parser.add_argument("--rules", default=os.path.join(shipped.REPO, "rules", "database.rules.json"))
    parser.add_argument("--seed", default=os.path.join(shipped.REPO, "seed", "fireside.json"))
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="push-shipped-tools-")
    try:
        tools = {"load": shipped.build(work), "receiver": os.path.join(work, "push-receiver")}
        subprocess.run(["cc", "-O2", "-o", tools["receiver"], os.path.join(HERE, "push-receiver.c")], check=True)
        runs = {"off": [], "on": []}
        for pair in range(args.pairs):
            for mode in ("off", "on") if pair % 2 == 0 else ("on", "off"):
                runs[mode].append(run(args, tools, mode))
                print(f"push-shipped: {mode} {runs[mode][-1]}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    off = statistics.median(r["messages_per_s"] for r in runs["off"])
    on = statistics.median(r["messages_per_s"] for r in runs["on"])
    print(json.dumps({"scenario": f"shipped configuration, {args.senders} senders each in a {MEMBERS}-member group "
                                  f"({ONLINE} online, {MEMBERS - ONLINE} offline x 2 devices), {args.transport}, "
                                  f"{args.duration} s", "runs": runs, "median_off": off, "median_on": on,
                      "ratio": round(on / off, 3),
                      "every_push_once": all(r["every_push_once"] for r in runs["on"])}, indent=2))


if __name__ == "__main__":
    main()
