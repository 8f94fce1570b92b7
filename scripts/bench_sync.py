#!/usr/bin/env python3
"""`sparks sync`'s figures for `make bench` (issue 37), on one generated vault.

Usage: bench_sync.py SPARKS VAULT SIZE RESULTS WORK

Makes VAULT a git repository (one commit of everything), a bare clone of it as the remote and a
second device cloned from that, then appends to RESULTS (bench.sh's TSV: size id label floor
status runs median min max rss_kb note):

- sync_clone_scan: a fresh clone's first `sparks scan` (the clone itself not counted);
- sync_out: one capture on device A, then `sparks sync` (commit, fetch, push), 5 runs;
- sync_in: `sparks sync` on device B after each of those (fetch, fast-forward, rescan), 5 runs;
- sync_noop: `sparks sync` with nothing new on either side, 5 runs.

The git commands that set up the devices are not measured. VAULT is left a git repository with
a remote; WORK/sync holds the remote and the second device, removed at the end.
"""

import os
import shutil
import statistics
import subprocess
import sys
import time

RUNS = 5


def main():
    sparks, vault, size, results, work = sys.argv[1:6]
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com")
    root = os.path.join(work, "sync")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    bare, other = os.path.join(root, "remote.git"), os.path.join(root, "device-b")

    def git(cwd, *args):
        subprocess.run(["git", "-C", cwd, *args], check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def sparks_in(cwd, *args):
        t0 = time.perf_counter()
        out = subprocess.run([sparks, "--vault", cwd, *args], env=env, capture_output=True, text=True)
        took = time.perf_counter() - t0
        if out.returncode != 0:
            raise SystemExit("bench_sync: sparks %s failed: %s" % (" ".join(args), out.stderr.strip()))
        return took

    if not os.path.isdir(os.path.join(vault, ".git")):
        git(vault, "init", "-q", "-b", "main")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "bench vault", "--allow-empty")
    git(root, "clone", "-q", "--bare", vault, bare)
    subprocess.run(["git", "-C", vault, "remote", "remove", "origin"], env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    git(vault, "remote", "add", "origin", bare)
    git(vault, "fetch", "-q", "origin")
    git(vault, "branch", "-q", "--set-upstream-to=origin/main", "main")
    git(root, "clone", "-q", bare, other)
    records = []

    def record(id_, label, times, note=""):
        records.append([size, id_, label, "-", "ok", str(len(times)), "%.6f" % statistics.median(times),
                        "%.6f" % min(times), "%.6f" % max(times), "-", note])

    first = sparks_in(other, "scan")
    record("sync_clone_scan", "a fresh clone's first scan", [first])
    # Each device's first sync registers the merge driver (and A's commits .gitattributes).
    sparks_in(vault, "sync")
    sparks_in(other, "sync")
    out, inn, noop = [], [], []
    for i in range(RUNS):
        sparks_in(vault, "capture", "Bench capture %d from device A" % i)
        out.append(sparks_in(vault, "sync"))
        inn.append(sparks_in(other, "sync"))
    for _ in range(RUNS):
        noop.append(sparks_in(vault, "sync"))
    record("sync_out", "sync: one capture out (commit, fetch, push)", out)
    record("sync_in", "sync: one capture in (fetch, fast-forward, scan)", inn)
    record("sync_noop", "sync: nothing new on either side", noop)
    shutil.rmtree(root, ignore_errors=True)
    with open(results, "a") as f:
        for r in records:
            f.write("\t".join(r) + "\n")


if __name__ == "__main__":
    main()
