"""What the benchmark scripts beside it share about the processes they run: a free loopback
port, and stopping a server (SIGTERM, so it drains and closes its store; killed if it has not
exited within `timeout` seconds)."""
import signal
import socket
import subprocess


def free_port():
    """A loopback port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stop(process, timeout=60):
    """Stops `process` (one this script started) and waits for it."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
