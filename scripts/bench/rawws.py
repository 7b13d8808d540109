"""A Firebase-protocol WebSocket client on a plain socket, for the probes in this folder: it can
end TCP in ways client libraries will not (a FIN without a close frame, a half-close, a reset)
and shows frames in the order they arrive. Loopback only; every read has a timeout."""
import base64, json, os, socket, struct


class RawWebSocket:
    def __init__(self, port, ns, timeout=10.0):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.settimeout(timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /.ws?v=5&ns={ns} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                break
            head += chunk
        #: The upgrade's HTTP status (101), or None when the server closed first.
        self.status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else None
        self.buffer = head.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in head else b""

    def read(self):
        """The next text message, parsed (pings and other control frames are skipped)."""
        return json.loads(self.read_text())

    def read_text(self):
        """The next text message's payload, as text (pings and other control frames are skipped)."""
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
                        return payload.decode()
                    continue
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise EOFError
            self.buffer += chunk

    def send(self, message):
        """Sends `message` as one masked text frame."""
        payload, mask = json.dumps(message).encode(), os.urandom(4)
        if len(payload) < 126:
            header = bytes([0x81, 0x80 | len(payload)])
        else:
            header = bytes([0x81, 0x80 | 126]) + struct.pack(">H", len(payload))
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def request(self, number, action, body):
        """Sends request `number` and returns its answer's body (`{"s": ..., "d": ...}`)."""
        self.send({"t": "d", "d": {"r": number, "a": action, "b": body}})
        while True:
            message = self.read()
            if message.get("t") == "d" and message["d"].get("r") == number:
                return message["d"]["b"]

    def sign_in(self, credential):
        """Reads the hello and authenticates with `credential` (request 1)."""
        self.read()
        answer = self.request(1, "auth", {"cred": credential})
        assert answer["s"] == "ok", answer
