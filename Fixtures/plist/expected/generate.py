#!/usr/bin/env python3
"""Writes the expected value of every property-list fixture, for PropertyListFormatTests.

Run by hand with python3 (3.8 or later) from anywhere; it rewrites the *.json files next to it:

    python3 Fixtures/plist/expected/generate.py

The values come from Python's plistlib, an implementation independent of ours, never from our
reader's output. Where plistlib and Apple's frameworks disagree, or plistlib cannot read a file,
this script says so and follows Apple (and node-bplist-parser):

* ASCII-string objects (marker 0x5N) holding UTF-8 bytes: Apple and node-bplist-parser read them
  as UTF-8, plistlib rejects them. The files are read with plistlib through a shim that decodes
  those strings as UTF-8 (node-bplist-parser/sample1.bplist, iTunes-small.bplist).
* `<dict><key>CF$UID</key><integer>n</integer></dict>` in XML is a UID to Apple (as in binary);
  plistlib leaves it a dictionary. It is written as {"uid": n} here.
* Files Apple rejects but plistlib reads (a reference cycle, a dictionary key that is data, bad
  trailer sizes, text where a value should be) are listed in MUST_FAIL with the reason.
* Files plistlib cannot read but Apple can (OpenStep text; a date in the year 0, i.e.
  Date.distantPast) have hand-written values in BY_HAND, taken from the bytes of the file.

Binary dates: plistlib rounds them to microseconds, so "seconds" may differ from the file's
double by up to half a microsecond; the test allows for that.

Each expectation file holds one JSON object:
  {"source": ..., "value": V}      the file must read as V
  {"rejected": reason}             the file must be rejected with ArchiveError(malformedInput)
  {"readOrRejected": reason}       either is fine (fuzzer output), but never a crash
where V is tagged: {"string": s}, {"integer": "decimal"}, {"real": "repr" | "nan" | "inf" | "-inf"},
{"bool": b}, {"date": "ISO 8601", "seconds": "seconds since 2001-01-01"}, {"data": "base64"},
{"array": [V…]}, {"dict": [[key, V]…]} (file order), {"uid": n}, {"null": true}.
"""

import base64
import datetime
import io
import json
import math
import os
import plistlib
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.dirname(HERE)
REFERENCE_DATE = datetime.datetime(2001, 1, 1)

# The files that must be rejected (and biplist's fuzzer output, read or rejected) live in
# Fixtures/malformed/, with their reasons in its README; MalformedCorpusTests covers them.
MUST_FAIL = {}
READ_OR_REJECT_FOLDERS = []

# Values plistlib cannot produce, written from the files themselves.
BY_HAND = {
    # Bytes 0x12-0x1a: 33 c2 2d 63 c8 c5 00 00 00, the double -63114076800.0 = Date.distantPast,
    # 0000-12-30T00:00:00Z in the proleptic Gregorian calendar (plistlib's datetime has no year 0).
    "biplist/data/small_date.plist": {
        "dict": [["MyDate", {"date": "0000-12-30T00:00:00Z", "seconds": "-63114076800.0"}]]
    },
    "rust-plist/ascii-animals.plist": {
        "dict": [
            ["AnimalColors", {"dict": [["lamb", {"string": "black"}], ["pig", {"string": "pink"}],
                                       ["worm", {"string": "pink"}]]}],
            ["AnimalSmells", {"dict": [["lamb", {"string": "lambish"}], ["pig", {"string": "piggish"}],
                                       ["worm", {"string": "wormy"}]]}],
            ["AnimalSounds", {"dict": [["Lisa", {"string": "Why is the worm talking like a lamb?"}],
                                       ["lamb", {"string": "baa"}], ["pig", {"string": "oink"}],
                                       ["worm", {"string": "baa"}]]}],
        ]
    },
    "rust-plist/ascii-sample.plist": {
        "dict": [
            ["KeyName1", {"string": "Value1"}],
            ["AnotherKeyName", {"string": "Value2"}],
            ["Something", {"array": [{"string": "ArrayItem1"}, {"string": "ArrayItem2"},
                                     {"string": "ArrayItem3"}]}],
            ["Key4", {"string": "0.10"}],
            ["KeyFive", {"dict": [["Dictionary2Key1", {"string": "Something"}],
                                  ["AnotherKey", {"string": "Somethingelse"}]]}],
        ]
    },
}

# Read with ASCII-string objects decoded as UTF-8 (see above).
UTF8_IN_ASCII = {"node-bplist-parser/sample1.bplist", "node-bplist-parser/iTunes-small.bplist"}


class _UTF8Bytes(bytes):
    """bytes whose decode('ascii') decodes UTF-8, as Apple reads ASCII-string objects."""

    def decode(self, encoding="utf-8", errors="strict"):
        if encoding == "ascii":
            encoding = "utf-8"
        return bytes.decode(self, encoding, errors)


class _UTF8File(io.BytesIO):
    def read(self, size=-1):
        return _UTF8Bytes(super().read(size))


def tagged(value):
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"integer": str(value)}
    if isinstance(value, float):
        if math.isnan(value):
            return {"real": "nan"}
        if math.isinf(value):
            return {"real": "inf" if value > 0 else "-inf"}
        return {"real": repr(value)}
    if isinstance(value, str):
        return {"string": value}
    if isinstance(value, (bytes, bytearray)):
        return {"data": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, datetime.datetime):
        seconds = (value - REFERENCE_DATE).total_seconds()
        return {"date": value.isoformat() + "Z", "seconds": repr(seconds)}
    if isinstance(value, plistlib.UID):
        return {"uid": value.data}
    if value is None:
        return {"null": True}
    if isinstance(value, (list, tuple)):
        return {"array": [tagged(element) for element in value]}
    if isinstance(value, dict):
        if list(value.keys()) == ["CF$UID"] and isinstance(value["CF$UID"], int) \
                and not isinstance(value["CF$UID"], bool):
            return {"uid": value["CF$UID"]}
        return {"dict": [[key, tagged(element)] for key, element in value.items()]}
    raise TypeError("unexpected %r" % type(value))


def dumps(value, indent=0):
    """JSON with one leaf per line, so that fixture diffs stay readable."""
    pad = "  " * (indent + 1)
    if isinstance(value, dict) and ("array" in value or "dict" in value) and len(value) == 1:
        (tag, items), = value.items()
        if not items:
            return json.dumps(value, ensure_ascii=False)
        if tag == "array":
            lines = [pad + dumps(item, indent + 1) for item in items]
        else:
            lines = [pad + "[" + json.dumps(key, ensure_ascii=False) + ", " + dumps(item, indent + 1) + "]"
                     for key, item in items]
        return '{"%s": [\n' % tag + ",\n".join(lines) + "\n" + "  " * indent + "]}"
    if isinstance(value, dict) and "value" in value:
        head = ", ".join(json.dumps(k, ensure_ascii=False) + ": " + json.dumps(v, ensure_ascii=False)
                         for k, v in value.items() if k != "value")
        return "{" + head + ',\n "value": ' + dumps(value["value"], 0) + "\n}"
    return json.dumps(value, ensure_ascii=False)


def expectation(relative, data):
    if relative in MUST_FAIL:
        return {"rejected": MUST_FAIL[relative]}
    if any(relative.startswith(folder) for folder in READ_OR_REJECT_FOLDERS):
        return {"readOrRejected": "fuzzer output: read it or reject it, never crash"}
    if relative in BY_HAND:
        return {"source": "by hand from the file's bytes (plistlib cannot read it)", "value": BY_HAND[relative]}
    if relative in UTF8_IN_ASCII:
        value = plistlib.load(_UTF8File(data), fmt=plistlib.FMT_BINARY)
        return {"source": "plistlib, ASCII-string objects read as UTF-8 as Apple does", "value": tagged(value)}
    value = plistlib.loads(data)
    return {"source": "plistlib", "value": tagged(value)}


def main():
    written = 0
    for folder, _, files in sorted(os.walk(FIXTURES)):
        if os.path.abspath(folder).startswith(HERE):
            continue
        for name in sorted(files):
            # The scripts that generate or check fixtures, and their JSON, are no property lists.
            if name in ("README.md", "INDEX.txt") or name.endswith((".py", ".json")):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, FIXTURES).replace(os.sep, "/")
            with open(path, "rb") as file:
                data = file.read()
            try:
                result = expectation(relative, data)
            except Exception as error:  # noqa: BLE001 - report which fixture needs a decision
                sys.exit("%s: plistlib cannot read it (%s); add it to MUST_FAIL or BY_HAND" % (relative, error))
            target = os.path.join(HERE, relative + ".json")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            # Large files: one compact line (the 147 KB offset-table fixture would take 1 MB).
            text = dumps(result) if len(data) < 65536 else json.dumps(result, ensure_ascii=False, separators=(",", ":"))
            assert json.loads(text) == result, relative
            with open(target, "w", encoding="utf-8") as file:
                file.write(text + "\n")
            written += 1
    print("wrote %d expectations" % written)


if __name__ == "__main__":
    main()
