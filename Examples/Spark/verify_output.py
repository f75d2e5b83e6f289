#!/usr/bin/env python3
"""Checks the Spark job's output against one `archive-migrate upgrade --ndjson` run over the
whole input, and the whole run against the generator's manifest.

  1. The whole run: one line per input line; exactly the manifest's broken lines are error
     records, each naming its own line and the code its kind fails with, blank lines stay
     blank; its exit status is the one its records call for.
  2. The job's output (its part files in order) is byte for byte the whole run's, error
     records included: the job rewrites each record's partition-local line number to the
     input's, so a record says the same in both (comparing records while ignoring their
     numbers would let a job that numbers wrongly, or misplaces a line, pass).
  3. The job's summary counts what the whole run counts: lines, changed, error records by
     code, and the exit status.

The input here is always NDJSON: for a Parquet run, pass the NDJSON file the generator wrote
with the same rows. Ends with a line `verify: N passed, N failed` and exits 1 if any failed.

  python3 verify_output.py --cli archive-migrate --rules rules.json --input in.ndjson \\
      --manifest in.broken.json --spark-output out --summary summary.json
"""

import argparse
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

# The code each kind of broken line fails with (see generate_archives.py).
EXPECTED_CODES = {
    "truncated": "malformedInput",
    "not-an-archive": "missingMigration",
    "newer-version": "newerVersion",
    "not-json": "unsupportedFormat",
}
REPORT_TOTALS = re.compile(
    r"upgraded (\d+) of (\d+) lines of standard input(?:; (\d+) failed and were written as error records)?")
# Mismatches listed before the rest are only counted.
SHOWN = 5


class Checks:
    """Named checks, each passing or failing with a reason; prints as it goes."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, problems):
        if problems:
            self.failed += 1
            print(f"FAIL {name}:", *problems[:SHOWN], sep="\n  ")
            if len(problems) > SHOWN:
                print(f"  ... and {len(problems) - SHOWN} more")
        else:
            self.passed += 1
            print(f"ok   {name}")


def whole_run(cli, rules, input_path, output_path):
    """Runs the CLI once over the whole input; its exit status and its report's totals."""
    with open(input_path, "rb") as source, open(output_path, "wb") as sink:
        run = subprocess.run(
            [str(cli), "upgrade", "--ndjson", "--rules", str(rules)], stdin=source, stdout=sink,
            stderr=subprocess.PIPE, check=False)
    last = run.stderr.decode("utf-8", "replace").rstrip("\n").rpartition("\n")[2]
    totals = REPORT_TOTALS.fullmatch(last)
    if run.returncode not in (0, 2, 3) or totals is None:
        sys.exit(f"the whole run failed (exit status {run.returncode}): {run.stderr[-2000:].decode('utf-8', 'replace')}")
    return run.returncode, int(totals[1])


def check_whole_run(checks, lines, manifest, status):
    """Step 1: the whole run against the manifest. Returns its error codes and line count."""
    broken = {int(number): kind for number, kind in manifest["broken"].items()}
    problems = []
    codes = Counter()
    count = 0
    for number, line in enumerate(lines, 1):
        count = number
        kind = broken.get(number)
        if line.startswith(b'{"$error":'):
            record = json.loads(line)["$error"]
            codes[record["code"]] += 1
            if kind not in EXPECTED_CODES:
                problems.append(f"line {number}, {kind or 'a good archive'}, is an error record: {line[:200]!r}")
            elif (record["line"], record["code"]) != (number, EXPECTED_CODES[kind]):
                problems.append(f"line {number} ({kind}): record {record}")
        elif kind == "blank":
            if line:
                problems.append(f"line {number}, blank, came back as {line[:100]!r}")
        elif kind is not None:
            problems.append(f"line {number} ({kind}) is no error record: {line[:200]!r}")
    if count != manifest["lines"]:
        problems.append(f"{count} lines for {manifest['lines']} input lines")
    most_severe = "newerVersion" if set(codes) == {"newerVersion"} else ("other" if codes else None)
    expected_status = {None: 0, "newerVersion": 3, "other": 2}[most_severe]
    if status != expected_status:
        problems.append(f"exit status {status}, where its records call for {expected_status}")
    checks.check("the whole run answers every line, and exactly the broken ones with error records", problems)
    return codes, count


def spark_lines(folder):
    """The job's output lines: its part files in partition order."""
    parts = sorted(folder.glob("part-*"))
    if not parts:
        sys.exit(f"{folder} holds no part files")
    for part in parts:
        with open(part, "rb") as file:
            for line in file:
                yield line.removesuffix(b"\n")


def compare(checks, whole_lines, job_lines):
    """Step 2: line for line, byte for byte."""
    problems = []
    count = 0
    for number, (whole, job) in enumerate(itertools.zip_longest(whole_lines, job_lines), 1):
        count = number
        if whole is None or job is None:
            problems.append(f"line {number}: only the {'job' if whole is None else 'whole run'} has it")
        elif whole != job:
            problems.append(f"line {number}: whole run {whole[:150]!r}, job {job[:150]!r}")
    checks.check(f"the job's {count} lines are the whole run's, byte for byte", problems)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", type=Path, default=os.environ.get("ARCHIVE_MIGRATE"),
                        help="the archive-migrate binary (default: $ARCHIVE_MIGRATE)")
    parser.add_argument("--rules", type=Path, required=True)
    parser.add_argument("--input", type=Path, required=True, help="the NDJSON input (for Parquet, its twin)")
    parser.add_argument("--manifest", type=Path, required=True, help="the generator's list of broken lines")
    parser.add_argument("--spark-output", type=Path, required=True, help="the job's output folder")
    parser.add_argument("--summary", type=Path, required=True, help="the job's summary")
    arguments = parser.parse_args()
    if arguments.cli is None:
        parser.error("--cli (or ARCHIVE_MIGRATE) must name the archive-migrate binary")
    manifest = json.loads(arguments.manifest.read_text(encoding="utf-8"))
    summary = json.loads(arguments.summary.read_text(encoding="utf-8"))

    checks = Checks()
    with tempfile.TemporaryDirectory() as scratch:
        whole_output = Path(scratch) / "whole.ndjson"
        status, changed = whole_run(arguments.cli, arguments.rules, arguments.input, whole_output)
        with open(whole_output, "rb") as file:
            codes, count = check_whole_run(checks, (line.removesuffix(b"\n") for line in file), manifest, status)
        with open(whole_output, "rb") as file:
            compare(checks, (line.removesuffix(b"\n") for line in file), spark_lines(arguments.spark_output))

    expected = {
        "inputs": count, "outputs": count, "changed": changed, "errors": sum(codes.values()),
        "errorCodes": dict(sorted(codes.items())), "exitStatus": status,
    }
    problems = [
        f"{key}: job {summary.get(key)}, whole run {value}" for key, value in expected.items() if summary.get(key) != value]
    checks.check(f"the job's summary counts what the whole run does ({expected})", problems)
    print(f"verify: {checks.passed} passed, {checks.failed} failed")
    sys.exit(1 if checks.failed else 0)


if __name__ == "__main__":
    main()
