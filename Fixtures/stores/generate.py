#!/usr/bin/env python3
"""Writes the store fixtures: property lists with archives nested in their data values, written
by Python's plistlib (Apple's layout, not this project's writers), with keyed archives laid out
as NSKeyedArchiver lays them out.

    python3 Fixtures/stores/generate.py

Never edit the generated files by hand; change this script and run it again.
"""
import json
import os
import plistlib

HERE = os.path.dirname(os.path.abspath(__file__))
ARCHIVES = os.path.join(HERE, "..", "archives", "Sketch")
UID = plistlib.UID


def keyed_archive(objects):
    """An NSKeyedArchiver archive (binary) whose root is objects[1]."""
    return plistlib.dumps(
        {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": UID(1)}, "$objects": objects},
        fmt=plistlib.FMT_BINARY, sort_keys=True)


def color(rgb):
    """An NSColor as AppKit archives a calibrated RGB colour."""
    return keyed_archive([
        "$null",
        {"NSColorSpace": 1, "NSRGB": rgb.encode() + b"\x00", "$class": UID(2)},
        {"$classname": "NSColor", "$classes": ["NSColor", "NSObject"]},
    ])


def font(name, size):
    """An NSFont as AppKit archives it."""
    return keyed_archive([
        "$null",
        {"NSName": UID(2), "NSSize": size, "NSfFlags": 16, "$class": UID(3)},
        name,
        {"$classname": "NSFont", "$classes": ["NSFont", "NSObject"]},
    ])


def style(hex_color):
    """The Sketch app's Style at version 1 (Mantle's MTLModelVersion), as app 1.0 archived it."""
    return keyed_archive([
        "$null",
        {"color": UID(2), "MTLModelVersion": 1, "$class": UID(3)},
        hex_color,
        {"$classname": "Style", "$classes": ["Style", "NSObject"]},
    ])


PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))

# A Terminal profile (an exported .terminal file) of a terminal app built on Sketch's styles:
# Terminal's own NSColor and NSFont archives, which no chain migrates, and the app's Style
# archives at version 1.
profile = {
    "name": "Ocean",
    "type": "Window Settings",
    "ProfileCurrentVersion": 2.07,
    "BackgroundColor": color("0.0 0.1 0.2"),
    "TextColor": color("0.9 0.9 0.85"),
    "CursorColor": color("0.3 0.8 0.9"),
    "Font": font("SFMono-Regular", 13.0),
    "FontAntialias": True,
    "columnCount": 100,
    "rowCount": 32,
    "SelectionStyle": style("#1B998B"),
    "HighlightStyles": [style("#D7263D"), style("#F46036")],
    "Thumbnail": PNG,
}
with open(os.path.join(HERE, "Ocean.terminal"), "wb") as file:
    plistlib.dump(profile, file)

# A UserDefaults domain (binary, as cfprefsd writes it): a Style archived with NSKeyedArchiver,
# the last drawing as JSON the app encoded into Data, colours, and plain values.
with open(os.path.join(ARCHIVES, "v1", "kyoto-trip.json"), encoding="utf-8") as file:
    drawing = json.load(file)
defaults = {
    "DefaultStyle": style("#000000"),
    "LastDrawing": json.dumps(drawing, ensure_ascii=False, separators=(",", ":")).encode(),
    "RecentColors": [color("1.0 0.0 0.0"), color("0.0 0.5 1.0")],
    "NSWindow Frame Main Window": "120 80 900 700 0 0 1440 877 ",
    "SUEnableAutomaticChecks": True,
    "LaunchCount": 42,
    "ToolbarIcon": PNG,
    "Scratch": b"{ not json, just bytes",
}
with open(os.path.join(HERE, "com.example.Sketch.plist"), "wb") as file:
    plistlib.dump(defaults, file, fmt=plistlib.FMT_BINARY)
