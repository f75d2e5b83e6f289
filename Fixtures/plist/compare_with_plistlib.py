#!/usr/bin/env python3
"""Compares two property lists with Python's plistlib, a reader independent of ModelVersioning's:
equal means the same values of the same types — data stays data (bytes), dates stay dates,
integers, reals and Booleans stay what they were — not merely the same text.

    python3 Fixtures/plist/compare_with_plistlib.py ORIGINAL CONVERTED

Either file may be XML or binary. Dictionaries compare as sets of keys; arrays element by element.
A data value that holds a property list of its own (a keyed archive: a Terminal profile's colours
and font, an archived NSColor or NSDictionary in preferences) must be the same bytes, and is read
with plistlib too, to show the archive inside is intact. Prints "equal: …" and exits 0, or prints
the first difference with its path and exits 1.
"""
import datetime
import plistlib
import sys
from plistlib import UID


def kind(value):
    """The property-list type of a value (bool before int: True is an int in Python)."""
    for name, types in (
        ("boolean", bool),
        ("integer", int),
        ("real", float),
        ("string", str),
        ("data", bytes),
        ("date", datetime.datetime),
        ("array", list),
        ("dictionary", dict),
        ("UID", UID),
    ):
        if isinstance(value, types):
            return name
    return type(value).__name__


class Comparison:
    def __init__(self):
        self.values = 0
        self.nested = 0

    def compare(self, a, b, path):
        self.values += 1
        where = path or "(top)"
        if kind(a) != kind(b):
            return f"{where}: a {kind(a)} ({a!r:.60}) became a {kind(b)} ({b!r:.60})"
        if isinstance(a, dict):
            if set(a) != set(b):
                missing = sorted(set(a) - set(b))
                added = sorted(set(b) - set(a))
                return f"{where}: keys missing {missing}, keys added {added}"
            for key in a:
                found = self.compare(a[key], b[key], f"{path}.{key}" if path else key)
                if found:
                    return found
            return None
        if isinstance(a, list):
            if len(a) != len(b):
                return f"{where}: {len(a)} elements became {len(b)}"
            for index, (x, y) in enumerate(zip(a, b)):
                found = self.compare(x, y, f"{path}[{index}]")
                if found:
                    return found
            return None
        if isinstance(a, float) and a != a and b != b:
            return None  # NaN
        if a != b:
            return f"{where}: {a!r:.60} became {b!r:.60}"
        if isinstance(a, bytes) and (a.startswith(b"bplist") or a.startswith(b"<?xml")):
            # The same bytes; read the property list inside to show it is whole.
            try:
                plistlib.loads(a)
            except Exception as error:  # noqa: BLE001 - report what plistlib says
                return f"{where}: the property list inside does not read: {error}"
            self.nested += 1
        return None


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare_with_plistlib.py ORIGINAL CONVERTED")
    trees = []
    for path in sys.argv[1:]:
        with open(path, "rb") as handle:
            raw = handle.read()
        try:
            trees.append(plistlib.loads(raw))
        except Exception as error:  # noqa: BLE001 - report what plistlib says
            print(f"{path}: plistlib cannot read it: {error}")
            sys.exit(1)
    comparison = Comparison()
    difference = comparison.compare(trees[0], trees[1], "")
    if difference:
        print("different: " + difference)
        sys.exit(1)
    print(f"equal: {comparison.values} values of the same types, {comparison.nested} property lists in data values")


if __name__ == "__main__":
    main()
