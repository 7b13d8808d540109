#!/usr/bin/env python3
"""Takeover time of a Hearth cluster (issue 39): three nodes over a private PostgreSQL, a writer
putting through a node that does not own the namespace, one request in flight; the owner is
killed (-9) and restarted, again and again. The takeover time is the writer's gap: from the
kill to its first acknowledged write after it. Prints p50, p99 and max as JSON, with whether
every acknowledged write was read back at the end.

    python3 scripts/bench/cluster-takeover.py --hearth .build/release/hearth --kills 10 --lease-seconds 2

Loopback only; every process started here is stopped here.
"""
import argparse
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
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
cw1 = __import__("cluster-w1")


def request(method, port, path, body=None, timeout=3):
    data = body.encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Authorization": f"Bearer {cw1.SECRET}"})
    with urllib.request.urlopen(req, timeout=timeout) as answer:
        return answer.status, answer.read().decode()


def owner_port(ports):
    _, body = request("GET", ports[0], "/.well-known/hearth/cluster")
    view = json.loads(body)
    owner = view["owners"].get("takeover")
    for node in view["nodes"]:
        if node["id"] == owner:
            return int(node["url"].rsplit(":", 1)[1])
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hearth", required=True)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--lease-seconds", type=int, default=2)
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="cluster-takeover-")
    os.chmod(root, 0o755)
    pg = cw1.Postgres(root)
    with open(f"{root}/empty.json", "w") as f:
        f.write("{}")
    cluster = pg.database()
    nodes = {}

    def start(index):
        data = f"{root}/node{index}"
        os.makedirs(data, exist_ok=True)
        port = nodes[index][1] if index in nodes else cw1.free_port()
        command = [args.hearth, "serve", "--port", str(port), "--data", data, "--rules", f"{root}/none.json",
                   "--seed", f"{root}/empty.json", "--admin-secret", cw1.SECRET, "--jwt-secret", cw1.JWT,
                   "--log-level", "warning", "--cluster", cluster, "--lease-seconds", str(args.lease_seconds)]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=open(f"{data}.log", "a"))
        cw1.wait_healthy(port)
        nodes[index] = (process, port)

    acknowledged = {}
    gaps = []
    stop = threading.Event()
    last_ack = [time.time()]
    try:
        for index in range(3):
            start(index)
        ports = [nodes[i][1] for i in range(3)]
        request("PUT", ports[0], "/w/start.json?ns=takeover", "0")

        def writer():
            n = 0
            while not stop.is_set():
                n += 1
                entry = ports[n % 3]
                try:
                    status, _ = request("PUT", entry, f"/w/k{n}.json?ns=takeover", str(n), timeout=2)
                    if status == 200:
                        acknowledged[f"k{n}"] = n
                        last_ack[0] = time.time()
                except (OSError, urllib.error.HTTPError):
                    time.sleep(0.01)

        thread = threading.Thread(target=writer)
        thread.start()
        for _ in range(args.kills):
            time.sleep(1.0)
            port = owner_port(ports)
            index = next(i for i, (_, p) in nodes.items() if p == port)
            killed = time.time()
            nodes[index][0].kill()
            nodes[index][0].wait()
            before = len(acknowledged)
            while len(acknowledged) == before or last_ack[0] <= killed:
                time.sleep(0.005)
                if time.time() - killed > 60:
                    raise SystemExit("no write acknowledged within 60 s of a kill")
            gaps.append(last_ack[0] - killed)
            start(index)
        stop.set()
        thread.join()
        _, body = request("GET", ports[0], "/w.json?ns=takeover", timeout=30)
        stored = json.loads(body)
        lost = [k for k, v in acknowledged.items() if stored.get(k) != v]
    finally:
        stop.set()
        for process, _ in nodes.values():
            process.kill()
            process.wait()
        pg.stop()
        shutil.rmtree(root, ignore_errors=True)
    gaps.sort()
    print(json.dumps({
        "lease_seconds": args.lease_seconds,
        "kills": len(gaps),
        "takeover_s": {"p50": round(statistics.median(gaps), 3),
                       "p99": round(gaps[min(len(gaps) - 1, int(0.99 * len(gaps)))], 3),
                       "max": round(gaps[-1], 3)},
        "acknowledged": len(acknowledged),
        "lost": len(lost),
    }, indent=2))


if __name__ == "__main__":
    main()
