"""A Firebase realtime (protocol v5) connection for the matrix, over `websockets`' sync client.

Requests may be pipelined: `send` returns the request number and `wait` reads frames until that
request's answer arrives (answers to others are kept). Every read has a timeout; a dropped
connection raises `WSClosed`.
"""
import base64
import hashlib
import json

from websockets.exceptions import WebSocketException
from websockets.sync.client import connect


class WSClosed(Exception):
    """The connection ended or timed out before the answer came."""


def leaf_string_hash(value):
    """The transaction hash the Firebase SDK sends for a string leaf without priority
    (None: the null hash)."""
    if value is None:
        return ""
    return base64.b64encode(hashlib.sha1(f"string:{value}".encode()).digest()).decode()


class WSConn:
    def __init__(self, port, ns="default", timeout=10.0):
        self.timeout = timeout
        self.answers = {}
        self.next_request = 1
        try:
            self.socket = connect(f"ws://127.0.0.1:{port}/.ws?v=5&ns={ns}", open_timeout=timeout, max_size=None)
            hello = self._receive()
        except (OSError, WebSocketException, TimeoutError) as error:
            raise WSClosed(f"connect: {error!r}") from error
        if hello.get("t") != "c":
            raise WSClosed(f"no hello: {hello!r}")

    def close(self):
        try:
            self.socket.close()
        except Exception:
            pass

    def send(self, action, body):
        request = self.next_request
        self.next_request += 1
        try:
            self.socket.send(json.dumps({"t": "d", "d": {"r": request, "a": action, "b": body}}))
        except (OSError, WebSocketException) as error:
            raise WSClosed(f"send {action}: {error!r}") from error
        return request

    def wait(self, request):
        """The answer body `{"s": status, "d": data}` of `request`."""
        while request not in self.answers:
            message = self._receive()
            data = message.get("d") if message.get("t") == "d" else None
            if isinstance(data, dict) and "r" in data:
                self.answers[data["r"]] = data.get("b", {})
        return self.answers.pop(request)

    def call(self, action, body):
        return self.wait(self.send(action, body))

    def _receive(self):
        try:
            text = self.socket.recv(timeout=self.timeout)
            if text.isdigit():  # a frame count: the message follows in that many frames
                text = "".join(self.socket.recv(timeout=self.timeout) for _ in range(int(text)))
        except (OSError, WebSocketException, TimeoutError) as error:
            raise WSClosed(f"receive: {error!r}") from error
        return json.loads(text)
