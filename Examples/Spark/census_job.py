#!/usr/bin/env python3
"""Takes the census of archives with Apache Spark, before migrating them: every partition
goes through one `archive-migrate inspect --ndjson --format json --rules RULES --first-line N`
process, and the partitions' censuses are merged by `archive-migrate inspect --merge`.

Input: one NDJSON file (one JSON archive per line). Output: the census of the whole file
(JSON, as `inspect --ndjson --format json` prints it) written to --output and printed: how many
archives there are of each format, document version and type version, what an upgrade with
the rules would change, and which fail, the first 20 by their line in the whole file.

The merge is associative (see `ArchiveCensus.merging` and the article "Migrating a fleet"),
so the result equals one `inspect --ndjson` over the whole file except for its `source`.

The job fails (exit status 2, no output) when a partition's CLI exits with a status other
than 0, 1 or 3 (inspect's: success, some archive fails, one was written by a newer version),
or its census counts other than the lines it was sent. Otherwise it exits as `inspect`
would have on the whole file: 0, 1 or 3.

  python3 census_job.py --cli .build/release/archive-migrate --rules Fixtures/archives/rules.json \\
      --input in.ndjson --output census.json --partitions 4 --master 'local[2]'
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from migrate_job import ContractError, feed, read_input, stderr_tail

# inspect's exit statuses over a store: 0 every archive reads and upgrades, 1 some fail,
# 3 an archive was written by a newer version than the rules know.
INSPECT_STATUSES = {0, 1, 3}


def census_partition(index, rows, command, first_lines):
    """One partition's census: its rows through one `inspect --ndjson` process, numbered
    from the partition's first line in the whole input. Yields (index, census bytes)."""
    first_line = first_lines[index]
    sent = []
    failure = []
    with tempfile.TemporaryFile() as report, subprocess.Popen(
        command + ["--first-line", str(first_line)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=report
    ) as process:
        # `sent` only needs counting here; feed() records each line in it.
        writer = threading.Thread(target=feed, args=(process, rows, None, sent, failure), daemon=True)
        writer.start()
        output = process.stdout.read()
        writer.join()
        status = process.wait()

        def broken(message):
            return ContractError(
                f"partition {index} (input lines from {first_line}), {' '.join(command)}: {message}; "
                f"exit status {status}; its standard error ends:\n{stderr_tail(report)}")

        if failure:
            raise broken(f"feeding it failed: {failure[0]!r}")
        if status not in INSPECT_STATUSES:
            raise broken("it did not finish its census")
        try:
            census = json.loads(output)
        except ValueError as error:
            raise broken(f"its census is not JSON ({error})") from None
        if census.get("lines") != len(sent):
            raise broken(f"its census counts {census.get('lines')} lines of the {len(sent)} sent")
    yield index, output


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", type=Path, default=os.environ.get("ARCHIVE_MIGRATE"),
                        help="the archive-migrate binary (default: $ARCHIVE_MIGRATE)")
    parser.add_argument("--rules", type=Path, required=True, help="the rules file")
    parser.add_argument("--input", type=Path, required=True, help="one NDJSON file")
    parser.add_argument("--output", type=Path, required=True, help="the merged census (JSON) to write")
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--master", default="local[2]", help="Spark master (default local[2])")
    parser.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()),
                        help="Spark's scratch space (default: the temporary folder)")
    arguments = parser.parse_args()
    arguments.input_format = "ndjson"  # what read_input reads
    if arguments.partitions < 1:
        parser.error("--partitions must be at least 1")
    if not arguments.input.is_file():
        parser.error(f"--input {arguments.input} is not a file (one file keeps the input's line numbers)")
    if arguments.cli is None or not os.access(arguments.cli, os.X_OK):
        parser.error("--cli (or ARCHIVE_MIGRATE) must name the archive-migrate binary")
    cli = str(arguments.cli.resolve())
    command = [cli, "inspect", "--ndjson", "--format", "json", "--rules", str(arguments.rules.resolve())]

    started = time.monotonic()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master(arguments.master)
        .appName("archive-migrate inspect")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.log.level", "WARN")
        .config("spark.local.dir", str(arguments.work_dir))
        .config("spark.sql.warehouse.dir", str(arguments.work_dir / "spark-warehouse"))
        .getOrCreate())
    # The job's module travels to the workers with this one.
    spark.sparkContext.addPyFile(str(Path(__file__).with_name("migrate_job.py")))
    rows, _ = read_input(spark, arguments)
    partitions = rows.rdd.getNumPartitions()
    per_partition = dict(rows.groupBy(F.spark_partition_id()).count().collect())
    first_lines = [1]
    for index in range(partitions):
        first_lines.append(first_lines[-1] + per_partition.get(index, 0))
    censuses = sorted(
        rows.rdd.mapPartitionsWithIndex(
            lambda index, partition: census_partition(index, partition, command, first_lines)).collect())
    spark.stop()
    if [index for index, _ in censuses] != list(range(partitions)):
        raise ContractError(f"censuses of partitions {[index for index, _ in censuses]}, of {partitions}")

    # The reduction: archive-migrate merges the partitions' censuses, in partition order.
    with tempfile.TemporaryDirectory(dir=arguments.work_dir) as folder:
        merge = [cli, "inspect", "--format", "json"]
        for index, census in censuses:
            path = Path(folder) / f"census-{index:05d}.json"
            path.write_bytes(census)
            merge += ["--merge", str(path)]
        merged = subprocess.run(merge, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if merged.returncode not in INSPECT_STATUSES:
        raise ContractError(f"merging the censuses failed: {merged.stderr.decode('utf-8', 'replace')}")
    arguments.output.write_bytes(merged.stdout)
    sys.stdout.buffer.write(merged.stdout)
    print(json.dumps({"partitions": partitions, "seconds": round(time.monotonic() - started, 3)}), file=sys.stderr)
    sys.exit(merged.returncode)


if __name__ == "__main__":
    try:
        main()
    except ContractError as error:
        print(f"census_job: {error}", file=sys.stderr)
        sys.exit(2)
