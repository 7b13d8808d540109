# Shared helpers of scripts/cluster/{up,down,status,pg-failover}.sh (sourced, not run).
#
# A cluster's state directory holds everything the scripts start and need to find again:
#   state.env          ports, secrets and URLs (mode 600), sourced by the other scripts
#   endpoints.json     what up.sh printed
#   pids/NAME.pid      "PID STARTTIME" of each process up.sh started (STARTTIME from
#                      /proc/PID/stat, so a reused PID is never mistaken for ours)
#   logs/NAME.log      each process's output
#   etcd/eN, pg/pgN, hearth/hN   their data directories
# Processes are recognised only through these files: nothing here looks processes up by name.

CLUSTER_SCRIPTS=$(cd "$(dirname "$0")" && pwd)
REPO_ROOT=$(cd "$CLUSTER_SCRIPTS/../.." && pwd)
DEFAULT_STATE=/tmp/hearth-cluster
PY=/usr/bin/python3

say() { printf '%s\n' "cluster: $*" >&2; }
die() { printf '%s\n' "cluster: error: $*" >&2; exit 1; }

# The start time (clock ticks since boot) of process $1, or nothing when it is gone.
start_time_of() {
    [ -r "/proc/$1/stat" ] || return 0
    sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $20}'
}

# Records process $2 as NAME $1 of state directory $STATE.
record_pid() {
    _st=$(start_time_of "$2")
    [ -n "$_st" ] || die "$1 (pid $2) exited at once; see $STATE/logs/$1.log"
    printf '%s %s\n' "$2" "$_st" >"$STATE/pids/$1.pid"
}

# The PID recorded as NAME $1 when that very process still runs, else nothing.
live_pid() {
    _f="$STATE/pids/$1.pid"
    [ -f "$_f" ] || return 0
    read -r _pid _st <"$_f" || return 0
    [ -n "${_pid:-}" ] || return 0
    [ "$(start_time_of "$_pid")" = "$_st" ] && printf '%s\n' "$_pid"
    return 0
}

# start_bg NAME CMD...: runs CMD in its own session, output to logs/NAME.log, and records its PID.
# setsid and setpriv/env exec in place (the shell has no job control, so the child is no
# process-group leader and setsid does not fork): $! is the process itself.
start_bg() {
    _name=$1
    shift
    setsid "$@" >"$STATE/logs/$_name.log" 2>&1 </dev/null &
    _bg=$!
    sleep 0.2
    record_pid "$_name" "$_bg"
}

# wait_until SECONDS WHAT CMD...: runs CMD every half second until it succeeds; after SECONDS,
# fails naming WHAT (and the log to read, in $HINT when set).
wait_until() {
    _limit=$1
    _what=$2
    shift 2
    _t0=$(date +%s)
    while ! "$@" >/dev/null 2>&1; do
        if [ $(($(date +%s) - _t0)) -ge "$_limit" ]; then
            die "timed out after ${_limit}s waiting for $_what${HINT:+; see $HINT}"
        fi
        sleep 0.5
    done
    say "$_what: ok after $(($(date +%s) - _t0))s"
}

# free_ports N: N distinct TCP ports free on 127.0.0.1, below the ephemeral range (so outgoing
# connections do not take them meanwhile), chosen at random from 20000-31999.
free_ports() {
    "$PY" - "$1" <<'EOF'
import random, socket, sys
want, chosen, held = int(sys.argv[1]), [], []
while len(chosen) < want:
    port = random.randint(20000, 31999)
    if port in chosen:
        continue
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        s.close()
        continue
    held.append(s)
    chosen.append(port)
for s in held:
    s.close()
print(" ".join(map(str, chosen)))
EOF
}

# http_ok URL: the URL answers 2xx within 2 seconds.
http_ok() { curl -fs -o /dev/null --max-time 2 "$1"; }

# patroni_role N: what Patroni member pgN says it is (primary, replica, ...), or "down".
patroni_role() {
    eval "_rp=\$PATRONI_REST_$1"
    curl -s --max-time 2 "http://127.0.0.1:$_rp/patroni" 2>/dev/null |
        "$PY" -c 'import json,sys; print(json.load(sys.stdin).get("role","?"))' 2>/dev/null || echo down
}

load_state() {
    [ -f "$STATE/state.env" ] || die "no cluster state in $STATE (start one with scripts/cluster/up.sh)"
    # shellcheck disable=SC1091
    . "$STATE/state.env"
}

# choose_failover_victims (MODE: postmaster, node or standby): waits for a synchronous standby,
# then sets primary, standby, target (the member to kill), survivor (the one primary after it),
# datadir and victims (the PIDs to SIGKILL: target's postmaster, and its Patroni for "node").
choose_failover_victims() {
    wait_until "$TIMEOUT" "a synchronous standby before the test" \
        sh -c "curl -fs -o /dev/null --max-time 2 http://127.0.0.1:$PATRONI_REST_1/sync || curl -fs -o /dev/null --max-time 2 http://127.0.0.1:$PATRONI_REST_2/sync"

    primary=""
    for i in 1 2; do
        case $(patroni_role "$i") in master | primary) primary=$i ;; esac
    done
    [ -n "$primary" ] || die "no Patroni member is primary"
    standby=$((3 - primary))
    # target: the member killed; survivor: the one expected to be primary afterwards.
    if [ "$MODE" = standby ]; then target=$standby survivor=$primary; else target=$primary survivor=$standby; fi
    datadir="$STATE/pg/pg$target/data"
    postmaster=$(head -n 1 "$datadir/postmaster.pid")
    case $(tr '\0' ' ' <"/proc/$postmaster/cmdline" 2>/dev/null) in
        */postgres*" -D $datadir"*) ;;
        *) die "pid $postmaster (from $datadir/postmaster.pid) is not that data directory's postmaster" ;;
    esac
    patroni_pid=$(live_pid "patroni$target")
    [ -n "$patroni_pid" ] || die "patroni$target is not running"
    victims=$postmaster
    [ "$MODE" != node ] || victims="$patroni_pid $postmaster"
}
