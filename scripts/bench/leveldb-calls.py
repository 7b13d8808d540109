#!/usr/bin/env python3
"""LevelDB calls a chat message costs the server, counted: prints one JSON object.

Runs `chat-shipped.py` (one Hearth run, --members, --transports one of rest|ws, 4 senders) and,
over --window seconds of its measured load, counts the server's calls into libleveldb with
`perf stat` on uprobes: iterators made (`leveldb_create_iterator`), seeks (`leveldb_iter_seek`),
point reads (`leveldb_get`) and batch writes (`leveldb_write`). Each count is divided by the
messages acknowledged in the same window (the run's rate times the window). Counts, unlike
times, do not move with the machine's load: what a change takes out of the write path shows
here even when throughput alternations drown in noise (decisions 0011 and 0025).

With `--runtime`, it counts instead the server's heap allocations (`malloc`) and Swift's
reference counting (`swift_retain`, `swift_release`), divided by the messages the chat trigger
ran for in the same window (a probe on the binary's `MessageTrigger.updates(for:)`): those
probes slow the server several times over, so its rate is no denominator then. The counts are
the whole process's; at 100 members the writer makes nearly all of them.

Needs `perf` and root (uprobes); the probes are added once and left (`perf probe -d
'probe_libleveldb:*'` removes them; likewise `probe_libc:*`, `probe_libswiftCore:*` and
`probe_hearth_bench:*`, which is re-added for each binary).

    python3 scripts/bench/leveldb-calls.py --hearth .build/release/hearth --transport ws
    python3 scripts/bench/leveldb-calls.py --hearth .build/release/hearth --runtime

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


RUNTIME = [("probe_libc", "malloc"), ("probe_libswiftCore", "swift_retain"), ("probe_libswiftCore", "swift_release")]
MESSAGE_SYMBOL = "MessageTriggerV7updates3for"


def library(name="libleveldb.so"):
    out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if f"{name}" in line and "=>" in line:
            return os.path.realpath(line.split("=>")[1].strip())
    raise SystemExit(f"leveldb-calls: {name} not found (apt-get install libleveldb-dev)")


def add_probes(lib):
    listed = subprocess.run(["perf", "probe", "-l"], capture_output=True, text=True).stdout
    for call in CALLS:
        if f"probe_libleveldb:{call} " not in listed:
            subprocess.run(["perf", "probe", "-x", lib, "-a", call], capture_output=True, check=True)


def swift_core(hearth):
    for line in subprocess.run(["ldd", hearth], capture_output=True, text=True).stdout.splitlines():
        if "libswiftCore.so" in line and "=>" in line:
            return os.path.realpath(line.split("=>")[1].split("(")[0].strip())
    raise SystemExit("leveldb-calls: the binary links no libswiftCore.so")


def add_runtime_probes(hearth):
    """malloc, swift_retain, swift_release, and a probe counting the binary's chat messages."""
    listed = subprocess.run(["perf", "probe", "-l"], capture_output=True, text=True).stdout
    libraries = {"probe_libc": library("libc.so.6"), "probe_libswiftCore": swift_core(hearth)}
    for group, call in RUNTIME:
        if f"{group}:{call} " not in listed:
            subprocess.run(["perf", "probe", "-x", libraries[group], "-a", call], capture_output=True, check=True)
    symbols = subprocess.run(["nm", hearth], capture_output=True, text=True).stdout.splitlines()
    found = [f.split()[2] for f in symbols if len(f.split()) == 3 and f.split()[1] == "T"
             and MESSAGE_SYMBOL in f and f.endswith("TreeChangeV_tKF")]
    if not found:
        raise SystemExit("leveldb-calls: the binary has no MessageTrigger.updates(for:) symbol")
    subprocess.run(["perf", "probe", "-d", "probe_hearth_bench:*"], capture_output=True)
    subprocess.run(["perf", "probe", "-x", hearth, "-a", f"probe_hearth_bench:message={found[0]}"],
                   capture_output=True, check=True)


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
    parser.add_argument("--runtime", action="store_true",
                        help="count malloc, swift_retain and swift_release a chat message instead")
    args = parser.parse_args()
    hearth = os.path.abspath(args.hearth)
    if args.runtime:
        add_runtime_probes(hearth)
        probes = [f"{group}:{call}" for group, call in RUNTIME] + ["probe_hearth_bench:message"]
    else:
        add_probes(library())
        probes = [f"probe_libleveldb:{call}" for call in CALLS]
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
    events = ",".join(probes)
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
        if len(fields) > 2 and fields[2] in probes and fields[0].isdigit():
            counts[fields[2].split(":")[1]] = int(fields[0])
    if len(counts) != len(probes):
        raise SystemExit(f"leveldb-calls: perf stat counted nothing: {stat.stderr.strip()[-300:]}")
    messages = counts.pop("message") if args.runtime else rate * args.window
    if messages == 0:
        raise SystemExit("leveldb-calls: no chat message in the window")
    print(json.dumps({
        "benchmark": "leveldb-calls",
        "commit": run.get("commit"),
        "transport": args.transport,
        "members": args.members,
        "messages_per_s": rate,
        "verified": result["verified"],
        "window_s": args.window,
        "counted": "malloc, swift_retain, swift_release (whole process)" if args.runtime else "LevelDB calls",
        "messages_counted": round(messages),
        "calls": counts,
        "calls_per_message": {call: round(count / messages, 2) for call, count in counts.items()},
    }))


if __name__ == "__main__":
    main()
