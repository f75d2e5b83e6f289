#!/usr/bin/env bash
# Runs the test suite under ThreadSanitizer, in a build directory of its own (.build/tsan), so
# that the ordinary debug build stays as it is.
#
#   bash .ci/tsan.sh                 # every suite but the ones below
#   bash .ci/tsan.sh ConcurrencyTests
#
# Left out, and why:
#   LimitsTests      runs every recursive path at the depth limit on a 512 KiB stack: TSan's
#                    instrumentation takes several times the stack per frame, so those runs would
#                    overflow by design (the stack they prove is the uninstrumented one).
#   CrashSafetyTests kills hundreds of tool processes; under TSan each takes seconds to start
#                    and nothing in it is shared between threads.
# Any data race fails the run (halt_on_error).
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build/tsan
swift build --build-tests --sanitize=thread --scratch-path "$scratch"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
if [ $# -gt 0 ]; then
    filter=("--filter" "$(IFS='|'; echo "$*")")
else
    filter=("--skip" "LimitsTests|CrashSafetyTests")
fi
swift test --skip-build --sanitize=thread --scratch-path "$scratch" "${filter[@]}"
