#!/usr/bin/env bash
# Measures the Spark job against one archive-migrate process on the same input.
#
#   SPARK_VENV=... bash Examples/Spark/measure.sh .build/release/archive-migrate [LINES] [RUNS]
#
# Generates LINES archives (1,000,000) and then, RUNS times (2) each: the CLI alone over the
# whole input; the job with 4 partitions in local[2] piping through `cat` instead
# (--overhead-baseline: what reading, handing rows to Python and back, and writing cost
# without any migration); the job with 1, 2 and 4 partitions. tree_time.py gives each run's
# wall time and processor time; for a job, that of the driver and Spark's JVM, to which the
# job's summary adds its Python workers' and the CLI processes'. Each job's output is compared byte
# for byte with the CLI's (the baseline's with its input), and the last 4-partition run is
# checked in full by verify_output.py. The load average is printed before each run: on a
# shared machine it says whether the wall times can be compared. Writes into a temporary
# folder it removes.
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

# Runs a command under tree_time.py, its standard input, output and error from and to the
# files $2, $3 and $4; prints one row: wall time, processor time and the peak memory of the
# largest single process that tree_time.py could count (for a job: the driver and the JVM).
timed() {
    local label=$1 input=$2 output=$3 errors=$4
    shift 4
    local load
    load=$(cut -d' ' -f1 /proc/loadavg)
    "$python" "$here/tree_time.py" "$@" <"$input" >"$output" 2>"$errors" || true
    tail -n 1 "$errors" | "$python" -c 'import json, sys, types
label, load = sys.argv[1:]
t = json.load(sys.stdin, object_hook=lambda fields: types.SimpleNamespace(**fields))
print(f"{label:<28} wall {t.wall:6.1f} s   cpu {t.user + t.system:6.1f} s   exit {t.status}   "
      f"load before {load:>5}   largest process {t.maxRSS} MB")' "$label" "$load" \
        | tee -a results.txt
}

job() {
    local partitions=$1
    shift
    rm -rf out summary.json
    timed "job, $partitions partition(s)${1:+, cat}" /dev/null job.out job.log "$python" "$here/migrate_job.py" \
        --cli "$cli" --rules "$rules" --input in.ndjson --output out --summary summary.json \
        --partitions "$partitions" --master 'local[2]' --work-dir "$work/tmp" "$@"
    tail -n 1 job.log | "$python" -c 'import json, sys
tree = json.loads(sys.stdin.read())
s = json.load(open("summary.json"))
jvm, workers, command = tree["user"] + tree["system"], s["cpuSeconds"]["workers"], s["cpuSeconds"]["command"]
name = s["command"][0].rpartition("/")[2]
print("   phases (s):", s["seconds"], " lines:", s["inputs"], s["outputs"])
print(f"   cpu (s): driver and JVM {jvm:.1f}, Python workers {workers:.1f}, {name} {command:.1f}; "
      f"total {jvm + workers + command:.1f}")' | tee -a results.txt
}

for run in $(seq "$runs"); do
    echo "== run $run"
    timed "archive-migrate alone" in.ndjson whole.ndjson whole.log "$cli" upgrade --ndjson --rules "$rules"
    job 4 --overhead-baseline
    cat out/part-* | cmp - in.ndjson && echo "   output: byte for byte the input"
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
