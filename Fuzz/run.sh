#!/usr/bin/env bash
# Builds one fuzz target with libFuzzer and AddressSanitizer and runs it for a given time.
#
#   bash Fuzz/run.sh fuzz-json 600            # ten minutes
#   bash Fuzz/run.sh fuzz-decode 60 -jobs=1   # extra arguments go to libFuzzer
#
# The only acceptable outcomes for an input are a value or an ArchiveError; anything else (a
# trap, a sanitizer report, a non-ArchiveError, an input slower than 1 s, more than 2 GiB of
# memory, one allocation of more than 256 MiB) stops the run and leaves the input in
# Fuzz/artifacts/. The targets that migrate (fuzz-migrate, fuzz-rules, fuzz-way-down,
# fuzz-upgrade) take inputs of up to 1 MiB, so that work growing faster than the input (a carried
# chain compiled in quadratic time, a rule over many keys, an add copying a large default into
# every object) shows within the second; the readers' targets keep 16 KiB. Reproduce one with
#   SWIFT_BACKTRACE=enable=no Fuzz/.build/release/fuzz-json Fuzz/artifacts/fuzz-json-crash-…
# then minimise it (-minimize_crash=1 -runs=100000) and add it to Fixtures/malformed/.
#
# Leak detection is off (in ASan and in libFuzzer, which otherwise runs every input that
# allocates more than it frees a second time): the Swift runtime's metadata caches and lazily
# initialised globals are allocated once and live for the whole process, which LeakSanitizer's
# per-input heuristic reports; runaway memory is caught by -rss_limit_mb instead.
#
# AddressSanitizer keeps every distinct allocation stack for the life of the process; the
# recursive paths (migration pass, decoder) make millions of them, which grew fuzz-migrate by
# about 200 MB per million inputs until the RSS limit stopped it. Stacks are cut at 8 frames
# (malloc_context_size=8), which keeps the resident set flat and reports still readable.
#
# Prints the executions libFuzzer made (its final stats) on the last line:
#   fuzz-json: 1234567 executions in 60 s, no crash
# (-runs=N as an extra argument stops after N executions instead, whichever comes first)
set -euo pipefail
cd "$(dirname "$0")"
if [ $# -lt 2 ]; then
    echo "usage: $0 TARGET SECONDS [libFuzzer arguments…]" >&2
    exit 2
fi
target=$1
seconds=$2
shift 2
name=${target#fuzz-}
# FUZZ_SANITIZERS=fuzzer: the build without AddressSanitizer (see build.sh).
case "${FUZZ_SANITIZERS:-fuzzer,address}" in
fuzzer) binary=".build-fuzzer/release/$target" ;;
*) binary=".build/release/$target" ;;
esac

# FUZZ_NO_BUILD=1 runs the binary as last built (by build.sh, or while the sources are edited).
if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
    bash build.sh "$target" >&2
fi
if [ ! -d "corpus-$name" ] || [ -z "$(ls -A "corpus-$name")" ]; then
    bash make-corpora.sh "$name" >&2
fi
mkdir -p artifacts
log=$(mktemp)

# Per-input bounds (Fuzz/README.md, "Per-input limits"): a second per input, 2 GiB resident for
# the whole process (AddressSanitizer's own memory included), 256 MiB for any one allocation
# (what a migration that makes far more than it reads asks for at once), and the largest input.
case "$target" in
fuzz-migrate | fuzz-rules | fuzz-way-down | fuzz-upgrade) max_len=${FUZZ_MAX_LEN:-1048576} ;;
*) max_len=${FUZZ_MAX_LEN:-16384} ;;
esac
limits=(-timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=256 -max_len="$max_len")
trap 'rm -f "$log"' EXIT

status=0
started=$SECONDS
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=0:malloc_context_size=8 \
    nice -n 10 "$binary" \
    "${limits[@]}" -max_total_time="$seconds" -detect_leaks=0 \
    -print_final_stats=1 -artifact_prefix="artifacts/$target-" -dict="dictionaries/$name.dict" \
    "$@" "corpus-$name" >"$log" 2>&1 || status=$?

# libFuzzer's progress lines are noise here; keep its summary and any report.
grep -v -E '^#[0-9]+\s+(NEW|REDUCE|pulse|INITED|RELOAD)|^INFO: ' "$log" | tail -n 60 >&2 || true
executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
if [ "$status" -ne 0 ] && [ -n "$artifact" ] && [[ "$artifact" == *-timeout-* ]]; then
    # A timeout can be the scheduler's doing on a busy machine: it counts only if the input is
    # still slower than a second when it runs alone.
    if SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$binary" "${limits[@]}" \
        -detect_leaks=0 "$artifact" >>"$log" 2>&1; then
        echo "$target: ${executions:-?} executions, stopped early by a timeout that did not reproduce when its input ran alone (kept in Fuzz/$artifact)"
        exit 0
    fi
fi
if [ "$status" -eq 0 ]; then
    echo "$target: ${executions:-0} executions in $((SECONDS - started)) s, no crash"
else
    echo "$target: ${executions:-?} executions, FAILED (exit $status)${artifact:+, input saved to Fuzz/$artifact}"
fi
exit "$status"
