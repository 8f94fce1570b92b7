#!/usr/bin/env bash
# `make bench-smoke`: the guard against quadratic regressions (issue 20). It generates vaults of
# 2,000 and 8,000 pages with examples/gen_vault.rs, runs every command `make bench` measures on
# both (the watcher's and sync's figures by the same scripts), and fails when a command's
# median time grows more than 6× from the small vault to the large one (4× is linear; 16×
# would be quadratic).
#
# It builds nothing: it runs the binaries the test build left (${CARGO_TARGET_DIR:-target}/debug
# /sparks and debug/examples/gen_vault), or SPARKS and GEN_VAULT. Timings are medians of
# SMOKE_RUNS runs (3); below SMOKE_FLOOR seconds (0.05) a command costs its start and its
# growth says nothing, so times are counted from that floor. Knobs: SMOKE_SIZES ("2000 8000"),
# SMOKE_LIMIT (6), SMOKE_SEED (42).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
target=${CARGO_TARGET_DIR:-target}
case $target in /*) ;; *) target=$repo/$target ;; esac
sparks=${SPARKS:-$target/debug/sparks}
gen=${GEN_VAULT:-$target/debug/examples/gen_vault}
sizes=(${SMOKE_SIZES:-2000 8000})
runs=${SMOKE_RUNS:-3}
floor=${SMOKE_FLOOR:-0.05}
limit=${SMOKE_LIMIT:-6}
seed=${SMOKE_SEED:-42}
[ -x "$sparks" ] || { echo "bench-smoke: $sparks is missing: run cargo test (or make test) first" >&2; exit 2; }
[ -x "$gen" ] || { echo "bench-smoke: $gen is missing: run cargo test (or make test) first" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench-smoke: python3 is needed (the MCP client)" >&2; exit 2; }
command -v curl >/dev/null || { echo "bench-smoke: curl is needed (the viewer)" >&2; exit 2; }

started=$(date +%s)
work=$target/bench-smoke
rm -rf "$work"
mkdir -p "$work"
# shellcheck source=scripts/bench-common.sh
. "$repo/scripts/bench-common.sh"
bench_tools "$work"
export SPARKS_BIN=$sparks LIMIT=500 BATCH=$finalize_batch PAGES=$finalize_pages
results=$work/results.tsv
: >"$results"

# seconds COMMAND...: the wall time of one run, in seconds; fails the script if the command
# fails (exit 1 is a finding, not a failure, for lint, fmt and search).
seconds() {
  local t0 t1 rc=0
  t0=$(date +%s%N)
  "$@" >/dev/null 2>"$work/err" || rc=$?
  t1=$(date +%s%N)
  if [ "$rc" -gt 1 ]; then
    echo "bench-smoke: $* exited $rc: $(head -c 300 "$work/err")" >&2
    exit 1
  fi
  echo $(((t1 - t0) / 1000))
}

# measure ID PREPARE_STEP COMMAND...: the median of $runs runs, each after its prepare step.
measure() {
  local id=$1 prep=$2
  shift 2
  local times=()
  for _ in $(seq "$runs"); do
    [ -n "$prep" ] && bash "$work/helper.sh" "$prep" "$vault" "$snap"
    times+=("$(seconds "$@")")
  done
  local median
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf '%s\t%s\t%s\n' "$size" "$id" "$median" >>"$results"
  printf 'bench-smoke: %6s pages  %-16s %8.3f s\n' "$size" "$id" "$(echo "$median" | awk '{print $1 / 1e6}')" >&2
}

for size in "${sizes[@]}"; do
  vault=$work/vault-$size
  snap=$work/snap-$size
  bench_generate "$gen" "$sparks" "$vault" "$snap" "$size" "$inbox_entries" "$seed" "$(date +%F)" 2>/dev/null
  bench_hints "$vault"
  "$sparks" --vault "$vault" scan >/dev/null
  bench_settle "$sparks" "$vault"
  v=(--vault "$vault")
  measure cold_scan cold "$sparks" "${v[@]}" scan
  bench_settle "$sparks" "$vault"
  measure warm_scan "" "$sparks" "${v[@]}" scan
  measure changed_scan change "$sparks" "${v[@]}" scan
  measure status "" "$sparks" "${v[@]}" status
  measure query_limit "" "$sparks" "${v[@]}" query --tag "$TAG" --limit 50
  measure query_links "" "$sparks" "${v[@]}" query --links-to "$HUB_TITLE" --limit 50
  measure query_resolve "" "$sparks" "${v[@]}" query --resolve "$RESOLVE_NAME"
  measure search_limit "" "$sparks" "${v[@]}" search "$WORD" --limit 20
  measure lint "" "$sparks" "${v[@]}" lint
  measure fmt "" "$sparks" "${v[@]}" fmt --check
  measure index "" "$sparks" "${v[@]}" index --dry-run
  measure brief "" "$sparks" "${v[@]}" brief
  measure regen "" "$sparks" "${v[@]}" collections regen --all --dry-run
  measure prepare ingest "$sparks" "${v[@]}" ingest --prepare --limit 500
  measure finalize finalize "$sparks" "${v[@]}" ingest --finalize -m smoke
  bash "$work/helper.sh" ingest "$vault" "$snap"
  # A rename whose backlinks grow with the vault (a fifth of its pages): linear, not quadratic,
  # in the pages it rewrites.
  export HUB_PATH MV_OLD=$HUB_TITLE MV_NEW="Bench Renamed Hub"
  bench_hub_backlinks "$sparks" "$vault" $((size / 5)) "$work" >/dev/null
  measure mv mv-back "$sparks" "${v[@]}" mv "$MV_OLD" "$MV_NEW"
  bash "$work/helper.sh" mv-back "$vault" "$snap"
  # The same hub merged into another page, the files it changed put back before each run.
  export MERGE_FROM=$HUB_TITLE MERGE_INTO="Bench Merge Target"
  bench_merge_setup "$sparks" "$vault" "$snap" "$work/merge.files"
  measure merge merge-back "$sparks" "${v[@]}" merge "$MERGE_FROM" "$MERGE_INTO"
  bash "$work/helper.sh" merge-back "$vault" "$snap"
  # One entry appended to the inbox, put back before each run: the same work at any size.
  measure capture capture "$sparks" "${v[@]}" capture "a thought"
  bash "$work/helper.sh" capture "$vault" "$snap"
  measure mcp "" python3 "$work/mcp_client.py" "$sparks" "$vault"
  bench_view "$sparks" "$vault" "$work"
  [ -n "$view_url" ] || { kill "$view_pid"; echo "bench-smoke: the viewer printed no URL" >&2; exit 1; }
  bench_view_shows "$view_page" "$HUB_PATH" ||
    { kill "$view_pid"; echo "bench-smoke: $view_page is not the hub page with its neighbourhood" >&2; exit 1; }
  measure view "" curl -sfL -o /dev/null "$view_page"
  measure view_graph "" curl -sfL -o /dev/null "${view_url%/}/graph"
  kill "$view_pid"
  wait "$view_pid" 2>/dev/null || true
  # The watcher and sync, by the scripts `make bench` runs (a second of idling is enough here):
  # their medians join the growth check, in microseconds like the rest.
  : >"$work/more.tsv"
  python3 scripts/bench_watch.py "$sparks" "$vault" "$size" "$work/more.tsv" "$TAG" 1
  python3 scripts/bench_sync.py "$sparks" "$vault" "$size" "$work/more.tsv" "$work"
  awk -F'\t' '$2 ~ /^(watch_query_warm|watch_latency|watch_storm|sync_out|sync_in|sync_noop)$/ {
      if ($5 != "ok") { print "bench-smoke: " $3 " did not complete: " $5 > "/dev/stderr"; exit 1 }
      printf "%s\t%s\t%d\n", $1, $2, $7 * 1e6 }' "$work/more.tsv" >>"$results"
  rm -rf "$vault" "$snap"
done

python3 - "$results" "$floor" "$limit" "$(($(date +%s) - started))" <<'EOF'
import sys
path, floor, limit, elapsed = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
rows = [l.split("\t") for l in open(path).read().splitlines()]
sizes = list(dict.fromkeys(r[0] for r in rows))
small, large = sizes[0], sizes[-1]
t = {(r[0], r[1]): int(r[2]) / 1e6 for r in rows}
bad = []
print("bench-smoke: growth from %s to %s pages (limit %g×, times below %g s counted as %g s)"
      % (small, large, limit, floor, floor))
for id in dict.fromkeys(r[1] for r in rows):
    a, b = t[(small, id)], t[(large, id)]
    g = max(b, floor) / max(a, floor)
    flag = "  TOO STEEP" if g > limit else ""
    print("  %-17s %8.3f s  %8.3f s  %5.1f×%s" % (id, a, b, g, flag))
    if g > limit:
        bad.append(id)
print("bench-smoke: %s s in all" % elapsed)
if bad:
    sys.exit("bench-smoke: grew more than %g×: %s" % (limit, ", ".join(bad)))
EOF
