#!/usr/bin/env python3
"""W4, REST reads (issue 38): prints one JSON object.

Runs `hearthload w4` (../shared/anchors/loadgen) against a fresh release `hearth serve`: it
seeds a ~50 MB tree at /big and a 1,000,000-child list at /list (PATCHes of 1 MB), then reads
each `--reads` times; the first read is the cold one. Then the server is restarted on the same
data and `hearthload w4` reads again (the first read after a restart: LevelDB's caches empty,
the page cache as the seeding left it). The figures: time to the first byte and to the last of
the 50 MB GET, and the ordered query's time (`orderBy="ts"&limitToLast=50`, `.indexOn: ts`).
Goal: the first byte within 50 ms, the whole within 0.4 s.

    python3 scripts/bench/w4-reads.py --hearth .build/release/hearth --loadgen /tmp/loadgen/hearthload

Hearth serves the `bench` namespace with an empty seed and rules that index `/list` on `ts`;
the load generator signs in with the admin secret. Loopback only; the server is stopped and
its directory removed; each run is bounded by the load generator's own hard timeout.
"""
import argparse, json, os, shutil, subprocess, tempfile

from benchproc import free_port, stop

SECRET = "w4-reads-secret"
RULES = '{"rules": {"list": {".indexOn": ["ts"]}}}'
FIGURES = ["seeded", "big_bytes", "big_first_ttfb_s", "big_first_s", "big_rest_median_s", "query_children",
           "query_first_ms", "query_rest_median_ms", "ok", "error"]


def start(args, work, port):
    command = [args.hearth, "serve", "--port", str(port), "--data", f"{work}/data",
               "--rules", f"{work}/rules/database.rules.json", "--seed", f"{work}/empty.json",
               "--admin-secret", SECRET, "--log-level", "warning"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        probe = subprocess.run(["curl", "-s", "-o", "/dev/null", f"http://127.0.0.1:{port}/.json?shallow=true"],
                               capture_output=True)
        if probe.returncode == 0:
            return process
        subprocess.run(["sleep", "0.1"])
    stop(process)
    raise SystemExit("hearth did not start")


def read(args, port, pid):
    command = [args.loadgen, "w4", "--port", str(port), "--ns", "bench", "--auth", SECRET, "--server-pid", str(pid),
               "--big-mb", str(args.big_mb), "--list-n", str(args.list_n), "--reads", str(args.reads)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1900)
    lines = [l for l in done.stdout.splitlines() if l.startswith("{")]
    if not lines:
        raise SystemExit(f"w4: no result\n{done.stderr[-2000:]}")
    report = json.loads(lines[-1])
    return {k: report.get(k) for k in FIGURES}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hearth", required=True)
    parser.add_argument("--loadgen", required=True)
    parser.add_argument("--big-mb", type=float, default=50)
    parser.add_argument("--list-n", type=int, default=1_000_000)
    parser.add_argument("--reads", type=int, default=5)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="w4-reads-")
    try:
        os.makedirs(f"{work}/data"), os.makedirs(f"{work}/rules")
        with open(f"{work}/empty.json", "w") as f:
            f.write("{}")
        for name in ("database", "bench"):  # the default rules and namespace bench's own
            with open(f"{work}/rules/{name}.rules.json", "w") as f:
                f.write(RULES)
        out = {}
        for phase in ("after_seeding", "after_restart"):
            port = free_port()
            process = start(args, work, port)
            try:
                out[phase] = read(args, port, process.pid)
            finally:
                stop(process, timeout=30)
        print(json.dumps(out, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
