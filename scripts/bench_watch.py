#!/usr/bin/env python3
"""The watcher's figures for `make bench` (issue 36), on one generated vault.

Usage: bench_watch.py SPARKS VAULT SIZE RESULTS TAG IDLE_SECONDS

Appends to RESULTS (bench.sh's TSV: size id label floor status runs median min max rss_kb note):

- watch_query_cold / watch_query_warm: `query --tag TAG --limit 50` without a watcher (it
  brings the manifest up to date first: its own cost + a warm scan) and while a watcher
  vouches for the manifest (no scan), 15 runs each, alternated so that both see the same
  machine;
- watch_latency: a page written -> the watcher's line saying it applied it (the manifest is
  committed before the line is printed, so `query --no-refresh` sees it from then on), median
  of 10 writes one at a time;
- watch_storm: 1,500 new pages written at once -> all of them answered by
  `query --no-refresh --tag`;
- watch_idle: the watcher's CPU time over IDLE_SECONDS of idling after the storm (median =
  CPU seconds; the note gives the share of one core);
- watch_rss: the watcher's peak resident memory (VmHWM) over the whole run;
- watch_idle_rss: its resident memory (VmRSS) at the end of the idle window (a long-running
  command sets mimalloc's purge delay to 0 in process, unless MIMALLOC_PURGE_DELAY is set: the
  allocator returns freed memory at once);
- watch_idle_rss_delayed: the same for a second watcher started with MIMALLOC_PURGE_DELAY=10,
  the allocator's own default (freed memory returned at its next call, which an idle watcher
  never makes), measured after its first scan and IDLE_SECONDS / 10 of idling.

Every file it writes is removed again, and the watcher is stopped with SIGTERM.
"""

import json
import os
import queue
import signal
import statistics
import subprocess
import sys
import threading
import time

STORM = 1500
WRITES = 10
RUNS = 15


def main():
    sparks, vault, size, results, tag, idle_s = sys.argv[1:7]
    idle_s = float(idle_s)
    run = lambda *args: subprocess.run(  # noqa: E731
        [sparks, "--vault", vault, *args], capture_output=True, text=True
    )
    records = []

    def record(id_, label, status, runs, med, lo, hi, rss, note):
        records.append([size, id_, label, "-", status, str(runs), fmt(med), fmt(lo), fmt(hi), rss, note])

    def timed(args):
        t0 = time.perf_counter()
        run(*args)
        return time.perf_counter() - t0

    query = ["query", "--tag", tag, "--limit", "50"]
    run("scan")
    cold = []
    for _ in range(RUNS):
        cold.append(timed(query))

    watcher = subprocess.Popen(
        [sparks, "--vault", vault, "watch", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = queue.Queue()

    def read():
        for line in watcher.stdout:
            lines.put((time.perf_counter(), line))

    threading.Thread(target=read, daemon=True).start()
    written = []
    try:
        w = started(watcher, run)
        if w is None:
            raise SystemExit("bench_watch: the watcher did not start: " + watcher.stderr.read())
        mode = w.get("mode")

        warm = []
        for _ in range(RUNS):
            warm.append(timed(query))
        for id_, label, times in [
            ("watch_query_cold", "query --tag --limit 50, no watcher (refresh = warm scan)", cold),
            ("watch_query_warm", "query --tag --limit 50, a watcher vouching", warm),
        ]:
            record(id_, label, "ok", len(times), statistics.median(times), min(times), max(times), "-", "")

        # One page at a time: written -> applied.
        lat = []
        for i in range(WRITES):
            rel = "wiki/concepts/Bench Watch %d.md" % i
            path = os.path.join(vault, rel)
            t0 = time.perf_counter()
            with open(path, "w") as f:
                f.write("---\ntitle: Bench Watch %d\ntype: concept\n---\n\nSee [[%s]].\n" % (i, tag))
            written.append(path)
            while True:
                at, line = lines.get(timeout=60)
                if rel in json.loads(line).get("paths", []):
                    lat.append(at - t0)
                    break
            time.sleep(0.2)
        record("watch_latency", "watch: a page written -> applied", "ok", len(lat),
               statistics.median(lat), min(lat), max(lat), "-", "mode %s" % mode)

        # A storm: 1,500 new pages at once, until the last is answered.
        storm_dir = os.path.join(vault, "wiki/bench-storm")
        os.makedirs(storm_dir, exist_ok=True)
        written.append(storm_dir)
        t0 = time.perf_counter()
        for i in range(STORM):
            with open(os.path.join(storm_dir, "Storm %04d.md" % i), "w") as f:
                f.write("---\ntitle: Storm %04d\ntype: concept\ntags: [benchstorm]\n---\n\nBody.\n" % i)
        bursts = 0
        while True:
            out = run("query", "--tag", "benchstorm", "--limit", "1", "--no-refresh", "--json").stdout
            n = json.loads(out or "{}").get("total", 0)
            if n >= STORM:
                settled = time.perf_counter() - t0
                break
            if time.perf_counter() - t0 > 300:
                settled = None
                break
            time.sleep(0.05)
        while not lines.empty():
            lines.get()
            bursts += 1
        if settled is None:
            record("watch_storm", "watch: 1,500 new pages -> all answered", "timeout", 1, 300, 300, 300, "-", "")
        else:
            record("watch_storm", "watch: 1,500 new pages -> all answered", "ok", 1, settled, settled, settled,
                   "-", "%d burst%s" % (bursts, "" if bursts == 1 else "s"))

        # Idle: CPU time over the window, after things settle.
        time.sleep(2)
        before = cpu_seconds(watcher.pid)
        time.sleep(idle_s)
        spent = cpu_seconds(watcher.pid) - before
        record("watch_idle", "watch: CPU time idling %d s" % idle_s, "ok", 1, spent, spent, spent, "-",
               "%.3f%% of one core" % (100 * spent / idle_s))
        rss = status_kb(watcher.pid, "VmHWM")
        record("watch_rss", "watch: peak RSS", "ok", 1, 0, 0, 0, str(rss), "")
        rss = status_kb(watcher.pid, "VmRSS")
        record("watch_idle_rss", "watch: RSS idling", "ok", 1, 0, 0, 0, str(rss), "")
    finally:
        stop(watcher)
        for p in written:
            if os.path.isdir(p):
                for f in os.listdir(p):
                    os.remove(os.path.join(p, f))
                os.rmdir(p)
            elif os.path.exists(p):
                os.remove(p)
        run("scan")
    records.append(idle_rss_delayed(sparks, vault, size, idle_s / 10, run))
    with open(results, "a") as f:
        for r in records:
            f.write("\t".join(r) + "\n")


def fmt(x):
    return "%.6f" % x


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def started(watcher, run):
    """What `status` says of `watcher` once its first scan is done; None if it ends or two
    minutes pass first."""
    deadline = time.time() + 120
    while True:
        w = json.loads(run("status", "--json", "--no-refresh").stdout or "{}").get("watch") or {}
        if w.get("pid") == watcher.pid and w.get("since"):
            return w
        if watcher.poll() is not None or time.time() > deadline:
            return None
        time.sleep(0.05)


def stop(watcher):
    watcher.send_signal(signal.SIGTERM)
    try:
        watcher.wait(timeout=30)
    except subprocess.TimeoutExpired:
        watcher.kill()


def status_kb(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def idle_rss_delayed(sparks, vault, size, idle_s, run):
    """The resident memory of a watcher started with the allocator's default purge delay, idling."""
    env = dict(os.environ, MIMALLOC_PURGE_DELAY="10")
    watcher = subprocess.Popen([sparks, "--vault", vault, "watch", "--json"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if started(watcher, run) is None:
            return [size, "watch_idle_rss_delayed", "watch: RSS idling, MIMALLOC_PURGE_DELAY=10 (the allocator's default)",
                    "-", "failed", "0", fmt(0), fmt(0), fmt(0), "-", "the watcher did not start"]
        time.sleep(idle_s)
        rss = status_kb(watcher.pid, "VmRSS")
    finally:
        stop(watcher)
    return [size, "watch_idle_rss_delayed", "watch: RSS idling, MIMALLOC_PURGE_DELAY=10 (the allocator's default)", "-", "ok", "1",
            fmt(0), fmt(0), fmt(0), str(rss), ""]


if __name__ == "__main__":
    main()
