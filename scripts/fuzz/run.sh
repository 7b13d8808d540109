#!/bin/sh
# Usage: scripts/fuzz/run.sh [TARGET|all] [SECONDS]
#
# Builds the fuzz targets (scripts/fuzz/build.sh) and fuzzes TARGET (default: all, every target of
# hearth-fuzz, one after the other; rest-query, in hearth-fuzz-rest, whose build includes the server,
# only when named) for SECONDS each (default 60), starting from the committed corpus Fuzz/Corpus/TARGET/ and
# the inputs found by earlier runs (.build/fuzz/corpus/TARGET/, where new ones go). Prints one line
# per target: runs, executions per second, coverage (edges), features, corpus size and the result.
# A crash, leak, timeout or failed property is saved in .build/fuzz/artifacts/ and the script exits 1;
# the log is in .build/fuzz/logs/TARGET.log. Exits 3 when the toolchain cannot build libFuzzer
# binaries. See docs/fuzzing.md.
set -eu
cd "$(dirname "$0")/../.."
all="json json-events path query frames messages rules-document rules-expression rules-evaluation token phone multipart storage-rules"
target=${1:-all}
seconds=${2:-60}
case " $all rest-query all " in
*" $target "*) ;;
*)
    echo "Unknown fuzz target '$target': use one of: $all, or all." >&2
    exit 2
    ;;
esac
case "$seconds" in
'' | *[!0-9]*)
    echo "Invalid SECONDS '$seconds': use a whole number of seconds." >&2
    exit 2
    ;;
esac
[ "$target" = all ] && targets=$all || targets=$target

[ "$target" = rest-query ] && product=hearth-fuzz-rest || product=hearth-fuzz
binary=$(scripts/fuzz/build.sh "$product") || exit $?

dictionary() {
    case "$1" in
    json | json-events | query | rules-evaluation) echo Fuzz/Dictionaries/json.dict ;;
    messages | frames) echo Fuzz/Dictionaries/messages.dict ;;
    rules-document | rules-expression) echo Fuzz/Dictionaries/rules.dict ;;
    token) echo Fuzz/Dictionaries/token.dict ;;
    phone) echo Fuzz/Dictionaries/phone.dict ;;
    storage-rules) echo Fuzz/Dictionaries/storage-rules.dict ;;
    multipart) echo Fuzz/Dictionaries/multipart.dict ;;
    rest-query) echo Fuzz/Dictionaries/rest-query.dict ;;
    esac
}

mkdir -p .build/fuzz/artifacts .build/fuzz/logs
# libFuzzer reports a crash with its own stack trace: the Swift runtime's backtracer (slow on a binary
# this size) is off.
export SWIFT_BACKTRACE=enable=no
failed=""
printf '%-17s %6s %9s %7s %6s %7s %6s  %s\n' target seconds runs exec/s cov ft corpus result
for t in $targets; do
    mkdir -p ".build/fuzz/corpus/$t"
    log=".build/fuzz/logs/$t.log"
    dict=$(dictionary "$t")
    set -- "$binary" "$t" ".build/fuzz/corpus/$t" "Fuzz/Corpus/$t" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=".build/fuzz/artifacts/$t-"
    [ -n "$dict" ] && set -- "$@" -dict="$dict"
    if "$@" >"$log" 2>&1; then result=ok; else
        result="FAILED: $(grep -m1 -E 'ERROR: |Fatal error|property failed|Test unit written' "$log" | cut -c1-100)"
        failed="$failed $t"
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
    cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    corpus=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
    printf '%-17s %6s %9s %7s %6s %7s %6s  %s\n' "$t" "$seconds" "${runs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" \
        "${corpus:-?}" "$result"
done
if [ -n "$failed" ]; then
    echo "Failed:$failed (logs in .build/fuzz/logs, inputs in .build/fuzz/artifacts)" >&2
    exit 1
fi
