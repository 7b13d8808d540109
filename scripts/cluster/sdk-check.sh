#!/bin/bash
# Runs the official Firebase JS SDK's checks (scripts/sdk-check, headless Chromium) against a
# local cluster started by up.sh, every client through a node that does NOT own the namespace
# it uses: its WebSockets are relayed and its REST, SSE and callables forwarded to the owner,
# its accounts made through the entry node. The nodes must run with the flags the pages need:
#
#   WH=$(python3 -c "import socket;s=socket.socket();s.bind(('127.0.0.1',0));print(s.getsockname()[1])")
#   scripts/cluster/up.sh --nodes 3 --hearth-arg --emulator --hearth-arg --contact-quota \
#       --hearth-arg 50 --hearth-arg --push-webhook --hearth-arg http://127.0.0.1:$WH/
#   scripts/cluster/sdk-check.sh --sdk /tmp/sdk --webhook-port $WH
#
# --sdk is the directory of the fetched SDK modules (never committed; see scripts/sdk-check/run.py).
# The first node is made the owner of `default` and of a namespace `relayed<time>` (one admin
# request each), then every page runs against the second node. Exit 1 when any check fails.
# --pages chooses the pages.
set -eu

. "$(dirname "$0")/lib.sh"

STATE=$DEFAULT_STATE
SDK=""
WEBHOOK_PORT=""
PAGES="sdk-check.html auth-check.html functions-check.html contacts-check.html blocking-check.html calls-check.html devices-check.html presence-check.html push-check.html storage-check.html"
while [ $# -gt 0 ]; do
    case $1 in
        --state) STATE=$2; shift 2 ;;
        --sdk) SDK=$2; shift 2 ;;
        --webhook-port) WEBHOOK_PORT=$2; shift 2 ;;
        --pages) PAGES=$2; shift 2 ;;
        -h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done
[ -n "$SDK" ] || die "--sdk DIR is required (the Firebase JS SDK's modules)"
load_state
set -- $HEARTH_PORTS
[ $# -ge 2 ] || die "the cluster in $STATE needs at least 2 Hearth nodes"
owner=$1 entry=$2
auth="auth=$HEARTH_ADMIN_SECRET"
ns="relayed$(date +%s)"
curl -fsS -o /dev/null "http://127.0.0.1:$owner/.json?shallow=true&$auth" || die "node 1 did not serve default"
curl -fsS -o /dev/null -X PUT -d '"warm"' "http://127.0.0.1:$owner/warm.json?ns=$ns&$auth" || die "node 1 did not take $ns"
say "owner 127.0.0.1:$owner, clients through 127.0.0.1:$entry"
failed=0
for page in $PAGES; do
    extra=()
    case $page in
        sdk-check.html) extra=(--ns "$ns") ;;
        auth-check.html) extra=(--data "$STATE/hearth/h2") ;;
        push-check.html)
            [ -n "$WEBHOOK_PORT" ] || { say "push-check.html skipped: no --webhook-port"; continue; }
            extra=(--webhook-port "$WEBHOOK_PORT" --admin-secret "$HEARTH_ADMIN_SECRET") ;;
    esac
    out=$($PY "$REPO_ROOT/scripts/sdk-check/run.py" --sdk "$SDK" --hearth-port "$entry" --page "$page" "${extra[@]}" 2>&1) || true
    summary=$(printf '%s\n' "$out" | grep -E '^[-0-9]+ passed, [0-9]+ failed' | tail -1)
    printf '%-22s %s\n' "$page" "${summary:-no summary}"
    case $summary in *" 0 failed") ;; *) failed=1; printf '%s\n' "$out" | grep -E '^FAIL' | head -5 ;; esac
done
exit $failed
