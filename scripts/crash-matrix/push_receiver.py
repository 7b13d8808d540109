"""The matrix's push webhook: a small HTTP server on a loopback port, in a thread of its own, kept
across the iterations and the server's restarts (`hearth serve --push-webhook URL`).

Each POST must carry the contract's body, `Hearth-Push-Id` (the body's id) and `Hearth-Signature:
sha256=<hex HMAC-SHA256 of the body, keyed with the admin secret>`; anything else is recorded as a
violation. While the load runs (`failing`, until the kill), about one POST in ten is answered
500 (chosen by the run's seed), so retries happen under the kills too; the rest are accepted
(204) and recorded as deliveries, each with the server run (`generation`: one per start of
`hearth serve`) that sent it. The provider accepted a
push when it got the 2xx; the server removes it from its queue in a commit after that, so only a
kill in between can send an accepted push again, and then from a later run (docs/push.md).
"""
import hashlib
import hmac
import json
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: The share of POSTs answered 500 (then retried by the server, the first retry within 2 s).
FAILURE_SHARE = 0.1


class Delivery:
    """One accepted POST: the push's id and fields, when (monotonic) and from which server run."""

    __slots__ = ("id", "uid", "device", "token", "platform", "chat", "message", "call", "at", "generation")

    def __init__(self, body, at, generation):
        data = body.get("data") or {}
        self.id = body.get("id")
        self.uid = body.get("uid")
        self.device = body.get("deviceId")
        self.token = body.get("token")
        self.platform = body.get("platform")
        self.chat = data.get("chatId")
        self.message = data.get("messageId")
        self.call = data.get("callId")
        self.at = at
        self.generation = generation


class QuietServer(ThreadingHTTPServer):
    """Says nothing of a connection the killed server reset (every kill does that)."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        pass


class PushReceiver:
    """The webhook and what it saw. `url` is what `hearth serve --push-webhook` gets."""

    FIELDS = ("id", "uid", "deviceId", "token", "platform", "title", "body", "badge", "data")

    def __init__(self, secret, seed):
        self.secret = secret.encode()
        self.rng = random.Random(f"{seed}-push-receiver")
        self.lock = threading.Lock()
        self.deliveries = []  # Delivery, in the order they were accepted
        self.failed_answers = 0  # POSTs answered 500
        self.violations = []  # malformed or unsigned POSTs
        self.generation = 0
        self.torn_requests = 0  # requests cut off by a kill (not answered, not recorded)
        self.failing = False  # whether FAILURE_SHARE of the POSTs are answered 500 now
        self.injection = None  # (kind, uid) of --inject lost-push or duplicate-push
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                # The run that sent it: read before the body, while that process is surely alive.
                generation = receiver.generation
                body = self.read_body()
                if body is None:  # cut off: the server was killed while it sent the request
                    with receiver.lock:
                        receiver.torn_requests += 1
                    self.close_connection = True
                    return
                status = receiver.receive(self.path, self.headers, body, generation)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def read_body(self):
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    chunks = []
                    while True:
                        size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                        if size == 0:
                            self.rfile.readline()
                            return b"".join(chunks)
                        chunk = self.rfile.read(size)
                        if len(chunk) < size:
                            return None
                        chunks.append(chunk)
                        self.rfile.readline()
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                return body if len(body) == length else None

            def log_message(self, *arguments):  # quiet: the matrix prints its own lines
                pass

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/push"
        self.thread = threading.Thread(target=self.server.serve_forever, name="push-receiver", daemon=True)
        self.thread.start()

    def new_generation(self):
        """Called just before each start of `hearth serve` (the previous process is gone)."""
        with self.lock:
            self.generation += 1

    def receive(self, path, headers, body, generation):
        """Checks one POST; answers the status to send back."""
        problem = None
        push = None
        expected = "sha256=" + hmac.new(self.secret, body, hashlib.sha256).hexdigest()
        if path != "/push":
            problem = f"POST to {path}, not /push"
        elif not hmac.compare_digest(headers.get("Hearth-Signature") or "", expected):
            problem = f"bad Hearth-Signature {headers.get('Hearth-Signature')!r} for body {body[:200]!r}"
        else:
            try:
                push = json.loads(body)
            except ValueError:
                problem = f"body is not JSON: {body[:200]!r}"
        if push is not None:
            data = push.get("data") if isinstance(push, dict) else None
            missing = [field for field in self.FIELDS if field not in push] if isinstance(push, dict) else self.FIELDS
            if missing:
                problem = f"push without {missing}: {body[:300]!r}"
            elif headers.get("Hearth-Push-Id") != push["id"]:
                problem = f"Hearth-Push-Id {headers.get('Hearth-Push-Id')!r} is not the body's id {push['id']!r}"
            elif not isinstance(data, dict) or "chatId" not in data or ("messageId" in data) == ("callId" in data):
                problem = f"push data is not {{chatId, messageId | callId}}: {data!r}"
        with self.lock:
            if problem:
                self.violations.append(f"webhook: {problem}")
                return 400
            if self.failing and self.rng.random() < FAILURE_SHARE:
                self.failed_answers += 1
                return 500
            self.deliveries.append(Delivery(push, time.monotonic(), generation))
            return 204

    def inject(self, kind, uid):
        """For --inject: at the next `since` (once the queue drained), forget every delivery of
        the last push `uid` got (lost-push) or record the last one the running server sent once
        more, as if it had sent it again (duplicate-push)."""
        with self.lock:
            self.injection = (kind, uid)

    def apply_injection(self):
        """Applies what `inject` asked for (with the lock held); notes a violation when there is
        nothing to damage, so that the self-check fails all the same."""
        (kind, uid), self.injection = self.injection, None
        last = next((delivery for delivery in reversed(self.deliveries) if delivery and delivery.uid == uid
                     and (kind == "lost-push" or delivery.generation == self.generation)), None)
        if last is None:
            self.violations.append(f"--inject {kind}: no push to {uid} to damage")
        elif kind == "lost-push":  # None in place of each, so that marks keep their places
            self.deliveries = [None if delivery and delivery.id == last.id else delivery for delivery in self.deliveries]
        else:
            self.deliveries.append(last)

    def mark(self):
        """Where the records stand now (for `since`)."""
        with self.lock:
            return len(self.deliveries), len(self.violations), self.failed_answers

    def since(self, mark):
        """The deliveries, violations and 500 answers after `mark`."""
        with self.lock:
            if self.injection:
                self.apply_injection()
            deliveries = [delivery for delivery in self.deliveries[mark[0]:] if delivery is not None]
            return deliveries, self.violations[mark[1]:], self.failed_answers - mark[2]

    def shutdown(self):
        self.server.shutdown()
        self.server.server_close()
