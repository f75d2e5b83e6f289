#!/usr/bin/env bash
# CI for the Spark example: the job over generated archives, checked against one whole run.
#
#   bash Examples/Spark/ci.sh .build/release/archive-migrate     (or ARCHIVE_MIGRATE=... bash ci.sh)
#
# Builds nothing: it takes the archive-migrate binary. Needs python3 (with pip) and Java 17
# or later. Makes a virtual environment with the pinned PySpark and pyarrow if there is none
# at $SPARK_VENV (default: ~/.cache/modelversioning/spark-venv, outside the repository), and
# keeps every file it writes, Spark's scratch space included, in a temporary folder that it
# removes. $SPARK_CI_LINES sets the NDJSON input's size (20,000 lines).
#
# Steps: the partition step's tests; then the job (4 partitions, local[2]) over NDJSON, over a
# Parquet column of strings and over one of bytes, each verified line for line against
# `archive-migrate upgrade --ndjson` over the whole input. Exits non-zero on any mismatch.
set -euo pipefail

PYSPARK_VERSION=4.3.0
PYARROW_VERSION=26.0.1

here="$(cd "$(dirname "$0")" && pwd)"
repository="$(cd "$here/../.." && pwd)"
rules="$repository/Fixtures/archives/rules.json"
cli="${1:-${ARCHIVE_MIGRATE:-}}"
if [ -z "$cli" ] || [ ! -x "$cli" ]; then
    echo "usage: bash $0 PATH-TO-archive-migrate   (or set ARCHIVE_MIGRATE)" >&2
    exit 2
fi
cli="$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")"
export ARCHIVE_MIGRATE="$cli"
venv="${SPARK_VENV:-${XDG_CACHE_HOME:-${HOME:?set SPARK_VENV or HOME}/.cache}/modelversioning/spark-venv}"
lines="${SPARK_CI_LINES:-20000}"

# Seconds since $1 (a `date +%s.%N`), with one decimal.
since() { awk -v start="$1" -v now="$(date +%s.%N)" 'BEGIN { printf "%.1f", now - start }'; }
started=$(date +%s.%N)
step_started=$started
step_name=""
# Prints the time the previous step took, then the next step's name.
step() {
    [ -n "$step_name" ] && printf '   (%s: %s s)\n' "$step_name" "$(since "$step_started")"
    step_started=$(date +%s.%N)
    step_name="$1"
    [ "$1" = done ] || printf '\n== spark: %s\n' "$1"
}

step "Java 17 or later"
if ! command -v java >/dev/null; then
    echo "no java on PATH: install a Java 17 runtime (apt-get install openjdk-17-jre-headless)" >&2
    exit 1
fi
java_major=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
echo "java $java_major"
if [ "${java_major:-0}" -lt 17 ]; then
    echo "PySpark $PYSPARK_VERSION needs Java 17 or later" >&2
    exit 1
fi

step "virtual environment at $venv (pyspark $PYSPARK_VERSION, pyarrow $PYARROW_VERSION)"
installed() {
    "$venv/bin/python" -c "import importlib.metadata as m, sys
sys.exit(0 if (m.version('pyspark'), m.version('pyarrow')) == ('$PYSPARK_VERSION', '$PYARROW_VERSION') else 1)" \
        2>/dev/null
}
if installed; then
    echo "present"
else
    mkdir -p "$(dirname "$venv")"
    if python3 -m venv --clear "$venv" 2>/dev/null; then
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
            "pyspark==$PYSPARK_VERSION" "pyarrow==$PYARROW_VERSION"
    else
        # Debian's python3 without python3-venv has no ensurepip: make the environment bare
        # and install into it with the system's pip.
        python3 -m venv --clear --without-pip "$venv"
        python3 -m pip --python "$venv/bin/python" install --quiet --disable-pip-version-check --root-user-action=ignore \
            "pyspark==$PYSPARK_VERSION" "pyarrow==$PYARROW_VERSION"
    fi
    installed || { echo "the virtual environment at $venv lacks pyspark $PYSPARK_VERSION" >&2; exit 1; }
fi
python="$venv/bin/python"

work="$(mktemp -d "${TMPDIR:-/tmp}/archive-migrate-spark.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"
# Python's and Spark's scratch files go to the temporary folder, none into the repository.
export TMPDIR="$work/tmp" PYTHONDONTWRITEBYTECODE=1 SPARK_LOCAL_IP=127.0.0.1
cd "$work"

step "the partition step's tests (the real CLI; a killed one, a short one, a missing rules file)"
(cd "$here" && "$python" -m unittest -v test_migrate_job)

step "generate $lines archives (NDJSON) and 2,000 each in Parquet, as strings and as bytes"
"$python" "$here/generate_archives.py" --lines "$lines" --seed 1 --ndjson in.ndjson --manifest in.broken.json
"$python" "$here/generate_archives.py" --lines 2000 --seed 2 --ndjson strings.ndjson \
    --manifest strings.broken.json --parquet strings.parquet --parquet-type string --parquet-row-group 200
"$python" "$here/generate_archives.py" --lines 2000 --seed 3 --ndjson bytes.ndjson \
    --manifest bytes.broken.json --parquet bytes.parquet --parquet-type binary --parquet-row-group 200

# Runs the job with 4 partitions in local[2], then the verification. $1: a name for the run;
# $2: the NDJSON input (the verification's, and the job's unless more arguments follow);
# $3...: the job's input arguments instead.
run_and_verify() {
    local name=$1 ndjson=$2
    shift 2
    local input=(--input "$ndjson")
    [ $# -gt 0 ] && input=("$@")
    local status=0
    "$python" "$here/migrate_job.py" --cli "$cli" --rules "$rules" "${input[@]}" \
        --output "out-$name" --summary "summary-$name.json" --partitions 4 --master 'local[2]' \
        --work-dir "$work/tmp" >"job-$name.log" 2>&1 || status=$?
    if [ ! -f "summary-$name.json" ]; then
        tail -n 60 "job-$name.log"
        echo "the job failed (exit status $status)" >&2
        exit 1
    fi
    "$python" - "summary-$name.json" "$status" <<'EOF'
import json, sys
summary = json.load(open(sys.argv[1]))
status = int(sys.argv[2])
print("job:", {key: summary[key] for key in (
    "partitions", "inputs", "outputs", "blank", "changed", "unchanged", "errors", "errorCodes", "exitStatus", "seconds")})
problems = []
if summary["partitions"] != 4:
    problems.append(f"{summary['partitions']} partitions, not 4")
if summary["exitStatus"] != status:
    problems.append(f"the job exited {status}, its summary says {summary['exitStatus']}")
if any(part["inputs"] == 0 for part in summary["perPartition"]):
    problems.append("a partition was empty: the run does not show four processes at work")
if problems:
    sys.exit("the job's run: " + "; ".join(problems))
EOF
    "$python" "$here/verify_output.py" --cli "$cli" --rules "$rules" --input "$ndjson" \
        --manifest "${ndjson%.ndjson}.broken.json" --spark-output "out-$name" --summary "summary-$name.json"
}

step "job over NDJSON, 4 partitions in local[2], and verification"
run_and_verify ndjson in.ndjson

step "job over a Parquet column of strings, and verification"
run_and_verify parquet-strings strings.ndjson --input strings.parquet --input-format parquet --column archive

step "job over a Parquet column of bytes, and verification"
run_and_verify parquet-bytes bytes.ndjson --input bytes.parquet --input-format parquet --column archive

step "census over NDJSON, 4 partitions merged, against one inspect over the whole file"
census_status=0
"$python" "$here/census_job.py" --cli "$cli" --rules "$rules" --input in.ndjson --output census-spark.json \
    --partitions 4 --master 'local[2]' --work-dir "$work/tmp" >census-job.log 2>&1 || census_status=$?
whole_status=0
# From standard input, as each partition's: a failure's message names its input.
"$cli" inspect --ndjson - --rules "$rules" --format json <in.ndjson >census-whole.json || whole_status=$?
if [ ! -s census-spark.json ]; then
    tail -n 60 census-job.log
    echo "the census job failed (exit status $census_status)" >&2
    exit 1
fi
"$python" - census-spark.json census-whole.json "$census_status" "$whole_status" <<'EOF'
import json, sys
spark, whole = (json.load(open(path)) for path in sys.argv[1:3])
statuses = sys.argv[3:5]
print("census:", {key: whole[key] for key in ("lines", "empty", "failed", "failureCodes", "wouldChange")})
if spark != whole or statuses[0] != statuses[1]:
    sys.exit(f"the merged census (exit {statuses[0]}) differs from the whole file's (exit {statuses[1]})")
EOF

step done
printf '\nspark: all steps passed in %s s\n' "$(since "$started")"
