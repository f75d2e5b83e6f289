#!/usr/bin/env bash
# Measures, for every recursive path of the library (readers, migration pass, decoder, encoder,
# writers), the deepest input it handles on a 512 KiB stack — the stack of a secondary thread
# on Apple platforms — by bisection: each probe runs LimitsTests' stack probe in its own process
# (a stack overflow kills the process), without a depth limit.
#
#   bash .ci/stack-depth.sh                    # every path, in the debug build
#   bash .ci/stack-depth.sh "JSON reader"      # one path
#   CONFIGURATION=release bash .ci/stack-depth.sh
#
# Builds the tests first. Prints one line per path: the deepest depth that ran (up to 65536).
set -uo pipefail
cd "$(dirname "$0")/.."
configuration=${CONFIGURATION:-debug}
flags=(-c "$configuration")
# The tests use `@testable import`, which a release build allows only with testing enabled.
[ "$configuration" = release ] && flags+=(-Xswiftc -enable-testing)
swift build --build-tests "${flags[@]}" >&2 || exit 1

paths=("$@")
if [ ${#paths[@]} -eq 0 ]; then
    paths=(
        "JSON reader" "XML property-list reader" "binary property-list reader" "OpenStep property-list reader"
        "XML property-list reader, archive markup" "binary property-list reader, archive markup"
        "JSON reader, archive markup" "keyed-archive reader, objects" "keyed-archive reader, arrays"
        "dropping a tree" "migration pass, upgrade" "migration pass, downgrade" "decoder, recursive model"
        "decoder, polymorphic children" "decoder, a reference before its object" "encoder, recursive model"
        "encoder, polymorphic children" "JSON writer" "XML property-list writer" "binary property-list writer"
        "keyed-archive writer"
    )
fi

# probe PATH DEPTH: succeeds when PATH ran at DEPTH without overflowing. An error other than an
# overflow stops the script: it would be measured as one.
probe() {
    local output
    output=$(MV_STACK_PROBE="$1=$2" swift test "${flags[@]}" --skip-build --filter "LimitsTests/stackProbe" 2>&1)
    if grep -q "STACK-PROBE ERROR" <<<"$output"; then
        grep "STACK-PROBE ERROR" <<<"$output" >&2
        exit 1
    fi
    grep -q "STACK-PROBE OK" <<<"$output"
}

for path in "${paths[@]}"; do
    good=0
    bad=0
    depth=16
    while [ "$depth" -le 65536 ]; do
        if probe "$path" "$depth"; then
            good=$depth
            depth=$((depth * 2))
        else
            bad=$depth
            break
        fi
    done
    if [ "$bad" -eq 0 ]; then
        printf '%-34s >= %d\n' "$path:" "$good"
        continue
    fi
    while [ $((bad - good)) -gt 1 ]; do
        middle=$(((good + bad) / 2))
        if probe "$path" "$middle"; then good=$middle; else bad=$middle; fi
    done
    printf '%-34s %d\n' "$path:" "$good"
done
