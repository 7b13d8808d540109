#!/usr/bin/env python3
"""Hearth against the bare SwiftNIO anchor with the shared lean load generator: prints one JSON
object.

Runs `hearthload` (../shared/anchors/loadgen) workloads W1 (16 clients, one acknowledged put in
flight each), W2 (fan-out: 100 listeners x 4 publishers, 1,000 x 1; and the delivery p99 at an
offered 50,000 deliveries/s, `w2_p99_50k`) and W3 (10,000 idle
listeners: server RSS per connection) against a fresh release `hearth serve` and against
`nioanchor` (../shared/anchors/nio-ws), alternating (Hearth, anchor, anchor, Hearth, ...), each
on a fresh process; reports each run, the medians and their ratio (issue 38's table).

    cp -r ../shared/anchors/loadgen /tmp/loadgen && make -C /tmp/loadgen
    cp -r ../shared/anchors/nio-ws /tmp/nio-ws && (cd /tmp/nio-ws && swift build -c release)
    python3 scripts/bench/anchor-ratios.py --hearth .build/release/hearth \\
        --loadgen /tmp/loadgen/hearthload --anchor /tmp/nio-ws/.build/release/nioanchor --pairs 3

Hearth serves the `bench` namespace with an empty seed; the load generator signs in with the
admin secret (as the issue's table was measured). Loopback only; every server is stopped and
its directory removed; every run is bounded by the load generator's own hard timeout.
"""
import argparse, json, os, resource, shutil, statistics, subprocess, tempfile, time
import urllib.request

from benchproc import stop

SECRET = "anchor-ratios-secret"
WORKLOADS = {
    "w1": (["w1", "--clients", "16", "--window", "1"], "writes_per_s"),
    "w2_100x4": (["w2", "--subs", "100", "--pubs", "4", "--window", "16"], "delivered_per_s"),
    "w2_1000x1": (["w2", "--subs", "1000", "--pubs", "1"], "delivered_per_s"),
    "w3": (["w3", "--conns", "10000"], "rss_per_conn_bytes"),
    # 100 listeners x 500 messages/s offered: 50,000 deliveries/s; the figure is the p99.
    "w2_p99_50k": (["w2", "--subs", "100", "--pubs", "4", "--rate", "500"], "latency.p99_us"),
}


def wait_for_port(port, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/.well-known/hearth/health", timeout=1)
            return
        except urllib.error.HTTPError:
            return  # the anchor answers, whatever it answers
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on {port}")


def start(kind, args, work):
    if kind == "hearth":
        os.makedirs(f"{work}/data"), os.makedirs(f"{work}/rules")
        with open(f"{work}/empty.json", "w") as f:
            f.write("{}")
        command = [args.hearth, "serve", "--port", str(args.port), "--data", f"{work}/data",
                   "--rules", f"{work}/rules/database.rules.json", "--seed", f"{work}/empty.json",
                   "--admin-secret", SECRET, "--log-level", "warning"]
    else:
        command = [args.anchor, "--port", str(args.port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_port(args.port)
    return process


def run(args, kind, workload):
    flags, figure = WORKLOADS[workload]
    work = tempfile.mkdtemp(prefix=f"anchor-{kind}-")
    process = start(kind, args, work)
    try:
        command = [args.loadgen] + flags + ["--port", str(args.port), "--ns", "bench", "--auth", SECRET,
                                            "--server-pid", str(process.pid), "--duration", str(args.duration),
                                            "--warmup", str(args.warmup)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        line = [l for l in done.stdout.splitlines() if l.startswith("{")]
        if not line:
            raise SystemExit(f"{kind} {workload}: no result\n{done.stderr[-2000:]}")
        report = json.loads(line[-1])
        value = report
        for part in figure.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        return value, report
    finally:
        stop(process, timeout=30)
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hearth", required=True)
    parser.add_argument("--loadgen", required=True)
    parser.add_argument("--anchor", required=True)
    parser.add_argument("--port", type=int, default=9361)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--duration", type=float, default=6)
    parser.add_argument("--warmup", type=float, default=2)
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 40000), hard))
    out = {"commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                    cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip(),
           "load_before": os.getloadavg()[0], "workloads": {}}
    for workload in args.workloads.split(","):
        figures = {"hearth": [], "anchor": []}
        details = {"hearth": [], "anchor": []}
        for pair in range(args.pairs):
            for kind in ("hearth", "anchor") if pair % 2 == 0 else ("anchor", "hearth"):
                value, report = run(args, kind, workload)
                figures[kind].append(value)
                latency = report.get("latency") or report.get("ack_latency") or {}
                details[kind].append({"lost": report.get("lost"), "errors": report.get("errors"),
                                      "p50_us": latency.get("p50_us"), "p99_us": latency.get("p99_us"),
                                      "server_cpu_pct": report.get("server_cpu_pct"),
                                      "client_cpu_pct": report.get("client_cpu_pct")})
        medians = {k: statistics.median(v) for k, v in figures.items() if all(x is not None for x in v)}
        entry = {"runs": figures, "medians": medians, "details": details}
        if len(medians) == 2 and medians["anchor"]:
            entry["ratio"] = round(medians["hearth"] / medians["anchor"], 3)
        out["workloads"][workload] = entry
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
