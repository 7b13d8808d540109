#!/bin/bash
# Kills PostgreSQL's primary under Patroni (as pg-failover.sh does) while Hearth writes through
# its nodes, in a local cluster started by up.sh: --writers writers, each through the nodes in
# turn with one request in flight, PUT a numbered key of a clustered namespace and increment a
# counter beside it (a server-value increment). After the failover, every acknowledged PUT must
# be read back through every node, and the counter must be at least the acknowledged increments
# and at most those plus the ones whose outcome is uncertain (no answer, or a 503: a commit whose
# answer PostgreSQL never sent may have landed). Reports, per kill, the write stall (the longest
# time without an acknowledgement in the 30 s after the kill, before the next one); then waits for the killed member to come back as the
# synchronous standby before the next kill. Prints one JSON object; exit 1 when an acknowledged
# write is lost or the counter is out of bounds.
#
#   scripts/cluster/hearth-pg-failover.sh [--state DIR] [--kill postmaster|node] [--kills 3]
#       [--writers 4] [--timeout 90]
set -eu

. "$(dirname "$0")/lib.sh"

STATE=$DEFAULT_STATE
MODE=postmaster
KILLS=3
WRITERS=4
TIMEOUT=90
while [ $# -gt 0 ]; do
    case $1 in
        --state) STATE=$2; shift 2 ;;
        --kill) MODE=$2; shift 2 ;;
        --kills) KILLS=$2; shift 2 ;;
        --writers) WRITERS=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        -h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done
case $MODE in postmaster | node) ;; *) die "--kill wants postmaster or node" ;; esac
load_state
run="r$(date +%s)"
control="$STATE/hearth-pg-failover-$run"
mkdir -p "$control"
export HEARTH_PORTS HEARTH_ADMIN_SECRET WRITERS MODE CONTROL="$control" RUN="$run"

# The writers run for the whole test; this shell kills, waits and tells them to stop.
"$PY" - >"$control/result.json" <<'PYEOF' &
import http.client, json, os, threading, time

ports = [int(p) for p in os.environ["HEARTH_PORTS"].split()]
secret, run, control = os.environ["HEARTH_ADMIN_SECRET"], os.environ["RUN"], os.environ["CONTROL"]
ns = "pgfail"
lock = threading.Lock()
acked, unknown_increments, acked_increments, refused = {}, [0], [0], [0]
ack_times = []

def request(conn, method, path, body):
    conn.request(method, f"{path}?ns={ns}&auth={secret}", body=body, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    data = response.read()
    return response.status, data

def writer(index):
    n, conns = 0, {}
    while not os.path.exists(control + "/stop"):
        n += 1
        port = ports[(index + n) % len(ports)]
        conn = conns.get(port) or http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conns[port] = conn
        key = f"/{run}/w{index}/{n}"
        try:
            status, _ = request(conn, "PUT", key + ".json", json.dumps(n))
            if status == 200:
                with lock:
                    acked[key] = n
                    ack_times.append(time.time())
            status, _ = request(conn, "PUT", f"/{run}/count.json", '{".sv":{"increment":1}}')
            with lock:
                if status == 200:
                    acked_increments[0] += 1
                    ack_times.append(time.time())
                else:
                    # A 503 may follow a commit whose answer PostgreSQL never sent: uncertain.
                    refused[0] += 1
                    unknown_increments[0] += 1
        except Exception:
            conns.pop(port, None)
            with lock:
                unknown_increments[0] += 1
            time.sleep(0.05)

threads = [threading.Thread(target=writer, args=(i,)) for i in range(int(os.environ["WRITERS"]))]
for t in threads: t.start()
for t in threads: t.join()

def read(port, path):
    deadline = time.time() + 60
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            status, data = request(conn, "GET", path, None)
            if status == 200:
                return json.loads(data)
        except Exception:
            pass
        if time.time() > deadline:
            raise SystemExit(f"GET {path} through {port} kept failing")
        time.sleep(0.2)

kills = [float(line) for line in open(control + "/kills")] if os.path.exists(control + "/kills") else []
times = sorted(ack_times)
per_kill = []
for index, k in enumerate(kills):
    # The backends of a killed postmaster may still acknowledge for a moment: the stall is the
    # longest time without any acknowledgement in the 30 s after the kill (and before the next
    # kill, so that one kill's stall is not counted again for the kill before it).
    end = min(k + 30, kills[index + 1]) if index + 1 < len(kills) else k + 30
    window = [k] + [t for t in times if k < t <= end]
    gaps = [(b - a, a) for a, b in zip(window, window[1:])]
    longest, starts = max(gaps) if gaps else (None, None)
    per_kill.append({
        "write_stall_ms": round(longest * 1000) if longest is not None else None,
        "stall_began_after_kill_ms": round((starts - k) * 1000) if starts is not None else None,
    })
def as_dict(node):
    # Numbered keys come back as a JSON array (Firebase's rule for mostly-numeric keys).
    if isinstance(node, list):
        return {str(i): v for i, v in enumerate(node) if v is not None}
    return node or {}

lost = {}
for port in ports:
    tree = as_dict(read(port, f"/{run}.json"))
    for key, value in acked.items():
        _, _, w, n = key.split("/")
        if as_dict(tree.get(w)).get(n) != value:
            lost.setdefault(port, []).append(key)
count = read(ports[0], f"/{run}/count.json") or 0
print(json.dumps({
    "writers": len(threads), "kills": len(kills), "kill": os.environ.get("MODE", "postmaster"),
    "acknowledged_puts": len(acked), "acknowledged_increments": acked_increments[0],
    "uncertain_increments": unknown_increments[0], "refused_increments_503": refused[0], "counter": count,
    "counter_in_bounds": acked_increments[0] <= count <= acked_increments[0] + unknown_increments[0],
    "lost": {str(p): len(v) for p, v in lost.items()}, "lost_examples": [v[:5] for v in lost.values()][:1],
    "per_kill": per_kill,
}))
PYEOF
writers=$!

sleep 5
for k in $(seq 1 "$KILLS"); do
    choose_failover_victims
    say "kill $k: primary pg$primary, killing pg$target ($victims)"
    "$PY" -c 'import time; print(time.time())' >>"$control/kills"
    # shellcheck disable=SC2086
    kill -9 $victims
    if [ "$MODE" = node ]; then
        sleep 2
        start_bg "patroni$target" setpriv --reuid=postgres --regid=postgres --init-groups \
            env -i PATH=/usr/bin:/bin HOME="$STATE/pg/pg$target" patroni "$STATE/pg/pg$target/patroni.yml"
    fi
    eval "target_rest=\$PATRONI_REST_$target"
    HINT="$STATE/logs/patroni$target.log"
    wait_until "$TIMEOUT" "pg$target back as the synchronous standby" http_ok "http://127.0.0.1:$target_rest/sync"
    sleep 3
done
touch "$control/stop"
wait "$writers" || die "the writers failed; see $control"
MODE=$MODE "$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(json.dumps(r, indent=2))
sys.exit(1 if r["lost"] or not r["counter_in_bounds"] else 0)' "$control/result.json"
