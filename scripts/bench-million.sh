#!/usr/bin/env bash
# The driver behind `make bench-million` (issue 54, not part of `make test`): a vault of a million
# pages, generated once with examples/gen_vault.rs under ${CARGO_TARGET_DIR:-target}/bench/
# and kept, and the 100,000-page vault `make bench` leaves there (generated when missing), each
# measured in the same run: the floors (listing every file, reading every byte), a cold and a
# warm scan, status, query, search, related, lint, the viewer's hub page, finalize, the
# watcher, and mv of the hub page. The figures, their growth exponents from the smaller vault to
# the larger and the targets they meet or miss go into BENCHMARKS.md, in the section between
# <!-- bench-million:start --> and <!-- bench-million:end --> (scripts/bench_million_report.py).
#
# Nothing is copied to be put back: a vault of a million pages with its manifest is about 20 GB.
# Each command that changes the vault is undone the way bench.sh undoes it (finalize's batch by
# restoring the inbox, the watcher's pages removed, mv by mv back), and they run last.
#
# Knobs (environment): MILLION_PAGES (1000000; the smaller vault has a tenth of its pages; try
# the whole script with 20000 first), MILLION_BUDGET (seconds of measuring per command, 5: a
# command slower than a third of it runs three times, one slower than a minute once),
# MILLION_TIMEOUT (seconds one run may take before the command counts as not completing,
# 1800), MILLION_IDLE (the watcher's idle window, 10 s), MILLION_FREE_GB (the free disk a
# million pages need before generating, 25; scaled to the size), BENCH_SEED (42), BENCH_OUT
# (BENCHMARKS.md), SPARKS and GEN_VAULT (the binaries), BENCH_ONLY (measure only these ids;
# the floors are always measured, and the cold scan, which sets the vault up).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
bench_name='bench-million'
# shellcheck source=scripts/bench-measure.sh
. "$repo/scripts/bench-measure.sh"
bench_paths
big=${MILLION_PAGES:-1000000}
sizes=("$((big / 10))" "$big")
seed=${BENCH_SEED:-42}
budget=${MILLION_BUDGET:-5}
timeout_s=${MILLION_TIMEOUT:-1800}
idle=${MILLION_IDLE:-10}
free_gb=${MILLION_FREE_GB:-25}
out=${BENCH_OUT:-$repo/BENCHMARKS.md}
# The floors: three runs each, after the warm-up that bench_floors reads itself (a read of
# every byte at a million pages takes about a minute).
floor_runs=3
floor_warmup=0

bench_need_tools
# Its own folder: `make bench`'s work folder is left as it is.
work=$bench/work-million
bench_workdir "$work"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date +%s)

# shellcheck source=scripts/bench-common.sh
. "$repo/scripts/bench-common.sh"
bench_tools "$work"
helper=$work/helper.sh
export SPARKS_BIN=$sparks LIMIT=500 BATCH=$finalize_batch PAGES=$finalize_pages

# One TSV line per measurement (bench-measure.sh).
results=$work/results.tsv
: >"$results"

# generated VAULT SNAP: whether a finished generation is there to reuse (bench_generate writes
# the list of pages to edit and the edit count after the generator succeeded, then sparks init).
generated() { [ -f "$1/.bench-hints" ] && [ -f "$1/sparks.toml" ] && [ -f "$2/changed.list" ] && [ -f "$2/edits" ]; }

today=$(date +%F)
for size in "${sizes[@]}"; do
  vault=$bench/vault-$size
  snap=$bench/snap-$size
  size_started=$(date +%s)
  if generated "$vault" "$snap"; then
    log "$size: reusing $vault"
  else
    # About 25 GB a million pages: the files, the manifest (a copy of every page outside git
    # included) and its write-ahead log during the first scan.
    need_kb=$((size * free_gb * 1024 / 1000))
    free_kb=$(df -Pk "$bench" | awk 'NR == 2 {print $4}')
    [ "$free_kb" -ge "$need_kb" ] ||
      die "$size pages need about $((need_kb / 1048576)) GB free under $bench, and $((free_kb / 1048576)) GB are: free some space (or lower MILLION_FREE_GB at your risk)"
    log "$size: generating $vault (a million pages take a while)"
    bench_new_vault
  fi
  bench_hints "$vault"

  bench_floors
  # The cold scan is the set-up scan too: one run, the manifest deleted first.
  max_runs=1 measure cold_scan "scan (cold, no manifest)" read 0 cold -- "$sparks" --vault "$vault" scan
  if ! grep -q "^$size	cold_scan	.*	ok	" "$results"; then
    log "$size: no manifest after the cold scan: nothing else is measured at this size"
    continue
  fi
  bench_settle "$sparks" "$vault"
  v=(--vault "$vault")
  nr=("${v[@]}" --no-refresh)
  measure warm_scan "scan (warm, nothing changed)" list 0 "" -- "$sparks" "${v[@]}" scan
  measure status "status --no-refresh" list 0 "" -- "$sparks" "${nr[@]}" status
  measure query_limit "query --tag $TAG --limit 50 --no-refresh" list 0 "" -- "$sparks" "${nr[@]}" query --tag "$TAG" --limit 50
  measure query_resolve "query --resolve --no-refresh" list "0 1" "" -- "$sparks" "${nr[@]}" query --resolve "$RESOLVE_NAME"
  measure query_tag "query --tag $TAG --no-refresh (every match)" list 0 "" -- "$sparks" "${nr[@]}" query --tag "$TAG"
  measure query_links "query --links-to (hub page) --no-refresh" list "0 1" "" -- "$sparks" "${nr[@]}" query --links-to "$HUB_TITLE"
  measure search_word "search $WORD --no-refresh" list "0 1" "" -- "$sparks" "${nr[@]}" search "$WORD"
  measure search_sentence "search '$SENTENCE' --no-refresh" list "0 1" "" -- "$sparks" "${nr[@]}" search "$SENTENCE"
  measure related "related (hub page) --no-refresh" list 0 "" -- "$sparks" "${nr[@]}" related "$HUB_TITLE"
  measure lint "lint" list "0 1" "" -- "$sparks" "${v[@]}" lint
  wanted view && bench_measure_view
  # What changes the vault, last, each undone after.
  measure finalize "ingest --finalize ($finalize_batch entries, $finalize_pages pages)" list 0 finalize -- "$sparks" "${v[@]}" ingest --finalize -m bench
  bash "$helper" ingest "$vault" "$snap" || true
  if wanted watch; then
    log "$size: the watcher (${idle} s of idling included)"
    "$py" "$repo/scripts/bench_watch.py" "$sparks" "$vault" "$size" "$results" "$TAG" "$idle" ||
      log "$size: the watcher's figures failed"
  fi
  if wanted mv; then
    # As bench.sh gives it: up to 2,000 backlinks, a fifth of the pages in a smaller vault (the
    # generated hub of a large one has many more).
    linking=$(bench_hub_backlinks "$sparks" "$vault" $((size / 5 < 2000 ? size / 5 : 2000)) "$work")
    export MV_OLD=$HUB_TITLE MV_NEW="Bench Renamed Hub"
    bench_plan_files "$sparks" "$vault" "$work/mv.files" mv "$MV_OLD" "$MV_NEW"
    durable mv_floor "mv's" "$work/mv.files"
    measure mv "mv (a page with $linking backlinks)" mv_floor 0 mv-back -- "$sparks" "${v[@]}" mv "$MV_OLD" "$MV_NEW"
    bash "$helper" mv-back "$vault" "$snap" || true
  fi
  # What the vault takes on disk: its files and its manifest.
  db=$(stat -c %s "$vault/sparks.db" 2>/dev/null || echo 0)
  total=$(du -sk --exclude='.sparks/publish' "$vault" | awk '{printf "%.0f\n", $1 * 1024}')
  record "$size" _disk "disk" - info 0 "$db" "$total" - - ""
  record "$size" _elapsed "elapsed" - info 0 "$(($(date +%s) - size_started))" - - - ""
  log "$size: done in $(($(date +%s) - size_started)) s"
done

bench_describe "$load_before"
export BENCH_ELAPSED=$(($(date +%s) - started)) BENCH_SEEDV=$seed BENCH_TIMEOUTV=$timeout_s BENCH_BUDGETV=$budget
"$py" "$repo/scripts/bench_million_report.py" "$results" "$out"
log "wrote $out ($(($(date +%s) - started)) s)"
