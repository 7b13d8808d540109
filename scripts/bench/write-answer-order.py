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
import argparse, json, os, selectors, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawws import RawWebSocket  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=9000)
parser.add_argument("--auth", required=True)
parser.add_argument("--ns", default="bench")
parser.add_argument("--path", default="bench/order")
parser.add_argument("--writes", type=int, default=3000)
parser.add_argument("--listeners", type=int, default=0)
args = parser.parse_args()


class Client(RawWebSocket):
    def __init__(self):
        super().__init__(args.port, args.ns)

    def setup(self):
        self.sign_in(args.auth)
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
