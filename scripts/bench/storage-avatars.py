#!/usr/bin/env python3
"""200 concurrent 50 KB avatar uploads through the shipped storage rules, against a release
`hearth` it starts itself; prints one JSON object.

Each of --users signed-in users (HS256 ID tokens minted with the server's JWT secret) uploads
`users/<uid>/avatar.png` as the SDKs' `uploadBytes` does (one multipart POST: a JSON part with
the name and `image/png`, then 50 KB), all at once on their own connections, one request in flight
each; a round ends when every upload is acknowledged (fsynced and committed). The rules judge
each upload twice (before its bytes, then with the object made: owner, size, type). The same
rounds as the admin (the rules skipped) alternate with them, so the figure of record is the
ratio of the two medians (rules / admin, uploads per second), beside both absolute figures and
the per-upload latency (p50, p99) of the rules' rounds.

Loopback only; --rounds bounds the loop; the server is stopped by its process id and its
temporary directory removed.

    swift build -c release --product hearth
    python3 scripts/bench/storage-avatars.py --hearth .build/release/hearth
"""
import argparse, base64, hashlib, hmac, json, os, shutil, socket, statistics, subprocess, sys, tempfile, threading, time

parser = argparse.ArgumentParser()
parser.add_argument("--hearth", required=True, help="the release hearth binary")
parser.add_argument("--users", type=int, default=200)
parser.add_argument("--kb", type=int, default=50, help="avatar size in KB (1000 bytes)")
parser.add_argument("--rounds", type=int, default=5, help="rounds of each side (rules, admin), alternating")
parser.add_argument("--timeout", type=float, default=60.0)
args = parser.parse_args()

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SECRET, JWT = "avatars-bench-secret", "avatars-bench-jwt"
BUCKET = "hearth.appspot.com"
directory = tempfile.mkdtemp(prefix="hearth-avatars-bench-")


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(uid):
    now = int(time.time())
    header = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = {"user_id": uid, "sub": uid, "iat": now, "exp": now + 3600, "aud": "hearth",
              "iss": "https://securetoken.google.com/hearth", "firebase": {"sign_in_provider": "password"}}
    payload = b64(json.dumps(claims).encode())
    signature = hmac.new(JWT.encode(), f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{b64(signature)}"


def request(uid, authorization, body_bytes):
    name = f"users/{uid}/avatar.png"
    boundary = "bench-boundary-0123456789"
    body = (f"--{boundary}\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
            f'{{"name":"{name}","contentType":"image/png"}}\r\n--{boundary}\r\nContent-Type: image/png\r\n\r\n').encode()
    body += body_bytes + f"\r\n--{boundary}--".encode()
    head = (f"POST /v0/b/{BUCKET}/o?name=users%2F{uid}%2Favatar.png HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: {authorization}\r\nX-Goog-Upload-Protocol: multipart\r\n"
            f"Content-Type: multipart/related; boundary={boundary}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    return head + body


def read_response(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("connection closed")
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    status = int(head.split(b" ")[1])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status


def round_trip(port, requests):
    """Sends every request at once on its own connection; returns (seconds, latencies, statuses)."""
    sockets = [socket.create_connection(("127.0.0.1", port), timeout=args.timeout) for _ in requests]
    latencies, statuses = [0.0] * len(requests), [0] * len(requests)
    barrier = threading.Barrier(len(requests) + 1)

    def run(i):
        barrier.wait()
        start = time.perf_counter()
        sockets[i].sendall(requests[i])
        statuses[i] = read_response(sockets[i])
        latencies[i] = time.perf_counter() - start

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(requests))]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    for s in sockets:
        s.close()
    return elapsed, latencies, statuses


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def main():
    rules_dir = os.path.join(directory, "rules")
    os.makedirs(rules_dir)
    shutil.copy(os.path.join(ROOT, "rules", "storage.rules"), rules_dir)
    shutil.copy(os.path.join(ROOT, "rules", "database.rules.json"), rules_dir)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [args.hearth, "serve", "--port", str(port), "--data", os.path.join(directory, "data"),
         "--rules", os.path.join(rules_dir, "database.rules.json"), "--admin-secret", SECRET,
         "--jwt-secret", JWT, "--seed", os.path.join(directory, "none.json")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not start")
                time.sleep(0.1)
        payload = bytes([0x89]) + b"PNG" + os.urandom(args.kb * 1000 - 4)
        uids = [f"avatar{i:04d}" for i in range(args.users)]
        as_users = [request(uid, "Firebase " + token(uid), payload) for uid in uids]
        as_admin = [request(uid, "Bearer " + SECRET, payload) for uid in uids]
        # One warm-up round of each (the first creates, later rounds replace: updates).
        round_trip(port, as_users)
        round_trip(port, as_admin)
        rules_rates, admin_rates, latencies, refused = [], [], [], 0
        for _ in range(args.rounds):
            seconds, lat, statuses = round_trip(port, as_users)
            refused += sum(1 for s in statuses if s != 200)
            rules_rates.append(len(uids) / seconds)
            latencies += lat
            seconds, _, statuses = round_trip(port, as_admin)
            refused += sum(1 for s in statuses if s != 200)
            admin_rates.append(len(uids) / seconds)
        rules_median, admin_median = statistics.median(rules_rates), statistics.median(admin_rates)
        print(json.dumps({
            "figure": "avatar-uploads", "users": args.users, "bytes": args.kb * 1000, "rounds": args.rounds,
            "refused": refused,
            "rules_uploads_per_s": round(rules_median, 1), "admin_uploads_per_s": round(admin_median, 1),
            "ratio_rules_to_admin": round(rules_median / admin_median, 3),
            "rules_latency_ms": {"p50": round(percentile(latencies, 0.5) * 1000, 1),
                                 "p99": round(percentile(latencies, 0.99) * 1000, 1)},
            "rules_rounds": [round(r, 1) for r in rules_rates], "admin_rounds": [round(r, 1) for r in admin_rates],
        }))
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(directory, ignore_errors=True)


main()
