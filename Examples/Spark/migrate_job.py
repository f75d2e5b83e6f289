#!/usr/bin/env python3
"""Upgrades archives with Apache Spark: every partition goes through one
`archive-migrate upgrade --ndjson --rules RULES` process.

Input: one NDJSON file (one JSON archive per line), or one column of a Parquet file
holding an archive per row, as strings or as bytes (--input-format parquet --column C).
Output: a folder of text files, part-00000, part-00001, ... one per partition in
partition order, holding exactly one line per input row, in the input's order; their
concatenation answers the input line for line. A row that does not migrate comes back
as the CLI's error record in its place:

  {"$error":{"line":17,"code":"malformedInput","message":"... (line 17 of standard input)"}}

where the job has rewritten the CLI's partition-local line number, in `line` and in the
message, to the row's line in the whole input, so that the record names the input line.

The job fails (exit status 1, no summary; a usage error too) when a partition's CLI
process does not keep its contract: an exit status other than 0, 2 or 3, or one that does
not match its error records (a signal, a crash, a bad rules file); fewer or more output
lines than input lines; a report on standard error that does not count what the job saw.
It never hands back short output. Otherwise it prints a summary (JSON) and writes it to --summary, and
exits as the CLI would have on the whole input: 0 when every archive migrated, 2 when
some line is an error record, 3 when the only failures are archives written by a newer
version than the rules know.

  python3 migrate_job.py --cli .build/release/archive-migrate --rules Fixtures/archives/rules.json \\
      --input in.ndjson --output out --summary summary.json --partitions 4 --master 'local[2]'
"""

import argparse
import json
import math
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from pathlib import Path

from pyspark import AccumulatorParam
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import BinaryType, StringType

# The CLI's exit statuses for `upgrade` (README, "exit status"): 0 success, 2 an error,
# 3 only archives newer than the rules know. For a batch the most severe wins: 2, then 3.
SEVERITY = {0: 0, 3: 1, 2: 2}
NEWER_VERSION_CODE = "newerVersion"

# The start of the CLI's error record, up to the end of its message, and the location that
# ends the message: `(line 17 of standard input)`, `(line 6, column 296 of standard input)`.
ERROR_RECORD = re.compile(rb'\{"\$error":\{"line":(\d+),"code":"(\w+)","message":"((?:[^"\\]|\\.)*)"')
MESSAGE_LOCATION = re.compile(rb"\(line (\d+)(?:, column \d+)? of standard input\)$")
# The last line of the CLI's report on standard error.
REPORT_TOTALS = re.compile(
    r"upgraded (\d+) of (\d+) lines of standard input(?:; (\d+) failed and were written as error records)?")

# How much of a CLI's standard error a failure message quotes.
STDERR_TAIL_BYTES = 4_000


class ContractError(RuntimeError):
    """A CLI process did not answer as `upgrade --ndjson` does: the partition cannot be trusted."""


class StatsList(AccumulatorParam):
    """Gathers each partition's statistics (a list of dicts) on the driver."""

    def zero(self, value):
        return []

    def addInPlace(self, value1, value2):
        value1.extend(value2)
        return value1


def is_blank(line):
    """Whether the CLI writes the line back as it is without reading it (spaces and tabs only)."""
    return not line.strip(b" \t")


def fold_line_breaks(value):
    """A Parquet row as one NDJSON line, or None when it cannot be one.

    A CR or LF outside a JSON string is layout whitespace: it becomes a space, which means
    the same and keeps every byte where it was (columns in messages stay those of the row).
    One inside a string is not JSON (strings hold line breaks only escaped) and no framing
    can keep it on one line: None, and the job answers the row with its own error record.
    """
    if b"\n" not in value and b"\r" not in value:
        return value
    folded = bytearray(value)
    in_string = escaped = False
    for index, byte in enumerate(folded):
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
            elif byte in (0x0A, 0x0D):
                return None
        elif byte == 0x22:
            in_string = True
        elif byte in (0x0A, 0x0D):
            folded[index] = 0x20
    return bytes(folded)


def refusal_record(number):
    """The job's own error record for a row with a line break inside a string."""
    message = (
        f"a line break inside a string: the row is not JSON and cannot be one NDJSON line (row {number})")
    record = {"$error": {"line": number, "code": "malformedInput", "message": message}}
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def renumber(record, local, first_line):
    """The CLI's error record for its line `local`, naming the input's line instead.

    Returns the record, whose `line` and message location now say `first_line + local - 1`,
    and its code; everything else stays byte for byte as the CLI wrote it. None when the
    record is not laid out as the CLI's error record for line `local`.
    """
    match = ERROR_RECORD.match(record)
    if match is None or int(match[1]) != local:
        return None
    location = MESSAGE_LOCATION.search(match[3])
    if location is None or int(location[1]) != local:
        return None
    number = str(first_line + local - 1).encode()
    start = match.start(3)
    message_number = slice(start + location.start(1), start + location.end(1))
    renumbered = (
        record[: match.start(1)] + number + record[match.end(1) : message_number.start]
        + number + record[message_number.stop :])
    return renumbered, match[2].decode()


def expected_status(codes):
    """The exit status the CLI ends with for lines that failed with these codes."""
    statuses = [3 if code == NEWER_VERSION_CODE else 2 for code in codes] or [0]
    return max(statuses, key=SEVERITY.get)


def feed(process, rows, frame, sent, failure):
    """Writes each row to the process as one line, noting what was sent (None: refused).

    Runs on its own thread while the caller reads the output, so that neither pipe fills up
    while the other waits. An error (the process went away: a broken pipe) goes to
    `failure` for the caller to raise.
    """
    try:
        for row in rows:
            value = b"" if row[0] is None else bytes(row[0])  # a null row: no archive, a blank line
            line = frame(value) if frame else value
            sent.append(line)
            process.stdin.write((line or b"") + b"\n")
        process.stdin.close()
    except BaseException as error:  # reported by the reading side, which owns the task's fate
        failure.append(error)


def stderr_tail(report):
    report.seek(0, os.SEEK_END)
    report.seek(max(0, report.tell() - STDERR_TAIL_BYTES))
    return report.read().decode("utf-8", "replace")


def migrate_partition(index, rows, command, first_lines, frame, baseline, record_stats):
    """One partition: its rows through one CLI process, its output lines back in order.

    `rows` holds one-column rows of bytes (or None); `first_lines[index]` is the input line
    number of the partition's first row; `frame` turns a row into one line (None: the row is
    one already); `baseline` says the command is `cat`. Once every line is out and checked,
    `record_stats` is called with the partition's statistics.
    """
    started = time.monotonic()
    # This worker's processor time, and that of the processes it waited for: the CLI. (Spark's
    # daemon reaps its workers without counting their time, so only they can tell it.)
    worker_started = time.process_time()
    cli_started = resource.getrusage(resource.RUSAGE_CHILDREN)
    first_line = first_lines[index]
    sent = deque()  # lines written to the process and not yet answered, oldest first
    failure = []
    counts = Counter()
    codes = Counter()
    with tempfile.TemporaryFile() as report, subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=report
    ) as process:

        def broken(message):
            process.kill()
            process.wait()
            return ContractError(
                f"partition {index} (input lines from {first_line}), {' '.join(command)}: {message}; "
                f"exit status {process.returncode}; its standard error ends:\n{stderr_tail(report)}")

        try:
            writer = threading.Thread(target=feed, args=(process, rows, frame, sent, failure), daemon=True)
            writer.start()
            local = 0
            for output in process.stdout:
                local += 1
                if not output.endswith(b"\n"):
                    raise broken(f"output line {local} is cut short")
                output = output[:-1]
                if not sent:
                    raise broken(f"output line {local} answers no input line")
                line = sent.popleft()
                if line is None:
                    # Refused: the CLI saw a blank line here, and the job answers the row itself.
                    if not is_blank(output):
                        raise broken(f"output line {local} answers a blank line with {output[:100]!r}")
                    output = refusal_record(first_line + local - 1)
                    counts["refused"] += 1
                    codes["malformedInput"] += 1
                elif baseline:
                    if output != line:
                        raise broken(f"output line {local} is not its input line")
                elif is_blank(read := line.removesuffix(b"\r")):  # the CLI reads a line without its CR LF
                    if output != read:
                        raise broken(f"output line {local} answers a blank line with {output[:100]!r}")
                    counts["blank"] += 1
                elif output.startswith(b'{"$error":'):
                    renumbered = renumber(output, local, first_line)
                    if renumbered is None:
                        raise broken(f"output line {local} is not an error record for line {local}: {output[:300]!r}")
                    output, code = renumbered
                    counts["failed"] += 1
                    codes[code] += 1
                elif output != read:
                    counts["changed"] += 1
                yield output
            writer.join()
            status = process.wait()
        finally:
            # Stopped early (the task was cancelled, or a check failed): end the process too.
            if process.poll() is None:
                process.kill()
                process.wait()
        if failure:
            raise broken(f"feeding it failed: {failure[0]!r}")
        if sent:
            raise broken(f"{local} output lines for {local + len(sent)} input lines")
        if baseline:
            if status != 0:
                raise broken("the baseline command failed")
        else:
            check_report(report, status, counts, codes, local, broken)
    cli_usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    record_stats({
        "partition": index,
        "firstLine": first_line,
        "inputs": local,
        "outputs": local,
        "blank": counts["blank"],
        "changed": counts["changed"],
        "errors": sum(codes.values()),
        "refused": counts["refused"],
        "errorCodes": dict(codes),
        "exitStatus": status,
        "seconds": round(time.monotonic() - started, 3),
        "workerCpuSeconds": round(time.process_time() - worker_started, 3),
        "commandCpuSeconds": round(
            cli_usage.ru_utime + cli_usage.ru_stime - cli_started.ru_utime - cli_started.ru_stime, 3),
    })


def check_report(report, status, counts, codes, lines, broken):
    """Checks the CLI's exit status and report against what the job counted in its output."""
    cli_codes = codes - Counter({"malformedInput": counts["refused"]})
    if status not in SEVERITY or status != expected_status(cli_codes.elements()):
        raise broken(f"exit status {status} does not fit its error records {dict(cli_codes)}")
    # The report's last line counts what the CLI read, changed and failed: the job counts
    # the same from the lines themselves, and both must agree.
    report.seek(0)
    last = report.read().decode("utf-8", "replace").rstrip("\n").rpartition("\n")[2]
    totals = REPORT_TOTALS.fullmatch(last)
    read = lines - counts["blank"] - counts["refused"]
    if totals is None or (int(totals[1]), int(totals[2]), int(totals[3] or 0)) != (
        counts["changed"], read, counts["failed"]
    ):
        raise broken(
            f"its report ({last!r}) does not count {counts['changed']} changed of {read} lines, "
            f"{counts['failed']} failed")


def read_input(spark, arguments):
    """The input as one binary column, `value`, split into --partitions partitions in order,
    and the Parquet column's type (None for NDJSON).

    A single file is split into byte ranges of equal size, each one partition; Spark keeps
    them in file order, so partition i's rows follow partition i-1's (Parquet files are
    split between row groups). Lines end at LF only, as the CLI's do (Spark's default
    would also end one at a lone CR); the bytes are the file's, not decoded.
    """
    size = arguments.input.stat().st_size
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(max(1, math.ceil(size / arguments.partitions))))
    spark.conf.set("spark.sql.files.minPartitionNum", str(arguments.partitions))
    path = str(arguments.input)
    if arguments.input_format == "ndjson":
        lines = spark.read.option("lineSep", "\n").text(path)
        return lines.select(F.col("value").cast("binary").alias("value")), None
    frame = spark.read.parquet(path)
    if arguments.column not in frame.columns:
        sys.exit(f"{path} has no column {arguments.column!r} (it has {', '.join(frame.columns)})")
    kind = frame.schema[arguments.column].dataType
    if not isinstance(kind, (StringType, BinaryType)):
        sys.exit(f"column {arguments.column!r} holds {kind.simpleString()}, not strings or bytes")
    return frame.select(F.col(arguments.column).cast("binary").alias("value")), kind.simpleString()


def written_lines(output):
    """The line count of each part file of the output folder, in partition order."""
    counts = []
    for part in sorted(output.glob("part-*")):
        with open(part, "rb") as file:
            counts.append(sum(chunk.count(b"\n") for chunk in iter(lambda: file.read(1 << 20), b"")))
    return counts


class ArgumentParser(argparse.ArgumentParser):
    """Usage errors exit 1, not argparse's 2: 2 and 3 mean a complete output with failed lines."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def main():
    parser = ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", type=Path, default=os.environ.get("ARCHIVE_MIGRATE"),
                        help="the archive-migrate binary (default: $ARCHIVE_MIGRATE)")
    parser.add_argument("--rules", type=Path, required=True, help="the rules file")
    parser.add_argument("--input", type=Path, required=True, help="one NDJSON or Parquet file")
    parser.add_argument("--input-format", choices=("ndjson", "parquet"), default="ndjson")
    parser.add_argument("--column", default="archive", help="the Parquet column holding archives (strings or bytes)")
    parser.add_argument("--output", type=Path, required=True, help="the folder to write (must not exist)")
    parser.add_argument("--summary", type=Path, help="also write the summary (JSON) here")
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--master", default="local[2]", help="Spark master (default local[2])")
    parser.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()),
                        help="Spark's scratch space (default: the temporary folder)")
    parser.add_argument("--overhead-baseline", action="store_true",
                        help="pipe through `cat` instead of the CLI, to measure what Spark itself costs")
    arguments = parser.parse_args()
    if arguments.partitions < 1:
        parser.error("--partitions must be at least 1")
    if not arguments.input.is_file():
        parser.error(f"--input {arguments.input} is not a file (one file keeps the input's line numbers)")
    if arguments.output.exists():
        parser.error(f"--output {arguments.output} exists")
    if arguments.overhead_baseline:
        command = ["cat"]
    else:
        if arguments.cli is None or not os.access(arguments.cli, os.X_OK):
            parser.error("--cli (or ARCHIVE_MIGRATE) must name the archive-migrate binary")
        command = [str(arguments.cli.resolve()), "upgrade", "--ndjson", "--rules", str(arguments.rules.resolve())]

    started = time.monotonic()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the workers run this venv's Python
    spark = (
        SparkSession.builder.master(arguments.master)
        .appName("archive-migrate upgrade")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.log.level", "WARN")
        .config("spark.local.dir", str(arguments.work_dir))
        .config("spark.sql.warehouse.dir", str(arguments.work_dir / "spark-warehouse"))
        .getOrCreate())
    timings = {"startup": time.monotonic() - started}

    phase = time.monotonic()
    rows, column_type = read_input(spark, arguments)
    partitions = rows.rdd.getNumPartitions()
    # Rows per partition, counted by the JVM alone (no row goes through Python), give each
    # partition the input line number of its first row.
    per_partition = dict(rows.groupBy(F.spark_partition_id()).count().collect())
    first_lines = [1]
    for index in range(partitions):
        first_lines.append(first_lines[-1] + per_partition.get(index, 0))
    timings["count"] = time.monotonic() - phase

    phase = time.monotonic()
    stats = spark.sparkContext.accumulator([], StatsList())
    frame = fold_line_breaks if arguments.input_format == "parquet" else None
    migrated = rows.rdd.mapPartitionsWithIndex(
        lambda index, partition: migrate_partition(
            index, partition, command, first_lines, frame, arguments.overhead_baseline,
            lambda result: stats.add([result])))
    migrated.saveAsTextFile(str(arguments.output))
    timings["migrate"] = time.monotonic() - phase

    phase = time.monotonic()
    results = sorted(stats.value, key=lambda result: result["partition"])
    if [result["partition"] for result in results] != list(range(partitions)):
        raise ContractError(f"partitions reported: {[result['partition'] for result in results]}, of {partitions}")
    inputs = [result["inputs"] for result in results]
    counted = [per_partition.get(index, 0) for index in range(partitions)]
    written = written_lines(arguments.output)
    if inputs != counted or written != counted:
        raise ContractError(f"lines per partition: counted {counted}, migrated {inputs}, written {written}")
    timings["check"] = time.monotonic() - phase
    spark.stop()
    timings["total"] = time.monotonic() - started

    total = sum(counted)
    summary = {
        "input": str(arguments.input),
        "inputFormat": arguments.input_format,
        "columnType": column_type,
        "output": str(arguments.output),
        "command": command,
        "master": arguments.master,
        "partitions": partitions,
        "inputs": total,
        "outputs": sum(written),
    }
    if arguments.overhead_baseline:
        status = 0
    else:
        codes = sum((Counter(result["errorCodes"]) for result in results), Counter())
        blank = sum(result["blank"] for result in results)
        changed = sum(result["changed"] for result in results)
        errors = sum(codes.values())
        status = max((result["exitStatus"] for result in results), key=SEVERITY.get, default=0)
        if any(result["refused"] for result in results):
            status = max(status, 2, key=SEVERITY.get)
        summary |= {
            "blank": blank,
            "changed": changed,
            "unchanged": total - blank - changed - errors,
            "errors": errors,
            "refusedByJob": sum(result["refused"] for result in results),
            "errorCodes": dict(sorted(codes.items())),
            "exitStatus": status,
        }
    summary["cpuSeconds"] = {
        "workers": round(sum(result["workerCpuSeconds"] for result in results), 3),
        "command": round(sum(result["commandCpuSeconds"] for result in results), 3),
    }
    summary["perPartition"] = results
    summary["seconds"] = {name: round(seconds, 3) for name, seconds in timings.items()}
    text = json.dumps(summary, indent=2)
    if arguments.summary:
        arguments.summary.write_text(text + "\n", encoding="utf-8")
    print(text)
    sys.exit(status)


if __name__ == "__main__":
    main()
