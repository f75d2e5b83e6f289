#!/usr/bin/env bash
# Runs every fuzz target in turn (one at a time), SECONDS each, and prints one line per target.
#
#   bash Fuzz/run-all.sh 600
#
# Exits non-zero if any target found a crash, a timeout or an out-of-memory input. Each target
# runs with run.sh's per-input limits (a second, 2 GiB resident, 256 MiB in one allocation; inputs
# of up to 1 MiB for the targets that migrate, 16 KiB for the readers): see Fuzz/README.md.
set -uo pipefail
cd "$(dirname "$0")"
seconds=${1:?usage: run-all.sh SECONDS}
shift
failed=0
summary=()
for target in fuzz-json fuzz-plist fuzz-keyed fuzz-decode fuzz-migrate fuzz-rules fuzz-way-down fuzz-upgrade; do
    line=$(bash run.sh "$target" "$seconds" "$@") || failed=1
    summary+=("$line")
done
printf '%s\n' "${summary[@]}"
exit "$failed"
