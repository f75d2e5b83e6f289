#!/usr/bin/env python3
"""Runs a command; prints its wall time and the processor time of the processes it started.

/usr/bin/time counts only the processes it waits for: for the Spark job that is the Python
driver, not Spark's JVM, which outlives it. This makes itself their subreaper (Linux's
PR_SET_CHILD_SUBREAPER), so that orphans are handed to it when their parents end, waits for
every one, and reports what the kernel counted for them. A process reaped by a parent that
ignores SIGCHLD is counted by no one: PySpark's daemon does that to its Python workers, so
their time and that of the CLI processes they run is not here (the job measures it itself,
and its summary reports it). On a shared machine the processor time says what the work
costs; the wall time also says how long it waited.

  python3 tree_time.py COMMAND [ARGUMENT...]

Prints one JSON object to standard error: status, wall, user, system (seconds), and maxRSS
(MB, the largest single process). Exits with the command's status.
"""

import ctypes
import json
import os
import resource
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit(f"prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(ctypes.get_errno())}")
    started = time.monotonic()
    status = subprocess.call(sys.argv[1:])
    wall = time.monotonic() - started
    # The command's orphans are this process's children now: their time counts once waited for.
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({
        "status": status, "wall": round(wall, 2), "user": round(usage.ru_utime, 2),
        "system": round(usage.ru_stime, 2), "maxRSS": round(usage.ru_maxrss / 1024),
    }), file=sys.stderr)
    sys.exit(status)


if __name__ == "__main__":
    main()
