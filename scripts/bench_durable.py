#!/usr/bin/env python3
"""The durable-write floor of `mv` and `merge` for `make bench` (issue 39): the least it costs
to replace a list of files durably, measured on copies of them.

Usage: bench_durable.py VAULT LIST SCRATCH [BUDGET_SECONDS] [WRITERS] [DIRSYNC]

LIST holds vault-relative paths, one a line: the files a command rewrites. They are copied
under SCRATCH (a directory on the vault's filesystem, emptied first) with their folders, and
synced; that is not timed. Then each round replaces every copy with its own bytes the way
`fsio` in Sparks does, WRITERS files at a time (16, as `mv` writes them): a temporary file in
the same directory, written, fsynced, given the mode of the file it replaces, renamed over it;
and once the round's renames are done, each directory is fsynced once (the least that makes a
rename durable: `fsio::Renames`); with DIRSYNC `each`, after every rename instead, as `mv` and
`merge` write today (`fsio::replace_if_unchanged`). No process start is timed. Rounds run until
BUDGET_SECONDS (10) is spent, 3 to 10 of them.

Prints one line: rounds, median, min, max (seconds, tab-separated). SCRATCH is removed.
"""

import os
import shutil
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor


def replace(path, data, each=False):
    """One file made anew, as `fsio::stage` and `fsio::persist` do it."""
    d, name = os.path.split(path)
    tmp = os.path.join(d, ".%s.%d.tmp" % (name, threading.get_ident()))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        os.fchmod(fd, 0o644)
    finally:
        os.close(fd)
    os.rename(tmp, path)
    if each:
        sync_dir(d)


def sync_dir(d):
    fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def main():
    vault, listing, scratch = sys.argv[1:4]
    budget = float(sys.argv[4]) if len(sys.argv) > 4 else 10.0
    writers = int(sys.argv[5]) if len(sys.argv) > 5 else 16
    each = len(sys.argv) > 6 and sys.argv[6] == "each"
    rels = [l.rstrip("\n") for l in open(listing) if l.strip()]
    if not rels:
        sys.exit("bench_durable: %s lists no file" % listing)
    shutil.rmtree(scratch, ignore_errors=True)
    files = []
    for rel in rels:
        with open(os.path.join(vault, rel), "rb") as f:
            data = f.read()
        path = os.path.join(scratch, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        files.append((path, data))
    dirs = sorted(set(os.path.dirname(p) for p, _ in files))
    # The copies on disk before the clock starts: their writeback is not the rounds' work.
    os.sync()
    times = []
    spent = 0.0
    with ThreadPoolExecutor(max_workers=writers) as pool:
        while len(times) < 3 or (spent < budget and len(times) < 10):
            t0 = time.perf_counter()
            for _ in pool.map(lambda f: replace(*f, each), files, chunksize=8):
                pass
            if not each:
                for d in dirs:
                    sync_dir(d)
            t = time.perf_counter() - t0
            times.append(t)
            spent += t
    shutil.rmtree(scratch, ignore_errors=True)
    print("%d\t%.6f\t%.6f\t%.6f" % (len(times), statistics.median(times), min(times), max(times)))


if __name__ == "__main__":
    main()
