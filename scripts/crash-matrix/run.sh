#!/bin/sh
# The crash matrix (docs/crash-matrix.md): mixed load on the real `hearth` binary, `kill -9` at a
# random moment, restart, and checks that every acknowledged write, multi-path update,
# transaction, onDisconnect registration, chat message and account survived whole, that every
# committed message's push reached its devices once per server run, and that calls ringing at
# the kill end missed on time.
#   scripts/crash-matrix/run.sh [--iterations N] [--budget SECONDS] [--seed S] [...]  (see --help)
# Uses .build/debug/hearth unless HEARTH_BIN names another binary (a release build for long runs).
# Installs PyPI's websockets when missing. Used by .ci/run after `swift test` (5 iterations).
set -eu
cd "$(dirname "$0")/../.."
if ! python3 -c 'import websockets.sync.client' 2>/dev/null; then
    # PyPI first; a system Python that refuses pip (PEP 668) or has none: Debian's package.
    python3 -m pip install --quiet 'websockets>=13' \
        || python3 -m pip install --quiet --break-system-packages 'websockets>=13' \
        || { if [ "$(id -u)" -eq 0 ]; then apt-get install -y python3-websockets; else sudo apt-get install -y python3-websockets; fi; }
fi
exec python3 scripts/crash-matrix/matrix.py "$@"
