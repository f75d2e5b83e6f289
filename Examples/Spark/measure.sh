#!/usr/bin/env bash
# Measures the Spark job against one archive-migrate process on the same input.
#
#   SPARK_VENV=... bash Examples/Spark/measure.sh .build/release/archive-migrate [LINES] [RUNS]
#
# Generates LINES archives (1,000,000) and then, RUNS times (2) each: the CLI alone over the
# whole input; the job with 1, 2 and 4 partitions in local[2]; the job piping through `cat`
# instead (--overhead-baseline: what reading, handing rows to Python and back, and writing
# cost without any migration). Each run's wall time and peak memory come from
# /usr/bin/time -v; each job's output is compared byte for byte with the CLI's (the
# baseline's with its input), and the last 4-partition run is checked in full by
# verify_output.py. The load average is printed before each run: on a shared machine it
# says whether the figures can be compared. Writes into a temporary folder it removes.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
rules="$(cd "$here/../.." && pwd)/Fixtures/archives/rules.json"
cli="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
lines="${2:-1000000}"
runs="${3:-2}"
python="${SPARK_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/modelversioning/spark-venv}/bin/python"

work="$(mktemp -d "${TMPDIR:-/tmp}/archive-migrate-measure.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"
export TMPDIR="$work/tmp" PYTHONDONTWRITEBYTECODE=1 SPARK_LOCAL_IP=127.0.0.1
cd "$work"

"$python" "$here/generate_archives.py" --lines "$lines" --seed 1 --ndjson in.ndjson --manifest in.broken.json
echo "input: $(wc -l <in.ndjson) lines, $(du -m in.ndjson | cut -f1) MB; $(nproc) processors"

# Runs a command under /usr/bin/time -v, its standard input, output and error from and to the
# files $2, $3 and $4; prints its wall time as one row, and for the CLI alone its processor
# time and peak memory (for a job, /usr/bin/time sees only the Python driver: Spark's JVM
# and its Python workers are not processes it waits for).
timed() {
    local label=$1 input=$2 output=$3 errors=$4
    shift 4
    local load status=0
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -v -o time.txt "$@" <"$input" >"$output" 2>"$errors" || status=$?
    awk -v label="$label" -v load="$load" -v status="$status" '
        /Elapsed \(wall clock\)/ { n = split($NF, t, ":"); wall = (n == 3) ? t[1] * 3600 + t[2] * 60 + t[3] : t[1] * 60 + t[2] }
        /User time|System time/ { cpu += $NF }
        /Maximum resident set size/ { rss = $NF / 1024 }
        END {
            printf "%-30s wall %7.1f s   exit %s   load before %5s", label, wall, status, load
            if (label ~ /^archive-migrate/) printf "   cpu %.1f s   peak RSS %.0f MB", cpu, rss
            printf "\n"
        }
    ' time.txt | tee -a results.txt
}

job() {
    local partitions=$1
    shift
    rm -rf out
    timed "job, $partitions partition(s)${1:+, cat}" /dev/null job.log job.log "$python" "$here/migrate_job.py" \
        --cli "$cli" --rules "$rules" --input in.ndjson --output out --summary summary.json \
        --partitions "$partitions" --master 'local[2]' --work-dir "$work/tmp" "$@"
    "$python" -c 'import json; s = json.load(open("summary.json")); print("   phases (s):", s["seconds"], " lines:", s["inputs"], s["outputs"])'
}

for run in $(seq "$runs"); do
    echo "== run $run"
    timed "archive-migrate alone" in.ndjson whole.ndjson whole.log "$cli" upgrade --ndjson --rules "$rules"
    for partitions in 2 4; do
        job "$partitions" --overhead-baseline
        cat out/part-* | cmp - in.ndjson && echo "   output: byte for byte the input"
    done
    for partitions in 1 2 4; do
        job "$partitions"
        cat out/part-* | cmp - whole.ndjson && echo "   output: byte for byte the CLI's"
    done
done

echo "== the last 4-partition run, in full"
"$python" "$here/verify_output.py" --cli "$cli" --rules "$rules" --input in.ndjson --manifest in.broken.json \
    --spark-output out --summary summary.json
echo
cat results.txt
