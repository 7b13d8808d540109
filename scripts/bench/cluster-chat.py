#!/usr/bin/env python3
"""The chat message as shipped on a three-node cluster against a single node (issue 39's figure:
the cluster >= 0.5x of one node). Prints one JSON object.

The workload is chat-shipped.py's (its functions, imported): the repository's
`rules/database.rules.json` and `seed/fireside.json`, the `default` database, --senders (4) groups
of --members (100) signed-up members made with `createGroup`, and `chat-load`
(scripts/bench/chat-load.c) sending as each group's first member, one request in flight each, over
REST and over the WebSocket. Three kinds of server, each fresh per run:

  single   one `hearth serve`;
  owner    three `hearth serve --cluster postgresql://...` nodes over a private PostgreSQL (one
           database per run); node 0 takes `default` with the run's first request, and the
           sign-ups, the groups and the load go to node 0;
  relayed  the same, but the sign-ups, groups and load go to node 1, which forwards every request
           (and relays every WebSocket frame) to node 0.

Each node runs from the repository root (`rules/`, `seed/`) with the same admin and JWT secrets.
For each transport and pair the kinds run in rotating order (single, owner, relayed; then owner,
relayed, single; ...). After each run every group must hold exactly the messages acknowledged and a
member's `unreadTotals` must count them (read through the node the load went to). Per run it
records chat-load's figures (messages/s, latency, errors, the entry node's CPU per message) and,
over the same measured window, every node's CPU, the private PostgreSQL's (its process tree) and
the machine's busy share; the JSON gives each run, the medians, the ratios of the medians to the
single node, and CPU per message (the entry node's, the sum over the nodes, PostgreSQL's).

    flock /tmp/bench.lock python3 scripts/bench/cluster-chat.py --hearth .build/release/hearth --pairs 3
    # --members 100 --senders 4 --transports rest,ws --kinds single,owner,relayed
    # --duration 5 --warmup 2 (the defaults)

Loopback only; every process started here is stopped here (SIGTERM, by its PID) and every
temporary directory removed; every wait is bounded.
"""
import argparse
import datetime
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error

from benchproc import free_port, stop
from clusterproc import CpuWindow, Postgres, cluster_view, commit_of, request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
JWT = "cluster-chat-jwt-secret-0123456789abcdef"

_spec = importlib.util.spec_from_file_location("chat_shipped", os.path.join(HERE, "chat-shipped.py"))
chat = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(chat)
ADMIN = chat.ADMIN


def log(*parts):
    print("cluster-chat:", *parts, file=sys.stderr, flush=True)


def take_default(port):
    """The run's first request, to the node on `port`: it takes `default` (503 while it catches up)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            return request(port, "GET", "/.json?shallow=true", ADMIN, attempts=1)
        except urllib.error.HTTPError as error:
            if error.code != 503 or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def start_nodes(args, directory, kind, pg):
    """The run's servers: [(name, process, port)]; the first is the one `default` belongs to."""
    if kind == "single":
        os.makedirs(os.path.join(directory, "single"))
        port = free_port()
        server = chat.start_server(args, os.path.join(directory, "single"), port, ["--jwt-secret", JWT])
        return [("single", server, port)], None
    url = pg.database()
    nodes = []
    try:
        for i in range(3):
            node_dir = os.path.join(directory, f"node{i}")
            os.makedirs(node_dir)
            port = free_port()
            server = chat.start_server(args, node_dir, port, ["--jwt-secret", JWT, "--cluster", url])
            nodes.append((f"node{i}", server, port))
    except BaseException:
        for _, server, _ in nodes:
            stop(server)
        raise
    return nodes, url


def run(args, load, transport, kind, pg):
    directory = tempfile.mkdtemp(prefix=f"cluster-chat-{kind}-")
    nodes = []
    try:
        nodes, _ = start_nodes(args, directory, kind, pg)
        result = measure(args, load, transport, kind, nodes, pg, directory)
    except BaseException:
        for name, _, _ in nodes:
            path = os.path.join(directory, name, "server.log")
            if os.path.exists(path):
                with open(path, "rb") as f:
                    log(f"{name}'s last log lines:\n" + f.read()[-2000:].decode(errors="replace"))
        raise
    finally:
        for _, server, _ in nodes:
            stop(server)
        warnings = {}
        for name, _, _ in nodes:
            path = os.path.join(directory, name, "server.log")
            if os.path.exists(path):
                with open(path, "rb") as f:
                    lines = [line for line in f.read().decode(errors="replace").splitlines() if line.strip()]
                if lines:
                    warnings[name] = {"lines": len(lines), "last": lines[-1][:300]}
        shutil.rmtree(directory, ignore_errors=True)
    result["server_log"] = warnings
    return result


def measure(args, load, transport, kind, nodes, pg, directory):
    owner_port = nodes[0][2]
    entry_name, entry, entry_port = nodes[0] if kind != "relayed" else nodes[1]
    take_default(owner_port)
    if kind != "single":
        view = cluster_view(owner_port, ADMIN)
        owner_ids = {n["id"]: n["url"] for n in view.get("nodes", [])}
        owner_url = owner_ids.get(view.get("owners", {}).get("default"))
        if not owner_url or not owner_url.rstrip("/").endswith(f":{owner_port}"):
            raise SystemExit(f"cluster-chat: `default` is not node0's: {json.dumps(view)}")
    client = chat.Client(entry_port)
    t0 = time.monotonic()
    senders = chat.make_groups(client, args.members, args.senders, args.setup_threads)
    setup_s = time.monotonic() - t0
    sender_file = os.path.join(directory, "senders.txt")
    with open(sender_file, "w") as f:
        for chat_id, uid, token, _ in senders:
            f.write(f"{chat_id} {uid} {token}\n")
    time.sleep(args.settle)
    load_avg = os.getloadavg()[0]
    window = CpuWindow({name: server.pid for name, server, _ in nodes}, pg if kind != "single" else None,
                       threads_of=[nodes[0][0]])
    command = [load, "--mode", transport, "--senders", sender_file, "--port", str(entry_port),
               "--duration", str(args.duration), "--warmup", str(args.warmup), "--server-pid", str(entry.pid)]
    launched = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The same window as chat-load's (it begins counting --warmup seconds after it starts).
    time.sleep(max(0.0, launched + args.warmup - time.monotonic()))
    window.start()
    time.sleep(max(0.0, launched + args.warmup + args.duration - time.monotonic()))
    cpu = window.stop()
    try:
        out, err = process.communicate(timeout=args.duration + args.warmup + 90)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise SystemExit("cluster-chat: chat-load did not finish")
    if err:
        sys.stderr.write(err)
    if process.returncode != 0:
        raise SystemExit(f"cluster-chat: chat-load exited {process.returncode}")
    result = json.loads(out)
    result.pop("server_threads", None)
    result.update(chat.verify(client, senders, result["acked_total"]))
    messages = max(1, result["messages"])
    result["setup_s"] = round(setup_s, 1)
    result["load_avg_1m"] = round(load_avg, 2)
    result["entry"] = entry_name
    result["node_cpu_s"] = cpu["cpu_s"]
    result["owner_threads_cpu_s"] = cpu["threads"][nodes[0][0]]
    result["entry_cpu_ms_per_msg"] = round(1e3 * cpu["cpu_s"][entry_name] / messages, 3)
    result["nodes_cpu_ms_per_msg"] = round(1e3 * sum(cpu["cpu_s"].values()) / messages, 3)
    if cpu["postgres_cpu_s"] is not None:
        result["postgres_cpu_s"] = cpu["postgres_cpu_s"]
        result["postgres_cpu_ms_per_msg"] = round(1e3 * cpu["postgres_cpu_s"] / messages, 3)
    result["box_busy_pct"] = cpu["box_busy_pct"]
    return result


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summarize(runs, single_median):
    rates = [r["messages_per_s"] for r in runs]
    out = {
        "messages_per_s": rates,
        "median_messages_per_s": median(rates),
        "entry_cpu_ms_per_msg": [r["entry_cpu_ms_per_msg"] for r in runs],
        "nodes_cpu_ms_per_msg": [r["nodes_cpu_ms_per_msg"] for r in runs],
        "median_entry_cpu_ms_per_msg": median([r["entry_cpu_ms_per_msg"] for r in runs]),
        "median_nodes_cpu_ms_per_msg": median([r["nodes_cpu_ms_per_msg"] for r in runs]),
        "median_postgres_cpu_ms_per_msg": median([r.get("postgres_cpu_ms_per_msg") for r in runs]),
        "node_cpu_s": [r["node_cpu_s"] for r in runs],
        "owner_threads_cpu_s": [r["owner_threads_cpu_s"] for r in runs],
        "postgres_cpu_s": [r.get("postgres_cpu_s") for r in runs],
        "box_busy_pct": [r["box_busy_pct"] for r in runs],
        "median_p50_ms": median([r["p50_ms"] for r in runs]),
        "median_p99_ms": median([r["p99_ms"] for r in runs]),
        "client_cpu_s": [r["client_cpu_s"] for r in runs],
        "errors": sum(r["errors"] for r in runs),
        "verified": all(r["verified"] for r in runs),
        "setup_s": [r["setup_s"] for r in runs],
        "load_avg_1m": [r["load_avg_1m"] for r in runs],
        "server_log": [r["server_log"] for r in runs if r["server_log"]],
    }
    if single_median:
        out["ratio_to_single"] = round(median(rates) / single_median, 3)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hearth", required=True, help="the release `hearth` binary")
    parser.add_argument("--pairs", type=int, default=3, help="rounds of every kind per transport")
    parser.add_argument("--members", type=int, default=100)
    parser.add_argument("--senders", type=int, default=4, help="groups, one sender each")
    parser.add_argument("--transports", default="rest,ws")
    parser.add_argument("--kinds", default="single,owner,relayed")
    parser.add_argument("--duration", type=float, default=5)
    parser.add_argument("--warmup", type=float, default=2)
    parser.add_argument("--settle", type=float, default=1, help="seconds of quiet between setup and load")
    parser.add_argument("--rules", default=os.path.join(REPO, "rules", "database.rules.json"))
    parser.add_argument("--seed", default=os.path.join(REPO, "seed", "fireside.json"))
    parser.add_argument("--setup-threads", type=int, default=8)
    parser.add_argument("--keep-going", action="store_true", help="go on after a run fails its check")
    args = parser.parse_args()
    transports = args.transports.split(",")
    kinds = args.kinds.split(",")
    if not 1 <= args.pairs <= 10 or args.duration > 60 or args.warmup > 30 or not 1 <= args.senders <= 64:
        raise SystemExit("cluster-chat: --pairs 1-10, --duration <= 60, --warmup <= 30, --senders 1-64")
    if not 3 <= args.members <= 501 or set(transports) - {"rest", "ws"} or set(kinds) - {"single", "owner", "relayed"}:
        raise SystemExit("cluster-chat: --members 3-501, --transports rest,ws, --kinds single,owner,relayed")
    args.hearth, args.rules, args.seed = (os.path.abspath(p) for p in (args.hearth, args.rules, args.seed))
    os.chdir(REPO)  # each node's working directory holds rules/ and seed/

    tools = tempfile.mkdtemp(prefix="cluster-chat-tools-")
    root = tempfile.mkdtemp(prefix="cluster-chat-pg-")
    os.chmod(root, 0o755)  # the postgres user must reach its directory inside
    pg = None
    runs = {(t, k): [] for t in transports for k in kinds}
    try:
        load = chat.build(tools)
        if kinds != ["single"]:
            pg = Postgres(root)
        for pair in range(args.pairs):
            order = transports if pair % 2 == 0 else list(reversed(transports))
            for t in order:
                shift = pair % len(kinds)
                for k in kinds[shift:] + kinds[:shift]:
                    r = run(args, load, t, k, pg)
                    runs[(t, k)].append(r)
                    log(f"pair {pair + 1} {t} {k}: {r['messages_per_s']:.0f}/s, entry {r['entry_cpu_ms_per_msg']} ms, "
                        f"nodes {r['nodes_cpu_ms_per_msg']} ms, postgres {r.get('postgres_cpu_ms_per_msg')} ms CPU/msg, "
                        f"box {r['box_busy_pct']}%, errors {r['errors']}, verified {r['verified']} "
                        f"(setup {r['setup_s']} s, load {r['load_avg_1m']})")
                    if not r["verified"] and not args.keep_going:
                        raise SystemExit(f"cluster-chat: the run failed its check: {json.dumps(r)}")
    finally:
        if pg:
            pg.stop()
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(tools, ignore_errors=True)

    results = {}
    for t in transports:
        single = median([r["messages_per_s"] for r in runs.get((t, "single"), [])])
        results[t] = {k: summarize(runs[(t, k)], single if k != "single" else None) for k in kinds}
    report = {
        "benchmark": "cluster-chat",
        "date": datetime.date.today().isoformat(),
        "commit": commit_of(REPO),
        "hearth": args.hearth,
        "pairs": args.pairs, "members": args.members, "senders": args.senders,
        "duration_s": args.duration, "warmup_s": args.warmup, "cores": os.cpu_count(),
        "notes": "cluster: 3 nodes and PostgreSQL on this one machine; nodes_cpu_ms_per_msg sums every node's "
                 "CPU in the measured window, postgres_cpu_ms_per_msg the private PostgreSQL's process tree; "
                 "box_busy_pct counts every process on the machine",
        "results": results,
        "goal": "cluster >= 0.5x single (issue 39)",
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
