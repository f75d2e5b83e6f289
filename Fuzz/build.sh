#!/usr/bin/env bash
# Builds every fuzz target with libFuzzer and AddressSanitizer (release, with debug info).
# SwiftPM passes --sanitize=fuzzer only to this package's own targets: -Xswiftc instruments the
# library (ModelVersioning, MigrationRules) for coverage too, and must repeat address.
set -euo pipefail
cd "$(dirname "$0")"
for target in "${@:-fuzz-json fuzz-plist fuzz-keyed fuzz-decode fuzz-migrate fuzz-rules fuzz-carried}"; do
    for product in $target; do
        swift build --product "$product" -c release --sanitize=fuzzer --sanitize=address \
            -Xswiftc -sanitize=fuzzer,address
    done
done
