#!/bin/bash
# Stops what scripts/cluster/up.sh started, and nothing else: each process named by a PID file
# in the state directory (pids/NAME.pid, checked against the process's start time so a reused
# PID is left alone), plus any PostgreSQL postmaster still running on one of the cluster's own
# data directories (its postmaster.pid, and /proc/PID/cmdline naming that directory).
# SIGTERM first (Patroni then stops its PostgreSQL cleanly), SIGKILL after --timeout seconds.
# Order: Hearth nodes, their HAProxy, PostgreSQL's HAProxy, Patroni, leftover postmasters, etcd.
#
#   scripts/cluster/down.sh [--state /tmp/hearth-cluster] [--timeout 30] [--only 'NAME ...'] [--purge]
# --only stops just those names (e.g. 'hearth1' or 'hearth1 hearth2 haproxy-http');
# --purge then deletes the state directory (data, logs, secrets).
set -eu

. "$(dirname "$0")/lib.sh"

STATE=$DEFAULT_STATE
TIMEOUT=30
ONLY=""
PURGE=0
while [ $# -gt 0 ]; do
    case $1 in
        --state) STATE=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        --only) ONLY=$2; shift 2 ;;
        --purge) PURGE=1; shift ;;
        -h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done
[ -d "$STATE" ] || die "no state directory $STATE"
[ -f "$STATE/state.env" ] && . "$STATE/state.env"

wanted() {
    [ -z "$ONLY" ] && return 0
    for w in $ONLY; do [ "$w" = "$1" ] && return 0; done
    return 1
}

# stop_pid NAME PID STARTTIME: TERM, wait, KILL, wait.
stop_pid() {
    name=$1 pid=$2 st=$3
    [ "$(start_time_of "$pid")" = "$st" ] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    t0=$(date +%s)
    while [ "$(start_time_of "$pid")" = "$st" ]; do
        if [ $(($(date +%s) - t0)) -ge "$TIMEOUT" ]; then
            say "$name (pid $pid) still running after ${TIMEOUT}s: SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            sleep 0.5
            [ "$(start_time_of "$pid")" = "$st" ] && { say "$name (pid $pid) survives SIGKILL"; return 1; }
            break
        fi
        sleep 0.2
    done
    say "stopped $name (pid $pid) in $(($(date +%s) - t0))s"
}

stop_named() {
    for name in "$@"; do
        wanted "$name" || continue
        f="$STATE/pids/$name.pid"
        [ -f "$f" ] || continue
        read -r pid st <"$f" || continue
        if [ "$(start_time_of "$pid")" = "$st" ]; then
            stop_pid "$name" "$pid" "$st" &
        fi
    done
    wait
}

# Postmasters left on our data directories (Patroni killed, or a postgres it started not stopped).
stop_postmasters() {
    for d in "$STATE"/pg/pg*/data; do
        [ -f "$d/postmaster.pid" ] || continue
        name="postgres-$(basename "$(dirname "$d")")"
        wanted "$name" || wanted "patroni${name#postgres-pg}" || continue
        pid=$(head -n 1 "$d/postmaster.pid")
        case $pid in '' | *[!0-9]*) continue ;; esac
        [ -r "/proc/$pid/cmdline" ] || continue
        cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline")
        case $cmd in
            */postgres*" -D $d"* | */postgres*"--config-file=$d/"*) ;;
            *) continue ;;
        esac
        # SIGINT is PostgreSQL's fast shutdown.
        kill -INT "$pid" 2>/dev/null || true
        st=$(start_time_of "$pid")
        [ -n "$st" ] && stop_pid "$name" "$pid" "$st"
    done
}

hearths=$(cd "$STATE/pids" 2>/dev/null && ls hearth*.pid 2>/dev/null | sed 's/\.pid$//' | tr '\n' ' ' || true)
# shellcheck disable=SC2086
stop_named $hearths
stop_named haproxy-http haproxy-pg
stop_named patroni1 patroni2
stop_postmasters
stop_named etcd1 etcd2 etcd3

left=""
for f in "$STATE"/pids/*.pid; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .pid)
    wanted "$name" || continue
    if [ -n "$(live_pid "$name")" ]; then left="$left $name"; else rm -f "$f"; fi
done
[ -z "$left" ] || die "still running:$left"
if [ "$PURGE" -eq 1 ] && [ -z "$ONLY" ]; then
    rm -rf "$STATE"
    say "removed $STATE"
fi
say "down: nothing up.sh started in $STATE is running${ONLY:+ (of: $ONLY)}"
