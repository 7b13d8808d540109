#!/bin/sh
# Usage: scripts/fuzz/build.sh [PRODUCT]
# Builds a fuzz binary (PRODUCT: hearth-fuzz, the default, or hearth-fuzz-rest) into .build/fuzz with
# `-sanitize=fuzzer,address`; prints the binary's path. Exits 3, with a message, when the toolchain
# cannot build libFuzzer binaries. See docs/fuzzing.md.
set -eu
cd "$(dirname "$0")/../.."
product=${1:-hearth-fuzz}

probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
cat >"$probe_dir/probe.swift" <<'SWIFT'
@_cdecl("LLVMFuzzerTestOneInput") public func test(_ data: UnsafeRawPointer, _ size: Int) -> CInt { 0 }
SWIFT
if ! swiftc -sanitize=fuzzer,address -parse-as-library "$probe_dir/probe.swift" -o "$probe_dir/probe" \
    >"$probe_dir/log" 2>&1; then
    echo "This Swift toolchain cannot build libFuzzer binaries (swiftc -sanitize=fuzzer,address failed):" >&2
    grep -v "Cannot export local symbol" "$probe_dir/log" | tail -5 >&2
    exit 3
fi

# The linker warns once per sanitizer symbol ("Cannot export local symbol '__asan_...'"): harmless,
# left out of the output.
mkdir -p .build/fuzz
if ! HEARTH_FUZZ=1 swift build --build-path .build/fuzz --product "$product" \
    -Xswiftc -sanitize=fuzzer,address >.build/fuzz/build.log 2>&1; then
    grep -v "Cannot export local symbol" .build/fuzz/build.log | grep -E "error|warning: unre" | sort -u >&2
    echo "The fuzz build failed; the whole output is in .build/fuzz/build.log." >&2
    exit 1
fi
echo "$PWD/.build/fuzz/debug/$product"
