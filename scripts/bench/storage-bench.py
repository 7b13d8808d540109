#!/usr/bin/env python3
"""Firebase Storage's three figures in one run, against a release `hearth` it starts itself;
prints one JSON object.

1. upload: a 1 GiB media upload (`POST /v0/b/bench/o?name=`, admin, streamed from a 1 MiB buffer
   of zeros, acknowledged once fsynced) against `dd if=/dev/zero of=F bs=1M count=1024
   conv=fsync` into the same data directory (same disk). Ratio: dd's median seconds / Hearth's.
2. download: the uploaded 1 GiB object (`?alt=media`, read into one 1 MiB buffer and dropped)
   against `cat F > /dev/null` of that object's own file, both from the page cache (one warm-up
   read each first). Ratio: cat's median seconds / Hearth's. Beside it, the loopback ceiling: the
   same file sent by the kernel (`sendfile`) to the same client over 127.0.0.1 with no HTTP at
   all, and Hearth's ratio to that; and the server's CPU seconds per download.
3. rss: the server's resident memory while --clients clients each upload 1 GiB at once, sampled
   every 20 ms, minus its idle resident memory just before. Target: at most +100 MB.

Runs alternate (dd, Hearth, dd, Hearth, ...); every file of 1 GiB is removed afterwards, and the
server stopped (by its process id). Loopback only; every loop is bounded (--runs, the byte
counts, --timeout).

    swift build -c release --product hearth
    python3 scripts/bench/storage-bench.py --hearth .build/release/hearth --dir /var/tmp/hearth-bench
"""
import argparse, json, os, shutil, socket, statistics, subprocess, sys, tempfile, threading, time

from benchproc import free_port, stop

parser = argparse.ArgumentParser()
parser.add_argument("--hearth", required=True, help="the release hearth binary")
parser.add_argument("--dir", help="where the data directory and dd's file go (default: a temporary directory)")
parser.add_argument("--runs", type=int, default=3, help="runs of each side per figure")
parser.add_argument("--mib", type=int, default=1024, help="object size in MiB")
parser.add_argument("--clients", type=int, default=5, help="concurrent uploads of the memory figure")
parser.add_argument("--timeout", type=float, default=300.0, help="seconds any one request may take")
parser.add_argument("--figures", default="upload,download,rss", help="which figures, comma-separated")
parser.add_argument("--discard", action="store_true",
                    help="download clients drop the bytes in the kernel (recv with MSG_TRUNC: received, never "
                         "copied out, as > /dev/null drops cat's) instead of copying them into a buffer")
args = parser.parse_args()
RECEIVE_FLAGS = socket.MSG_TRUNC if args.discard else 0

SECRET = "storage-bench-secret"
CHUNK = 1 << 20
ZEROS = bytes(CHUNK)
SIZE = args.mib * CHUNK
root = tempfile.mkdtemp(prefix="hearth-storage-bench-", dir=args.dir)
data = os.path.join(root, "data")
dd_file = os.path.join(root, "dd.bin")


def start_server():
    port = free_port()
    server = subprocess.Popen(
        [args.hearth, "serve", "--port", str(port), "--data", data, "--admin-secret", SECRET,
         "--seed", os.path.join(root, "no-seed.json")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server, port
        except OSError:
            time.sleep(0.1)
    server.kill()
    sys.exit("hearth did not start listening within 30 s")


def read_response(sock, discard_body=False):
    """Status, headers and (unless discarded) body of one response with Content-Length."""
    buffer = bytearray()
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("connection closed before the response head")
        buffer += chunk
    head, _, rest = bytes(buffer).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    if not discard_body:
        body = bytearray(rest)
        while len(body) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
        return status, headers, bytes(body)
    left = length - len(rest)
    view = memoryview(bytearray(CHUNK))
    while left > 0:
        got = sock.recv_into(view, min(CHUNK, left), RECEIVE_FLAGS)
        if got == 0:
            raise RuntimeError(f"connection closed with {left} bytes of the body unread")
        left -= got
    return status, headers, b""


def request(port, method, target, body_bytes=0):
    sock = socket.create_connection(("127.0.0.1", port), timeout=args.timeout)
    with sock:
        head = (f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Authorization: Bearer {SECRET}\r\nContent-Length: {body_bytes}\r\n"
                "Content-Type: application/octet-stream\r\n\r\n")
        sock.sendall(head.encode())
        left = body_bytes
        while left > 0:
            sock.sendall(ZEROS if left >= CHUNK else ZEROS[:left])
            left -= min(CHUNK, left)
        return read_response(sock)


def upload(port, name):
    started = time.monotonic()
    status, _, body = request(port, "POST", f"/v0/b/bench/o?name={name}", SIZE)
    elapsed = time.monotonic() - started
    if status != 200:
        raise RuntimeError(f"upload answered {status}: {body[:200]!r}")
    return elapsed, json.loads(body)


def download(port, name):
    sock = socket.create_connection(("127.0.0.1", port), timeout=args.timeout)
    with sock:
        started = time.monotonic()
        sock.sendall(f"GET /v0/b/bench/o/{name}?alt=media HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     f"Authorization: Bearer {SECRET}\r\n\r\n".encode())
        status, headers, _ = read_response(sock, discard_body=True)
        elapsed = time.monotonic() - started
    if status != 200 or int(headers["content-length"]) != SIZE:
        raise RuntimeError(f"download answered {status} with {headers.get('content-length')} bytes")
    return elapsed


def loopback_sendfile(path):
    """Seconds for the client to read `path` as the kernel sends it over loopback, no server."""
    size = os.path.getsize(path)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def serve():
        connection, _ = listener.accept()
        with connection, open(path, "rb") as source:
            offset = 0
            while offset < size:
                sent = os.sendfile(connection.fileno(), source.fileno(), offset, size - offset)
                if sent == 0:
                    break
                offset += sent

    sender = threading.Thread(target=serve)
    sender.start()
    with listener, socket.create_connection(listener.getsockname(), timeout=args.timeout) as sock:
        view = memoryview(bytearray(CHUNK))
        left = size
        started = time.monotonic()
        while left > 0:
            got = sock.recv_into(view, min(CHUNK, left), RECEIVE_FLAGS)
            if got == 0:
                break
            left -= got
        elapsed = time.monotonic() - started
    sender.join(timeout=args.timeout)
    return elapsed


def timed(command):
    started = time.monotonic()
    subprocess.run(command, shell=True, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=args.timeout)
    return time.monotonic() - started


def rss(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def cpu_seconds(pid):
    """The process's user + system CPU time so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def figure(anchor, hearth, target):
    ratio = statistics.median(anchor) / statistics.median(hearth)
    return {"anchor_seconds": [round(s, 3) for s in anchor], "hearth_seconds": [round(s, 3) for s in hearth],
            "anchor_mb_s": round(SIZE / statistics.median(anchor) / 1e6),
            "hearth_mb_s": round(SIZE / statistics.median(hearth) / 1e6),
            "ratio": round(ratio, 3), "target": target, "met": ratio >= target}


def memory_figure():
    """A fresh server: idle RSS after one small upload, then the peak while clients upload."""
    server, port = start_server()
    try:
        request(port, "POST", "/v0/b/bench/o?name=warm", 1024)
        time.sleep(1)
        idle = rss(server.pid)
        peak = idle
        done = threading.Event()
        failures = []

        def client(index):
            try:
                upload(port, f"many-{index}")
            except Exception as error:  # reported, not raised: the figure says which failed
                failures.append(str(error))

        threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + args.timeout
        while any(t.is_alive() for t in threads) and time.monotonic() < deadline:
            peak = max(peak, rss(server.pid))
            time.sleep(0.02)
        for thread in threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        done.set()
        for index in range(args.clients):
            request(port, "DELETE", f"/v0/b/bench/o/many-{index}")
        growth = peak - idle
        return {"clients": args.clients, "idle_rss_mb": round(idle / 1e6, 1), "peak_rss_mb": round(peak / 1e6, 1),
                "growth_mb": round(growth / 1e6, 1), "target_mb": 100, "met": growth <= 100e6 and not failures,
                "failures": failures}
    finally:
        stop(server, timeout=30)


def main():
    result = {"object_mib": args.mib, "runs": args.runs, "load_average": os.getloadavg()[0]}
    figures = set(args.figures.split(","))
    server, port = start_server()
    try:
        dd = f"dd if=/dev/zero of={dd_file} bs=1M count={args.mib} conv=fsync"
        anchor, hearth, cpu = [], [], 0.0
        for _ in range(args.runs if "upload" in figures else 0):
            anchor.append(timed(dd))
            os.unlink(dd_file)
            cpu_before = cpu_seconds(server.pid)
            seconds, _ = upload(port, "big")
            cpu += cpu_seconds(server.pid) - cpu_before
            hearth.append(seconds)
        if hearth:
            result["upload"] = figure(anchor, hearth, 0.5)
            result["upload"]["server_cpu_seconds_per_upload"] = round(cpu / len(hearth), 3)

        _, metadata = upload(port, "big")
        object_file = os.path.join(data, "storage", "objects", metadata["generation"])
        cat = f"cat {object_file} > /dev/null"
        timed(cat)
        download(port, "big")
        anchor, hearth, ceiling, cpu = [], [], [], 0.0
        for _ in range(args.runs if "download" in figures else 0):
            anchor.append(timed(cat))
            cpu_before = cpu_seconds(server.pid)
            hearth.append(download(port, "big"))
            cpu += cpu_seconds(server.pid) - cpu_before
            ceiling.append(loopback_sendfile(object_file))
        if hearth:
            result["download"] = figure(anchor, hearth, 0.8)
            result["download"]["loopback_sendfile_seconds"] = [round(s, 3) for s in ceiling]
            result["download"]["loopback_sendfile_mb_s"] = round(SIZE / statistics.median(ceiling) / 1e6)
            result["download"]["ratio_to_loopback"] = round(statistics.median(ceiling) / statistics.median(hearth), 3)
            result["download"]["server_cpu_seconds_per_download"] = round(cpu / len(hearth), 3)
        request(port, "DELETE", "/v0/b/bench/o/big")
    finally:
        stop(server, timeout=30)
    if "rss" in figures:
        result["rss"] = memory_figure()
    print(json.dumps(result, indent=2))


try:
    main()
finally:
    shutil.rmtree(root, ignore_errors=True)
