#!/usr/bin/env python3
"""Two Hearth builds under the shipped chat message, in interleaved slices: prints one JSON object.

`chat-shipped.py` alternates whole runs (a fresh server, its setup, the load), each ~40 s apart:
on a shared box whose speed drifts by 2x within minutes, a change worth a few percent drowns.
Here both servers are set up once (the shipped rules and seed, --senders groups of --members
signed-in members each, as chat-shipped.py makes them), then `chat-load` drives them in turn,
--slice seconds each, in the order A B B A A B ..., for --slices slices each. A slice's figures
(messages/s, the server's CPU a message, its writer thread's CPU a message) are compared with
the other build's neighbouring slice: the ratio per pair and the ratio of the medians, B over A.

With --together both servers are driven at once in every slice (each by its own --senders), so
the box's speed is the same for both at every instant: compare CPU a message, not rates. Its
spread with one binary on both sides was 0.98-1.02x on a day the alternating slices spread 1.05x
and more (decision 0031); run it both ways round. --promote a|b|both reads the chats ordered by
`sentAt` on those servers after a first, uncounted slice, so that their message lists keep
index entries (decision 0024), as a chat a client opened does.

    flock /tmp/bench.lock python3 scripts/bench/chat-ab.py --a /tmp/hearth-before --b .build/release/hearth --together

Loopback only; both servers are stopped (SIGTERM) and their directories removed; every wait is
bounded. At the end every group holds exactly the messages acknowledged to it (the check of
chat-shipped.py), on both servers.
"""
import argparse
import copy
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
_spec = importlib.util.spec_from_file_location("chat_shipped", os.path.join(HERE, "chat-shipped.py"))
shipped = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(shipped)


def log(*parts):
    print("chat-ab:", *parts, file=sys.stderr, flush=True)


class Subject:
    """One build's server, set up and waiting for load."""

    def __init__(self, label, binary, args, load):
        self.label = label
        self.args = copy.copy(args)
        self.args.hearth = binary
        self.load = load
        self.directory = tempfile.mkdtemp(prefix=f"chat-ab-{label}-")
        self.port = shipped.free_port()
        self.server = shipped.start_server(self.args, self.directory, self.port)
        self.senders = shipped.make_groups(shipped.Client(self.port), args.members, args.senders, args.setup_threads)
        self.sender_file = os.path.join(self.directory, "senders.txt")
        with open(self.sender_file, "w") as f:
            for chat, uid, token, _ in self.senders:
                f.write(f"{chat} {uid} {token}\n")
        self.acked = 0
        self.slices = []

    def start(self, transport, seconds, warmup):
        command = [self.load, "--mode", transport, "--senders", self.sender_file, "--port", str(self.port),
                   "--duration", str(seconds), "--warmup", str(warmup), "--server-pid", str(self.server.pid)]
        self.running = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.deadline = seconds + warmup + 90

    def collect(self, seconds):
        try:
            stdout, stderr = self.running.communicate(timeout=self.deadline)
        except subprocess.TimeoutExpired:
            self.running.kill()
            raise SystemExit(f"chat-ab: chat-load did not end against {self.label}")
        if self.running.returncode != 0:
            raise SystemExit(f"chat-ab: chat-load exited {self.running.returncode} against {self.label}: {stderr[-500:]}")
        result = json.loads(stdout)
        self.acked += result["acked_total"]
        messages = result["messages_per_s"] * seconds
        writer = max((t["cpu_s"] for t in result.get("server_threads", []) if t["name"] == "hearth-writer"),
                     default=None)
        self.slices.append({
            "messages_per_s": result["messages_per_s"],
            "server_cpu_ms_per_msg": result.get("server_cpu_ms_per_msg"),
            "writer_cpu_ms_per_msg": round(1000 * writer / messages, 4) if writer and messages else None,
            "errors": result["errors"],
        })

    def slice(self, transport, seconds, warmup):
        self.start(transport, seconds, warmup)
        self.collect(seconds)

    def promote_chats(self):
        """An ordered query of each group's messages (`orderBy="sentAt"`, as the shipped rules'
        index serves): a list past `smallListLimit` children then keeps index entries
        (decision 0024), and every later message writes its entry."""
        client = shipped.Client(self.port)
        for chat in {s[0] for s in self.senders}:
            client.call("GET", f'/messages/{chat}.json?orderBy=%22sentAt%22&limitToLast=1&auth={shipped.ADMIN}')

    def finish(self):
        try:
            # A fresh connection: the setup's has idled past the server's keep-alive timeout.
            return shipped.verify(shipped.Client(self.port), self.senders, self.acked)
        finally:
            shipped.stop(self.server)
            shutil.rmtree(self.directory, ignore_errors=True)


def ratios(a, b, key):
    pairs = [y[key] / x[key] for x, y in zip(a, b) if x.get(key) and y.get(key)]
    values_a = [x[key] for x in a if x.get(key)]
    values_b = [y[key] for y in b if y.get(key)]
    return {
        "a": values_a,
        "b": values_b,
        "median_a": statistics.median(values_a) if values_a else None,
        "median_b": statistics.median(values_b) if values_b else None,
        "ratio_of_medians": round(statistics.median(values_b) / statistics.median(values_a), 4)
        if values_a and values_b else None,
        "median_pair_ratio": round(statistics.median(pairs), 4) if pairs else None,
        "pairs_for_b": sum(1 for p in pairs if (p > 1) == (key == "messages_per_s")),
        "pairs": len(pairs),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a", required=True, help="the release `hearth` binary to compare against")
    parser.add_argument("--b", required=True, help="the release `hearth` binary under test")
    parser.add_argument("--members", type=int, default=100)
    parser.add_argument("--senders", type=int, default=4, help="groups, one sender each")
    parser.add_argument("--transport", choices=["ws", "rest"], default="ws")
    parser.add_argument("--slices", type=int, default=12, help="slices per build")
    parser.add_argument("--slice", type=float, default=3, help="measured seconds per slice")
    parser.add_argument("--warmup", type=float, default=1, help="seconds before each slice's window")
    parser.add_argument("--together", action="store_true",
                        help="drive both servers at once in each slice (each gets --senders senders): the box's "
                             "speed is then the same for both at every instant; compare CPU a message, not rates")
    parser.add_argument("--promote", choices=["none", "a", "b", "both"], default="none",
                        help="after a first, uncounted slice, query the chats' messages ordered by sentAt on "
                             "these servers, so that their message lists keep index entries (as a chat a client "
                             "opened does)")
    parser.add_argument("--rules", default=os.path.join(shipped.REPO, "rules", "database.rules.json"))
    parser.add_argument("--seed", default=os.path.join(shipped.REPO, "seed", "fireside.json"))
    parser.add_argument("--setup-threads", type=int, default=8)
    args = parser.parse_args()
    args.port = 0
    out = tempfile.mkdtemp(prefix="chat-ab-build-")
    subjects = []
    try:
        load = shipped.build(out)
        subjects = [Subject("a", args.a, args, load), Subject("b", args.b, args, load)]
        a, b = subjects
        for index in range(args.slices):
            if args.together:
                for subject in (a, b) if index % 2 == 0 else (b, a):
                    subject.start(args.transport, args.slice, args.warmup)
                for subject in (a, b):
                    subject.collect(args.slice)
            else:
                for subject in (a, b) if index % 2 == 0 else (b, a):
                    subject.slice(args.transport, args.slice, args.warmup)
            if index == 0 and args.promote != "none":
                # The first slice filled the chats past the limit; it is not counted.
                for subject in subjects:
                    subject.slices.clear()
                    if args.promote in (subject.label, "both"):
                        subject.promote_chats()
                time.sleep(2)
                continue
            log(f"slice {index + 1}: a {a.slices[-1]['messages_per_s']:.0f}/s "
                f"{a.slices[-1]['writer_cpu_ms_per_msg']} ms, b {b.slices[-1]['messages_per_s']:.0f}/s "
                f"{b.slices[-1]['writer_cpu_ms_per_msg']} ms (writer CPU a message)")
        checks = {s.label: s.finish() for s in subjects}
        subjects = []
        print(json.dumps({
            "a": args.a,
            "b": args.b,
            "transport": args.transport,
            "members": args.members,
            "senders": args.senders,
            "slice_s": args.slice,
            "together": args.together,
            "promote": args.promote,
            "messages_per_s": ratios(a.slices, b.slices, "messages_per_s"),
            "writer_cpu_ms_per_msg": ratios(a.slices, b.slices, "writer_cpu_ms_per_msg"),
            "server_cpu_ms_per_msg": ratios(a.slices, b.slices, "server_cpu_ms_per_msg"),
            "errors": sum(s["errors"] for s in a.slices + b.slices),
            "checks": checks,
        }, indent=2))
    finally:
        for subject in subjects:
            shipped.stop(subject.server)
            shutil.rmtree(subject.directory, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
