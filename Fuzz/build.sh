#!/usr/bin/env bash
# Builds every fuzz target with libFuzzer and AddressSanitizer (release, with debug info).
# SwiftPM passes --sanitize=fuzzer only to this package's own targets: -Xswiftc instruments the
# library (ModelVersioning, MigrationRules) for coverage too, and must repeat address.
#
# FUZZ_SANITIZERS=fuzzer builds without AddressSanitizer, into .build-fuzzer/ (run.sh then runs
# that binary): three to four times as many executions per second, for long runs whose inputs
# have already been through the AddressSanitizer build; a trap or a precondition still stops them.
set -euo pipefail
cd "$(dirname "$0")"
sanitizers=${FUZZ_SANITIZERS:-fuzzer,address}
case "$sanitizers" in
fuzzer,address) scratch=.build; flags=(--sanitize=fuzzer --sanitize=address) ;;
fuzzer) scratch=.build-fuzzer; flags=(--sanitize=fuzzer) ;;
*) echo "FUZZ_SANITIZERS is fuzzer,address (the default) or fuzzer, not $sanitizers" >&2; exit 2 ;;
esac
for target in "${@:-fuzz-json fuzz-plist fuzz-keyed fuzz-decode fuzz-migrate fuzz-rules fuzz-way-down fuzz-upgrade}"; do
    for product in $target; do
        swift build --product "$product" -c release --scratch-path "$scratch" "${flags[@]}" \
            -Xswiftc -sanitize="$sanitizers"
    done
done
