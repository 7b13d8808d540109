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
import argparse, base64, json, os, socket, struct, subprocess, sys, time, urllib.error, urllib.request

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


def upgrade(sock):
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /.ws?v=5&ns={args.ns} HTTP/1.1\r\nHost: 127.0.0.1:{args.port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else None
    return status, head.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in head else b""


class Frames:
    def __init__(self, sock, pending):
        self.sock, self.buffer = sock, pending

    def read(self):
        while True:
            if len(self.buffer) >= 2:
                length, start = self.buffer[1] & 0x7F, 2
                if length == 126:
                    length, start = struct.unpack(">H", self.buffer[2:4])[0], 4
                elif length == 127:
                    length, start = struct.unpack(">Q", self.buffer[2:10])[0], 10
                if len(self.buffer) >= start + length:
                    payload = self.buffer[start:start + length]
                    self.buffer = self.buffer[start + length:]
                    return payload.decode(errors="replace")
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buffer += chunk


def send_text(sock, text):
    payload, mask = text.encode(), os.urandom(4)
    header = bytes([0x81]) + (bytes([0x80 | len(payload)]) if len(payload) < 126
                              else bytes([0x80 | 126]) + struct.pack(">H", len(payload)))
    sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def request(sock, frames, number, action, body):
    send_text(sock, json.dumps({"t": "d", "d": {"r": number, "a": action, "b": body}}))
    while True:
        message = json.loads(frames.read())
        if message.get("t") == "d" and message["d"].get("r") == number:
            return message["d"]["b"]


def on_disconnect(how):
    sock = socket.create_connection(("127.0.0.1", args.port))
    sock.settimeout(args.wait)
    status, rest = upgrade(sock)
    frames = Frames(sock, rest)
    frames.read()  # the hello
    assert request(sock, frames, 1, "auth", {"cred": args.auth})["s"] == "ok"
    assert request(sock, frames, 2, "o", {"p": f"/probe/{how}", "d": "offline"})["s"] == "ok"
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
    probe = socket.create_connection(("127.0.0.1", args.port))
    probe.settimeout(args.wait)
    new_client_status, _ = upgrade(probe)
    probe.close()
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
