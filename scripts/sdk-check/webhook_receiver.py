"""A push webhook receiver on loopback for push-check.html (run.py --webhook-port).

Hearth started with `--push-webhook http://127.0.0.1:PORT/` POSTs every push here (docs/push.md,
"The webhook"). The receiver answers 200 to each and keeps, in arrival order, what it got: the
`Hearth-Push-Id` header, whether `Hearth-Signature` is the HMAC-SHA256 of the body's exact bytes
keyed with the admin secret (when one is given), and the parsed body. It does not drop
duplicates: the page counts every POST, so a push sent twice shows up twice.
"""
import hashlib, hmac, http.server, json, threading


class WebhookReceiver:
    """Serves on 127.0.0.1:`port` in a daemon thread; `pushes()` is what arrived so far."""

    def __init__(self, port, admin_secret=None):
        self.admin_secret = admin_secret
        self._received = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver._record(self.path, self.headers, body)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *a):
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def _record(self, path, headers, body):
        signature = headers.get("Hearth-Signature", "")
        if self.admin_secret is None:
            signature_ok = None
        else:
            expected = "sha256=" + hmac.new(self.admin_secret.encode(), body, hashlib.sha256).hexdigest()
            signature_ok = hmac.compare_digest(signature, expected)
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        with self._lock:
            self._received.append({
                "path": path,
                "pushId": headers.get("Hearth-Push-Id"),
                "contentType": headers.get("Content-Type"),
                "signatureOk": signature_ok,
                "keys": list(parsed) if isinstance(parsed, dict) else None,
                "body": parsed,
            })

    def pushes(self):
        with self._lock:
            return list(self._received)

    def shutdown(self):
        self._server.shutdown()
