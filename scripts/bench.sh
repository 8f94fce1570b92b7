#!/usr/bin/env bash
# The benchmark driver behind `make bench` (issue 9). It generates vaults of 1,000, 10,000 and
# 100,000 pages with examples/gen_vault.rs under ${CARGO_TARGET_DIR:-target}/bench/, measures
# every command with hyperfine next to the floor of the same vault (listing every file with
# its metadata, reading every byte), and writes the tables to BENCHMARKS.md.
#
# It expects the release binary and the generator to be built (`make bench` builds both).
# What it needs and misses (hyperfine, GNU time, python3, curl) it installs from Debian's
# packages when it runs as root. Timings are never asserted: a missed target is reported.
#
# Knobs (environment): BENCH_SIZES ("1000 10000 100000"), BENCH_SEED (42), BENCH_BUDGET (seconds
# of measuring per command, "8 10 12" per size), BENCH_TIMEOUT (seconds one run may take
# before the command counts as not completing, 300), BENCH_OUT (BENCHMARKS.md), SPARKS and
# GEN_VAULT (the binaries), BENCH_ONLY (measure only these ids, e.g. "warm_scan mv merge
# capture"; the list and read floors are always measured, mv's and merge's durable-write floors
# with mv and merge).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
bench_name=bench
# shellcheck source=scripts/bench-measure.sh
. "$repo/scripts/bench-measure.sh"
bench_paths
sizes=(${BENCH_SIZES:-1000 10000 100000})
budgets=(${BENCH_BUDGET:-8 10 12})
seed=${BENCH_SEED:-42}
timeout_s=${BENCH_TIMEOUT:-300}
out=${BENCH_OUT:-$repo/BENCHMARKS.md}
ingest_limit=500

bench_need_tools
work=$bench/work
bench_workdir "$work"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

has() { "$sparks" "$@" --help >/dev/null 2>&1; }
has_regen=false; has collections regen && has_regen=true
has_serve=false; has serve && has_serve=true
has_view=false; has view && has_view=true

started=$(date +%s)

# --- Helpers run by hyperfine's --prepare (which runs without a shell here) ------------------

# shellcheck source=scripts/bench-common.sh
. "$repo/scripts/bench-common.sh"
bench_tools "$work"
helper=$work/helper.sh
mcp_client=$work/mcp_client.py
export SPARKS_BIN=$sparks LIMIT=$ingest_limit BATCH=$finalize_batch PAGES=$finalize_pages

# One TSV line per measurement (bench-measure.sh).
results=$work/results.tsv
: >"$results"

# --- One vault at a time ---------------------------------------------------------------------

today=$(date +%F)
for i in "${!sizes[@]}"; do
  size=${sizes[$i]}
  budget=${budgets[$i]:-${budgets[-1]}}
  vault=$bench/vault-$size
  snap=$bench/snap-$size
  log "vault of $size pages: generating $vault"
  bench_new_vault
  bench_hints "$vault"

  # Set-up, not measured: a first scan, the index and collection pages written, a rescan, so
  # that the measured commands see a vault in its steady state.
  log "$size: set-up scan"
  rc=0
  /usr/bin/time -f '%e %M' -o "$work/time" timeout -k 5 "$timeout_s" "$sparks" --vault "$vault" scan >"$work/setup.out" 2>&1 || rc=$?
  setup_ok=true
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    setup_ok=false
    read -r _ rss < <(tail -n 1 "$work/time")
    log "$size: the set-up scan did not complete in ${timeout_s}s; only the floors and fmt are measured at this size"
    record "$size" cold_scan "scan (cold, no manifest)" read timeout 1 "$timeout_s" "$timeout_s" "$timeout_s" "$rss" "the set-up scan, killed after ${timeout_s} s (peak RSS until then); the commands that read the manifest are not measured"
  fi
  if $setup_ok; then
    bench_settle "$sparks" "$vault"
  fi

  bench_floors

  v=(--vault "$vault")
  if ! $setup_ok; then
    # fmt reads the files, not the manifest.
    measure fmt "fmt --check" list "0 1" "" -- "$sparks" "${v[@]}" fmt --check
    continue
  fi
  measure cold_scan "scan (cold, no manifest)" read 0 cold -- "$sparks" "${v[@]}" scan
  # The cold scan left a new manifest: back to the steady state (the collections' extract
  # cache filled again), or the first regen measured reads every source file.
  bench_settle "$sparks" "$vault"
  measure warm_scan "scan (warm, nothing changed)" list 0 "" -- "$sparks" "${v[@]}" scan
  # The lookups as an agent sees them while a watcher vouches for the manifest: without their
  # refresh (a warm scan, measured above; the watcher's table has a lookup with and without).
  nr=("${v[@]}" --no-refresh)
  measure status "status --no-refresh" list 0 "" -- "$sparks" "${nr[@]}" status
  measure query_tag "query --tag $TAG --no-refresh" list 0 "" -- "$sparks" "${nr[@]}" query --tag "$TAG"
  measure query_limit "query --tag $TAG --limit 50 --no-refresh" list 0 "" -- "$sparks" "${nr[@]}" query --tag "$TAG" --limit 50
  measure query_links "query --links-to (hub page) --no-refresh" list "0 1" "" -- "$sparks" "${nr[@]}" query --links-to "$HUB_TITLE"
  measure query_resolve "query --resolve --no-refresh" list "0 1" "" -- "$sparks" "${nr[@]}" query --resolve "$RESOLVE_NAME"
  measure search_word "search $WORD --no-refresh" list "0 1" "" -- "$sparks" "${nr[@]}" search "$WORD"
  measure search_phrase "search '$PHRASE' --no-refresh" list "0 1" "" -- "$sparks" "${nr[@]}" search "$PHRASE"
  measure search_limit "search $WORD --limit 20 --no-refresh" list "0 1" "" -- "$sparks" "${nr[@]}" search "$WORD" --limit 20
  # A question, as an agent asks one (issue 51): words and meaning, most of its words common.
  measure search_sentence "search '$SENTENCE' --limit 20 --no-refresh" list "0 1" "" -- "$sparks" "${nr[@]}" search "$SENTENCE" --limit 20
  measure related "related (hub page) --no-refresh" list 0 "" -- "$sparks" "${nr[@]}" related "$HUB_TITLE"
  measure lint "lint" list "0 1" "" -- "$sparks" "${v[@]}" lint
  if has publish; then
    # The whole wiki as a site (issue 53): made afresh, again with nothing changed, and after
    # one page changed (each with the refresh every command does first).
    site=("$sparks" "${v[@]}" publish --all -q "$snap/site")
    measure publish_cold "publish --all (no site yet)" read 0 publish-cold -- "${site[@]}"
    "${site[@]}" >/dev/null 2>&1 || true
    measure publish_same "publish --all (nothing changed)" list 0 "" -- "${site[@]}"
    measure publish_one "publish --all (one page changed)" list 0 publish-one -- "${site[@]}"
    # The floor of a cold publish: the site just made copied into a new folder, what the
    # filesystem costs to create its folders and files with no work at all.
    measure publish_files "cp -r of the site (its files alone)" read 0 publish-copy -- cp -r "$snap/site" "$snap/site-copy"
    rm -rf "$snap/site-copy"
  else
    record "$size" publish_cold "publish --all (no site yet)" read skipped 0 - - - - "no publish command in this binary"
  fi
  measure fmt "fmt --check" list "0 1" "" -- "$sparks" "${v[@]}" fmt --check
  measure index "index --dry-run" list "0 1" "" -- "$sparks" "${v[@]}" index --dry-run
  measure brief "brief" list 0 "" -- "$sparks" "${v[@]}" brief
  if $has_regen; then
    measure regen "collections regen --all --dry-run" list "0 1" "" -- "$sparks" "${v[@]}" collections regen --all --dry-run
  else
    record "$size" regen "collections regen --dry-run" list skipped 0 - - - - "no collections command in this binary"
  fi
  if $has_serve; then
    # As an agent's server sees it while the vault's watcher vouches: no scan of its own.
    measure mcp "MCP: initialize + sparks_status (--no-refresh, --no-watch)" list 0 "" -- \
      "$py" "$mcp_client" "$sparks" "$vault" --no-refresh serve --no-watch
  else
    record "$size" mcp "MCP: initialize + sparks_status" list skipped 0 - - - - "no serve command in this binary"
  fi
  if $has_view; then
    bench_measure_view
  else
    record "$size" view "view: GET the hub page with its neighbourhood (curl)" list skipped 0 - - - - "no view command in this binary"
  fi
  measure changed_scan "scan (1% of pages edited)" list 0 change -- "$sparks" "${v[@]}" scan
  measure prepare "ingest --prepare --limit $ingest_limit" list 0 ingest -- "$sparks" "${v[@]}" ingest --prepare --limit "$ingest_limit"
  # An agent's batch (the default batch_size), each entry told where it may belong (issue 52).
  measure prepare_15 "ingest --prepare --limit 15" list 0 ingest -- "$sparks" "${v[@]}" ingest --prepare --limit 15
  measure finalize "ingest --finalize ($finalize_batch entries, $finalize_pages pages)" list 0 finalize -- "$sparks" "${v[@]}" ingest --finalize -m bench
  bash "$helper" ingest "$vault" "$snap" || true
  if has mv; then
    # The hub page gets up to 2,000 backlinks (a fifth of the pages in smaller vaults).
    backlinks=$((size / 5 < 2000 ? size / 5 : 2000))
    linking=$(bench_hub_backlinks "$sparks" "$vault" "$backlinks" "$work")
    export MV_OLD=$HUB_TITLE MV_NEW="Bench Renamed Hub"
    if wanted mv; then
      # The files mv rewrites, written durably by themselves (issue 39): its floor.
      bench_plan_files "$sparks" "$vault" "$work/mv.files" mv "$MV_OLD" "$MV_NEW"
      durable mv_floor "mv's" "$work/mv.files"
    fi
    measure mv "mv (a page with $linking backlinks)" list 0 mv-back -- "$sparks" "${v[@]}" mv "$MV_OLD" "$MV_NEW"
    bash "$helper" mv-back "$vault" "$snap" || true
  else
    record "$size" mv "mv (hub page)" list skipped 0 - - - - "no mv command in this binary"
  fi
  if has merge && wanted merge; then
    # The hub, with the backlinks mv rewrote, merged into a small page of its own; before each
    # run the helper puts back the files the last run changed.
    export MERGE_FROM=$HUB_TITLE MERGE_INTO="Bench Merge Target"
    bench_merge_setup "$sparks" "$vault" "$snap" "$work/merge.files"
    durable merge_floor "merge's" "$work/merge.files"
    measure merge "merge (a page with $linking backlinks into another)" list 0 merge-back -- "$sparks" "${v[@]}" merge "$MERGE_FROM" "$MERGE_INTO"
    bash "$helper" merge-back "$vault" "$snap" || true
  elif ! has merge; then
    record "$size" merge "merge (hub page)" list skipped 0 - - - - "no merge command in this binary"
  fi
  # capture (issue 39): one entry appended to inbox.md, which is put back before each run.
  if has capture; then
    measure capture "capture \"a thought\"" list 0 capture -- "$sparks" "${v[@]}" capture "a thought"
    bash "$helper" capture "$vault" "$snap" || true
  else
    record "$size" capture "capture" list skipped 0 - - - - "no capture command in this binary"
  fi
  $has_serve && floor py "python3 start (MCP client floor)" "$py -c 'import json, subprocess'"
  # The watcher (issue 36): lookups with and without one, a write's latency, a storm of 1,500
  # pages, idle CPU over a minute at the largest size (half a minute below), peak memory.
  if has watch && wanted watch; then
    idle=$([ "$size" -ge 100000 ] && echo 60 || echo 30)
    log "$size: the watcher (${idle} s of idling included)"
    "$py" "$repo/scripts/bench_watch.py" "$sparks" "$vault" "$size" "$results" "$TAG" "$idle" ||
      log "$size: the watcher's figures failed"
  fi
  # Sync (issue 37): a fresh clone's first scan, one capture out and in, a sync with nothing
  # new. Last: it makes the vault a git repository.
  if has sync && wanted sync; then
    log "$size: sync (git set-up not measured)"
    "$py" "$repo/scripts/bench_sync.py" "$sparks" "$vault" "$size" "$results" "$work" ||
      log "$size: the sync figures failed"
  fi
done

# --- The report ------------------------------------------------------------------------------

binary_bytes=$(stat -c %s "$sparks")
bench_describe "$load_before"
export BENCH_BINARY=$binary_bytes BENCH_SEEDV=$seed BENCH_TIMEOUTV=$timeout_s
export BENCH_ELAPSED=$(($(date +%s) - started)) BENCH_LIMIT=$ingest_limit BENCH_INBOX=$inbox_entries
export BENCH_BATCH=$finalize_batch BENCH_PAGES=$finalize_pages
python3 - "$results" "$out" <<'EOF'
"""Turn the results TSV into BENCHMARKS.md; keep the hand-written part after the marker."""
import math, os, re, sys

results, out = sys.argv[1], sys.argv[2]
MARK = "<!-- Hand-written below this line: scripts/bench.sh keeps it as it is. -->"
rows = [l.rstrip("\n").split("\t") for l in open(results) if l.strip()]
FIELDS = "size id label floor status runs median min max rss note".split()
rows = [dict(zip(FIELDS, r)) for r in rows]
sizes = []
for r in rows:
    if r["size"] not in sizes:
        sizes.append(r["size"])
def get(size, id):
    return next((r for r in rows if r["size"] == size and r["id"] == id), None)
def med(size, id):
    r = get(size, id)
    return float(r["median"]) if r and r["status"] == "ok" else None
def secs(t):
    if t is None:
        return "–"
    if t < 1:
        return "%.1f ms" % (t * 1000)
    return "%.2f s" % t
def mb(kb):
    try:
        return "%.0f" % (int(kb) / 1024)
    except ValueError:
        return "–"
def n(x):
    return "{:,}".format(int(x))

ORDER = ["cold_scan", "warm_scan", "changed_scan", "status", "query_tag", "query_limit",
         "query_links", "query_resolve", "search_word", "search_phrase", "search_limit", "search_sentence", "related", "lint",
         "publish_cold", "publish_same", "publish_one", "publish_files", "fmt", "index", "brief", "regen", "prepare", "prepare_15", "finalize", "mv", "mcp", "view",
         "view_graph"]
# Issue 39's additions, beside mv: merge rewrites as many pages, capture appends one entry.
ORDER.insert(ORDER.index("mv") + 1, "merge")
ORDER.insert(ORDER.index("merge") + 1, "capture")
def with_floors(ids):
    """The durable-write floors of mv and merge, each listed just above its command."""
    return [x for id in ids for x in ([id + "_floor"] if id in ("mv", "merge") else []) + [id]]
env = os.environ
lines = []
w = lines.append
w("# Benchmarks")
w("")
w("Written by `make bench` (`scripts/bench.sh`, vaults from `examples/gen_vault.rs`); run it "
  "again to refresh everything above the hand-written part. Timings are medians of "
  "[hyperfine](https://github.com/sharkdp/hyperfine) runs on a warm page cache, next to the "
  "floor of the same vault measured in the same run; peak RSS comes from `/usr/bin/time -f %M` "
  "on one run. Nothing here is asserted by `make test`.")
w("")
w("- **Machine**: " + env.get("BENCH_MACHINE", "?"))
w("- **Versions**: " + env.get("BENCH_VERSIONS", "?"))
w("- **Release binary**: %.1f MB (%s bytes)" % (int(env["BENCH_BINARY"]) / 1e6, n(env["BENCH_BINARY"])))
w("- **Vaults**: `gen_vault --seed %s`, about as many raw files as pages, %s inbox captures; "
  "`sparks.toml` has `auto_commit = false` and the vault is not a git repository, so finalize "
  "commits nothing. Before measuring, each vault is scanned, `sparks index` and "
  "`sparks collections regen --all` write their pages, one batch is prepared and aborted (a "
  "manifest's first prepare copies every page outside git, once), and it is scanned again: "
  "the commands see a vault in its steady state." % (env.get("BENCH_SEEDV", "?"), env.get("BENCH_INBOX", "?")))
w("- **Runs**: a probe run sets the count: as many as fit a budget of 8–12 s per command, "
  "3 to 30, after 0–2 warm-ups; a command slower than a third of its budget runs three times, "
  "the probe and two more, and the median of the three is the figure (the probe, first after "
  "other commands, may read from disk what they pushed out of the page cache; one run over a "
  "minute is measured by the probe alone). "
  "A run longer than %s s is killed and counts as not completing." % env.get("BENCH_TIMEOUTV", "?"))
w("- **Floors**: *list* is `find VAULT -type f -printf '%s %T@ %p\\n'`, *read* is "
  "`find VAULT -type f -exec cat {} +`, both over the files the scan walks (hidden entries "
  "and `sparks.db*` left out). The cold scan is compared with *read*, everything else with "
  "*list*. The *durable-write floors* of `mv` and `merge` (issue 39) replace copies of the files "
  "each rewrites (its plan, from `--dry-run --json`; the index and collection pages it may "
  "regenerate left out) in a scratch folder on the same filesystem, from python "
  "(`scripts/bench_durable.py`), as Sparks writes a file: a temporary file, fsync, rename, 16 "
  "at a time, each folder synced once; timed inside python, 3 to 10 rounds in the budget.")
w("- **State**: the cold scan deletes `sparks.db*` before each run; the 1%% scan appends a line "
  "to the same 1%% of pages before each run (a real edit: hashed and parsed again); "
  "the lookups (`status`, `query`, `search`, the MCP server) run with `--no-refresh`, as an "
  "agent sees them while a watcher vouches for the manifest (without one each first costs a "
  "warm scan: see the watcher's table); "
  "`ingest --prepare --limit %s` restores the inbox and `raw/inbox/`, aborts any open ingest "
  "and rescans before each run; `ingest --finalize` does the same, prepares a batch of %s "
  "entries and writes %s pages for it (an agent's loop). The viewer (`sparks view`, watching "
  "the vault) is asked with curl for the hub page, checked first to show that page with its "
  "neighbourhood drawn, and for `/graph`; the peak RSS is the server's. Last, the hub page is given up to "
  "2,000 backlinks (a fifth of the pages in a smaller vault: a link appended to pages without "
  "one) and the vault scanned; `mv` renames it, and before each run the previous rename is "
  "undone with `mv` back. `merge` merges the hub into a small page of its own; before each run "
  "the files it changed are put back from a copy and the vault scanned. `capture` appends one "
  "entry to the inbox, put back before each run." % (
      env.get("BENCH_LIMIT", "500"), env.get("BENCH_BATCH", "15"), env.get("BENCH_PAGES", "5")))
w("- **Total time** of this run: %d min %d s." % divmod(int(env.get("BENCH_ELAPSED", "0")), 60))
w("")

# Targets.
def verdict(ok):
    return "**met**" if ok else "**missed**"
targets = []
def cell(s):
    return n(s) + ": "
def per_size(name, sizes_, test, judged=None):
    """A target checked at each of `sizes_`: `test(size)` gives (text, ok) or None. With
    `judged`, only those sizes decide the verdict; the others are shown beside them."""
    cells, oks = [], []
    for sz in sizes_:
        got = test(sz)
        if got is None:
            cells.append(cell(sz) + "not measured")
        else:
            cells.append(cell(sz) + got[0])
            if judged is None or sz in judged:
                oks.append(got[1])
    if judged is not None and not any(sz in judged for sz in sizes_):
        targets.append((name, "; ".join(cells) or "not measured",
                        "not judged (100,000 pages not measured)"))
        return
    if not oks:
        v = "**missed**"
    elif not all(oks):
        v = "**missed**"
    elif len(oks) < len([sz for sz in sizes_ if judged is None or sz in judged]):
        v = "**met** where measured"
    else:
        v = "**met**"
    targets.append((name, "; ".join(cells) or "not measured", v))
def ratio(id, floor, limit, extra=None):
    def test(sz):
        m, f = med(sz, id), med(sz, floor)
        if m is None or f is None:
            return None
        bound = limit * f + (extra(sz) if extra else 0)
        return ("%s, %.1f× %s" % (secs(m), m / f, floor.replace("_", " ")), m <= bound)
    return test
def absolute(id, limit):
    def test(sz):
        m = med(sz, id)
        return None if m is None else ("%s" % secs(m), m <= limit)
    return test
big = sizes[-1] if sizes else None
mid = [sz for sz in sizes if sz in ("10000", "100000")] or sizes[-1:]
# The issue states these targets at 100,000 pages (its table's column "today at 100,000
# pages"); the smaller vaults are shown beside them, not judged.
at_big = [big] if big == "100000" else []
per_size("ingest --finalize of a 15-entry batch that wrote 5 pages ≤ 1.5× a warm scan, at "
         "100,000 pages (smaller vaults shown)",
         sizes, ratio("finalize", "warm_scan", 1.5), at_big)
def one_percent_read(sz):
    r = med(sz, "read")
    return 0.01 * r if r else 0
per_size("scan after 1% of pages changed ≤ 2× a warm scan + the read floor of the changed "
         "files, at 100,000 pages (smaller vaults shown)",
         sizes, ratio("changed_scan", "warm_scan", 2, one_percent_read), at_big)
for id, limit, label in [("status", 0.020, "status"), ("query_resolve", 0.020, "query --resolve"),
                         ("query_limit", 0.020, "query --tag --limit 50"),
                         ("search_limit", 0.050, "search --limit 20"),
                         ("related", 0.030, "related (the hub page)")]:
    per_size("%s ≤ %d ms" % (label, limit * 1000), [big] if big else [], absolute(id, limit))
# The viewer's graph (issues 38, 39).
per_size("viewer: the hub page with its neighbourhood ≤ 20 ms, at 10,000 and 100,000 pages",
         [sz for sz in sizes if sz in ("10000", "100000")], absolute("view", 0.020))
per_size("viewer: GET /graph ≤ 200 ms at 10,000 pages (100,000 shown)",
         [sz for sz in sizes if sz in ("10000", "100000")], absolute("view_graph", 0.200), ["10000"])
def mcp(sz):
    m, py_ = med(sz, "mcp"), med(sz, "py")
    if m is None or py_ is None:
        return None
    return ("%s (python %s)" % (secs(m), secs(py_)), m <= py_ + 0.030)
per_size("MCP initialize + sparks_status ≤ python start + 30 ms", [big] if big else [], mcp)
for id, label in [("lint", "lint"), ("regen", "collections regen --all --dry-run"),
                  ("index", "index --dry-run")]:
    per_size("%s ≤ 3× the list floor, at 100,000 pages (smaller vaults shown)" % label, sizes,
             ratio(id, "list", 3), at_big)
# Issue 18's mv ≤ 2× a warm scan was below the cost of writing the files at all; issue 39
# restates it over the durable-write floor of the files rewritten, measured in the same run.
def over_durable(id):
    def test(sz):
        m, scan, fl = med(sz, id), med(sz, "warm_scan"), med(sz, id + "_floor")
        if m is None or scan is None or fl is None:
            return None
        return ("%s (warm scan %s + floor %s: %.1f×)" % (secs(m), secs(scan), secs(fl), m / (scan + fl)),
                m <= 2 * (scan + fl))
    return test
for id in ("mv", "merge"):
    per_size("%s of the hub ≤ 2 × (warm scan + the durable-write floor of the files it rewrites), "
             "at 10,000 and 100,000 pages (issue 39)" % id,
             [sz for sz in sizes if sz in ("10000", "100000")], over_durable(id))
per_size("cold scan ≤ 4× the read floor", mid, ratio("cold_scan", "read", 4))
# Publishing (issue 53): the whole wiki as a site at 10,000 pages, and that 100,000 complete.
ten = [sz for sz in sizes if sz == "10000"]
def publish_cold(sz):
    m, floor = med(sz, "publish_cold"), med(sz, "publish_files")
    if m is None:
        return None
    beside = "" if not floor else ", %.1f× a cp -r of the site (%s)" % (m / floor, secs(floor))
    return ("%s%s" % (secs(m), beside), m <= 5.0)
per_size("publish --all of 10,000 pages ≤ 5 s with no site yet", ten, publish_cold)
per_size("publish --all of 10,000 pages ≤ 0.5 s with nothing changed", ten, absolute("publish_same", 0.5))
per_size("publish --all of 10,000 pages ≤ 1 s after one page changed", ten, absolute("publish_one", 1.0))
def publish_big(sz):
    r = get(sz, "publish_cold")
    if not r or r["status"] != "ok":
        return None
    m, kb = float(r["median"]), int(r["rss"]) if r["rss"].isdigit() else 0
    return ("%s, peak %s MB" % (secs(m), mb(r["rss"])), m <= 120 and kb <= 300 * 1024)
per_size("publish --all of 100,000 pages ≤ 2 min and 300 MB", [sz for sz in sizes if sz == "100000"],
         publish_big)
per_size("index --dry-run at 10,000 pages ≤ 150 ms", [sz for sz in sizes if sz == "10000"],
         absolute("index", 0.150))
# The watcher (issue 36).
per_size("a lookup while a watcher vouches (query --tag --limit 50) ≤ 20 ms, at 100,000 pages "
         "(smaller vaults shown)", sizes, absolute("watch_query_warm", 0.020), at_big)
per_size("a page written → visible to query --no-refresh ≤ 200 ms at 10,000 pages",
         [sz for sz in sizes if sz == "10000"], absolute("watch_latency", 0.200))
per_size("a page written → visible to query --no-refresh ≤ 1 s at 100,000 pages",
         [sz for sz in sizes if sz == "100000"], absolute("watch_latency", 1.0))
per_size("a storm of 1,500 new pages settled ≤ 5 s at 10,000 pages",
         [sz for sz in sizes if sz == "10000"], absolute("watch_storm", 5.0))
def idle_share(sz):
    r = get(sz, "watch_idle")
    if not r or r["status"] != "ok":
        return None
    window = float(re.search(r"idling (\d+) s", r["label"]).group(1))
    share = float(r["median"]) / window
    return ("%.2f s of CPU in %d s (%.3f%%)" % (float(r["median"]), window, 100 * share), share < 0.001)
per_size("an idle watcher uses under 0.1% of a core", sizes, idle_share)
def watch_memory(sz):
    peak, idle, delayed = (get(sz, id) for id in ("watch_rss", "watch_idle_rss", "watch_idle_rss_delayed"))
    if not idle or not idle["rss"].isdigit():
        return None
    also = "; peak %s MB (its first scan)" % mb(peak["rss"]) if peak and peak["rss"].isdigit() else ""
    if delayed and delayed["rss"].isdigit():
        also += "; idling with the allocator's default delay: %s MB" % mb(delayed["rss"])
    return ("idling %s MB%s" % (mb(idle["rss"]), also), int(idle["rss"]) <= (50 + 16) * 1024)
per_size("an idle watcher's memory ≤ 50 MB over the manifest's 16 MB page cache, at 100,000 "
         "pages (smaller vaults shown)", sizes, watch_memory, at_big)
# Sync (issue 37): a one-capture sync ≤ a warm scan + the git transfer (the transfer is not
# measured apart: a sync with nothing new, which fetches, stands for it).
def sync_one(id):
    def test(sz):
        m, scan, noop = med(sz, id), med(sz, "warm_scan"), med(sz, "sync_noop")
        if m is None or scan is None or noop is None:
            return None
        return ("%s (warm scan %s, a sync with nothing new %s)" % (secs(m), secs(scan), secs(noop)),
                m <= scan + noop)
    return test
for id, label in [("sync_out", "out"), ("sync_in", "in")]:
    per_size("sync of a one-capture change (%s) ≤ a warm scan + a sync with nothing new "
             "(fetch), at 10,000 and 100,000 pages" % label,
             [sz for sz in sizes if sz in ("10000", "100000")], sync_one(id))
if big == "100000":
    bad = [r["label"] + " (" + r["status"] + ")" for r in rows
           if r["size"] == big and r["id"] in ORDER and r["status"] not in ("ok", "skipped")]
    targets.append(("100,000 pages: every command completes",
                    "all completed" if not bad else "not: " + ", ".join(bad), verdict(not bad)))
    peaks = [(int(r["rss"]), r["label"] + (" until killed" if r["status"] == "timeout" else ""))
             for r in rows if r["size"] == big and r["id"] in ORDER and r["rss"].isdigit()]
    top = max(peaks) if peaks else (0, "–")
    ok = bool(peaks) and top[0] <= 300 * 1024
    targets.append(("100,000 pages: peak memory ≤ 300 MB",
                    "highest: %s MB (%s)" % (mb(top[0]), top[1]), verdict(ok)))
    steep = []
    for id in ORDER:
        a, b_ = med("10000", id), med("100000", id)
        if a and b_ and b_ > 0.020 and math.log10(b_ / a) > 1.1:
            steep.append("%s (n^%.2f)" % (get("100000", id)["label"], math.log10(b_ / a)))
    targets.append(("no command grows faster than n^1.1 from 10,000 to 100,000 pages (above 20 ms)",
                    "none" if not steep else ", ".join(steep), verdict(not steep)))
else:
    targets.append(("100,000 pages", "not measured in this run", "**missed**"))
b = int(env["BENCH_BINARY"])
targets.append(("release binary ≤ 15 MB", "%.1f MB" % (b / 1e6), verdict(b <= 15e6)))
w("## Targets (issue 20)")
w("")
w("| target | measured | |")
w("|---|---|---|")
for t in targets:
    w("| %s | %s | %s |" % t)
w("")

# One table per size.
for s in sizes:
    f = get(s, "_files")
    w("## %s pages" % n(s))
    w("")
    if f:
        w("%s files, %.1f MB. Floors: list %s, read %s." % (
            n(f["median"]), int(f["min"]) / 1e6, secs(med(s, "list")), secs(med(s, "read"))))
        w("")
    w("| command | runs | median | min–max | peak RSS (MB) | × floor | note |")
    w("|---|---:|---:|---:|---:|---:|---|")
    for id in ["list", "read"] + with_floors(ORDER) + ["py"]:
        r = get(s, id)
        if not r:
            continue
        m = med(s, id)
        if r["status"] == "ok":
            rng = "%s – %s" % (secs(float(r["min"])), secs(float(r["max"])))
            fl = med(s, r["floor"]) if r["floor"] in ("list", "read") else None
            ratio = "%.1f× %s" % (m / fl, r["floor"]) if fl else ""
        else:
            rng, ratio = "", ""
        status = secs(m) if r["status"] == "ok" else r["status"]
        w("| %s | %s | %s | %s | %s | %s | %s |" % (
            r["label"], r["runs"], status, rng, mb(r["rss"]), ratio, r["note"]))
    w("")

# The watcher's and sync's tables: one row per measure, one column per size.
def measure_cell(r):
    if not r:
        return "–"
    if r["status"] != "ok":
        return r["status"]
    if r["id"] in ("watch_rss", "watch_idle_rss", "watch_idle_rss_delayed"):
        return "%s MB" % mb(r["rss"])
    return secs(float(r["median"])) + (" (%s)" % r["note"] if r["note"] else "")
def by_size(title, intro, ids):
    if not any(get(sz, id) for sz in sizes for id in ids):
        return
    w("## " + title)
    w("")
    w(intro)
    w("")
    w("| " + " | ".join(["measure"] + [n(sz) for sz in sizes]) + " |")
    w("|---|" + "---:|" * len(sizes))
    for id in ids:
        label = next((get(sz, id)["label"] for sz in sizes if get(sz, id)), None)
        if label:
            w("| %s | %s |" % (label, " | ".join(measure_cell(get(sz, id)) for sz in sizes)))
    w("")
by_size("The watcher (issue 36)",
        "`scripts/bench_watch.py` on each vault: a lookup without a watcher (it scans first) and "
        "while one vouches (15 runs each, one set after the other); a page written until the watcher's "
        "line says it is applied (the manifest is committed before the line; median of 10); "
        "1,500 new pages written at once until `query --no-refresh` answers all of them; the "
        "watcher's CPU time while idle; its peak RSS, its RSS at the end of the idle window, and "
        "that of a second watcher started with the allocator's default delay "
        "(`MIMALLOC_PURGE_DELAY=10`; a long-running command sets the delay to 0 in process unless "
        "the variable is set).",
        ["watch_query_cold", "watch_query_warm", "watch_latency", "watch_storm", "watch_idle",
         "watch_rss", "watch_idle_rss", "watch_idle_rss_delayed"])
by_size("Sync (issue 37)",
        "`scripts/bench_sync.py` on each vault after the other measures: the vault committed, a "
        "bare clone as the remote, a second device cloned from it (none of that measured); then a "
        "fresh clone's first `sparks scan`, and five rounds of one `sparks capture` on the first "
        "device, its `sparks sync` (commit, fetch, push) and the second device's (fetch, "
        "fast-forward, scan), and five syncs with nothing new. Medians.",
        ["sync_clone_scan", "sync_out", "sync_in", "sync_noop"])

# Growth.
if len(sizes) > 1:
    w("## Growth")
    w("")
    w("How each median grows from one size to the next (10× the pages). About 10× is linear; "
      "100× would be quadratic. Below ~20 ms the process start and the manifest open dominate, "
      "so small ratios there say little.")
    w("")
    head = "| command | " + " | ".join(secs_h for secs_h in [n(s) for s in sizes]) + " | " + \
        " | ".join("%s→%s" % (n(a)[:-4] + "k", n(b)[:-4] + "k") for a, b in zip(sizes, sizes[1:])) + " |"
    w(head.replace(",000k", "k"))
    w("|---|" + "---:|" * (2 * len(sizes) - 1))
    for id in ["list", "read"] + with_floors(ORDER):
        r = next((r for r in rows if r["id"] == id), None)
        if not r:
            continue
        ms = [med(s, id) for s in sizes]
        cells = [secs(m) if m is not None else (get(s, id) or {"status": "–"})["status"] for s, m in zip(sizes, ms)]
        growth = []
        for a, b in zip(ms, ms[1:]):
            if a is None or b is None:
                growth.append("–")
            else:
                x = b / a
                exp = math.log10(x) if x > 0 else 0
                growth.append("%.1f×%s" % (x, " (n^%.1f)" % exp if exp > 1.15 else ""))
        w("| %s | %s | %s |" % (r["label"], " | ".join(cells), " | ".join(growth)))
    w("")

# A million pages, extrapolated from the two largest vaults of this run.
LOOKUPS = {"status", "query_tag", "query_limit", "query_links", "query_resolve", "search_word",
           "search_phrase", "search_limit", "search_sentence", "related", "mcp", "view", "view_graph", "capture"}
if "10000" in sizes and "100000" in sizes:
    w("## A million pages, extrapolated")
    w("")
    w("Measured by `make bench-million`: \"A million pages (issue 54)\" below. This table is "
      "not measured: each median's growth from 10,000 to 100,000 pages applied once more, never "
      "below linear (a growth under n^1.0 is fixed costs fading, which cannot last) except for "
      "the lookups, which keep their own (never below flat); peak RSS as a fixed part plus a part proportional to "
      "the pages, fitted to the same two vaults. Assumes the manifest's B-trees keep growing as "
      "they did and nothing new (swap, a full disk) intervenes.")
    w("")
    w("| command | 100,000 pages | growth | 1,000,000 pages | peak RSS at 100,000 | at 1,000,000 (fit) |")
    w("|---|---:|---:|---:|---:|---:|")
    for id in ["list", "read"] + with_floors(ORDER):
        a, b_ = med("10000", id), med("100000", id)
        if not a or not b_:
            continue
        exp = math.log10(b_ / a)
        used = max(exp, 0.0) if id in LOOKUPS else max(exp, 1.0)
        est = b_ * 10 ** used
        ra, rb = (get(sz, id)["rss"] for sz in ("10000", "100000"))
        if ra.isdigit() and rb.isdigit():
            per = (int(rb) - int(ra)) / 90000
            fit = max(int(rb), int(rb) + per * 900000)
            rss = ("%s MB" % mb(rb), "%s MB" % mb(fit) if fit < 1024 * 1024 else "%.1f GB" % (fit / 1024 / 1024))
        else:
            rss = ("–", "–")
        w("| %s | %s | n^%.2f%s | %s | %s | %s |" % (
            get("100000", id)["label"], secs(b_), exp,
            "" if used == exp else " (taken as n^%.2f)" % used,
            secs(est) if est < 120 else "%.1f min" % (est / 60), rss[0], rss[1]))
    w("")
text = "\n".join(lines) + "\n"
kept = ""
if os.path.exists(out):
    old = open(out).read()
    if MARK in old:
        kept = old[old.index(MARK):]
if not kept:
    kept = MARK + "\n\n## What bounds the missed targets\n\n(not written yet)\n"
open(out, "w").write(text + "\n" + kept)
EOF
log "wrote $out ($(($(date +%s) - started)) s)"
