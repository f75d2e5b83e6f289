#!/usr/bin/env python3
"""Checks MTLTestModel-OldArchive.plist against the facts of Mantle's own 2013 archive, with
Python's plistlib: a reader independent of ModelVersioning's, which wrote the file.

Mantle's test suite (github.com/Mantle/Mantle, MIT, MantleTests/MTLTestModel-OldArchive.plist)
keeps an archive its NSKeyedArchiver wrote in 2013: the root is an MTLTestModel (class chain
MTLTestModel, MTLModel, NSObject) with the keys MTLModelVersion = 1 and externalRepresentation =
{count: "5" (a string), username: "foobar", nested: {name: "fuzzbuzz"}}.

Run: python3 check_with_plistlib.py [FILE]; prints one line per fact and exits 1 on the first
that does not hold.
"""
import os
import plistlib
import sys
from plistlib import UID

HERE = os.path.dirname(os.path.abspath(__file__))
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "MTLTestModel-OldArchive.plist")


def check(fact, holds):
    print(("ok      " if holds else "FAILED  ") + fact)
    if not holds:
        sys.exit(1)


with open(path, "rb") as handle:
    raw = handle.read()
check("a binary property list (bplist00)", raw.startswith(b"bplist00"))
plist = plistlib.loads(raw)
objects = plist.get("$objects", [])


def deref(value):
    check(f"{value!r} is a UID inside $objects", isinstance(value, UID) and 0 < value.data < len(objects))
    return objects[value.data]


def dictionary(entry):
    """An NSDictionary's keys and values, in archived order."""
    check("the dictionary has NS.keys and NS.objects of one length",
          len(entry.get("NS.keys", [])) == len(entry.get("NS.objects", [None])))
    cls = deref(entry["$class"])
    check(f"{cls.get('$classname')} is NSDictionary", cls.get("$classname") in ("NSDictionary", "NSMutableDictionary"))
    return [(deref(k), deref(v)) for k, v in zip(entry["NS.keys"], entry["NS.objects"])]


check("$archiver is NSKeyedArchiver", plist.get("$archiver") == "NSKeyedArchiver")
check("$version is 100000", plist.get("$version") == 100000)
check("$top has one key, root", list(plist.get("$top", {}).keys()) == ["root"])
check("$objects[0] is $null", objects[:1] == ["$null"])
root = deref(plist["$top"]["root"])
cls = deref(root["$class"])
check("the root's class is MTLTestModel", cls.get("$classname") == "MTLTestModel")
check("its class chain is MTLTestModel, MTLModel, NSObject",
      cls.get("$classes") == ["MTLTestModel", "MTLModel", "NSObject"])
check("the root's keys are MTLModelVersion and externalRepresentation",
      sorted(k for k in root if k != "$class") == ["MTLModelVersion", "externalRepresentation"])
version = deref(root["MTLModelVersion"])
check("MTLModelVersion is the number 1 (an NSNumber object)", type(version) is int and version == 1)
external = dictionary(deref(root["externalRepresentation"]))
check("externalRepresentation holds count, username, nested",
      [k for k, _ in external] == ["count", "username", "nested"])
values = dict(external)
check("count is the string \"5\"", values["count"] == "5" and type(values["count"]) is str)
check("username is \"foobar\"", values["username"] == "foobar")
check("nested is {name: \"fuzzbuzz\"}", dictionary(values["nested"]) == [("name", "fuzzbuzz")])
print("all facts hold")
