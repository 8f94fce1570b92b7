#!/usr/bin/env python3
"""A/B of `sparks sync` between two binaries by CPU time as well as wall time (issue 48).

Usage: bench_sync_cpu.py OLD NEW GEN_VAULT WORK [PAGES] [ROUNDS]

One generated vault (GEN_VAULT --pages PAGES --inbox 200 --seed 7) is copied for each binary,
which inits and scans its copy; each copy is committed, given a bare remote (as `origin`,
by absolute path: older binaries took no relative one) and a second device cloned from it.
Then ROUNDS rounds, the binaries alternating, of: a sync with nothing new on device A; a
capture on A and its sync out; device B's sync in. Each `sparks` call's CPU time (user and
system, its children included) comes from `wait4`, which a busy host disturbs less than wall
time; both are printed as medians with their ratio NEW/OLD.
"""

import os
import shutil
import statistics
import subprocess
import sys
import time

ENV = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com",
           GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com")


def git(cwd, *args):
    subprocess.run(["git", "-C", cwd, *args], check=True, env=ENV,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run(sparks, vault, *args):
    """(cpu seconds, wall seconds) of one call, which must succeed."""
    t0 = time.perf_counter()
    p = subprocess.Popen([sparks, "--vault", vault, *args], env=ENV,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        sys.exit("bench_sync_cpu: %s %s failed: %s" % (sparks, " ".join(args),
                                                       p.stderr.read().decode().strip()))
    return usage.ru_utime + usage.ru_stime, wall


def run_init(sparks, vault):
    """`sparks init VAULT`: init takes its path as an argument (`--vault` is not where it
    creates, as in the original: without the argument it would init the current directory)."""
    subprocess.run([sparks, "init", vault], check=True, env=ENV,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def setup(sparks, base, root):
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    a, bare, b = os.path.join(root, "a"), os.path.join(root, "remote.git"), os.path.join(root, "b")
    shutil.copytree(base, a, symlinks=True)
    run_init(sparks, a)
    run(sparks, a, "scan")
    git(a, "init", "-q", "-b", "main")
    git(a, "add", "-A")
    git(a, "commit", "-qm", "bench vault")
    git(root, "clone", "-q", "--bare", a, bare)
    git(a, "remote", "add", "origin", bare)
    git(a, "fetch", "-q", "origin")
    git(a, "branch", "-q", "--set-upstream-to=origin/main", "main")
    git(root, "clone", "-q", bare, b)
    run(sparks, b, "scan")
    for v in (a, b, a, b):
        run(sparks, v, "sync")
    return a, b


def main():
    old, new, gen, work = sys.argv[1:5]
    pages = sys.argv[5] if len(sys.argv) > 5 else "10000"
    rounds = int(sys.argv[6]) if len(sys.argv) > 6 else 11
    base = os.path.join(work, "base")
    shutil.rmtree(base, ignore_errors=True)
    subprocess.run([gen, base, "--pages", pages, "--inbox", "200", "--seed", "7",
                    "--today", time.strftime("%Y-%m-%d")], check=True, stdout=subprocess.DEVNULL)
    devices = {name: (bin, *setup(bin, base, os.path.join(work, name)))
               for name, bin in (("old", old), ("new", new))}
    got = {name: {"noop": [], "out": [], "in": []} for name in devices}
    for i in range(rounds):
        for name, (bin, a, b) in devices.items():
            got[name]["noop"].append(run(bin, a, "sync"))
            run(bin, a, "capture", "round %d: a capture to carry" % i)
            got[name]["out"].append(run(bin, a, "sync"))
            got[name]["in"].append(run(bin, b, "sync"))
    print("%s pages, %d rounds; medians, CPU / wall" % (pages, rounds))
    for what in ("noop", "out", "in"):
        med = {n: [statistics.median(x[k] for x in got[n][what]) for k in (0, 1)] for n in got}
        print("%-5s old %4.0f / %4.0f ms   new %4.0f / %4.0f ms   ratio %.2f / %.2f" % (
            what, med["old"][0] * 1e3, med["old"][1] * 1e3, med["new"][0] * 1e3,
            med["new"][1] * 1e3, med["new"][0] / med["old"][0], med["new"][1] / med["old"][1]))
    for name in devices:
        shutil.rmtree(os.path.join(work, name), ignore_errors=True)


if __name__ == "__main__":
    main()
