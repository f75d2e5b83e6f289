#!/usr/bin/env python3
"""Upgrades one SQLite table with N `archive-migrate upgrade --sqlite … --shard I/N` processes
at once, kills one of them midway, runs it again, and checks the result:

  1. a table of ROWS archives (cycled from the Sketch fixtures of all four releases, with the
     generator's few broken ones), and a trigger that counts every write to each row;
  2. the census of each shard (`inspect --shard I/N --format json`), merged by
     `inspect --merge`, against the census of the whole table;
  3. the N shards at once; shard 2 is killed (SIGKILL) once some of its rows are written, and
     run again;
  4. every row that was old written exactly once, none other written, the broken rows left as
     they were (`--skip-failed`), the census after: nothing left to upgrade; and
     `PRAGMA integrity_check` ok.

  python3 Examples/Fleet/sharded_sqlite.py --cli .build/release/archive-migrate --rows 400000 --shards 4

Exit status 0 when every check passed, 1 otherwise.
"""

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]
RULES = REPOSITORY / "Fixtures" / "archives" / "rules.json"


def run(command, **options):
    started = time.monotonic()
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **options)
    return result, time.monotonic() - started


def census(cli, database, *more):
    result, _ = run([cli, "inspect", "--sqlite", database, "--table", "drawings", "--column", "doc",
                     "--rules", str(RULES), "--format", "json", *more])
    if result.returncode not in (0, 1, 3):
        sys.exit(f"inspect {' '.join(more)} failed: {result.stderr.decode()}")
    return json.loads(result.stdout), result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", required=True, help="the archive-migrate binary")
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()))
    arguments = parser.parse_args()
    cli = str(Path(arguments.cli).resolve())
    count = arguments.shards
    problems = []

    with tempfile.TemporaryDirectory(dir=arguments.work_dir) as folder:
        folder = Path(folder)
        ndjson = folder / "archives.ndjson"
        manifest = folder / "broken.json"
        subprocess.run([sys.executable, str(REPOSITORY / "Examples" / "Spark" / "generate_archives.py"),
                        "--lines", str(arguments.rows), "--ndjson", str(ndjson), "--manifest", str(manifest)],
                       check=True, stdout=subprocess.DEVNULL)
        database = str(folder / "drawings.sqlite")
        connection = sqlite3.connect(database)
        connection.executescript("""
            CREATE TABLE drawings (id INTEGER PRIMARY KEY, doc TEXT);
            CREATE TABLE writes (id INTEGER PRIMARY KEY, count INTEGER NOT NULL);
            CREATE TRIGGER counted AFTER UPDATE OF doc ON drawings BEGIN
                INSERT INTO writes (id, count) VALUES (new.id, 1)
                    ON CONFLICT (id) DO UPDATE SET count = count + 1;
            END;""")
        with open(ndjson, "rb") as lines:
            connection.executemany("INSERT INTO drawings (doc) VALUES (?)",
                                   ((line.rstrip(b"\n").decode("utf-8", "replace"),) for line in lines))
        connection.commit()
        print(f"table: {arguments.rows} rows, {os.path.getsize(database) / 1e6:.0f} MB")

        # The census of the whole, and of the shards merged.
        whole, _ = census(cli, database)
        parts = folder / "parts"
        parts.mkdir()
        merge = [cli, "inspect", "--format", "json"]
        for index in range(1, count + 1):
            _, data = census(cli, database, "--shard", f"{index}/{count}")
            (parts / f"{index}.json").write_bytes(data)
            merge += ["--merge", str(parts / f"{index}.json")]
        merged = json.loads(run(merge)[0].stdout)
        for value in (whole, merged):
            value.pop("source"), value.pop("sources")
        print("census before:", {key: whole[key] for key in ("rows", "failed", "wouldChange")})
        if merged != whole:
            problems.append("the shards' censuses, merged, differ from the table's")

        # The shards at once; shard 2 killed once some of its rows are written.
        def shard(index):
            return subprocess.Popen(
                [cli, "upgrade", "--sqlite", database, "--table", "drawings", "--column", "doc",
                 "--rules", str(RULES), "--shard", f"{index}/{count}", "--skip-failed", "--batch-size", "10000", "--busy-timeout", "600000"],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        started = time.monotonic()
        processes = {index: shard(index) for index in range(1, count + 1)}
        first, last = arguments.rows // count + 1, 2 * arguments.rows // count  # shard 2's rowids
        watcher = sqlite3.connect(database, timeout=60)
        while True:
            written = watcher.execute("SELECT count(*) FROM writes WHERE id BETWEEN ? AND ?", (first, last)).fetchone()[0]
            if written > 0 or processes[2].poll() is not None:
                break
            time.sleep(0.05)
        watcher.close()
        killed = processes[2].poll() is None
        if killed:
            processes[2].send_signal(signal.SIGKILL)
        statuses = {index: process.wait() for index, process in processes.items()}
        reports = {index: process.stderr.read().decode().strip().splitlines()[-1:] for index, process in processes.items()}
        print(f"{count} shards at once: {time.monotonic() - started:.1f} s; shard 2 "
              + (f"killed after {written} of its rows were written" if killed else "finished before it could be killed"))
        for index in sorted(reports):
            print(f"  shard {index}: exit {statuses[index]}: {' '.join(reports[index])}")
        rerun, seconds = run([cli, "upgrade", "--sqlite", database, "--table", "drawings", "--column", "doc",
                              "--rules", str(RULES), "--shard", f"2/{count}", "--skip-failed"])
        print(f"  shard 2 again: exit {rerun.returncode}, {seconds:.1f} s: {rerun.stderr.decode().strip().splitlines()[-1]}")

        # Every old row written once; nothing else.
        connection = sqlite3.connect(database)
        writes = dict(connection.execute("SELECT count, count(*) FROM writes GROUP BY count").fetchall())
        integrity = connection.execute("PRAGMA integrity_check").fetchall()
        connection.close()
        after, _ = census(cli, database)
        print("writes per row:", writes, "; integrity_check:", integrity[0][0])
        print("census after:", {key: after[key] for key in ("rows", "failed", "wouldChange")})
        if writes != {1: whole["wouldChange"]}:
            problems.append(f"rows written {writes} (count: rows), expected {whole['wouldChange']} rows once each")
        if integrity != [("ok",)]:
            problems.append(f"integrity_check: {integrity}")
        if after["wouldChange"] != 0 or after["failed"] != whole["failed"]:
            problems.append("the census after still finds rows to upgrade, or other failures than before")
    if problems:
        sys.exit("FAILED: " + "; ".join(problems))
    print("every check passed")


if __name__ == "__main__":
    main()
