#!/usr/bin/env python3
"""W1 (acknowledged puts, 16 WebSocket clients, one in flight each; ../shared/anchors/loadgen) on
one namespace: a single `hearth serve` against a three-node cluster over a private PostgreSQL
(issue 39's figure: >= 0.5x), with the load sent to the namespace's owner and to a node that
relays it to the owner. Runs alternate (single, owner, relayed; the order rotates each pair) and
the figures are medians with their ratios to the single node, printed as JSON.

    python3 scripts/bench/cluster-w1.py --hearth .build/release/hearth \
        --loadgen /tmp/loadgen/hearthload --pairs 3

The PostgreSQL is its own (initdb in a temporary directory, loopback, fsync and synchronous
commit on as shipped), run as the `postgres` user when this runs as root. Loopback only; every
process started here is stopped here.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

SECRET = "cluster-bench-secret"
JWT = "cluster-bench-jwt-secret-0123456789abcdef"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pg_bin():
    for version in sorted(os.listdir("/usr/lib/postgresql"), key=lambda v: -int(v) if v.isdigit() else 0):
        path = f"/usr/lib/postgresql/{version}/bin"
        if os.path.exists(f"{path}/initdb"):
            return path
    raise SystemExit("PostgreSQL's server programs are missing: apt-get install postgresql")


class Postgres:
    def __init__(self, work):
        self.bin = pg_bin()
        self.dir = f"{work}/pg"
        self.port = free_port()
        os.makedirs(self.dir)
        self.run_as = []
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
            self.run_as = ["runuser", "-u", "postgres", "--"]
        subprocess.run(self.run_as + [f"{self.bin}/initdb", "-D", f"{self.dir}/data", "-U", "hearth",
                                      "--auth=trust", "-E", "UTF8"], check=True, stdout=subprocess.DEVNULL)
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
        subprocess.run(self.run_as + [f"{self.bin}/pg_ctl", "-D", f"{self.dir}/data", "-o", options,
                                      "-l", f"{self.dir}/log", "-w", "start"], check=True, stdout=subprocess.DEVNULL)
        self.databases = 0

    def database(self):
        self.databases += 1
        name = f"bench_{self.databases}"
        subprocess.run([f"{self.bin}/createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "hearth", name],
                       check=True)
        return f"postgresql://hearth@127.0.0.1:{self.port}/{name}"

    def stop(self):
        subprocess.run(self.run_as + [f"{self.bin}/pg_ctl", "-D", f"{self.dir}/data", "-m", "fast", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_healthy(port, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/.well-known/hearth/health", timeout=1)
            return
        except (OSError, urllib.error.HTTPError):
            time.sleep(0.1)
    raise SystemExit(f"no node on {port}")


def start_node(args, work, name, cluster=None):
    data = f"{work}/{name}"
    os.makedirs(data)
    port = free_port()
    command = [args.hearth, "serve", "--port", str(port), "--data", data, "--rules", f"{work}/none.rules.json",
               "--seed", f"{work}/empty.json", "--admin-secret", SECRET, "--jwt-secret", JWT,
               "--log-level", "warning"]
    if cluster:
        command += ["--cluster", cluster]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=open(f"{data}.log", "w"))
    wait_healthy(port)
    return process, port


def put(port, path, body):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body.encode(), method="PUT",
                                     headers={"Authorization": f"Bearer {SECRET}"})
    urllib.request.urlopen(request, timeout=30).read()


def postgres_ticks():
    """CPU ticks used so far by every process of the postgres user (the private server's)."""
    import pwd
    uid = pwd.getpwnam("postgres").pw_uid if os.geteuid() == 0 else os.geteuid()
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid != uid:
                continue
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total


def box_ticks():
    """(busy, total) CPU ticks of the whole machine so far."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def w1(args, port, pid):
    command = [args.loadgen, "w1", "--clients", "16", "--window", "1", "--port", str(port), "--ns", "bench",
               "--auth", SECRET, "--server-pid", str(pid), "--duration", str(args.duration),
               "--warmup", str(args.warmup)]
    pg_before, box_before, started = postgres_ticks(), box_ticks(), time.time()
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    elapsed = time.time() - started
    pg_after, box_after = postgres_ticks(), box_ticks()
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"no result from the load generator:\n{done.stderr[-2000:]}")
    report = json.loads(lines[-1])
    hz = os.sysconf("SC_CLK_TCK")
    # Whole-run averages (warm-up included): what PostgreSQL and the machine as a whole used.
    report["postgres_cpu_pct"] = round(100 * (pg_after - pg_before) / hz / elapsed)
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
        report = w1(args, target, pid)
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
    try:
        for pair in range(args.pairs):
            order = kinds[pair % 3:] + kinds[:pair % 3]
            for kind in order:
                value, report = run(args, kind, pg)
                figures[kind].append(value)
                cpu[kind].append(report.get("server_cpu_pct"))
                pg_cpu[kind].append(report.get("postgres_cpu_pct"))
                box[kind].append(report.get("box_busy_pct"))
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
        "medians_writes_per_s": medians,
        "ratio_owner_to_single": medians["owner"] / medians["single"],
        "ratio_relayed_to_single": medians["relayed"] / medians["single"],
        "goal": ">= 0.5 (issue 39)",
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
