#!/usr/bin/env python3
"""Writes com.example.Harbor.plist: an app's preferences (a UserDefaults domain) as cfprefsd
keeps them in ~/Library/Preferences — a binary property list with dates, data, numbers,
Booleans, strings, arrays and dictionaries, two of its data values keyed archives.

Run with python3 (3.8 or later) from anywhere; it rewrites com.example.Harbor.plist next to it:

    python3 Fixtures/plist/preferences/generate.py

Laid out by hand with Python's plistlib (no Apple framework, and not this package's writer);
README.md says where each value's shape comes from.
"""

import datetime
import os
import plistlib
from plistlib import UID

HERE = os.path.dirname(os.path.abspath(__file__))


def keyed_archive(objects):
    """A keyed archive of `objects` ($objects[1] is the root), as NSKeyedArchiver lays it out."""
    archive = {
        "$version": 100000,
        "$archiver": "NSKeyedArchiver",
        "$top": {"root": UID(1)},
        "$objects": ["$null"] + objects,
    }
    return plistlib.dumps(archive, fmt=plistlib.FMT_BINARY, sort_keys=False)


def class_entry(*chain):
    return {"$classname": chain[0], "$classes": list(chain)}


REFERENCE_DATE = datetime.datetime(2001, 1, 1)


def main():
    # What `NSDate()` gives: a time with a fraction of a second (a double in the binary file).
    last_check = datetime.datetime(2024, 3, 1, 10, 22, 31, 123456)
    last_sync = datetime.datetime(2024, 2, 29, 23, 59, 58, 500000)
    preferences = {
        "NSWindow Frame HarborMainWindow": "120 240 960 600 0 0 1728 1079 ",
        "SUEnableAutomaticChecks": True,
        "SUHasLaunchedBefore": True,
        "SULastCheckTime": last_check,
        "FirstLaunchDate": datetime.datetime(2019, 11, 5, 8, 0, 0),
        # Date.distantFuture, what apps write for "never".
        "SnoozeUntil": datetime.datetime(4001, 1, 1),
        "LaunchCount": 42,
        "ExportScale": 1.5,
        "RecentFiles": ["~/Documents/Harbor/Plan.harbor", "~/Desktop/Sketch 2.harbor"],
        "NSToolbar Configuration HarborToolbar": {
            "TB Display Mode": 2,
            "TB Icon Size Mode": 1,
            "TB Is Shown": 1,
            "TB Item Identifiers": ["NSToolbarFlexibleSpaceItem", "Share", "Inspector"],
        },
        # An NSColor an app archived with NSKeyedArchiver and stored with set(_:forKey:).
        "HighlightColor": keyed_archive([
            {"NSRGB": b"0.9960784314 0.7882352941 0.2156862745\0", "NSColorSpace": 2, "$class": UID(2)},
            class_entry("NSColor", "NSObject"),
        ]),
        # An NSDictionary with an NSDate inside: a date in an archive in a data value.
        "SyncState": keyed_archive([
            {"NS.keys": [UID(2), UID(3)], "NS.objects": [UID(4), UID(6)], "$class": UID(7)},
            "lastSync",
            "server",
            {"NS.time": (last_sync - REFERENCE_DATE).total_seconds(), "$class": UID(5)},
            class_entry("NSDate", "NSObject"),
            "sync.example.com",
            class_entry("NSMutableDictionary", "NSDictionary", "NSObject"),
        ]),
    }
    with open(os.path.join(HERE, "com.example.Harbor.plist"), "wb") as file:
        plistlib.dump(preferences, file, fmt=plistlib.FMT_BINARY, sort_keys=False)
    print("wrote com.example.Harbor.plist")


if __name__ == "__main__":
    main()
