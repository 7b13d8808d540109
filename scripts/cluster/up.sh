#!/bin/bash
# Starts a Hearth cluster on this machine, loopback only, for tests and demos (docs/cluster.md):
#   3 etcd members, 2 PostgreSQL instances under Patroni (a primary and a synchronous standby,
#   run as the postgres user), HAProxy in front of PostgreSQL (routing to Patroni's leader by
#   its REST GET /primary), then N Hearth nodes (`hearth serve --cluster ...`) behind a second
#   HAProxy hashing on the ns query parameter.
# Installs what is missing from Debian (postgresql, patroni, etcd-server, etcd-client, haproxy,
# curl) without letting the packages start their own services. Every port is a free one on
# 127.0.0.1; every wait is bounded. PIDs, ports and secrets go to the state directory
# (default /tmp/hearth-cluster); the endpoints are printed as JSON on stdout.
# On failure, what this run started is stopped again (unless --keep-on-failure).
#
#   scripts/cluster/up.sh [--nodes 3] [--hearth .build/debug/hearth]   the whole cluster
#   scripts/cluster/up.sh --no-hearth      only etcd + Patroni + HAProxy; prints the PostgreSQL URL
#   scripts/cluster/up.sh --only-hearth    adds the Hearth nodes to a cluster started --no-hearth
# Other options: --state DIR, --lease-seconds N, --hearth-arg ARG (repeatable, passed to every
# node), --timeout SECONDS (each wait, default 90), --no-install, --keep-on-failure,
# --skip-cluster-view (do not wait for GET /.well-known/hearth/cluster to list every node alive).
set -eu

. "$(dirname "$0")/lib.sh"

STATE=$DEFAULT_STATE
NODES=3
HEARTH=.build/debug/hearth
WITH_INFRA=1
WITH_HEARTH=1
LEASE=""
TIMEOUT=90
INSTALL=1
KEEP_ON_FAILURE=0
CLUSTER_VIEW=1
HEARTH_ARGS=()

while [ $# -gt 0 ]; do
    case $1 in
        --state) STATE=$2; shift 2 ;;
        --nodes) NODES=$2; shift 2 ;;
        --hearth) HEARTH=$2; shift 2 ;;
        --no-hearth) WITH_HEARTH=0; shift ;;
        --only-hearth) WITH_INFRA=0; shift ;;
        --lease-seconds) LEASE=$2; shift 2 ;;
        --hearth-arg) HEARTH_ARGS+=("$2"); shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        --no-install) INSTALL=0; shift ;;
        --keep-on-failure) KEEP_ON_FAILURE=1; shift ;;
        --skip-cluster-view) CLUSTER_VIEW=0; shift ;;
        -h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done
case $NODES in '' | *[!0-9]*) die "--nodes wants a number" ;; esac
[ "$(id -u)" -eq 0 ] || die "run as root (PostgreSQL runs as the postgres user, which needs root to switch to)"
mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)

# ---------------------------------------------------------------- packages
install_missing() {
    need=""
    command -v curl >/dev/null || need="$need curl"
    command -v haproxy >/dev/null || need="$need haproxy"
    command -v etcd >/dev/null || need="$need etcd-server"
    command -v etcdctl >/dev/null || need="$need etcd-client"
    command -v patroni >/dev/null || need="$need patroni"
    [ -x /usr/lib/postgresql/15/bin/postgres ] || need="$need postgresql-15"
    command -v psql >/dev/null || need="$need postgresql-client-15"
    [ -n "$need" ] || return 0
    [ "$INSTALL" -eq 1 ] || die "missing Debian packages:$need (run without --no-install)"
    say "installing:$need"
    # Packages start their default services on install (a PostgreSQL on 5432, an etcd on 2379,
    # a HAProxy); forbid that while installing unless a policy already exists.
    own_policy=0
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
        own_policy=1
    fi
    rc=0
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need; } >&2 || rc=$?
    [ "$own_policy" -eq 0 ] || rm -f /usr/sbin/policy-rc.d
    [ "$rc" -eq 0 ] || die "apt-get install$need failed"
}

# ---------------------------------------------------------------- failure handling
STARTED_HERE=()
on_exit() {
    rc=$?
    [ "$rc" -ne 0 ] || return 0
    if [ "$KEEP_ON_FAILURE" -eq 1 ] || [ ${#STARTED_HERE[@]} -eq 0 ]; then
        [ ${#STARTED_HERE[@]} -eq 0 ] || say "left running for inspection: ${STARTED_HERE[*]}; stop with scripts/cluster/down.sh --state $STATE"
        return 0
    fi
    say "stopping what this run started: ${STARTED_HERE[*]}"
    "$CLUSTER_SCRIPTS/down.sh" --state "$STATE" --only "${STARTED_HERE[*]}" >&2 || true
}
trap on_exit EXIT

started() { STARTED_HERE+=("$1"); }

# ---------------------------------------------------------------- infrastructure
start_etcd() {
    HINT="$STATE/logs/etcd1.log"
    peers=""
    for i in 1 2 3; do
        eval "pp=\$ETCD_PEER_$i"
        peers="${peers:+$peers,}e$i=http://127.0.0.1:$pp"
    done
    for i in 1 2 3; do
        eval "cp=\$ETCD_CLIENT_$i; pp=\$ETCD_PEER_$i"
        mkdir -p "$STATE/etcd/e$i"
        chmod 700 "$STATE/etcd/e$i"
        start_bg "etcd$i" env -i PATH=/usr/bin:/bin etcd \
            --name "e$i" --data-dir "$STATE/etcd/e$i" \
            --listen-client-urls "http://127.0.0.1:$cp" --advertise-client-urls "http://127.0.0.1:$cp" \
            --listen-peer-urls "http://127.0.0.1:$pp" --initial-advertise-peer-urls "http://127.0.0.1:$pp" \
            --initial-cluster "$peers" --initial-cluster-token "hearth-$CLUSTER_TOKEN" \
            --initial-cluster-state new
        started "etcd$i"
    done
    wait_until "$TIMEOUT" "etcd (3 members healthy)" \
        etcdctl --endpoints="$ETCD_ENDPOINTS" --dial-timeout=2s --command-timeout=2s endpoint health
}

write_patroni_config() {
    i=$1
    eval "pg=\$PG_PORT_$i; rest=\$PATRONI_REST_$i"
    dir="$STATE/pg/pg$i"
    mkdir -p "$dir/run" "$dir/log"
    cat >"$dir/patroni.yml" <<EOF
# Patroni member pg$i of the local cluster in $STATE (written by scripts/cluster/up.sh).
scope: hearth
namespace: /hearth-$CLUSTER_TOKEN/
name: pg$i
restapi:
  listen: 127.0.0.1:$rest
  connect_address: 127.0.0.1:$rest
etcd3:
  hosts: $ETCD_HOSTS
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 1
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    # Fail over at once when the primary's postgres dies (not after 300 s of restarting it):
    # safe because a synchronous standby holds every acknowledged commit.
    primary_start_timeout: 0
    synchronous_mode: true
    synchronous_mode_strict: false
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        max_connections: 200
        synchronous_commit: "on"
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
    - data-checksums
  pg_hba:
    - local all all peer
    - host replication replicator 127.0.0.1/32 scram-sha-256
    - host all all 127.0.0.1/32 scram-sha-256
postgresql:
  listen: 127.0.0.1:$pg
  connect_address: 127.0.0.1:$pg
  data_dir: $dir/data
  bin_dir: $PG_BIN
  pgpass: $dir/pgpass
  authentication:
    superuser:
      username: postgres
      password: $PG_SUPER_PASSWORD
    replication:
      username: replicator
      password: $PG_REPL_PASSWORD
    rewind:
      username: rewinder
      password: $PG_REWIND_PASSWORD
  parameters:
    unix_socket_directories: $dir/run
    password_encryption: scram-sha-256
    logging_collector: "on"
    log_directory: $dir/log
    log_filename: postgresql.log
tags:
  nofailover: false
  noloadbalance: false
  clonefrom: false
  nosync: false
EOF
    chown -R postgres:postgres "$dir"
    chmod 700 "$dir"
    chmod 600 "$dir/patroni.yml"
}

start_patroni() {
    mkdir -p "$STATE/pg"
    chmod 755 "$STATE/pg"
    for i in 1 2; do
        write_patroni_config "$i"
        # The log is opened by this (root) shell; patroni itself runs as postgres.
        start_bg "patroni$i" setpriv --reuid=postgres --regid=postgres --init-groups \
            env -i PATH=/usr/bin:/bin HOME="$STATE/pg/pg$i" patroni "$STATE/pg/pg$i/patroni.yml"
        started "patroni$i"
    done
    HINT="$STATE/logs/patroni1.log and patroni2.log"
    wait_until "$TIMEOUT" "Patroni leader (GET /primary answers 200)" any_primary
    wait_until "$TIMEOUT" "Patroni synchronous standby (GET /sync answers 200)" any_sync
}

any_primary() { http_ok "http://127.0.0.1:$PATRONI_REST_1/primary" || http_ok "http://127.0.0.1:$PATRONI_REST_2/primary"; }
any_sync() { http_ok "http://127.0.0.1:$PATRONI_REST_1/sync" || http_ok "http://127.0.0.1:$PATRONI_REST_2/sync"; }

start_haproxy_pg() {
    cat >"$STATE/haproxy-pg.cfg" <<EOF
# HAProxy in front of PostgreSQL: only the Patroni leader passes GET /primary.
global
    log stdout format raw local0 info
    maxconn 1000
defaults
    mode tcp
    log global
    option tcplog
    timeout connect 2s
    timeout client 30m
    timeout server 30m
    timeout check 1s
listen postgres
    bind 127.0.0.1:$HAPROXY_PG_PORT
    option httpchk
    http-check send meth GET uri /primary
    http-check expect status 200
    default-server inter 500ms fastinter 250ms fall 2 rise 1 on-marked-down shutdown-sessions
    server pg1 127.0.0.1:$PG_PORT_1 check port $PATRONI_REST_1
    server pg2 127.0.0.1:$PG_PORT_2 check port $PATRONI_REST_2
listen stats
    mode http
    bind 127.0.0.1:$HAPROXY_PG_STATS_PORT
    stats enable
    stats uri /
    stats refresh 2s
EOF
    haproxy -c -q -f "$STATE/haproxy-pg.cfg" || die "haproxy-pg.cfg does not check (haproxy -c)"
    start_bg haproxy-pg haproxy -db -f "$STATE/haproxy-pg.cfg"
    started haproxy-pg
    HINT="$STATE/logs/haproxy-pg.log"
    wait_until "$TIMEOUT" "PostgreSQL through HAProxy (127.0.0.1:$HAPROXY_PG_PORT)" pg_through_haproxy
}

pg_super() {
    PGPASSWORD=$PG_SUPER_PASSWORD PGCONNECT_TIMEOUT=3 psql -X -q -v ON_ERROR_STOP=1 -At \
        -h 127.0.0.1 -p "$HAPROXY_PG_PORT" -U postgres -d postgres "$@"
}
pg_through_haproxy() { [ "$(pg_super -c 'SELECT pg_is_in_recovery()')" = f ]; }

create_hearth_database() {
    pg_super <<EOF
SELECT 'CREATE ROLE hearth LOGIN' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'hearth')\gexec
ALTER ROLE hearth PASSWORD '$PG_HEARTH_PASSWORD';
SELECT 'CREATE DATABASE hearth OWNER hearth' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'hearth')\gexec
EOF
    HINT=""
    wait_until "$TIMEOUT" "the hearth role and database (psql as hearth through HAProxy)" \
        env PGPASSWORD="$PG_HEARTH_PASSWORD" PGCONNECT_TIMEOUT=3 psql -X -At -h 127.0.0.1 -p "$HAPROXY_PG_PORT" \
        -U hearth -d hearth -c 'SELECT 1'
}

secret() { head -c 24 /dev/urandom | base64 | tr '+/' '-_'; }

start_infrastructure() {
    if [ -f "$STATE/state.env" ]; then
        . "$STATE/state.env"
        for n in etcd1 etcd2 etcd3 patroni1 patroni2 haproxy-pg; do
            [ -z "$(live_pid "$n")" ] || die "a cluster already runs in $STATE ($n); stop it with scripts/cluster/down.sh --state $STATE"
        done
        say "replacing the stopped cluster's state in $STATE"
    fi
    rm -rf "$STATE/etcd" "$STATE/pg" "$STATE/hearth" "$STATE/pids" "$STATE/logs" \
        "$STATE/state.env" "$STATE/endpoints.json" "$STATE"/haproxy-*.cfg
    mkdir -p "$STATE/pids" "$STATE/logs"
    chmod 755 "$STATE" "$STATE/logs"
    PG_BIN=/usr/lib/postgresql/15/bin
    [ -x "$PG_BIN/postgres" ] || die "PostgreSQL 15 is not installed ($PG_BIN)"

    set -- $(free_ports 12)
    ETCD_CLIENT_1=$1 ETCD_CLIENT_2=$2 ETCD_CLIENT_3=$3 ETCD_PEER_1=$4 ETCD_PEER_2=$5 ETCD_PEER_3=$6
    PG_PORT_1=$7 PG_PORT_2=$8 PATRONI_REST_1=$9 PATRONI_REST_2=${10}
    HAPROXY_PG_PORT=${11} HAPROXY_PG_STATS_PORT=${12}
    ETCD_HOSTS="127.0.0.1:$ETCD_CLIENT_1,127.0.0.1:$ETCD_CLIENT_2,127.0.0.1:$ETCD_CLIENT_3"
    ETCD_ENDPOINTS="http://127.0.0.1:$ETCD_CLIENT_1,http://127.0.0.1:$ETCD_CLIENT_2,http://127.0.0.1:$ETCD_CLIENT_3"
    CLUSTER_TOKEN=$(head -c 4 /dev/urandom | od -An -tx1 | tr -d ' \n')
    PG_SUPER_PASSWORD=$(secret) PG_REPL_PASSWORD=$(secret) PG_REWIND_PASSWORD=$(secret)
    PG_HEARTH_PASSWORD=$(secret)
    HEARTH_ADMIN_SECRET=$(secret) HEARTH_JWT_SECRET=$(secret)
    CLUSTER_URL="postgresql://hearth:$PG_HEARTH_PASSWORD@127.0.0.1:$HAPROXY_PG_PORT/hearth"
    umask 077
    {
        for v in ETCD_CLIENT_1 ETCD_CLIENT_2 ETCD_CLIENT_3 ETCD_PEER_1 ETCD_PEER_2 ETCD_PEER_3 \
            PG_PORT_1 PG_PORT_2 PATRONI_REST_1 PATRONI_REST_2 HAPROXY_PG_PORT HAPROXY_PG_STATS_PORT \
            ETCD_HOSTS ETCD_ENDPOINTS CLUSTER_TOKEN PG_BIN PG_SUPER_PASSWORD PG_REPL_PASSWORD \
            PG_REWIND_PASSWORD PG_HEARTH_PASSWORD HEARTH_ADMIN_SECRET HEARTH_JWT_SECRET CLUSTER_URL; do
            eval "printf '%s=%s\n' $v \"'\$$v'\""
        done
    } >"$STATE/state.env"
    umask 022

    start_etcd
    start_patroni
    start_haproxy_pg
    create_hearth_database
}

# ---------------------------------------------------------------- Hearth nodes
start_hearth() {
    load_state
    [ -z "$(live_pid haproxy-pg)" ] && die "PostgreSQL's HAProxy is not running in $STATE (start it with up.sh --no-hearth)"
    [ -z "$(live_pid haproxy-http)" ] || die "Hearth nodes already run in $STATE; stop them first (down.sh --only 'hearth* haproxy-http')"
    case $HEARTH in /*) ;; *) HEARTH="$REPO_ROOT/$HEARTH" ;; esac
    [ -x "$HEARTH" ] || die "no Hearth binary at $HEARTH (build it, or pass --hearth PATH)"
    [ "$NODES" -ge 1 ] || die "--nodes must be at least 1"

    set -- $(free_ports $((NODES + 2)))
    HAPROXY_HTTP_PORT=$1 HAPROXY_HTTP_STATS_PORT=$2
    shift 2
    HEARTH_PORTS="$*"
    lease=()
    [ -z "$LEASE" ] || lease=(--lease-seconds "$LEASE")
    i=0
    servers=""
    for port in $HEARTH_PORTS; do
        i=$((i + 1))
        mkdir -p "$STATE/hearth/h$i"
        # Secrets and the PostgreSQL URL (with its password) go by environment, not on the
        # command line where ps shows them. cwd is the repository root: rules/ and seed/.
        (cd "$REPO_ROOT" && start_bg "hearth$i" env \
            HEARTH_ADMIN_SECRET="$HEARTH_ADMIN_SECRET" HEARTH_JWT_SECRET="$HEARTH_JWT_SECRET" \
            HEARTH_CLUSTER="$CLUSTER_URL" \
            "$HEARTH" serve --host 127.0.0.1 --port "$port" --data "$STATE/hearth/h$i" \
            --advertise "http://127.0.0.1:$port" "${lease[@]}" "${HEARTH_ARGS[@]}")
        started "hearth$i"
        servers="$servers    server h$i 127.0.0.1:$port check
"
    done
    {
        echo "HAPROXY_HTTP_PORT='$HAPROXY_HTTP_PORT'"
        echo "HAPROXY_HTTP_STATS_PORT='$HAPROXY_HTTP_STATS_PORT'"
        echo "HEARTH_PORTS='$HEARTH_PORTS'"
        echo "HEARTH_BINARY='$HEARTH'"
    } >>"$STATE/state.env"

    i=0
    for port in $HEARTH_PORTS; do
        i=$((i + 1))
        HINT="$STATE/logs/hearth$i.log"
        [ -n "$(live_pid "hearth$i")" ] || die "hearth$i exited; see $HINT"
        wait_until "$TIMEOUT" "hearth$i health (127.0.0.1:$port)" hearth_alive "$i" "$port"
    done

    # Each proxied connection takes two descriptors: keep maxconn within the open-file limit.
    nofile=$(ulimit -n)
    case $nofile in unlimited) maxconn=20000 ;; *) maxconn=$(((nofile - 200) / 2)) ;; esac
    [ "$maxconn" -le 20000 ] || maxconn=20000
    cat >"$STATE/haproxy-http.cfg" <<EOF
# HAProxy in front of the Hearth nodes: a namespace's requests go to one node (hash of ?ns=).
global
    log stdout format raw local0 info
    maxconn $maxconn
defaults
    mode http
    log global
    option httplog
    timeout connect 2s
    timeout client 120s
    timeout server 120s
    timeout tunnel 1h
    timeout http-request 30s
    timeout check 2s
frontend hearth
    bind 127.0.0.1:$HAPROXY_HTTP_PORT
    default_backend hearth_nodes
backend hearth_nodes
    balance url_param ns
    hash-type consistent
    option httpchk
    http-check send meth GET uri /.well-known/hearth/health
    http-check expect status 200
    default-server inter 1s fall 2 rise 2
$servers
listen stats
    bind 127.0.0.1:$HAPROXY_HTTP_STATS_PORT
    stats enable
    stats uri /
    stats refresh 2s
EOF
    haproxy -c -q -f "$STATE/haproxy-http.cfg" || die "haproxy-http.cfg does not check (haproxy -c)"
    start_bg haproxy-http haproxy -db -f "$STATE/haproxy-http.cfg"
    started haproxy-http
    HINT="$STATE/logs/haproxy-http.log"
    wait_until "$TIMEOUT" "Hearth through HAProxy (127.0.0.1:$HAPROXY_HTTP_PORT, all $NODES nodes UP)" haproxy_all_up
    if [ "$CLUSTER_VIEW" -eq 1 ]; then
        HINT="$STATE/logs/hearth1.log"
        wait_until "$TIMEOUT" "GET /.well-known/hearth/cluster listing $NODES nodes alive" cluster_view_complete
    fi
}

hearth_alive() {
    [ -n "$(live_pid "hearth$1")" ] || die "hearth$1 exited; see $STATE/logs/hearth$1.log"
    http_ok "http://127.0.0.1:$2/.well-known/hearth/health"
}

haproxy_all_up() {
    http_ok "http://127.0.0.1:$HAPROXY_HTTP_PORT/.well-known/hearth/health?ns=probe" || return 1
    up=$(curl -fsS --max-time 2 "http://127.0.0.1:$HAPROXY_HTTP_STATS_PORT/;csv" |
        awk -F, '$1 == "hearth_nodes" && $2 ~ /^h[0-9]+$/ && $18 == "UP"' | wc -l)
    [ "$up" -eq "$NODES" ]
}

cluster_view_complete() {
    curl -fsS --max-time 2 -H "Authorization: Bearer $HEARTH_ADMIN_SECRET" \
        "http://127.0.0.1:$HAPROXY_HTTP_PORT/.well-known/hearth/cluster" |
        "$PY" -c 'import json,sys; n=[x for x in json.load(sys.stdin)["nodes"] if x.get("alive")]; sys.exit(0 if len(n) >= int(sys.argv[1]) else 1)' "$NODES"
}

# ---------------------------------------------------------------- main
install_missing
if [ "$WITH_INFRA" -eq 1 ]; then
    start_infrastructure
fi
if [ "$WITH_HEARTH" -eq 1 ]; then
    start_hearth
fi
(umask 077 && "$CLUSTER_SCRIPTS/status.sh" --state "$STATE" --json >"$STATE/endpoints.json")
cat "$STATE/endpoints.json"
if [ "$WITH_HEARTH" -eq 0 ]; then
    say "PostgreSQL for hearth serve --cluster: $(. "$STATE/state.env" && echo "$CLUSTER_URL")"
    say "start the Hearth nodes later with: scripts/cluster/up.sh --only-hearth --state $STATE [--nodes N] [--hearth PATH]"
fi
