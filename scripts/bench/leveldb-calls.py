#!/usr/bin/env python3
"""LevelDB calls a chat message costs the server, counted: prints one JSON object.

Runs `chat-shipped.py` (one Hearth run, --members, --transports one of rest|ws, 4 senders) and,
over --window seconds of its measured load, counts the server's calls into libleveldb with
`perf stat` on uprobes: iterators made (`leveldb_create_iterator`), seeks (`leveldb_iter_seek`),
point reads (`leveldb_get`) and batch writes (`leveldb_write`). Each count is divided by the
messages acknowledged in the same window (the run's rate times the window). Counts, unlike
times, do not move with the machine's load: what a change takes out of the write path shows
here even when throughput alternations drown in noise (decisions 0011 and 0025).

Needs `perf` and root (uprobes); the probes are added once and left (`perf probe -d
'probe_libleveldb:*'` removes them).

    python3 scripts/bench/leveldb-calls.py --hearth .build/release/hearth --transport ws

Loopback only; the run is chat-shipped.py's, bounded as it is.
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CALLS = ["leveldb_create_iterator", "leveldb_iter_seek", "leveldb_get", "leveldb_write"]


def library():
    out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "libleveldb.so" in line and "=>" in line:
            return os.path.realpath(line.split("=>")[1].strip())
    raise SystemExit("leveldb-calls: libleveldb.so not found (apt-get install libleveldb-dev)")


def add_probes(lib):
    listed = subprocess.run(["perf", "probe", "-l"], capture_output=True, text=True).stdout
    for call in CALLS:
        if f"probe_libleveldb:{call} " not in listed:
            subprocess.run(["perf", "probe", "-x", lib, "-a", call], capture_output=True, check=True)


def find_server(hearth, deadline):
    """The pid of `hearth serve` once chat-load runs against it."""
    while time.monotonic() < deadline:
        loads, servers = [], []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                command = open(f"/proc/{pid}/cmdline").read().split("\0")
            except OSError:
                continue
            if command and command[0].endswith("chat-load"):
                loads.append(pid)
            if command[:2] == [hearth, "serve"]:
                servers.append(pid)
        if loads and servers:
            return servers[0]
        time.sleep(0.2)
    raise SystemExit("leveldb-calls: the load never started")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hearth", required=True, help="the release `hearth` binary")
    parser.add_argument("--transport", default="ws", choices=["ws", "rest"])
    parser.add_argument("--members", type=int, default=100)
    parser.add_argument("--window", type=float, default=8, help="seconds counted, inside the measured load")
    args = parser.parse_args()
    hearth = os.path.abspath(args.hearth)
    add_probes(library())
    warmup, lead = 2, 2
    duration = args.window + 2 * lead
    bench = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "chat-shipped.py"), "--hearth", hearth, "--pairs", "1",
         "--members", str(args.members), "--transports", args.transport, "--senders", "4",
         "--duration", str(duration), "--warmup", str(warmup)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    output = {}
    reader = threading.Thread(target=lambda: output.update(out=bench.communicate(timeout=duration + 900)[0]))
    reader.start()
    server = find_server(hearth, time.monotonic() + 900)
    time.sleep(warmup + lead)
    events = ",".join(f"probe_libleveldb:{call}" for call in CALLS)
    stat = subprocess.run(["perf", "stat", "-x", ",", "-e", events, "-p", server, "--", "sleep", str(args.window)],
                          capture_output=True, text=True, timeout=args.window + 60)
    reader.join()
    if bench.returncode != 0:
        raise SystemExit(f"leveldb-calls: chat-shipped.py exited {bench.returncode}")
    run = json.loads(output["out"].strip().splitlines()[-1])
    result = run["results"][args.transport][str(args.members)]
    rate = result["messages_per_s"][0]
    counts = {}
    for line in stat.stderr.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2].startswith("probe_libleveldb:") and fields[0].isdigit():
            counts[fields[2].split(":")[1]] = int(fields[0])
    if len(counts) != len(CALLS):
        raise SystemExit(f"leveldb-calls: perf stat counted nothing: {stat.stderr.strip()[-300:]}")
    messages = rate * args.window
    print(json.dumps({
        "benchmark": "leveldb-calls",
        "commit": run.get("commit"),
        "transport": args.transport,
        "members": args.members,
        "messages_per_s": rate,
        "verified": result["verified"],
        "window_s": args.window,
        "calls": counts,
        "calls_per_message": {call: round(count / messages, 2) for call, count in counts.items()},
    }))


if __name__ == "__main__":
    main()
