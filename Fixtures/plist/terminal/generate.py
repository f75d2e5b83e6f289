#!/usr/bin/env python3
"""Writes Harbor.terminal: a Terminal.app profile as Terminal exports one, its colours and font
kept as NSKeyedArchiver archives in <data> values, in the layouts Apple's AppKit writes.

Run with python3 (3.8 or later) from anywhere; it rewrites Harbor.terminal next to it:

    python3 Fixtures/plist/terminal/generate.py

Everything is laid out by hand with Python's plistlib (no Apple framework, and not this
package's writer): the profile is an XML property list with its keys sorted, as Terminal's
"Export…" writes it; each colour and the font is a binary property list holding a keyed archive
whose $objects table has the objects, keys, inline bytes and class entries AppKit writes (see
README.md for where each layout comes from). The ICC profiles are small synthetic ones built
below, not copies of Apple's or anyone's.
"""

import os
import plistlib
import struct
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


def s15fixed16(value):
    return struct.pack(">i", round(value * 65536))


def icc_profile(description, primaries, gamma):
    """A minimal ICC v2 display profile: header, tag table, desc, cprt, wtpt, rgb XYZ and TRC
    tags (one shared gamma curve), each tag 4-byte aligned, as ColorSync writes them."""

    def xyz(x, y, z):
        return b"XYZ " + b"\0" * 4 + s15fixed16(x) + s15fixed16(y) + s15fixed16(z)

    def pad(data):
        return data + b"\0" * (-len(data) % 4)

    ascii_text = description.encode("ascii") + b"\0"
    desc = (
        b"desc" + b"\0" * 4 + struct.pack(">I", len(ascii_text)) + ascii_text
        + b"\0" * 4 + b"\0" * 4  # no Unicode description
        + b"\0" * 2 + b"\0" + b"\0" * 67  # no ScriptCode description
    )
    cprt = b"text" + b"\0" * 4 + b"No copyright, use freely\0"
    curve = b"curv" + b"\0" * 4 + struct.pack(">I", 1) + struct.pack(">H", round(gamma * 256))
    d50 = (0.9642, 1.0, 0.8249)
    elements = [
        (b"desc", pad(desc)),
        (b"cprt", pad(cprt)),
        (b"wtpt", xyz(*d50)),
        (b"rXYZ", xyz(*primaries[0])),
        (b"gXYZ", xyz(*primaries[1])),
        (b"bXYZ", xyz(*primaries[2])),
        (b"rTRC", pad(curve)),
    ]
    shared = {b"gTRC": b"rTRC", b"bTRC": b"rTRC"}
    table_size = 4 + 12 * (len(elements) + len(shared))
    offset = 128 + table_size
    table = struct.pack(">I", len(elements) + len(shared))
    body = b""
    placed = {}
    for signature, data in elements:
        placed[signature] = (offset, len(data))
        table += signature + struct.pack(">II", offset, len(data))
        body += data
        offset += len(data)
    for signature, same in shared.items():
        table += signature + struct.pack(">II", *placed[same])
    size = 128 + table_size + len(body)
    header = (
        struct.pack(">I", size) + b"appl" + bytes([2, 0x10, 0, 0]) + b"mntr" + b"RGB " + b"XYZ "
        + struct.pack(">6H", 2024, 3, 1, 10, 0, 0) + b"acsp" + b"APPL" + b"\0" * 4 + b"APPL" + b"\0" * 4
        + b"\0" * 8 + struct.pack(">I", 0) + s15fixed16(d50[0]) + s15fixed16(d50[1]) + s15fixed16(d50[2])
        + b"appl" + b"\0" * 44
    )
    assert len(header) == 128
    return header + table + body


SRGB_PRIMARIES = [(0.4361, 0.2225, 0.0139), (0.3851, 0.7169, 0.0971), (0.1431, 0.0606, 0.7141)]
WIDE_PRIMARIES = [(0.5151, 0.2412, -0.0011), (0.2920, 0.6922, 0.0419), (0.1571, 0.0666, 0.7841)]


def color_with_color_space(components, rgb, color_space):
    """An NSColor in a colour space of its own (AppKit since macOS 10.13 for sRGB and custom
    spaces): NSComponents (the components and alpha as text, no NUL), NSRGB (the colour as
    calibrated RGB, text ending in NUL), NSColorSpace 1, and NSCustomColorSpace, an NSColorSpace
    object with NSID (a space AppKit names; 7 is sRGB) when it has one and NSICC, the ICC
    profile as an NSMutableData object (NS.data)."""
    space = dict(color_space["id"] and {"NSID": color_space["id"]} or {})
    space["NSICC"] = UID(3)
    space["$class"] = UID(5)
    return keyed_archive([
        {
            "NSComponents": components.encode("ascii"),
            "NSRGB": rgb.encode("ascii") + b"\0",
            "NSColorSpace": 1,
            "NSCustomColorSpace": UID(2),
            "$class": UID(6),
        },
        space,
        {"NS.data": color_space["icc"], "$class": UID(4)},
        class_entry("NSMutableData", "NSData", "NSObject"),
        class_entry("NSColorSpace", "NSObject"),
        class_entry("NSColor", "NSObject"),
    ])


def device_rgb_color(rgb):
    """An NSColor in device RGB: NSRGB (text ending in NUL) and NSColorSpace 2."""
    return keyed_archive([
        {"NSRGB": rgb.encode("ascii") + b"\0", "NSColorSpace": 2, "$class": UID(2)},
        class_entry("NSColor", "NSObject"),
    ])


def calibrated_white_color(white):
    """An NSColor in calibrated white: NSWhite (text ending in NUL) and NSColorSpace 3."""
    return keyed_archive([
        {"NSWhite": white.encode("ascii") + b"\0", "NSColorSpace": 3, "$class": UID(2)},
        class_entry("NSColor", "NSObject"),
    ])


def font(name, size, flags):
    """An NSFont: NSSize (a real, inline), NSfFlags (an integer, inline), NSName (a string object)."""
    return keyed_archive([
        {"NSSize": float(size), "NSfFlags": flags, "NSName": UID(2), "$class": UID(3)},
        name,
        class_entry("NSFont", "NSObject"),
    ])


def main():
    srgb = {"id": 7, "icc": icc_profile("sRGB IEC61966-2.1 (synthetic stand-in)", SRGB_PRIMARIES, 2.2)}
    harbor = {"id": None, "icc": icc_profile("Harbor Wide Gamut (synthetic)", WIDE_PRIMARIES, 1.8)}
    profile = {
        "BackgroundColor": color_with_color_space(
            "0.1176470588 0.1333333333 0.1607843137 1", "0.097490713 0.1112459972 0.1378893554", srgb),
        "TextColor": color_with_color_space(
            "0.8431372549 0.8705882353 0.9137254902 1", "0.8201599121 0.8502197266 0.9004058838", harbor),
        "CursorColor": calibrated_white_color("0.75"),
        "SelectionColor": device_rgb_color("0.2078431373 0.1647058824 0.1294117647"),
        "Font": font("SFMono-Regular", 13, 16),
        "FontAntialias": True,
        "FontWidthSpacing": 1.004032258064516,
        "ProfileCurrentVersion": 2.07,
        "columnCount": 100,
        "rowCount": 32,
        "shellExitAction": 1,
        "name": "Harbor",
        "type": "Window Settings",
    }
    with open(os.path.join(HERE, "Harbor.terminal"), "wb") as file:
        plistlib.dump(profile, file, fmt=plistlib.FMT_XML, sort_keys=True)
    print("wrote Harbor.terminal")


if __name__ == "__main__":
    main()
