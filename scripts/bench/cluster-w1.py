#!/usr/bin/env python3
"""W1 (acknowledged puts, 16 WebSocket clients, one in flight each; ../shared/anchors/loadgen) on
one namespace: a single `hearth serve` against a three-node cluster over a private PostgreSQL
(issue 39's figure: >= 0.5x), with the load sent to the namespace's owner and to a node that
relays it to the owner. Runs alternate (single, owner, relayed; the order rotates each pair) and
the figures are medians with their ratios to the single node, printed as JSON.

    python3 scripts/bench/cluster-w1.py --hearth .build/release/hearth \
        --loadgen /tmp/loadgen/hearthload --pairs 3

The PostgreSQL is its own (initdb in a temporary directory, loopback, fsync and synchronous
commit on as shipped), run as the `postgres` user when this runs as root (clusterproc.py); its CPU
is its own process tree's; `puts_per_commit_approx` divides a cluster run's puts a second by
its database's commits a second (pg_stat_database, whole run). Loopback only; every process
started here is stopped here.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

import clusterproc
from clusterproc import Postgres, box_ticks

SECRET = "cluster-bench-secret"
JWT = "cluster-bench-jwt-secret-0123456789abcdef"


def start_node(args, work, name, cluster=None):
    return clusterproc.start_node(args.hearth, f"{work}/{name}",
                                  ["--rules", f"{work}/none.rules.json", "--seed", f"{work}/empty.json",
                                   "--admin-secret", SECRET, "--jwt-secret", JWT, "--log-level", "warning"],
                                  cluster=cluster)


def put(port, path, body):
    clusterproc.request(port, "PUT", path, SECRET, body)


def w1(args, port, pid, pg, cluster=None):
    command = [args.loadgen, "w1", "--clients", "16", "--window", "1", "--port", str(port), "--ns", "bench",
               "--auth", SECRET, "--server-pid", str(pid), "--duration", str(args.duration),
               "--warmup", str(args.warmup)]
    pg_before, box_before, started = pg.ticks(), box_ticks(), time.time()
    commits_before = pg.commits(cluster) if cluster else None
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    elapsed = time.time() - started
    pg_after, box_after = pg.ticks(), box_ticks()
    commits_after = None
    if cluster:
        time.sleep(1)  # the statistics lag by up to half a second
        commits_after = pg.commits(cluster)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"no result from the load generator:\n{done.stderr[-2000:]}")
    report = json.loads(lines[-1])
    hz = os.sysconf("SC_CLK_TCK")
    # Whole-run averages (warm-up included): what PostgreSQL and the machine as a whole used.
    report["postgres_cpu_pct"] = round(100 * (pg_after - pg_before) / hz / elapsed)
    if commits_before is not None and commits_after is not None:
        # Whole run (warm-up included), every transaction of the cluster's database: commits,
        # renewals, heartbeats; the commit groups are nearly all of them under load.
        per_s = (commits_after - commits_before) / elapsed
        report["postgres_commits_per_s_approx"] = round(per_s, 1)
        report["puts_per_commit_approx"] = round((report.get("writes_per_s") or 0) / max(1, per_s), 2)
    busy = box_after[0] - box_before[0]
    report["box_busy_pct"] = round(100 * os.cpu_count() * busy / max(1, box_after[1] - box_before[1]))
    return report


def stop(processes):
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run(args, kind, pg):
    work = tempfile.mkdtemp(prefix=f"cluster-w1-{kind}-")
    with open(f"{work}/empty.json", "w") as f:
        f.write("{}")
    processes = []
    try:
        if kind == "single":
            process, port = start_node(args, work, "single")
            processes.append(process)
            target, pid = port, process.pid
        else:
            cluster = pg.database()
            nodes = [start_node(args, work, f"node{i}", cluster) for i in range(3)]
            processes += [process for process, _ in nodes]
            # The first request takes the namespace at node 0.
            put(nodes[0][1], "/warm.json?ns=bench", "true")
            process, port = nodes[0] if kind == "owner" else nodes[1]
            target, pid = port, process.pid
        report = w1(args, target, pid, pg, None if kind == "single" else cluster)
        return report.get("writes_per_s"), report
    finally:
        stop(processes)
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hearth", required=True)
    parser.add_argument("--loadgen", required=True)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--duration", type=float, default=6)
    parser.add_argument("--warmup", type=float, default=2)
    args = parser.parse_args()
    kinds = ["single", "owner", "relayed"]
    root = tempfile.mkdtemp(prefix="cluster-w1-pg-")
    os.chmod(root, 0o755)  # the postgres user must reach its directory inside
    pg = Postgres(root)
    figures = {kind: [] for kind in kinds}
    cpu = {kind: [] for kind in kinds}
    pg_cpu = {kind: [] for kind in kinds}
    box = {kind: [] for kind in kinds}
    per_commit = {kind: [] for kind in kinds if kind != "single"}
    try:
        for pair in range(args.pairs):
            order = kinds[pair % 3:] + kinds[:pair % 3]
            for kind in order:
                value, report = run(args, kind, pg)
                figures[kind].append(value)
                cpu[kind].append(report.get("server_cpu_pct"))
                pg_cpu[kind].append(report.get("postgres_cpu_pct"))
                box[kind].append(report.get("box_busy_pct"))
                if kind in per_commit:
                    per_commit[kind].append(report.get("puts_per_commit_approx"))
    finally:
        pg.stop()
        shutil.rmtree(root, ignore_errors=True)
    medians = {kind: statistics.median(values) for kind, values in figures.items()}
    out = {
        "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip(),
        "workload": "w1 --clients 16 --window 1, namespace bench, admin credential",
        "runs": figures,
        "entry_server_cpu_pct": cpu,
        "postgres_cpu_pct": pg_cpu,
        "box_busy_pct_of_%d_cores" % os.cpu_count(): box,
        # pg_stat_database over the whole run (renewals and heartbeats included): an approximation.
        "puts_per_commit_approx": per_commit,
        "medians_writes_per_s": medians,
        "ratio_owner_to_single": medians["owner"] / medians["single"],
        "ratio_relayed_to_single": medians["relayed"] / medians["single"],
        "goal": ">= 0.5 (issue 39)",
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
