#!/bin/sh
# Runs the console check (check.py) against a server of its own: the debug build's `hearth`, a
# fresh data directory, copies of the shipped database and storage rules (the check publishes
# rules) and the project id `console-check` (the files view learns its bucket from the server). Installs
# Debian's chromium and PyPI's websockets when missing. Used by .ci/run after `swift test`.
set -eu
cd "$(dirname "$0")/../.."
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update || $sudo apt-get update
    $sudo apt-get install -y chromium || $sudo apt-get install -y chromium
fi
if ! python3 -c 'import websockets' 2>/dev/null; then
    # PyPI first; a system Python that refuses pip (PEP 668) or has none: Debian's package.
    python3 -m pip install --quiet websockets \
        || python3 -m pip install --quiet --break-system-packages websockets \
        || { if [ "$(id -u)" -eq 0 ]; then apt-get install -y python3-websockets; else sudo apt-get install -y python3-websockets; fi; }
fi
work=$(mktemp -d)
cp rules/database.rules.json "$work/database.rules.json"
cp rules/storage.rules "$work/storage.rules"
echo '{}' > "$work/seed.json"
port=${CONSOLE_CHECK_PORT:-9573}
.build/debug/hearth serve --port "$port" --data "$work/data" --rules "$work/database.rules.json" \
    --seed "$work/seed.json" --admin-secret console-check-secret --project-id console-check --log-level warning >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
    if python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/.well-known/hearth/health', timeout=1)" 2>/dev/null; then
        break
    fi
    sleep 0.1
done
python3 scripts/console-check/check.py --port "$port" --admin-secret console-check-secret --shots "$work/screenshots"
