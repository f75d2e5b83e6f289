#!/usr/bin/env python3
"""Tests of the job's partition step, with the real archive-migrate (no Spark needed).

A partition goes through `migrate_partition` exactly as in the job. The failure tests run
the real CLI behind a shell wrapper that breaks it the way a crash or a lost pipe would
(killed after three lines; three lines answered, then a clean exit), and a bad rules file.

  ARCHIVE_MIGRATE=.build/release/archive-migrate python3 -m unittest -v test_migrate_job
"""

import json
import os
import stat
import subprocess
import tempfile
import unittest
from pathlib import Path

from migrate_job import ContractError, fold_line_breaks, migrate_partition

REPOSITORY = Path(__file__).resolve().parents[2]
RULES = REPOSITORY / "Fixtures" / "archives" / "rules.json"
SKETCH = REPOSITORY / "Fixtures" / "archives" / "Sketch"
CLI = os.environ.get("ARCHIVE_MIGRATE")


def compact(path):
    text = json.loads(path.read_text(encoding="utf-8"))
    return json.dumps(text, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class FoldLineBreaks(unittest.TestCase):
    def test_a_line_stays_as_it_is(self):
        self.assertEqual(fold_line_breaks(b'{"a": "b"}'), b'{"a": "b"}')

    def test_layout_line_breaks_become_spaces_in_place(self):
        self.assertEqual(fold_line_breaks(b'{\n  "a": 1\r\n}'), b'{   "a": 1  }')

    def test_a_line_break_inside_a_string_is_refused(self):
        self.assertIsNone(fold_line_breaks(b'{"a": "one\ntwo"}'))
        self.assertIsNone(fold_line_breaks(b'{"a": "quote \\"\n"}'))  # the escaped quote does not end it

    def test_an_escaped_backslash_ends_before_the_quote(self):
        self.assertEqual(fold_line_breaks(b'{"a": "\\\\"\n}'), b'{"a": "\\\\" }')


@unittest.skipUnless(CLI, "set ARCHIVE_MIGRATE to the archive-migrate binary")
class Partition(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.TemporaryDirectory()
        cls.command = [str(Path(CLI).resolve()), "upgrade", "--ndjson", "--rules", str(RULES)]

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()

    def wrapper(self, name, body):
        """A shell script that runs the real CLI (as `"$CLI" "$@"`) inside `body`."""
        path = Path(self.scratch.name) / name
        path.write_text(f"#!/bin/sh\nCLI='{self.command[0]}'\n{body}\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return [str(path)] + self.command[1:]

    def run_partition(self, rows, command=None, first_line=1, frame=None):
        """The partition's output lines and statistics, as the job gets them."""
        results = []
        lines = list(migrate_partition(
            0, [(row,) for row in rows], command or self.command, [first_line], frame, False, results.append))
        self.assertEqual(len(results), 1)
        return lines, results[0]

    def whole_run(self, lines):
        run = subprocess.run(self.command, input=b"".join(line + b"\n" for line in lines), capture_output=True)
        return run.stdout.split(b"\n")[:-1]

    def test_lines_come_back_in_order_and_records_name_the_input_line(self):
        old, current = compact(SKETCH / "v1" / "kyoto-trip.json"), compact(SKETCH / "v4" / "moodboard.json")
        rows = [old, b"", b'{"$archive":1,"document":', current, b" \r"]
        lines, stats = self.run_partition(rows, first_line=101)
        # What one run over the whole input says of the same lines at lines 101 to 105.
        self.assertEqual(lines, self.whole_run([b""] * 100 + rows)[100:])
        self.assertTrue(lines[2].startswith(b'{"$error":{"line":103,"code":"malformedInput"'), lines[2])
        self.assertIn(b"(line 103, column ", lines[2])
        self.assertEqual(lines[3], current)
        self.assertEqual(
            {key: stats[key] for key in ("firstLine", "inputs", "outputs", "blank", "changed", "errors", "exitStatus")},
            {"firstLine": 101, "inputs": 5, "outputs": 5, "blank": 2, "changed": 1, "errors": 1, "exitStatus": 2})

    def test_parquet_rows_with_line_breaks(self):
        pretty = (SKETCH / "v1" / "kyoto-trip.json").read_bytes()
        lines, stats = self.run_partition(
            [pretty, b'{"title": "one\ntwo"}'], first_line=7, frame=fold_line_breaks)
        self.assertEqual(lines[0], self.whole_run([compact(SKETCH / "v1" / "kyoto-trip.json")])[0])
        self.assertEqual(json.loads(lines[1])["$error"]["line"], 8)
        self.assertEqual((stats["refused"], stats["errorCodes"]), (1, {"malformedInput": 1}))

    def test_a_killed_cli_fails_the_partition(self):
        # Every line answered, and then killed: only the exit status tells.
        command = self.wrapper("killed", '"$CLI" "$@"\nkill -KILL $$')
        rows = [compact(SKETCH / "v2" / "garden.json")] * 10
        with self.assertRaisesRegex(ContractError, "exit status -9 does not fit"):
            self.run_partition(rows, command=command)

    def test_short_output_fails_the_partition(self):
        command = self.wrapper("short", 'head -n 3 | "$CLI" "$@"')
        rows = [compact(SKETCH / "v2" / "garden.json")] * 10
        with self.assertRaisesRegex(ContractError, "3 output lines for 10 input lines"):
            self.run_partition(rows, command=command)

    def test_a_missing_rules_file_fails_the_partition(self):
        command = self.command[:-1] + [str(Path(self.scratch.name) / "missing.json")]
        with self.assertRaisesRegex(ContractError, "0 output lines for 1 input lines"):
            self.run_partition([compact(SKETCH / "v2" / "garden.json")], command=command)
        # An empty partition has no line to miss: the exit status (2, no error record) tells.
        with self.assertRaisesRegex(ContractError, "exit status 2 does not fit"):
            self.run_partition([], command=command)


if __name__ == "__main__":
    unittest.main()
