#!/usr/bin/env python3
"""A writer that listens where it writes, as every chat client does: prints one JSON object.

One WebSocket signs in as admin, listens on /<path> and puts --writes values under it, one in
flight. Reported: how many answers came after the write's own push (Firebase's order, which the
SDKs' local events rely on), and the answer latency (send to answer) p50/p99 in microseconds.
With --listeners N, N more connections listen on the same path (each reads what it is sent), so
the fan-out has work to do before the answer.

    python3 scripts/bench/write-answer-order.py --port 9000 --auth ADMIN --writes 3000 --listeners 50

Loopback only; bounded by --writes and a 10 s timeout per read.
"""
import argparse, base64, json, os, selectors, socket, struct, threading, time

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=9000)
parser.add_argument("--auth", required=True)
parser.add_argument("--ns", default="bench")
parser.add_argument("--path", default="bench/order")
parser.add_argument("--writes", type=int, default=3000)
parser.add_argument("--listeners", type=int, default=0)
args = parser.parse_args()


def connect():
    sock = socket.create_connection(("127.0.0.1", args.port))
    sock.settimeout(10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /.ws?v=5&ns={args.ns} HTTP/1.1\r\nHost: 127.0.0.1:{args.port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(4096)
    return sock, head.split(b"\r\n\r\n", 1)[1]


class Client:
    def __init__(self):
        self.sock, self.buffer = connect()

    def read(self):
        while True:
            if len(self.buffer) >= 2:
                length, start = self.buffer[1] & 0x7F, 2
                if length == 126:
                    length, start = struct.unpack(">H", self.buffer[2:4])[0], 4
                elif length == 127:
                    length, start = struct.unpack(">Q", self.buffer[2:10])[0], 10
                if len(self.buffer) >= start + length:
                    opcode, payload = self.buffer[0] & 0x0F, self.buffer[start:start + length]
                    self.buffer = self.buffer[start + length:]
                    if opcode == 0x1:
                        return json.loads(payload)
                    continue
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buffer += chunk

    def send(self, message):
        payload, mask = json.dumps(message).encode(), os.urandom(4)
        if len(payload) < 126:
            header = bytes([0x81, 0x80 | len(payload)])
        else:
            header = bytes([0x81, 0x80 | 126]) + struct.pack(">H", len(payload))
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def request(self, number, action, body):
        self.send({"t": "d", "d": {"r": number, "a": action, "b": body}})
        while True:
            message = self.read()
            if message.get("t") == "d" and message["d"].get("r") == number:
                return message["d"]["b"]

    def setup(self):
        self.read()  # the hello
        assert self.request(1, "auth", {"cred": args.auth})["s"] == "ok"
        assert self.request(2, "q", {"p": "/" + args.path, "h": ""})["s"] == "ok"


listeners = [Client() for _ in range(args.listeners)]
for listener in listeners:
    listener.setup()
stop = threading.Event()


def drain():
    selector = selectors.DefaultSelector()
    for listener in listeners:
        listener.sock.setblocking(False)
        selector.register(listener.sock, selectors.EVENT_READ)
    while not stop.is_set():
        for key, _ in selector.select(timeout=0.1):
            try:
                if not key.fileobj.recv(1 << 20):
                    selector.unregister(key.fileobj)
            except BlockingIOError:
                pass


reader = threading.Thread(target=drain, daemon=True)
reader.start()
writer = Client()
writer.setup()
in_order, latencies = 0, []
for i in range(args.writes):
    number = 10 + i
    sent = time.perf_counter()
    writer.send({"t": "d", "d": {"r": number, "a": "p", "b": {"p": f"/{args.path}/n", "d": i}}})
    pushed = False
    while True:
        message = writer.read()
        data = message.get("d", {})
        if data.get("a") == "d" and data.get("b", {}).get("d") == i:
            pushed = True
        if data.get("r") == number:
            latencies.append((time.perf_counter() - sent) * 1e6)
            in_order += 1 if pushed else 0
            break
stop.set()
latencies.sort()
print(json.dumps({
    "writes": args.writes, "listeners": args.listeners,
    "answers_after_their_push": in_order,
    "answer_p50_us": round(latencies[len(latencies) // 2], 1),
    "answer_p99_us": round(latencies[int(len(latencies) * 0.99)], 1),
}))
