#!/bin/bash
# Shows a local cluster started by scripts/cluster/up.sh: each recorded process (alive or not),
# etcd's health, each Patroni member's role and PostgreSQL's replication (sync_state) as seen
# through HAProxy, HAProxy's view of its backends, each Hearth node's health and the cluster view
# (GET /.well-known/hearth/cluster). --json prints the endpoints and that state as one JSON
# object (what up.sh prints and keeps in endpoints.json). Exit 1 when a recorded process is gone.
#
#   scripts/cluster/status.sh [--state /tmp/hearth-cluster] [--json]
set -eu

. "$(dirname "$0")/lib.sh"

STATE=$DEFAULT_STATE
JSON=0
while [ $# -gt 0 ]; do
    case $1 in
        --state) STATE=$2; shift 2 ;;
        --json) JSON=1; shift ;;
        -h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done
load_state
if ! ls "$STATE"/pids/*.pid >/dev/null 2>&1; then
    say "no process of the cluster in $STATE is recorded as running (stopped by down.sh?)"
    exit 1
fi

# processes: "name pid alive" lines
procs=""
dead=0
for f in "$STATE"/pids/*.pid; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .pid)
    read -r pid _ <"$f"
    if [ -n "$(live_pid "$name")" ]; then alive=true; else alive=false; dead=1; fi
    procs="$procs$name $pid $alive
"
done

etcd_health=$(etcdctl --endpoints="$ETCD_ENDPOINTS" --dial-timeout=1s --command-timeout=2s endpoint health 2>&1 |
    grep -E 'is (un)?healthy' | sed 's/^/    /' || true)

roles=""
for i in 1 2; do
    eval "pg=\$PG_PORT_$i rest=\$PATRONI_REST_$i"
    roles="$roles pg$i=$(patroni_role "$i")"
done

replication=$(PGPASSWORD=$PG_SUPER_PASSWORD PGCONNECT_TIMEOUT=2 psql -X -At -F' ' -h 127.0.0.1 \
    -p "$HAPROXY_PG_PORT" -U postgres -d postgres \
    -c "SELECT application_name, state, sync_state FROM pg_stat_replication ORDER BY 1" 2>&1 || true)

haproxy_backends() {
    curl -fsS --max-time 2 "http://127.0.0.1:$1/;csv" 2>/dev/null |
        awk -F, '$2 != "FRONTEND" && $2 != "BACKEND" && $1 != "stats" && NR > 1 {print $1 "/" $2 "=" $18}' |
        tr '\n' ' ' || true
}
pg_backends=$(haproxy_backends "$HAPROXY_PG_STATS_PORT")
http_backends=""
nodes=""
cluster_view=""
if [ -n "${HEARTH_PORTS:-}" ]; then
    http_backends=$(haproxy_backends "$HAPROXY_HTTP_STATS_PORT")
    i=0
    for port in $HEARTH_PORTS; do
        i=$((i + 1))
        if http_ok "http://127.0.0.1:$port/.well-known/hearth/health"; then h=true; else h=false; fi
        nodes="$nodes h$i $port $h
"
    done
    cluster_view=$(curl -sS --max-time 2 -H "Authorization: Bearer $HEARTH_ADMIN_SECRET" \
        "http://127.0.0.1:$HAPROXY_HTTP_PORT/.well-known/hearth/cluster" 2>&1 || true)
fi

if [ "$JSON" -eq 1 ]; then
    export STATE PROCS="$procs" ROLES="$roles" REPLICATION="$replication" NODES_TEXT="$nodes" \
        CLUSTER_VIEW="$cluster_view" PG_BACKENDS="$pg_backends" HTTP_BACKENDS="$http_backends"
    set -a
    . "$STATE/state.env"
    set +a
    "$PY" - <<'EOF'
import json, os
e = os.environ
def pairs(text):
    return dict(p.split("=", 1) for p in text.split())
out = {
    "state": e["STATE"],
    "postgres_url": e["CLUSTER_URL"],
    "postgres": {"haproxy": "127.0.0.1:" + e["HAPROXY_PG_PORT"],
                 "haproxy_stats": "http://127.0.0.1:%s/" % e["HAPROXY_PG_STATS_PORT"],
                 "superuser_password": e["PG_SUPER_PASSWORD"],
                 "members": {"pg%d" % i: {"postgres": "127.0.0.1:" + e["PG_PORT_%d" % i],
                                          "patroni": "http://127.0.0.1:%s" % e["PATRONI_REST_%d" % i]}
                             for i in (1, 2)},
                 "roles": pairs(e["ROLES"]),
                 "replication": [dict(zip(("member", "state", "sync_state"), l.split()))
                                 for l in e["REPLICATION"].splitlines() if len(l.split()) == 3],
                 "haproxy_backends": pairs(e["PG_BACKENDS"])},
    "etcd": e["ETCD_ENDPOINTS"].split(","),
    "processes": {l.split()[0]: {"pid": int(l.split()[1]), "alive": l.split()[2] == "true"}
                  for l in e["PROCS"].splitlines() if l.strip()},
}
if e.get("HEARTH_PORTS"):
    out["hearth"] = {
        "url": "http://127.0.0.1:%s" % e["HAPROXY_HTTP_PORT"],
        "haproxy_stats": "http://127.0.0.1:%s/" % e["HAPROXY_HTTP_STATS_PORT"],
        "admin_secret": e["HEARTH_ADMIN_SECRET"],
        "jwt_secret": e["HEARTH_JWT_SECRET"],
        "binary": e.get("HEARTH_BINARY", ""),
        "nodes": [{"name": n, "url": "http://127.0.0.1:" + p, "healthy": h == "true"}
                  for n, p, h in (l.split() for l in e["NODES_TEXT"].splitlines() if l.strip())],
        "haproxy_backends": pairs(e["HTTP_BACKENDS"]),
    }
    try:
        out["hearth"]["cluster"] = json.loads(e["CLUSTER_VIEW"])
    except ValueError:
        out["hearth"]["cluster"] = None
print(json.dumps(out, indent=2))
EOF
    exit "$dead"
fi

echo "state:        $STATE"
echo "postgres url: $CLUSTER_URL"
echo "processes:"
printf '%s' "$procs" | awk '{printf "    %-14s pid %-8s %s\n", $1, $2, ($3 == "true" ? "running" : "GONE")}'
echo "etcd:"
echo "$etcd_health"
echo "patroni:     $roles"
echo "replication (through HAProxy 127.0.0.1:$HAPROXY_PG_PORT):"
printf '%s\n' "${replication:-    (none)}" | sed 's/^/    /'
echo "haproxy (postgres): $pg_backends"
if [ -n "${HEARTH_PORTS:-}" ]; then
    echo "hearth:       http://127.0.0.1:$HAPROXY_HTTP_PORT (HAProxy, hash of ?ns=)"
    printf '%s' "$nodes" | awk '{printf "    %-4s 127.0.0.1:%-6s %s\n", $1, $2, ($3 == "true" ? "healthy" : "NOT HEALTHY")}'
    echo "haproxy (hearth):   $http_backends"
    echo "cluster view: $cluster_view"
fi
exit "$dead"
