#!/bin/bash
# Measures a PostgreSQL failover in a local cluster started by scripts/cluster/up.sh: a writer
# inserts numbered rows through HAProxy (one INSERT per autocommit transaction, reconnecting
# after each error) while the primary is killed with SIGKILL; reports the write stall (the kill
# until the first INSERT acknowledged by the new primary; backends of a killed postmaster may
# acknowledge a few more before they notice), the time until Patroni names the standby primary, and
# the acknowledged rows missing afterwards (must be 0 with a synchronous standby); then waits
# for the killed member to come back as the synchronous standby. Prints one JSON object; exit 1
# when an acknowledged row is missing or no write is acknowledged within --timeout.
#
#   scripts/cluster/pg-failover.sh [--state /tmp/hearth-cluster] [--kill postmaster|node|standby] [--timeout 60]
# --kill postmaster (default): SIGKILL to the primary's postmaster only; Patroni stays up and,
#   with primary_start_timeout 0, hands over leadership at once.
# --kill node: SIGKILL to the primary's Patroni and postmaster together (the machine dies); the
#   leader key expires after Patroni's ttl; the script then starts that Patroni again.
# --kill standby: SIGKILL to the synchronous standby's postmaster; the primary stays, and the
#   stall is the longest wait for an acknowledgement (commits wait for the dead standby until
#   Patroni drops it from synchronous_standby_names, synchronous_mode_strict being false).
# Only processes recorded in the state directory (pids/, and postmaster.pid of its data
# directories) are signalled.
set -eu

. "$(dirname "$0")/lib.sh"

STATE=$DEFAULT_STATE
MODE=postmaster
TIMEOUT=60
while [ $# -gt 0 ]; do
    case $1 in
        --state) STATE=$2; shift 2 ;;
        --kill) MODE=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        -h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done
case $MODE in postmaster | node | standby) ;; *) die "--kill wants postmaster, node or standby" ;; esac
load_state
choose_failover_victims
say "primary pg$primary, standby pg$standby; killing pg$target's $([ "$MODE" = node ] && echo "patroni and ")postmaster: $victims"

eval "survivor_rest=\$PATRONI_REST_$survivor survivor_pg=\$PG_PORT_$survivor"
export VICTIMS="$victims" SURVIVOR_REST="$survivor_rest" SURVIVOR_PG_PORT="$survivor_pg" TIMEOUT MODE
export PGURL="$CLUSTER_URL"
result=$("$PY" - <<'EOF'
import json, os, signal, threading, time
import psycopg2

# The PostgreSQL port of the primary after the kill: an INSERT acknowledged by it ends the stall
# (backends of a killed postmaster live on for a moment and may still acknowledge).
new_port = int(os.environ["SURVIVOR_PG_PORT"])

url, timeout = os.environ["PGURL"], float(os.environ["TIMEOUT"])
acked, unknown, errors = [], [], []   # acked: (id, time acknowledged, server port)
stop = threading.Event()

def connect():
    c = psycopg2.connect(url, connect_timeout=2)
    c.autocommit = True
    return c

def server_port(conn):
    cur = conn.cursor()
    cur.execute("SELECT inet_server_port()")
    return cur.fetchone()[0]

c = connect()
c.cursor().execute("DROP TABLE IF EXISTS failover_probe;"
                   "CREATE TABLE failover_probe (id bigint PRIMARY KEY, at timestamptz DEFAULT now())")
c.close()

def writer():
    n, conn, port = 0, None, None
    while not stop.is_set():
        n += 1
        try:
            if conn is None:
                conn = connect()
                port = server_port(conn)
            conn.cursor().execute("INSERT INTO failover_probe (id) VALUES (%s)", (n,))
            acked.append((n, time.monotonic(), port))
        except Exception as e:
            unknown.append(n)   # may or may not have committed: not counted either way
            errors.append((time.monotonic(), type(e).__name__))
            try:
                conn and conn.close()
            except Exception:
                pass
            conn = None
            time.sleep(0.05)
        time.sleep(0.01)

def survivor_is_primary():
    import urllib.request
    try:
        with urllib.request.urlopen("http://127.0.0.1:%s/primary" % os.environ["SURVIVOR_REST"], timeout=1) as r:
            return r.status == 200
    except Exception:
        return False

t = threading.Thread(target=writer)
t.start()
time.sleep(3)
before = len(acked)
t_kill = time.monotonic()
for pid in os.environ["VICTIMS"].split():
    os.kill(int(pid), signal.SIGKILL)
promoted = None
if os.environ["MODE"] == "standby":   # writes go on on the same primary: watch them for 15 s
    time.sleep(min(15, timeout))
while time.monotonic() - t_kill < timeout:
    if promoted is None and survivor_is_primary():
        promoted = time.monotonic()
    if promoted is not None and acked and acked[-1][2] == new_port and acked[-1][1] > t_kill:
        break
    time.sleep(0.05)
if os.environ["MODE"] == "standby":   # the primary stays: the stall is the longest wait for an ack
    times = [t_kill] + [a for _, a, _ in acked if a > t_kill]
    gaps = [(b - a, b) for a, b in zip(times, times[1:])]
    first_after = t_kill + max(gaps)[0] if gaps else None
else:
    first_after = next((a for _, a, p in acked if a > t_kill and p == new_port), None)
time.sleep(3)
stop.set()
t.join()

old_after = sum(1 for _, a, p in acked if a > t_kill and p != new_port)
last_old = max((a for _, a, p in acked if p != new_port), default=None)
conn = connect()
cur = conn.cursor()
cur.execute("SELECT id FROM failover_probe")
present = {r[0] for r in cur.fetchall()}
cur.execute("SELECT inet_server_port(), pg_is_in_recovery()")
port, recovery = cur.fetchone()
conn.close()
lost = sorted(i for i, _, _ in acked if i not in present)
ms = lambda x: None if x is None else round(x * 1000)
print(json.dumps({
    "kill": os.environ["MODE"],
    "acked_before_kill": before,
    "acked_total": len(acked),
    "acked_lost": len(lost),
    "lost_ids": lost[:20],
    "failed_attempts": len(unknown),
    "write_stall_ms": ms(first_after - t_kill) if first_after else None,
    "acked_by_old_primary_after_kill": old_after,
    "gap_between_acks_ms": ms(first_after - last_old) if first_after and last_old else None,
    "survivor_primary_after_ms": ms(promoted - t_kill) if promoted and os.environ["MODE"] != "standby" else None,
    "serving_port_after": port,
    "serving_in_recovery_after": recovery,
}))
EOF
)
printf '%s\n' "$result" | "$PY" -c 'import json,sys; r=json.load(sys.stdin); sys.exit(0 if r["write_stall_ms"] is not None else 1)' ||
    die "no write was acknowledged within ${TIMEOUT}s of the kill: $result"

if [ "$MODE" = node ]; then
    say "starting patroni$target again"
    start_bg "patroni$target" setpriv --reuid=postgres --regid=postgres --init-groups \
        env -i PATH=/usr/bin:/bin HOME="$STATE/pg/pg$target" patroni "$STATE/pg/pg$target/patroni.yml"
fi
eval "target_rest=\$PATRONI_REST_$target"
t0=$(date +%s)
HINT="$STATE/logs/patroni$target.log"
wait_until "$TIMEOUT" "pg$target (re)joining as the synchronous standby" http_ok "http://127.0.0.1:$target_rest/sync"
rejoin=$(($(date +%s) - t0))
printf '%s\n' "$result" | "$PY" -c 'import json,sys; r=json.load(sys.stdin); r["killed"]="pg'"$target"'"; r["primary_after"]="pg'"$survivor"'"; r["killed_back_as_sync_after_s"]='"$rejoin"'; print(json.dumps(r, indent=2)); sys.exit(1 if r["acked_lost"] else 0)'
