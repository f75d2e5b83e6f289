#!/usr/bin/env python3
"""Writes the hostile keyed archives next to this script (binary property lists, via plistlib).

Each archive is damaged or crafted in one way; KeyedArchiveTests names the ArchiveError code (or
the value) each must give. Foundation's NSKeyedUnarchiver on Linux traps or overflows the stack on
several of them: never hand these files to Foundation.

Run: python3 generate.py   (deterministic; re-run after editing, commit the outputs)
"""
import os
import plistlib
from plistlib import UID

HERE = os.path.dirname(os.path.abspath(__file__))


def cls(name, *supers):
    return {"$classname": name, "$classes": [name, *supers, "NSObject"]}


def archive(name, objects, top=None):
    plist = {
        "$archiver": "NSKeyedArchiver",
        "$version": 100000,
        "$top": top if top is not None else {"root": UID(1)},
        "$objects": ["$null", *objects],
    }
    with open(os.path.join(HERE, name + ".plist"), "wb") as handle:
        plistlib.dump(plist, handle, fmt=plistlib.FMT_BINARY, sort_keys=False)


# NS.keys and NS.objects of different lengths (Foundation on Linux reads out of bounds).
archive("length-mismatch", [
    {"$class": UID(4), "NS.keys": [UID(2), UID(3)], "NS.objects": [UID(3)]},
    "a", "b", cls("NSDictionary"),
])

# $class points to a string, not a class dictionary (Foundation on Linux force-unwraps).
archive("class-not-dictionary", [{"$class": UID(2), "name": UID(3)}, "NotAClass", "x"])

# $class is an inline integer, not a UID.
archive("class-not-uid", [{"$class": 3, "name": UID(2)}, "x", cls("Thing")])

# An NSMutableDictionary holding itself (Foundation on Linux recurses until the stack overflows).
archive("self-referencing-dictionary", [
    {"$class": UID(3), "NS.keys": [UID(2)], "NS.objects": [UID(1)]},
    "me", cls("NSMutableDictionary", "NSDictionary"),
])

# An NSMutableArray containing itself.
archive("self-containing-array", [
    {"$class": UID(3), "NS.objects": [UID(2), UID(1)]},
    "first", cls("NSMutableArray", "NSArray"),
])

# Two arrays containing each other.
archive("mutual-arrays", [
    {"$class": UID(3), "NS.objects": [UID(2)]},
    {"$class": UID(3), "NS.objects": [UID(1)]},
    cls("NSArray"),
])

# A small file expanding to millions of values: one array of 1,000 numbers used 2,000 times.
archive("reference-bomb", [
    {"$class": UID(3), "NS.objects": [UID(2)] * 2000},
    {"$class": UID(3), "NS.objects": [UID(4)] * 1000},
    cls("NSArray"),
    7,
])

# 1,000 arrays nested in each other.
depth = 1000
chain = [{"$class": UID(depth + 1), "NS.objects": [UID(index + 2)] if index + 1 < depth else []}
         for index in range(depth)]
archive("deep-nesting", chain + [cls("NSArray")])

# An NSURL whose base is itself.
archive("url-base-cycle", [{"$class": UID(3), "NS.base": UID(1), "NS.relative": UID(2)}, "a.html", cls("NSURL")])

# An element UID past the end of $objects.
archive("uid-out-of-range", [{"$class": UID(2), "NS.objects": [UID(99)]}, cls("NSArray")])

# An NSCountedSet claiming a billion copies of one number.
archive("counted-set-bomb", [
    {"$class": UID(3), "NS.count": 1, "NS.object0": UID(2), "NS.count0": 1000000000},
    5, cls("NSCountedSet", "NSMutableSet", "NSSet"),
])

# Mantle's MTLModelVersion that is not a number.
archive("bad-model-version", [{"$class": UID(3), "MTLModelVersion": UID(2)}, "two", cls("MTLModel")])

# A $objects entry that is an array (objects are dictionaries, strings, numbers or data).
archive("array-entry", [{"$class": UID(3), "NS.objects": [UID(2)]}, [UID(1)], cls("NSArray")])

# An NSDictionary with NSNumber keys: kept as an NSDictionary object.
archive("number-keys", [
    {"$class": UID(6), "NS.keys": [UID(2), UID(3)], "NS.objects": [UID(4), UID(5)]},
    1, 2, "one", "two", cls("NSDictionary"),
])

# The same key twice.
archive("duplicate-keys", [
    {"$class": UID(5), "NS.keys": [UID(2), UID(3)], "NS.objects": [UID(4), UID(4)]},
    "key", "key", "value", cls("NSDictionary"),
])

# An NSOrderedSet whose numbered keys skip one.
archive("ordered-set-gap", [
    {"$class": UID(4), "NS.object.0": UID(2), "NS.object.2": UID(3)},
    "a", "b", cls("NSOrderedSet"),
])

# $objects[0] is not "$null".
with open(os.path.join(HERE, "no-null-entry.plist"), "wb") as handle:
    plistlib.dump({"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": UID(1)},
                   "$objects": ["nil", "x"]}, handle, fmt=plistlib.FMT_BINARY)

# A custom object referring to itself and shared by two array slots: identity and references.
archive("shared-and-cyclic-object", [
    {"$class": UID(3), "NS.objects": [UID(2), UID(2)]},
    {"$class": UID(4), "me": UID(2), "name": UID(5)},
    cls("NSArray"), cls("Node"), "node",
])
