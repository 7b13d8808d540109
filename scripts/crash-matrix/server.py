"""Starts, waits for and kills the real `hearth` binary."""
import os
import signal
import socket
import subprocess
import time
import urllib.request


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    def __init__(self, binary, workdir, admin_secret, sync=None, push=None):
        self.binary = binary
        self.workdir = workdir
        self.data = os.path.join(workdir, "data")
        self.rules_dir = os.path.join(workdir, "rules")
        self.log_path = os.path.join(workdir, "server.log")
        self.admin_secret = admin_secret
        self.sync = sync
        self.push = push  # the webhook receiver (push_receiver.PushReceiver) pushes go to, if any
        self.call_ring_timeout = None  # --call-ring-timeout (seconds), when the binary has calls
        self.killed_at = None  # wall-clock time (s) of the last kill's signal
        self.process = None
        self.port = None

    def start(self, ready_timeout, kill_after=None):
        """Starts the server on a fresh port; answers the seconds it took to become ready, or
        raises `RuntimeError` when it exits or does not answer its health check in time. With
        `kill_after`, kills it that many seconds after the start instead, ready or not (a crash
        during recovery), and answers None."""
        self.port = free_port()
        arguments = [
            self.binary, "serve", "--port", str(self.port), "--data", self.data,
            "--rules", os.path.join(self.rules_dir, "database.rules.json"),
            "--seed", os.path.join(self.workdir, "seed.json"),
            "--admin-secret", self.admin_secret, "--log-level", "warning",
        ]
        if self.sync:
            arguments += ["--sync", self.sync]
        if self.push is not None:
            arguments += ["--push-webhook", self.push.url]
            self.push.new_generation()
        if self.call_ring_timeout is not None:
            arguments += ["--call-ring-timeout", str(self.call_ring_timeout)]
        started = time.monotonic()
        with open(self.log_path, "ab") as log:
            log.write(f"\n=== start {time.strftime('%H:%M:%S')} port {self.port}\n".encode())
            log.flush()
            self.process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        if kill_after is not None:
            time.sleep(kill_after)
            self.kill()
            return None
        deadline = started + ready_timeout
        url = f"http://127.0.0.1:{self.port}/.well-known/hearth/health"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with status {self.process.returncode} before it was ready")
            try:
                with urllib.request.urlopen(url, timeout=1) as answer:
                    if answer.status == 200:
                        return time.monotonic() - started
            except OSError:
                pass
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"the server was not ready within {ready_timeout} s")

    def kill(self, killing=None):
        """`kill -9` of the server this object started (by its pid), then reaps it (a process
        can take seconds to go: a thread in the kernel, in an fsync say, finishes its call
        first). Sets the event `killing` just before the signal; answers the seconds from the
        signal to the process's end."""
        if self.process is None:
            return 0.0
        if killing is not None:
            killing.set()
        sent = time.monotonic()
        self.killed_at = time.time()
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"the server (pid {self.process.pid}) did not end within 60 s of SIGKILL")
        self.process = None
        return time.monotonic() - sent

    def cli(self, arguments, timeout=60):
        """Runs `hearth ARGUMENTS` (another command of the same binary); answers (status, output)."""
        try:
            done = subprocess.run(
                [self.binary] + arguments, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL
            )
        except subprocess.TimeoutExpired:
            return None, f"timed out after {timeout} s"
        output = done.stdout.decode("utf-8", "replace") + done.stderr.decode("utf-8", "replace")
        return done.returncode, output
