#!/usr/bin/env python3
"""Writes keyed archives shaped as Mantle's MTLModel+NSCoding writes them (binary, via plistlib).

Mantle (github.com/Mantle/Mantle, MIT) archives a model with `encodeObject:forKey:` for every
property and `@(modelVersion)` under `MTLModelVersion`, both as objects (UIDs). Before Mantle 0.3
a model archived its whole `externalRepresentation` dictionary under that one key instead; its own
test model (MTLTestModel) upgrades such an archive by reading `username` as `name`, the string
`count` as a number and `nested.name` as `nestedName`.

* mtl-test-model-v0-external-representation.plist: the pre-0.3 shape, MTLModelVersion 0,
  externalRepresentation = {username: "foobar", count: "5", nested: {name: "bar"}}.
* mtl-test-model-v1.plist: today's shape, MTLModelVersion 1, name "foobar", count 5,
  nestedName "bar".

Run: python3 generate.py
"""
import os
import plistlib
from plistlib import UID

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = {"$classname": "MTLTestModel", "$classes": ["MTLTestModel", "MTLModel", "NSObject"]}
DICTIONARY = {"$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]}


def write(name, objects):
    plist = {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": UID(1)},
             "$objects": ["$null", *objects]}
    with open(os.path.join(HERE, name), "wb") as handle:
        plistlib.dump(plist, handle, fmt=plistlib.FMT_BINARY, sort_keys=False)


write("mtl-test-model-v0-external-representation.plist", [
    {"$class": UID(2), "MTLModelVersion": UID(3), "externalRepresentation": UID(4)},  # 1
    MODEL,                                                                              # 2
    0,                                                                                  # 3
    {"$class": UID(11), "NS.keys": [UID(5), UID(6), UID(7)],                           # 4
     "NS.objects": [UID(8), UID(9), UID(10)]},
    "username", "count", "nested",                                                      # 5, 6, 7
    "foobar", "5",                                                                      # 8, 9
    {"$class": UID(11), "NS.keys": [UID(12)], "NS.objects": [UID(13)]},                # 10
    DICTIONARY,                                                                         # 11
    "name", "bar",                                                                      # 12, 13
])

write("mtl-test-model-v1.plist", [
    {"$class": UID(2), "MTLModelVersion": UID(3), "name": UID(4), "count": UID(5), "nestedName": UID(6)},
    MODEL, 1, "foobar", 5, "bar",
])
