"""What the cluster benchmarks share (cluster-w1.py, cluster-chat.py, cluster-spread.py): a private
PostgreSQL, waiting for a node's health, the cluster's view, and CPU accounting of processes, of
the private PostgreSQL and of the whole machine.

The PostgreSQL is its own: initdb in a directory of the caller's, loopback only, trust auth for the
role `hearth`, fsync and synchronous commit on as shipped, run as the `postgres` user when this runs
as root. Its CPU is counted over its own process tree (the postmaster, its live children, and the
children it has reaped), so another PostgreSQL on the machine (a test suite's) is not counted.
"""
import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request

from benchproc import free_port, stop

HZ = os.sysconf("SC_CLK_TCK")


def pg_bin():
    """The newest installed PostgreSQL's server programs."""
    versions = [v for v in os.listdir("/usr/lib/postgresql") if v.isdigit()] if os.path.isdir(
        "/usr/lib/postgresql") else []
    for version in sorted(versions, key=int, reverse=True):
        path = f"/usr/lib/postgresql/{version}/bin"
        if os.path.exists(f"{path}/initdb"):
            return path
    raise SystemExit("PostgreSQL's server programs are missing: apt-get install postgresql")


class Postgres:
    """A private PostgreSQL in `work`/pg (`work` must be reachable by the postgres user)."""

    def __init__(self, work, settings=()):
        self.bin = pg_bin()
        self.dir = f"{work}/pg"
        self.port = free_port()
        os.makedirs(self.dir)
        self.run_as = []
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
            self.run_as = ["runuser", "-u", "postgres", "--"]
        subprocess.run(self.run_as + [f"{self.bin}/initdb", "-D", f"{self.dir}/data", "-U", "hearth",
                                      "--auth=trust", "-E", "UTF8"], check=True, stdout=subprocess.DEVNULL)
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
        for setting in settings:
            options += f" -c {setting}"
        subprocess.run(self.run_as + [f"{self.bin}/pg_ctl", "-D", f"{self.dir}/data", "-o", options,
                                      "-l", f"{self.dir}/log", "-w", "start"], check=True, stdout=subprocess.DEVNULL)
        with open(f"{self.dir}/data/postmaster.pid") as f:
            self.pid = int(f.readline())
        self.databases = 0

    def database(self):
        """A new empty database; its `--cluster` URL."""
        self.databases += 1
        name = f"bench_{self.databases}"
        subprocess.run([f"{self.bin}/createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "hearth", name],
                       check=True)
        return f"postgresql://hearth@127.0.0.1:{self.port}/{name}"

    def query(self, url, sql):
        """`sql`'s answer (psql's unaligned text) in the database of the `--cluster` URL `url`."""
        done = subprocess.run([f"{self.bin}/psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "hearth", "-Atc",
                               sql, url.rsplit("/", 1)[1]], capture_output=True, text=True, timeout=30)
        return done.stdout.strip()

    def commits(self, url):
        """Transactions committed so far in the database of `url` (pg_stat_database.xact_commit;
        the statistics lag by up to half a second)."""
        name = url.rsplit("/", 1)[1]
        value = self.query(url, f"SELECT xact_commit FROM pg_stat_database WHERE datname = '{name}'")
        return int(value) if value.isdigit() else None

    def ticks(self):
        """CPU ticks used so far by this PostgreSQL: the postmaster, its reaped children (backends
        that ended, counted in its cutime/cstime) and its live children."""
        total = 0
        own = stat_fields(self.pid)
        if own:
            total += int(own[11]) + int(own[12]) + int(own[13]) + int(own[14])
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            fields = stat_fields(int(entry))
            if fields and int(fields[1]) == self.pid:
                total += int(fields[11]) + int(fields[12])
        return total

    def stop(self):
        subprocess.run(self.run_as + [f"{self.bin}/pg_ctl", "-D", f"{self.dir}/data", "-m", "fast", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stat_fields(pid):
    """/proc/PID/stat's fields after the command name (index 0 is the state, 1 the parent, 11-14
    utime, stime, cutime, cstime); None when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def proc_ticks(pid):
    """CPU ticks (user + system, every thread) used so far by process `pid`; 0 when it is gone."""
    fields = stat_fields(pid)
    return int(fields[11]) + int(fields[12]) if fields else 0


def thread_ticks(pid):
    """{thread name: CPU ticks so far} of process `pid`'s live threads (threads of one name summed)."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                text = f.read()
            name = text[text.index("(") + 1:text.rindex(")")]
            fields = text.rsplit(")", 1)[1].split()
            out[name] = out.get(name, 0) + int(fields[11]) + int(fields[12])
        except (OSError, ValueError, IndexError):
            continue
    return out


def busiest_threads(before, after, top=6):
    """The `top` thread names that used the most CPU between two `thread_ticks` samples, as
    ["name:seconds", ...]."""
    used = {name: ticks - before.get(name, 0) for name, ticks in after.items()}
    ranked = sorted(used.items(), key=lambda item: -item[1])[:top]
    return [f"{name}:{ticks / HZ:.2f}" for name, ticks in ranked if ticks > 0]


def box_ticks():
    """(busy, total) CPU ticks of the whole machine so far."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


class CpuWindow:
    """CPU used between `start()` and `stop()`: by each of `pids` (name -> pid), by the private
    PostgreSQL `pg` (if any) and by the whole machine."""

    def __init__(self, pids, pg=None, threads_of=()):
        self.pids, self.pg, self.threads_of = dict(pids), pg, list(threads_of)

    def _sample(self):
        return (time.monotonic(), {name: proc_ticks(pid) for name, pid in self.pids.items()},
                self.pg.ticks() if self.pg else 0, box_ticks())

    def start(self):
        self.first = self._sample()
        self.threads0 = {name: thread_ticks(self.pids[name]) for name in self.threads_of}

    def stop(self):
        self.last = self._sample()
        self.threads1 = {name: thread_ticks(self.pids[name]) for name in self.threads_of}
        return self.report()

    def report(self):
        (t0, p0, g0, b0), (t1, p1, g1, b1) = self.first, self.last
        seconds = t1 - t0
        return {
            "seconds": round(seconds, 3),
            "cpu_s": {name: round((p1[name] - p0[name]) / HZ, 2) for name in self.pids},
            "postgres_cpu_s": round((g1 - g0) / HZ, 2) if self.pg else None,
            # the share of the machine's cores that were busy (any process, ours or not)
            "box_busy_pct": round(100 * (b1[0] - b0[0]) / max(1, b1[1] - b0[1]), 1),
            # the busiest threads of the processes named in `threads_of`
            "threads": {name: busiest_threads(self.threads0[name], self.threads1[name]) for name in self.threads_of},
        }


def wait_healthy(port, timeout=60, process=None):
    """Waits until the node on `port` answers its health check (or `process` exits)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process is not None and process.poll() is not None:
            break
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/.well-known/hearth/health", timeout=1)
            return
        except (OSError, urllib.error.HTTPError):
            time.sleep(0.1)
    raise SystemExit(f"no node on {port}")


def start_node(hearth, data, flags, cluster=None, log=None, cwd=None):
    """`hearth serve` on a free loopback port with its data in `data` (created), `flags` added (the
    caller's rules, seed and secrets), `--cluster URL` if given; stderr to `log` (default
    `data`.log). Returns (process, port) once the node answers its health check."""
    os.makedirs(data)
    port = free_port()
    command = [hearth, "serve", "--port", str(port), "--data", data, *flags]
    if cluster:
        command += ["--cluster", cluster]
    with open(log or f"{data}.log", "w") as errors:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors, cwd=cwd)
    try:
        wait_healthy(port, process=process)
    except BaseException:
        stop(process)
        raise
    return process, port


def request(port, method, path, secret, body=None, timeout=30, attempts=1):
    """One admin request to the node on `port`; the decoded JSON answer. 503 (a namespace being
    taken over) is retried up to `attempts` times."""
    for attempt in range(attempts):
        req = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                     data=None if body is None else body.encode(), method=method,
                                     headers={"Authorization": f"Bearer {secret}"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as answer:
                return json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            if error.code != 503 or attempt == attempts - 1:
                raise
            time.sleep(0.2)


def cluster_view(port, secret):
    """`GET /.well-known/hearth/cluster`: {"this": {...}, "nodes": [{"id", "url", "alive"}], "owners":
    {ns: id}} (503 when the node's PostgreSQL does not answer: retried for up to 10 s)."""
    return request(port, "GET", "/.well-known/hearth/cluster", secret, attempts=50)


def owners_by_port(view, ports):
    """The cluster view's owners as {namespace: port of the owning node} (None for an unknown node)."""
    by_id = {}
    for node in view.get("nodes", []):
        by_id[node["id"]] = int(node["url"].rsplit(":", 1)[1].strip("/"))
    return {ns: by_id.get(owner) if by_id.get(owner) in ports else None for ns, owner in view.get("owners", {}).items()}


def commit_of(directory):
    done = subprocess.run(["git", "-C", directory, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip()
