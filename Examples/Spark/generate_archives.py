#!/usr/bin/env python3
"""Writes N archives, one per line (NDJSON), for the Spark example and its verification.

The lines cycle through the JSON fixtures of every Sketch release
(Fixtures/archives/Sketch/v1 ... v4; the binary property list is skipped), each compacted
to one line, because --ndjson frames one archive per line and the fixtures are
pretty-printed. A few lines, at positions drawn from --seed, are deliberately not good
archives; a manifest (JSON) names each by its line number and kind, so that the
verification can tell that exactly those lines, and no others, come back as
{"$error": ...} records (blank lines stay blank):

  truncated       a fixture cut short: not JSON
  not-an-archive  JSON, but no archive of the Sketch chains (a plain object)
  newer-version   a current archive whose documentVersion no release has written yet
  not-json        an XML property list: not JSON at all
  blank           an empty line, which the CLI writes back empty

The same rows can also be written to a Parquet file with one column, of strings or of
bytes (--parquet, --parquet-type), for the job's Parquet input. The output depends only
on the arguments and the fixtures.

  python3 generate_archives.py --lines 20000 --ndjson in.ndjson --manifest in.broken.json
"""

import argparse
import json
import random
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
DEFAULT_FIXTURES = REPOSITORY / "Fixtures" / "archives" / "Sketch"

# The kinds of deliberately broken lines, in the order they are dealt out.
BROKEN_KINDS = ("truncated", "not-an-archive", "newer-version", "not-json", "blank")

# A document version that no Sketch release has written (rules.json stops at 4).
NEWER_DOCUMENT_VERSION = 5



def compact(text):
    """One archive's JSON text as one line: the same value, without layout whitespace."""
    return json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":"))


def load_fixtures(directory):
    """The JSON fixtures of every release folder (v1, v2, ...), compacted, in path order."""
    paths = sorted(directory.glob("v[0-9]*/*.json"))
    if not paths:
        sys.exit(f"no JSON fixtures in {directory}/v*/")
    return [(path, compact(path.read_text(encoding="utf-8"))) for path in paths]


def broken_line(kind, fixtures, rng, number):
    """A line of the given kind; `number` (1-based) makes each line distinct."""
    if kind == "truncated":
        _, text = fixtures[rng.randrange(len(fixtures))]
        # Any proper prefix of a JSON object lacks at least its closing brace.
        return text[: rng.randrange(1, len(text))]
    if kind == "not-an-archive":
        return json.dumps({"kind": "not an archive", "line": number}, separators=(",", ":"))
    if kind == "newer-version":
        current = [text for path, text in fixtures if path.parent.name == "v4"]
        archive = json.loads(rng.choice(current))
        archive["documentVersion"] = NEWER_DOCUMENT_VERSION
        return json.dumps(archive, ensure_ascii=False, separators=(",", ":"))
    if kind == "not-json":
        return f'<?xml version="1.0"?><plist version="1.0"><integer>{number}</integer></plist>'
    if kind == "blank":
        return ""
    raise ValueError(kind)


def generate(count, fixtures, seed, broken_rate):
    """Yields (line, kind) for `count` lines; kind is None for a good archive."""
    rng = random.Random(seed)
    broken_count = min(count, max(len(BROKEN_KINDS), round(count * broken_rate)))
    # Positions in random order, so that every kind lands at random places.
    positions = rng.sample(range(count), broken_count)
    broken = {position: BROKEN_KINDS[index % len(BROKEN_KINDS)] for index, position in enumerate(positions)}
    for index in range(count):
        kind = broken.get(index)
        if kind is None:
            yield fixtures[index % len(fixtures)][1], None
        else:
            yield broken_line(kind, fixtures, rng, index + 1), kind


def write_parquet(path, lines, column, as_bytes, group_rows):
    """One column, `column`, of strings or bytes: one row per line, `group_rows` rows per row group."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    kind = pa.binary() if as_bytes else pa.string()
    schema = pa.schema([(column, kind)])
    with pq.ParquetWriter(path, schema) as writer:
        for start in range(0, len(lines), group_rows):
            chunk = lines[start : start + group_rows]
            values = [line.encode("utf-8") for line in chunk] if as_bytes else chunk
            writer.write_table(pa.table({column: pa.array(values, type=kind)}), row_group_size=len(chunk))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, required=True, help="how many lines to write")
    parser.add_argument("--seed", type=int, default=1, help="draws the broken lines' positions and contents")
    parser.add_argument(
        "--broken-rate", type=float, default=0.002,
        help="share of broken lines (default 0.002; at least one of each kind)")
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES, help="the Sketch fixtures folder")
    parser.add_argument("--ndjson", type=Path, required=True, help="the NDJSON file to write")
    parser.add_argument("--manifest", type=Path, help="where to write the broken lines' numbers and kinds (JSON)")
    parser.add_argument("--parquet", type=Path, help="also write the rows to this Parquet file")
    parser.add_argument("--parquet-type", choices=("string", "binary"), default="string")
    parser.add_argument("--parquet-column", default="archive")
    parser.add_argument(
        "--parquet-row-group", type=int, default=1_000,
        help="rows per row group (default 1,000): Spark splits a Parquet file only between row groups")
    arguments = parser.parse_args()
    if arguments.lines < 1:
        parser.error("--lines must be at least 1")

    fixtures = load_fixtures(arguments.fixtures)
    broken = {}
    # The Parquet writer wants the rows at the end; keep them only when asked for it.
    rows = [] if arguments.parquet else None
    with open(arguments.ndjson, "w", encoding="utf-8", newline="\n") as output:
        for number, (line, kind) in enumerate(generate(arguments.lines, fixtures, arguments.seed, arguments.broken_rate), 1):
            output.write(line + "\n")
            if kind is not None:
                broken[number] = kind
            if rows is not None:
                rows.append(line)
    if arguments.parquet:
        write_parquet(
            arguments.parquet, rows, arguments.parquet_column, arguments.parquet_type == "binary",
            arguments.parquet_row_group)
    if arguments.manifest:
        manifest = {
            "lines": arguments.lines,
            "seed": arguments.seed,
            "fixtures": [str(path.relative_to(arguments.fixtures)) for path, _ in fixtures],
            "broken": {str(number): kind for number, kind in sorted(broken.items())},
        }
        arguments.manifest.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(
        f"wrote {arguments.lines} lines to {arguments.ndjson} ({len(broken)} broken, {len(fixtures)} fixtures)"
        + (f" and {arguments.parquet} ({arguments.parquet_type})" if arguments.parquet else ""),
        file=sys.stderr)


if __name__ == "__main__":
    main()
