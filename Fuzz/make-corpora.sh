#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets from the repository's fixtures (never committed:
# see .gitignore `/Fuzz/corpus-*/`). Idempotent; a target's own finds in its corpus are kept.
#
#   bash Fuzz/make-corpora.sh            # every corpus
#   bash Fuzz/make-corpora.sh decode     # one
#
# Seeds larger than 256 KiB are left out (libFuzzer mutates within -max_len anyway).
# fuzz-decode, fuzz-migrate, fuzz-rules, fuzz-way-down and fuzz-upgrade also write seeds of their own (FUZZ_WRITE_SEEDS), so
# their binaries must be built first (run.sh does).
set -euo pipefail
cd "$(dirname "$0")"
fixtures=../Fixtures
wanted=${1:-all}

# copy CORPUS FILE...: each file under a name made of its path, so origins stay visible.
copy() {
    local corpus=$1
    shift
    mkdir -p "$corpus"
    local file
    for file in "$@"; do
        [ -f "$file" ] || continue
        [ "$(wc -c <"$file")" -le 262144 ] || continue
        local name=${file#"$fixtures"/}
        name=${name#./}
        cp "$file" "$corpus/${name//\//_}"
    done
}

# files DIR PATTERN...: the fixture files under DIR matching any of the name patterns.
files() {
    local dir=$1
    shift
    local expression=()
    local pattern
    for pattern in "$@"; do
        expression+=(-o -name "$pattern")
    done
    find "$fixtures/$dir" -type f \( "${expression[@]:1}" \) -not -name '*.md' -not -name '*.py' 2>/dev/null | sort
}

if [ "$wanted" = all ] || [ "$wanted" = json ]; then
    mapfile -t seeds < <(files . '*.json')
    copy corpus-json "${seeds[@]}"
    mapfile -t seeds < <(files malformed/json '*')
    copy corpus-json "${seeds[@]}"
fi

plistLike=('*.plist' '*.bplist' '*.archive' '*.xml' '*.bin' '*.strings' '*.bad' 'fuzz_data' 'data' '*.ascii')
if [ "$wanted" = all ] || [ "$wanted" = plist ]; then
    mapfile -t seeds < <(files plist "${plistLike[@]}"; files nskeyedarchiver "${plistLike[@]}"; files malformed '*')
    copy corpus-plist "${seeds[@]}"
fi

if [ "$wanted" = all ] || [ "$wanted" = keyed ]; then
    mapfile -t seeds < <(
        files nskeyedarchiver "${plistLike[@]}"
        files plist/cpython-plistlib 'keyed_archive*'
        files malformed/nskeyedarchiver '*'
        files malformed/keyed '*'
        files archives '*.bplist' '*.plist'
    )
    copy corpus-keyed "${seeds[@]}"
fi

if [ "$wanted" = all ] || [ "$wanted" = decode ]; then
    FUZZ_WRITE_SEEDS=corpus-decode SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 .build/release/fuzz-decode
    mapfile -t seeds < <(files archives '*'; files malformed/decode '*'; files nskeyedarchiver/mantle '*.plist')
    copy corpus-decode "${seeds[@]}"
fi

if [ "$wanted" = all ] || [ "$wanted" = migrate ]; then
    FUZZ_WRITE_SEEDS=corpus-migrate SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 .build/release/fuzz-migrate
    mapfile -t seeds < <(files archives '*.json'; files versioned-json '*.json'; files malformed/migrate '*')
    copy corpus-migrate "${seeds[@]}"
fi

if [ "$wanted" = all ] || [ "$wanted" = rules ]; then
    FUZZ_WRITE_SEEDS=corpus-rules SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 .build/release/fuzz-rules
    mapfile -t seeds < <(files archives 'rules.json'; files . '*.rules.json'; files malformed/rules '*')
    copy corpus-rules "${seeds[@]}"
fi

if [ "$wanted" = all ] || [ "$wanted" = way-down ]; then
    FUZZ_WRITE_SEEDS=corpus-way-down SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 .build/release/fuzz-way-down
fi

if [ "$wanted" = all ] || [ "$wanted" = upgrade ]; then
    FUZZ_WRITE_SEEDS=corpus-upgrade SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 .build/release/fuzz-upgrade
    mapfile -t seeds < <(files archives '*.json'; files malformed/json '*')
    copy corpus-upgrade "${seeds[@]}"
fi

for corpus in corpus-*; do
    [ -d "$corpus" ] && printf '%s: %s seeds\n' "$corpus" "$(find "$corpus" -type f | wc -l)"
done
