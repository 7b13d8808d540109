#!/usr/bin/env python3
"""How fast a running Hearth notices that clients left: prints one JSON object.

1. onDisconnect: a WebSocket signs in as admin, registers `o` (put) at /probe/<how>, and ends TCP
   without a close frame: `close` (close() after reading what it was sent: a FIN), `shutdown`
   (shutdown(SHUT_WR): a FIN, the socket still open), `reset` (SO_LINGER 0: an RST). Reported:
   milliseconds until the write is visible over REST, or null when not within --wait seconds.
2. A wave: the lean load generator (../shared/anchors/loadgen, `hearthload w3`) opens --conns idle
   authenticated listeners and exits (the kernel closes its sockets). Reported: the server's
   `hearth_open_connections` before, with the crowd, 1, 2 and 3 s after the load generator exited
   (null: the metrics request itself was refused, 503, the cap full), and the seconds until it is
   back to its base (null: not within --wait), plus whether a new WebSocket at once after the wave is upgraded
   (101) or refused (503: the cap still full).

    python3 scripts/bench/connection-end.py --port 9000 --auth ADMIN --loadgen /tmp/loadgen/hearthload \
        --server-pid PID --conns 10000

Loopback only. Every loop is bounded by --wait.
"""
import argparse, json, os, socket, struct, subprocess, sys, time, urllib.error, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawws import RawWebSocket  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=9000)
parser.add_argument("--auth", required=True, help="the admin secret")
parser.add_argument("--ns", default="bench")
parser.add_argument("--loadgen", help="the hearthload binary (skips the wave when absent)")
parser.add_argument("--server-pid", type=int)
parser.add_argument("--conns", type=int, default=10000)
parser.add_argument("--wait", type=float, default=10.0, help="seconds to wait for each outcome")
args = parser.parse_args()
base = f"http://127.0.0.1:{args.port}"


def rest_get(path):
    with urllib.request.urlopen(f"{base}/{path}.json?ns={args.ns}&auth={args.auth}", timeout=5) as reply:
        return json.loads(reply.read())


def open_connections():
    """`hearth_open_connections`, or None when the server refuses the request (503: the cap is full)."""
    request = urllib.request.Request(f"{base}/metrics", headers={"Authorization": f"Bearer {args.auth}"})
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            for line in reply.read().decode().splitlines():
                if line.startswith("hearth_open_connections "):
                    return int(float(line.split()[1]))
    except (urllib.error.HTTPError, OSError):
        return None
    return None


def on_disconnect(how):
    client = RawWebSocket(args.port, args.ns, timeout=args.wait)
    client.sign_in(args.auth)
    assert client.request(2, "o", {"p": f"/probe/{how}", "d": "offline"})["s"] == "ok"
    sock = client.sock
    start = time.monotonic()
    if how == "shutdown":
        sock.shutdown(socket.SHUT_WR)
    elif how == "reset":
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    else:
        sock.close()
    result = None
    while time.monotonic() - start < args.wait:
        if rest_get(f"probe/{how}") == "offline":
            result = round((time.monotonic() - start) * 1000, 1)
            break
        time.sleep(0.01)
    if how == "shutdown":
        sock.close()
    return result


def wave():
    before = open_connections()
    command = [args.loadgen, "w3", "--port", str(args.port), "--ns", args.ns, "--auth", args.auth,
               "--conns", str(args.conns), "--settle", "1"]
    if args.server_pid:
        command += ["--server-pid", str(args.server_pid)]
    loadgen = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    crowd = None
    # The crowd's size, read while the load generator holds it (it settles for 1 s, then measures).
    deadline = time.monotonic() + 300
    while loadgen.poll() is None and time.monotonic() < deadline:
        crowd = max(crowd or 0, open_connections() or 0)
        time.sleep(0.2)
    output, _ = loadgen.communicate(timeout=60)
    exited = time.monotonic()
    probe = RawWebSocket(args.port, args.ns, timeout=args.wait)
    new_client_status = probe.status
    probe.sock.close()
    samples, back_after = {}, None
    while time.monotonic() - exited < args.wait:
        now = open_connections()
        elapsed = time.monotonic() - exited
        for mark in (1, 2, 3):
            if elapsed >= mark and mark not in samples:
                samples[mark] = now
        if now is not None and now <= before and back_after is None:
            back_after = round(elapsed, 3)
        if back_after is not None and elapsed >= 3:
            break
        time.sleep(0.02)
    loadgen_report = None
    for line in output.splitlines():
        try:
            loadgen_report = json.loads(line)
        except ValueError:
            pass
    return {
        "conns": args.conns, "open_before": before, "open_with_crowd": crowd,
        "open_1s_after_exit": samples.get(1), "open_2s_after_exit": samples.get(2),
        "open_3s_after_exit": samples.get(3), "seconds_until_base": back_after,
        "new_websocket_status_at_once": new_client_status,
        "loadgen": {k: loadgen_report.get(k) for k in ("ready", "failed", "error")}
        if isinstance(loadgen_report, dict) else None,
    }


report = {"on_disconnect_ms": {how: on_disconnect(how) for how in ("close", "shutdown", "reset")}}
if args.loadgen:
    report["wave"] = wave()
print(json.dumps(report))
