#!/usr/bin/env python3
"""64 namespaces spread over a three-node cluster against the same 64 on one node (issue 39's
figure: the cluster's total throughput >= 1.5x one node's). Prints one JSON object.

The load is W1-like: in each of --namespaces (64) namespaces `s00`..`s63`, one WebSocket client
with one acknowledged put (200 B) in flight, as the admin, for --warmup then --duration seconds.
The client is `spread-load` (scripts/bench/spread-load.c, compiled here with cc -O2: one process,
one epoll thread driving every namespace's connection); `--client hearthload --loadgen
/tmp/loadgen/hearthload` runs one `hearthload w1 --clients 1 --window 1 --ns NS` process per
namespace instead (measured: 64 of them used 0.18-0.2 of a core at 3,700-5,300 writes/s, 34-54 us
a write, where spread-load uses 0.05-0.16 at 3,700-17,000, about 9 us). Two kinds of server, fresh
per run:

  single   one `hearth serve` (no rules file, an empty seed): every namespace on it;
  cluster  --nodes (3) `hearth serve --cluster postgresql://...` over a private PostgreSQL (one
           database per run, fsync and synchronous commit on): namespace i's first request (a
           `PUT /warm.json?ns=NS`) goes to node i % 3, which takes it; the spread is then read from
           `GET /.well-known/hearth/cluster` (`owners`), and each client connects to the node the
           view names as its namespace's owner (no relaying).

The kinds alternate (single first in odd pairs, cluster first in even ones). Before the load it
measures the nodes' idle CPU for --idle (2) seconds; over the measured window it reads every
node's CPU (and node 0's busiest threads), the private PostgreSQL's (its process tree), the
clients' and the machine's busy share, and in the cluster the changelog entries appended (the sum
of `hearth_namespaces.lsn`) and PostgreSQL's commits. The JSON gives each run, the medians, the
ratio of the medians (cluster / single), CPU per write per node and for PostgreSQL, and a model
of N machines: each node on its own machine with this box's cores and PostgreSQL on one more,
total = min(N x node capacity, PostgreSQL capacity), where node capacity = cores / (node CPU per
write) and PostgreSQL capacity = cores / (PostgreSQL CPU per write), both measured here (the
assumptions are in the JSON's `model.assumptions`).

    flock /tmp/bench.lock python3 scripts/bench/cluster-spread.py --hearth .build/release/hearth --pairs 3
    # --namespaces 64 --nodes 3 --duration 5 --warmup 2 --idle 2 --client spread-load (the defaults)

Loopback only; every process started here is stopped here (by its PID) and every temporary
directory removed; every wait is bounded.
"""
import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchproc import stop
from clusterproc import CpuWindow, Postgres, cluster_view, commit_of, owners_by_port, request, start_node

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SECRET = "cluster-spread-secret"
JWT = "cluster-spread-jwt-secret-0123456789abcdef"


def log(*parts):
    print("cluster-spread:", *parts, file=sys.stderr, flush=True)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def lsn_total(pg, url):
    """Changelog entries appended so far over every namespace of the cluster at `url`."""
    value = pg.query(url, "SELECT coalesce(sum(lsn), 0) FROM hearth_namespaces")
    return int(value) if value.isdigit() else None


def run(args, kind, pg):
    work = tempfile.mkdtemp(prefix=f"cluster-spread-{kind}-")
    with open(f"{work}/empty.json", "w") as f:
        f.write("{}")
    flags = ["--rules", f"{work}/none.rules.json", "--seed", f"{work}/empty.json", "--admin-secret", SECRET,
             "--jwt-secret", JWT, "--log-level", "warning"]
    nodes, clients = [], []
    try:
        url = pg.database() if kind == "cluster" else None
        for i in range(args.nodes if kind == "cluster" else 1):
            process, port = start_node(args.hearth, f"{work}/node{i}", flags, cluster=url)
            nodes.append((f"node{i}", process, port))
        ports = [port for _, _, port in nodes]
        names = [f"s{i:02d}" for i in range(args.namespaces)]
        # Each namespace's first request, to node i % N: that node takes it.
        for i, ns in enumerate(names):
            request(ports[i % len(ports)], "PUT", f"/warm.json?ns={ns}", SECRET, "true", attempts=50)
        if kind == "cluster":
            owners = owners_by_port(cluster_view(ports[0], SECRET), ports)
            missing = [ns for ns in names if owners.get(ns) is None]
            if missing:
                raise SystemExit(f"cluster-spread: no owner in the cluster view for {missing}")
        else:
            owners = {ns: ports[0] for ns in names}
        spread = {name: sum(1 for ns in names if owners[ns] == port) for name, _, port in nodes}
        as_sent = sum(1 for i, ns in enumerate(names) if owners[ns] == ports[i % len(ports)])
        # The nodes' CPU with no load (leases, the shared logs' followers, heartbeats): --idle seconds.
        idle = CpuWindow({name: process.pid for name, process, _ in nodes}, pg if kind == "cluster" else None)
        idle.start()
        time.sleep(args.idle)
        idle = idle.stop()
        load_avg = os.getloadavg()[0]
        started = time.monotonic()
        if args.client == "spread-load":
            targets = f"{work}/targets.txt"
            with open(targets, "w") as f:
                f.writelines(f"{ns} {owners[ns]}\n" for ns in names)
            command = [args.spread_load, "--targets", targets, "--auth", SECRET, "--duration", str(args.duration),
                       "--warmup", str(args.warmup)]
            clients.append(("all", subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                    text=True)))
        else:
            for ns in names:
                command = [args.loadgen, "w1", "--clients", "1", "--window", "1", "--ns", ns, "--port",
                           str(owners[ns]), "--auth", SECRET, "--duration", str(args.duration), "--warmup",
                           str(args.warmup)]
                clients.append((ns, subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                     text=True)))
        launched = time.monotonic()
        pids = {name: process.pid for name, process, _ in nodes}
        pids.update({f"client {ns}": process.pid for ns, process in clients})
        window = CpuWindow(pids, pg if kind == "cluster" else None, threads_of=["node0"])
        # The clients' windows begin --warmup after they connected (within a few hundred ms of one
        # another): measure CPU over the part every client's window covers.
        time.sleep(max(0.0, launched + args.warmup + 0.3 - time.monotonic()))
        window.start()
        commits0, lsn0 = (pg.commits(url), lsn_total(pg, url)) if url else (None, None)
        time.sleep(max(0.0, started + args.warmup + args.duration - 0.1 - time.monotonic()))
        commits1, lsn1 = (pg.commits(url), lsn_total(pg, url)) if url else (None, None)
        cpu = window.stop()
        reports, failures = {}, []
        deadline = time.monotonic() + args.duration + args.warmup + 120
        for ns, process in clients:
            try:
                out, err = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                out, err = process.communicate()
            noise = [line for line in err.splitlines() if line.strip() and "connections ready in" not in line]
            if noise:
                log(f"client {ns}: {' / '.join(noise)[-500:]}")
            lines = [line for line in out.splitlines() if line.startswith("{")]
            if process.returncode != 0 or not lines:
                failures.append(f"{ns}: exit {process.returncode}: {err.strip()[-300:]}")
            if lines:
                reports[ns] = json.loads(lines[-1])
        clients = []
        if failures:
            log(f"{len(failures)} client(s) failed, e.g. {failures[0]}")
        # Each namespace's acknowledged writes a second in its client's window.
        if args.client == "spread-load":
            one = reports.get("all", {})
            rates = {t["ns"]: t["acked"] / one["seconds"] for t in one.get("targets", [])}
            p50, p99, errors = one.get("ack_p50_us"), one.get("ack_p99_us"), one.get("errors")
        else:
            rates = {ns: r.get("writes_per_s", 0) for ns, r in reports.items()}
            p50 = median([r.get("ack_latency", {}).get("p50_us") for r in reports.values()])
            p99 = median([r.get("ack_latency", {}).get("p99_us") for r in reports.values()])
            errors = None
        total = sum(rates.values())
        seconds = cpu["seconds"]
        writes = total * seconds  # the writes of the CPU window (every client's rate is steady by then)
        node_cpu = {name: cpu["cpu_s"][name] for name, _, _ in nodes}
        client_cpu = sum(v for name, v in cpu["cpu_s"].items() if name.startswith("client "))
        per_node_writes = {name: sum(rate for ns, rate in rates.items() if owners[ns] == port) * seconds
                           for name, _, port in nodes}
        result = {
            "kind": kind,
            "client": args.client,
            "writes_per_s": round(total, 1),
            "per_node_writes_per_s": {name: round(w / seconds, 1) for name, w in per_node_writes.items()},
            "spread": spread,
            "owners_as_sent": as_sent,
            "namespaces_reporting": len(rates),
            "client_failures": failures,
            "errors": errors,
            "min_ns_writes_per_s": round(min(rates.values(), default=0), 1),
            "max_ns_writes_per_s": round(max(rates.values(), default=0), 1),
            "ack_p50_us": p50,
            "ack_p99_us": p99,
            "window_s": seconds,
            "node_cpu_s": node_cpu,
            "node0_threads_cpu_s": cpu["threads"]["node0"],
            # Where node 0's busiest work ran: its event loops (NIO-...) or Dispatch queues (the
            # writers' queues, `com.apple.root.default-qos.overcommit`: decision 0002 moves a writer
            # there when its jobs average over 50 us of thread CPU).
            "node0_busiest_thread": (cpu["threads"]["node0"] or ["?"])[0].rsplit(":", 1)[0],
            "nodes_cores": round(sum(node_cpu.values()) / seconds, 2),
            "nodes_cpu_us_per_write": round(1e6 * sum(node_cpu.values()) / max(1, writes), 1),
            "node_cpu_us_per_write": {name: round(1e6 * node_cpu[name] / max(1, per_node_writes[name]), 1)
                                      for name in node_cpu},
            "clients_cores": round(client_cpu / seconds, 2),
            "idle_nodes_cores": round(sum(idle["cpu_s"].values()) / idle["seconds"], 3),
            "box_busy_pct": cpu["box_busy_pct"],
            "load_avg_1m": round(load_avg, 2),
        }
        if kind == "cluster":
            result["postgres_cpu_s"] = cpu["postgres_cpu_s"]
            result["postgres_cores"] = round(cpu["postgres_cpu_s"] / seconds, 2)
            result["postgres_cpu_us_per_write"] = round(1e6 * cpu["postgres_cpu_s"] / max(1, writes), 1)
            result["idle_postgres_cores"] = round(idle["postgres_cpu_s"] / idle["seconds"], 3)
            if lsn0 is not None and lsn1 is not None:
                result["changelog_entries_per_s"] = round((lsn1 - lsn0) / seconds, 1)
                result["changelog_entries_per_s_per_node"] = round((lsn1 - lsn0) / seconds / len(nodes), 1)
                result["writes_per_changelog_entry"] = round(writes / max(1, lsn1 - lsn0), 2)
            if commits0 is not None and commits1 is not None:
                # pg_stat_database lags by up to a second: an approximation
                result["postgres_commits_per_s_approx"] = round((commits1 - commits0) / seconds, 1)
        return result
    finally:
        for _, process in clients:
            if process.poll() is None:
                process.kill()
                process.communicate()
        for _, process, _ in nodes:
            stop(process)
        for name, _, _ in nodes:
            log_path = f"{work}/{name}.log"
            if os.path.exists(log_path) and os.path.getsize(log_path):
                with open(log_path, "rb") as f:
                    text = f.read().decode(errors="replace").strip().splitlines()
                log(f"{kind} {name} logged {len(text)} line(s), the last: {text[-1][:300] if text else ''}")
        shutil.rmtree(work, ignore_errors=True)


def model(args, single, cluster):
    """min(N x node capacity, PostgreSQL capacity) from the medians of CPU per write."""
    cores = os.cpu_count()
    node_us = median([r["nodes_cpu_us_per_write"] for r in cluster])
    pg_us = median([r["postgres_cpu_us_per_write"] for r in cluster])
    single_us = median([r["nodes_cpu_us_per_write"] for r in single])
    single_measured = median([r["writes_per_s"] for r in single])
    node_capacity = cores / (node_us / 1e6)
    pg_capacity = cores / (pg_us / 1e6)
    single_capacity = cores / (single_us / 1e6)
    totals = {str(n): round(min(n * node_capacity, pg_capacity)) for n in (1, 2, args.nodes, 4, 6, 8)}
    modeled = min(args.nodes * node_capacity, pg_capacity)
    # Observed besides: a node's commits go one at a time through its one PostgreSQL connection, and
    # a namespace with one write in flight puts one write in each; the writes a second that path
    # carried per node here.
    commit_path = median([r.get("changelog_entries_per_s_per_node", 0) * r.get("writes_per_changelog_entry", 0)
                          for r in cluster])
    with_commit_path = {str(n): round(min(n * min(node_capacity, commit_path), pg_capacity))
                        for n in (1, 2, args.nodes, 4, 6, 8)}
    return {
        "cores_per_machine": cores,
        "node_cpu_us_per_write": node_us,
        "postgres_cpu_us_per_write": pg_us,
        "single_cpu_us_per_write": single_us,
        "node_capacity_writes_per_s": round(node_capacity),
        "postgres_capacity_writes_per_s": round(pg_capacity),
        "single_capacity_writes_per_s": round(single_capacity),
        "total_writes_per_s_by_nodes": totals,
        "nodes_until_postgres_binds": round(pg_capacity / node_capacity, 1),
        "commit_path_writes_per_s_per_node_measured": round(commit_path),
        "total_writes_per_s_by_nodes_with_commit_path": with_commit_path,
        f"ratio_{args.nodes}_machines_to_single_capacity": round(modeled / single_capacity, 3),
        f"ratio_{args.nodes}_machines_to_single_measured": round(modeled / single_measured, 3),
        "assumptions": [
            f"each node on its own machine of {cores} cores like this one, PostgreSQL on one more; "
            "the clients elsewhere",
            "CPU-bound: a node's CPU per write and PostgreSQL's as measured here with all of them on one box "
            "(contention included, so likely high), the same at every N",
            "PostgreSQL's CPU per write depends on how many writes share a commit (commit groups); "
            "taken as measured, though groups grow with load",
            "PostgreSQL's disk (WAL flush per commit) and the network are not bounds; the network's round "
            "trips lengthen each commit, so enough writes in flight (clients, namespaces) to keep the "
            "CPUs busy are assumed (closed loop: throughput = writes in flight / latency)",
            "one commit connection per node, as stage 1 has: not a bound in total_writes_per_s_by_nodes; "
            "total_writes_per_s_by_nodes_with_commit_path also caps each node at the writes a second its commit "
            "path carried here (commits one at a time, each of the writes in flight in one namespace), taken to "
            "hold on a machine of its own (network round trips would lower it)",
            "single capacity = cores / (single node's CPU per write): what one machine gives one node",
        ],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hearth", required=True, help="the release `hearth` binary")
    parser.add_argument("--client", default="spread-load", choices=["spread-load", "hearthload"],
                        help="spread-load.c (one process, one epoll thread for every namespace; built here with cc) "
                        "or one hearthload w1 process per namespace")
    parser.add_argument("--loadgen", help="hearthload (make -C /tmp/loadgen), for --client hearthload")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--namespaces", type=int, default=64)
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--duration", type=float, default=5)
    parser.add_argument("--warmup", type=float, default=2)
    parser.add_argument("--kinds", default="single,cluster")
    parser.add_argument("--idle", type=float, default=2, help="seconds of the nodes' CPU measured with no load")
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    if not 1 <= args.pairs <= 10 or not 1 <= args.namespaces <= 256 or not 2 <= args.nodes <= 8:
        raise SystemExit("cluster-spread: --pairs 1-10, --namespaces 1-256, --nodes 2-8")
    if args.duration > 60 or args.warmup > 30 or set(kinds) - {"single", "cluster"}:
        raise SystemExit("cluster-spread: --duration <= 60, --warmup <= 30, --kinds single,cluster")
    if args.client == "hearthload" and not args.loadgen:
        raise SystemExit("cluster-spread: --client hearthload needs --loadgen")
    args.hearth = os.path.abspath(args.hearth)
    args.loadgen = args.loadgen and os.path.abspath(args.loadgen)
    tools = tempfile.mkdtemp(prefix="cluster-spread-tools-")
    args.spread_load = os.path.join(tools, "spread-load")
    subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-o", args.spread_load, os.path.join(HERE, "spread-load.c")],
                   check=True)
    root = tempfile.mkdtemp(prefix="cluster-spread-pg-")
    os.chmod(root, 0o755)  # the postgres user must reach its directory inside
    pg = None
    runs = {kind: [] for kind in kinds}
    try:
        pg = Postgres(root) if "cluster" in kinds else None
        for pair in range(args.pairs):
            for kind in (kinds if pair % 2 == 0 else list(reversed(kinds))):
                r = run(args, kind, pg)
                runs[kind].append(r)
                log(f"pair {pair + 1} {kind}: {r['writes_per_s']:.0f} writes/s, spread {r['spread']}, nodes "
                    f"{r['nodes_cpu_us_per_write']} us/write ({r['nodes_cores']} cores), postgres "
                    f"{r.get('postgres_cpu_us_per_write')} us/write ({r.get('postgres_cores')} cores), clients "
                    f"{r['clients_cores']} cores, box {r['box_busy_pct']}%, load {r['load_avg_1m']}")
    finally:
        if pg:
            pg.stop()
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(tools, ignore_errors=True)
    medians = {kind: median([r["writes_per_s"] for r in runs[kind]]) for kind in kinds}
    report = {
        "benchmark": "cluster-spread",
        "date": datetime.date.today().isoformat(),
        "commit": commit_of(REPO),
        "hearth": args.hearth,
        "workload": f"one WebSocket with one acknowledged 200 B put in flight in each of {args.namespaces} "
                    f"namespaces, admin credential, {args.duration} s after {args.warmup} s; client: "
                    + ("spread-load (one process, one thread)" if args.client == "spread-load"
                       else "one hearthload w1 --clients 1 --window 1 process per namespace"),
        "pairs": args.pairs, "nodes": args.nodes, "cores": os.cpu_count(),
        "runs": runs,
        "medians_writes_per_s": medians,
        "median_box_busy_pct": {kind: median([r["box_busy_pct"] for r in runs[kind]]) for kind in kinds},
        "median_nodes_cpu_us_per_write": {kind: median([r["nodes_cpu_us_per_write"] for r in runs[kind]])
                                          for kind in kinds},
        "median_clients_cores": {kind: median([r["clients_cores"] for r in runs[kind]]) for kind in kinds},
        "goal": "cluster total >= 1.5x one node's (issue 39)",
    }
    if set(kinds) == {"single", "cluster"}:
        report["ratio_cluster_to_single_on_this_box"] = round(medians["cluster"] / medians["single"], 3)
        report["median_postgres_cpu_us_per_write"] = median([r["postgres_cpu_us_per_write"] for r in runs["cluster"]])
        report["model"] = model(args, runs["single"], runs["cluster"])
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
