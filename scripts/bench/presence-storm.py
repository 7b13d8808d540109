#!/usr/bin/env python3
"""The presence storm (issue 36): prints one JSON object.

Starts a `hearth serve` of its own (the binary given, a temporary data directory, presence in
`default`), then:
1. connect: a client process opens --conns authenticated WebSockets of --users users (each user
   --conns/--users connections, ID tokens minted with the JWT secret) and holds them;
   reported: the seconds until all are open, and until every user's `presence/$uid` is
   `online`, with the commits (`hearth_writes_total`) and the entries written (counted by an
   admin listener on `/presence`, from the pushes it gets);
2. drop: the client process exits at once (the kernel closes all its sockets, FIN);
   reported: the seconds from its exit until every entry is `offline` (target ≤ 2 s), commits
   and entries written;
3. reconnect: a new client process opens the same connections again (a reconnect storm);
   reported as 1, with entries written per real transition (target 1: one per user, not one
   per connection).

    ulimit -n 20000   # or run as a user whose hard limit allows it: the script raises the soft one
    python3 scripts/bench/presence-storm.py --hearth .build/release/hearth

Loopback only; every wait is bounded by --wait seconds. The server is stopped and its
directory removed at the end.
"""
import argparse, asyncio, base64, hashlib, hmac, json, os, resource, shutil, signal, socket, struct
import subprocess, sys, tempfile, threading, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawws import RawWebSocket  # noqa: E402

ADMIN, JWT = "storm-admin", "storm-jwt-secret"


def token(uid, secret=JWT, lifetime=3600):
    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    now = int(time.time())
    header = b64(b'{"alg":"HS256","typ":"JWT"}')
    claims = {"user_id": uid, "sub": uid, "iat": now, "exp": now + lifetime, "auth_time": now,
              "firebase": {"sign_in_provider": "password"}}
    payload = b64(json.dumps(claims).encode())
    signature = hmac.new(secret.encode(), f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{b64(signature)}"


# ---- the client process: open connections, hold them, exit on "drop" ----

def masked_text(text):
    payload, mask = text.encode(), os.urandom(4)
    n = len(payload)
    header = bytes([0x81, 0x80 | n]) if n < 126 else bytes([0x81, 0x80 | 126]) + struct.pack(">H", n)
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def read_frame(reader):
    head = await reader.readexactly(2)
    length = head[1] & 0x7F
    if length == 126:
        length = struct.unpack(">H", await reader.readexactly(2))[0]
    elif length == 127:
        length = struct.unpack(">Q", await reader.readexactly(8))[0]
    return head[0] & 0x0F, await reader.readexactly(length)


async def hold(reader, writer):
    """Answers the server's pings (liveness) until the connection ends."""
    try:
        while True:
            opcode, payload = await read_frame(reader)
            if opcode == 0x9:
                mask = os.urandom(4)
                writer.write(bytes([0x8A, 0x80 | len(payload)]) + mask
                             + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
            elif opcode == 0x8:
                return
    except (asyncio.IncompleteReadError, ConnectionError):
        return


async def open_one(port, ns, credential, gate, held):
    async with gate:
        for attempt in range(5):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.05 * (attempt + 1))
        else:
            raise RuntimeError("could not connect")
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET /.ws?v=5&ns={ns} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head[:40]
        await read_frame(reader)  # hello
        writer.write(masked_text(json.dumps({"t": "d", "d": {"r": 1, "a": "auth", "b": {"cred": credential}}})))
        while True:
            opcode, payload = await read_frame(reader)
            if opcode == 0x1 and b'"r":1' in payload:
                assert b'"ok"' in payload, payload[:200]
                break
        held.append(asyncio.get_running_loop().create_task(hold(reader, writer)))
        held.append(writer)


async def clients(port, ns, conns, users, secret):
    tokens = [token(f"u{n:05d}", secret) for n in range(users)]
    gate, held = asyncio.Semaphore(256), []
    await asyncio.gather(*(open_one(port, ns, tokens[i % users], gate, held) for i in range(conns)))
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    os._exit(0)  # every socket closes at once, by the kernel


# ---- the parent: server, listener, phases ----

class PresenceWatch(threading.Thread):
    """An admin listener on /presence: the state of each entry and the entries written."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.ws = RawWebSocket(port, "default", timeout=600)
        self.ws.sign_in(ADMIN)
        self.ws.send({"t": "d", "d": {"r": 2, "a": "q", "b": {"p": "/presence", "h": ""}}})
        self.states, self.written, self.changed = {}, 0, threading.Condition()

    def read(self):
        """The next message, parsed; a message split into frames (its frame count first) joined."""
        text = self.ws.read_text()
        if text.isdigit():
            text = "".join(self.ws.read_text() for _ in range(int(text)))
        return json.loads(text)

    def run(self):
        while True:
            try:
                message = self.read()
            except (EOFError, OSError):
                return
            body = message.get("d", {})
            if message.get("t") != "d" or body.get("a") not in ("d", "m"):
                continue
            path, data = body["b"]["p"].strip("/"), body["b"]["d"]
            with self.changed:
                if path == "presence":
                    if body["a"] == "d":
                        self.states = {}
                    for uid, entry in (data or {}).items():
                        self.states[uid] = (entry or {}).get("state")
                        self.written += 1
                elif path.startswith("presence/"):
                    self.states[path.split("/")[1]] = (data or {}).get("state")
                    self.written += 1
                self.changed.notify_all()

    def wait(self, predicate, timeout):
        with self.changed:
            return self.changed.wait_for(lambda: predicate(self.states), timeout)


def commits(port):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics", headers={"Authorization": f"Bearer {ADMIN}"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        for line in reply.read().decode().splitlines():
            if line.startswith("hearth_writes_total") and 'namespace="default"' in line:
                return int(float(line.split()[-1]))
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hearth", help="the hearth binary (release build)")
    parser.add_argument("--port", type=int, default=9310)
    parser.add_argument("--conns", type=int, default=10000)
    parser.add_argument("--users", type=int, default=5000)
    parser.add_argument("--wait", type=float, default=120.0)
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--ns", default="default", help=argparse.SUPPRESS)
    parser.add_argument("--jwt-secret", default=JWT, help=argparse.SUPPRESS)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.conns + 1000)), hard))
    if args.client:
        asyncio.run(clients(args.port, args.ns, args.conns, args.users, args.jwt_secret))
        return

    directory = tempfile.mkdtemp(prefix="hearth-presence-storm-")
    os.makedirs(f"{directory}/rules")
    with open(f"{directory}/rules/database.rules.json", "w") as rules:
        rules.write('{"rules": {"presence": {"$uid": {".read": "auth != null"}}}}')
    with open(f"{directory}/empty.json", "w") as seed:
        seed.write("{}")
    server = subprocess.Popen(
        [args.hearth, "serve", "--port", str(args.port), "--data", f"{directory}/data",
         "--rules", f"{directory}/rules/database.rules.json", "--seed", f"{directory}/empty.json",
         "--admin-secret", ADMIN, "--jwt-secret", JWT, "--max-connections", str(args.conns * 2 + 100),
         "--log-level", "warning"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    result = {"connections": args.conns, "users": args.users}
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{args.port}/.well-known/hearth/health", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        watch = PresenceWatch(args.port)
        watch.start()
        everyone = lambda state: lambda states: (len(states) == args.users
                                                 and all(s == state for s in states.values()))

        def connect(phase):
            before_commits, before_written = commits(args.port), watch.written
            started = time.monotonic()
            client = subprocess.Popen([sys.executable, __file__, "--client", "--port", str(args.port),
                                       "--conns", str(args.conns), "--users", str(args.users)],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            assert client.stdout.readline().strip() == "ready", "the client process failed"
            opened = time.monotonic() - started
            settled = watch.wait(everyone("online"), args.wait)
            result[phase] = {
                "open_seconds": round(opened, 2),
                "all_online_seconds": round(time.monotonic() - started, 2) if settled else None,
                "commits": commits(args.port) - before_commits,
                "entries_written": watch.written - before_written,
            }
            result[phase]["entries_per_transition"] = round(result[phase]["entries_written"] / args.users, 3)
            return client

        def drop(client, phase):
            before_commits, before_written = commits(args.port), watch.written
            client.stdin.write("drop\n")
            client.stdin.flush()
            client.wait()
            gone = time.monotonic()
            settled = watch.wait(everyone("offline"), args.wait)
            took = time.monotonic() - gone
            time.sleep(0.5)  # any late write would count below
            result[phase] = {
                "all_offline_seconds": round(took, 3) if settled else None,
                "commits": commits(args.port) - before_commits,
                "entries_written": watch.written - before_written,
            }
            result[phase]["entries_per_transition"] = round(result[phase]["entries_written"] / args.users, 3)

        drop(connect("connect"), "drop")
        drop(connect("reconnect"), "drop_again")
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(directory, ignore_errors=True)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
