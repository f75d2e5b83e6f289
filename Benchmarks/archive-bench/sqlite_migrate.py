#!/usr/bin/env python3
"""The straightforward way to migrate JSON archives kept in a SQLite column: the benchmark's
contender for `archive-migrate upgrade --sqlite` (archive-bench runs both on copies of one
database, alternating).

    python3 sqlite_migrate.py DATABASE

Every row of shapes.archive is a Shape archive; versions 1 to 3 are upgraded to version 4 the
way the benchmark's chain does it (rename name to title, nest x and y into center, add visible)
and written back as compact JSON in one transaction. Rows already at version 4 are left alone.
"""
import json
import sqlite3
import sys


def upgrade(shape):
    version = shape.get("$version", 1)
    if version < 2:
        shape["title"] = shape.pop("name")
    if version < 3:
        shape["center"] = {"x": shape.pop("x"), "y": shape.pop("y")}
    if version < 4:
        shape["visible"] = True
    shape["$version"] = 4
    return shape


def main(path):
    connection = sqlite3.connect(path)
    updates = []
    for rowid, text in connection.execute("SELECT rowid, archive FROM shapes"):
        shape = json.loads(text)
        if shape.get("$type") != "Shape" or shape.get("$version", 1) >= 4:
            continue
        updates.append((json.dumps(upgrade(shape), ensure_ascii=False, separators=(",", ":")), rowid))
    connection.executemany("UPDATE shapes SET archive = ? WHERE rowid = ?", updates)
    connection.commit()
    connection.close()
    print(len(updates))


if __name__ == "__main__":
    main(sys.argv[1])
