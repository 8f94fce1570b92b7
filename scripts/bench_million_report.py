#!/usr/bin/env python3
"""The section "A million pages (issue 54)" of BENCHMARKS.md, from `make bench-million`'s results.

Usage: bench_million_report.py RESULTS OUT

RESULTS is the TSV scripts/bench-measure.sh writes (size id label floor status runs median min
max rss_kb note) for two vault sizes, the second ten times the first. The section goes between
START and END below the hand-written marker of OUT, replacing the one there (so that `make
bench`, which rewrites what is above the marker, keeps it); the rest of OUT is left as it is.
The machine and the run's settings come from the environment (BENCH_MACHINE, BENCH_VERSIONS,
BENCH_ELAPSED, BENCH_SEEDV, BENCH_TIMEOUTV, BENCH_BUDGETV).

The targets (issue 54): every command completes, a lookup answers in 50 ms at most, no command
peaks above 512 MB, and no cost grows faster than n^1.1 from the smaller vault to the larger.
What breaks first is the target crossed at the fewest pages, each figure taken to grow as a
power of the pages through its two measures.
"""

import math
import os
import re
import sys

MARK = "<!-- Hand-written below this line: scripts/bench.sh keeps it as it is. -->"
START = "<!-- bench-million:start (scripts/bench_million_report.py writes this section) -->"
END = "<!-- bench-million:end -->"
FIELDS = "size id label floor status runs median min max rss note".split()
LOOKUP_S = 0.050
PEAK_KB = 512 * 1024
GROWTH = 1.1
# The order of the table; the lookups are judged against LOOKUP_S.
ORDER = ["list", "read", "cold_scan", "warm_scan", "status", "query_limit", "query_resolve",
         "query_tag", "query_links", "search_word", "search_sentence", "related", "lint", "view",
         "view_graph", "finalize", "watch_query_cold", "watch_query_warm", "watch_latency",
         "watch_storm", "watch_rss", "watch_idle_rss", "mv_floor", "mv"]
LOOKUPS = {"status", "query_limit", "query_resolve", "search_word", "search_sentence", "related",
           "view", "watch_query_warm"}
# Rows that are a memory figure only (their median is not a time).
MEMORY_ONLY = {"watch_rss", "watch_idle_rss"}


def main():
    results, out = sys.argv[1], sys.argv[2]
    rows = [dict(zip(FIELDS, l.rstrip("\n").split("\t"))) for l in open(results) if l.strip()]
    sizes = []
    for r in rows:
        if r["size"] not in sizes:
            sizes.append(r["size"])
    text = section(rows, sizes)
    old = open(out).read() if os.path.exists(out) else ""
    open(out, "w").write(splice(old, text))


def splice(old, text):
    """OLD with its million-page section replaced by TEXT (placed after the marker if none)."""
    if START in old and END in old:
        return old[: old.index(START)] + text + old[old.index(END) + len(END):]
    if MARK in old:
        at = old.index(MARK) + len(MARK)
        return old[:at] + "\n\n" + text + old[at:]
    return old + ("\n" if old else "") + MARK + "\n\n" + text + "\n"


def section(rows, sizes):
    def get(size, id_):
        return next((r for r in rows if r["size"] == size and r["id"] == id_), None)

    def med(size, id_):
        r = get(size, id_)
        return float(r["median"]) if r and r["status"] == "ok" and id_ not in MEMORY_ONLY else None

    def kb(size, id_):
        r = get(size, id_)
        return int(r["rss"]) if r and r["rss"].isdigit() else None

    small, big = (sizes + [None, None])[:2]
    env = os.environ
    lines = []
    w = lines.append
    w(START)
    w("## A million pages (issue 54)")
    w("")
    if big is None:
        w("`make bench-million` measured one vault size only; nothing to compare.")
        w(END)
        return "\n".join(lines)
    factor = int(big) / int(small)
    w("Written by `make bench-million` (`scripts/bench-million.sh`); run it again to refresh this "
      "section, which `make bench` keeps. Vaults of %s and %s pages (`gen_vault --seed %s`, the "
      "same settings as `make bench`'s), the larger generated once and kept, measured one after "
      "the other in the same run: each cold scan once (it is the set-up scan too), the floors "
      "three times, every other command as often as a budget of %s s holds (3 to 30 runs; one "
      "slower than a minute once), medians; a run longer than %s s is killed and counts as not "
      "completing. Peak memory from `/usr/bin/time -f %%M` on one run (the viewer's and the "
      "watcher's from their own VmHWM). The lookups run with `--no-refresh`, as an agent sees "
      "them while a watcher vouches. Finalize, the watcher and `mv` come last, each undone "
      "after (the inbox restored, the watcher's pages removed, `mv` back). The *exponent* is "
      "log(larger ÷ smaller) ÷ log(%g): 1 is linear."
      % (n(small), n(big), env.get("BENCH_SEEDV", "?"), env.get("BENCH_BUDGETV", "?"),
         env.get("BENCH_TIMEOUTV", "?"), factor))
    w("")
    w("- **Machine**: " + env.get("BENCH_MACHINE", "?"))
    w("- **Versions**: " + env.get("BENCH_VERSIONS", "?"))
    for s in (small, big):
        f, d, e = get(s, "_files"), get(s, "_disk"), get(s, "_elapsed")
        parts = []
        if f:
            parts.append("%s files, %.1f GB" % (n(f["median"]), float(f["min"]) / 1e9))
        if d:
            parts.append("on disk %.1f GB with its manifest (`sparks.db` %.1f GB)"
                         % (float(d["min"]) / 1e9, float(d["median"]) / 1e9))
        if e:
            parts.append("measured in %d min" % round(int(e["median"]) / 60))
        w("- **%s pages**: %s." % (n(s), "; ".join(parts) or "not measured"))
    w("- **Total time** of this run: %d min %d s." % divmod(int(env.get("BENCH_ELAPSED", "0")), 60))
    w("")

    def exponent(a, b):
        return math.log(b / a) / math.log(factor) if a and b and a > 0 and b > 0 else None

    def crossing(a, b, limit):
        """The pages at which a figure going from A (small) to B (big) as a power of the pages
        reaches LIMIT; None if it never does, the smaller size if it is over there already and
        not growing."""
        if a is None or b is None or a <= 0 or b <= 0 or (b <= a and a < limit):
            return None
        if b <= a:
            return int(small)
        return int(small) * (limit / a) ** (1 / exponent(a, b))

    def where(at):
        if at <= int(small):
            return "over it at %s pages already" % n(small)
        return "crossed at about %s" % approx(at)

    # The table.
    head = ["command", "%s pages" % n(small), "× floor", "peak MB", "%s pages" % n(big), "× floor",
            "peak MB", "exponent (time)", "exponent (memory)"]
    w("| " + " | ".join(head) + " |")
    w("|---|" + "---:|" * (len(head) - 1))
    misses = []  # (pages at which it breaks, what)
    for id_ in ORDER:
        rs, rb = get(small, id_), get(big, id_)
        if not rs and not rb:
            continue
        label = both_labels(rs, rb)
        cells = [label]
        for s, r in ((small, rs), (big, rb)):
            m = med(s, id_)
            if r is None:
                cells += ["not measured", "", ""]
                continue
            if id_ in MEMORY_ONLY:
                cells.append("")
            elif r["status"] != "ok":
                cells.append("**%s**" % ("did not complete" if r["status"] == "timeout" else r["status"]))
            else:
                cells.append(secs(m))
            fl = med(s, r["floor"]) if r["floor"] != "-" else None
            cells.append("%.2f× %s" % (m / fl, r["floor"].replace("_", " ")) if m is not None and fl else "")
            cells.append(mb(kb(s, id_)))
        te = exponent(med(small, id_), med(big, id_))
        me = exponent(kb(small, id_), kb(big, id_))
        cells.append(bold_if("%.2f" % te, te > GROWTH) if te is not None else "–")
        cells.append(bold_if("%.2f" % me, me > GROWTH) if me is not None else "–")
        w("| " + " | ".join(cells) + " |")
        if id_ in ("list", "read"):
            continue
        # The targets, each miss with the pages at which it is crossed.
        if rb and rb["status"] not in ("ok", "skipped"):
            misses.append((0, "%s does not complete at %s pages (%s)"
                           % (label, n(big), rb["note"] or rb["status"])))
        peak_s, peak_b = kb(small, id_), kb(big, id_)
        at = crossing(peak_s, peak_b, PEAK_KB)
        if peak_b is not None and peak_b > PEAK_KB:
            misses.append((at or int(big), "%s peaks at %s MB at %s pages (512 MB %s)"
                           % (label, mb(peak_b), n(big), where(at or int(big)))))
        if id_ in LOOKUPS and med(big, id_) is not None and med(big, id_) > LOOKUP_S:
            at = crossing(med(small, id_), med(big, id_), LOOKUP_S)
            if at is not None:
                misses.append((at, "%s takes %s at %s pages (50 ms %s)"
                               % (label, secs(med(big, id_)), n(big), where(at))))
        if te is not None and te > GROWTH:
            misses.append((int(big), "%s grows as n^%.2f from %s to %s pages"
                           % (label, te, n(small), n(big))))
        if me is not None and me > GROWTH:
            misses.append((int(big), "%s's peak memory grows as n^%.2f" % (label, me)))
    w("")

    # The targets.
    def verdict(bad):
        return "**missed**" if bad else "**met**"
    done = [r for r in rows if r["size"] == big and r["id"] in ORDER and r["id"] not in ("list", "read")]
    incomplete = [r["label"] for r in done if r["status"] not in ("ok", "skipped")]
    slow = [(med(big, id_), get(big, id_)["label"]) for id_ in ORDER
            if id_ in LOOKUPS and med(big, id_) is not None]
    over = [x for x in slow if x[0] > LOOKUP_S]
    peaks = [(kb(big, r["id"]), r["label"]) for r in done if kb(big, r["id"]) is not None]
    heavy = sorted((p for p in peaks if p[0] > PEAK_KB), reverse=True)
    steep = []
    for id_ in ORDER:
        if id_ in ("list", "read"):
            continue
        for what, e in (("time", exponent(med(small, id_), med(big, id_))),
                        ("memory", exponent(kb(small, id_), kb(big, id_)))):
            if e is not None and e > GROWTH:
                steep.append("%s (%s, n^%.2f)" % ((get(big, id_) or get(small, id_))["label"], what, e))
    w("| target at %s pages | measured | |" % n(big))
    w("|---|---|---|")
    w("| every command completes | %s | %s |" % (
        "all %d completed" % len(done) if not incomplete else "not: " + ", ".join(incomplete),
        verdict(incomplete)))
    w("| lookups ≤ 50 ms | %s | %s |" % (
        "slowest: %s (%s)" % (secs(max(slow)[0]), max(slow)[1]) if not over and slow else
        "over: " + ", ".join("%s (%s)" % (l, secs(t)) for t, l in sorted(over, reverse=True)) if over else
        "not measured", verdict(over or not slow)))
    top = max(peaks) if peaks else None
    w("| peak memory ≤ 512 MB | %s | %s |" % (
        "highest: %s MB (%s)" % (mb(top[0]), top[1]) if top and not heavy else
        "over: " + ", ".join("%s (%s MB)" % (l, mb(k)) for k, l in heavy) if heavy else "not measured",
        verdict(heavy or not peaks)))
    w("| no cost grows faster than n^1.1 from %s to %s pages | %s | %s |" % (
        n(small), n(big), "none" if not steep else ", ".join(steep), verdict(steep)))
    w("")
    w("**What breaks first**, each figure taken to grow as a power of the pages through its two "
      "measures (the pages at which it crosses its target):")
    w("")
    if not misses:
        w("- nothing, up to %s pages." % n(big))
    for at, what in sorted(misses)[:8]:
        w("- %s." % what)
    w("")
    w(END)
    return "\n".join(lines)


def both_labels(rs, rb):
    """One label for a row measured at both sizes: where the two differ only in their numbers
    (the backlinks of the hub, the files mv rewrites), both numbers, the smaller vault's first."""
    if not rs or not rb or rs["label"] == rb["label"]:
        return (rb or rs)["label"]
    a, b = re.split(r"(\d+)", rs["label"]), re.split(r"(\d+)", rb["label"])
    if len(a) != len(b) or any(x != y for x, y in zip(a[::2], b[::2])):
        return rb["label"]
    return "".join(x if i % 2 == 0 or x == y else "%s / %s" % (n(x), n(y))
                   for i, (x, y) in enumerate(zip(a, b)))


def n(x):
    return "{:,}".format(int(float(x)))


def approx(pages):
    if pages is None:
        return "–"
    if pages < 1000:
        return "%d pages" % pages
    return "{:,} pages".format(int(round(pages, -3)))


def secs(t):
    if t is None:
        return "–"
    if t < 1:
        return "%.1f ms" % (t * 1000)
    if t < 120:
        return "%.2f s" % t
    return "%.1f min" % (t / 60)


def mb(k):
    return "–" if k is None else "%.0f" % (k / 1024)


def bold_if(text, cond):
    return "**%s**" % text if cond else text


if __name__ == "__main__":
    main()
