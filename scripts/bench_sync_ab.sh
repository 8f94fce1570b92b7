#!/usr/bin/env bash
# A/B of sync out, in and nothing-new between two release binaries, alternating, each on its
# own copy of one generated vault, with scripts/bench_sync.py (medians of 5 syncs a round).
# Usage: bench_sync_ab.sh OLD_SPARKS NEW_SPARKS GEN_VAULT WORK [PAGES] [ROUNDS]
# Results: WORK/results-old.tsv and WORK/results-new.tsv (bench.sh's TSV columns).
set -euo pipefail
old=$1 new=$2 gen=$3 work=$4 pages=${5:-10000} rounds=${6:-2}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
rm -rf "$work/base" "$work"/results-*.tsv
"$gen" "$work/base" --pages "$pages" --inbox 200 --seed 7 --today "$(date +%F)" >/dev/null
for round in $(seq "$rounds"); do
  for which in old new; do
    bin=$old
    [ "$which" = new ] && bin=$new
    v=$work/vault-$which-$round
    rm -rf "$v" "$work/work-$which-$round"
    mkdir -p "$work/work-$which-$round"
    cp -a "$work/base" "$v"
    "$bin" init "$v" >/dev/null
    "$bin" --vault "$v" scan >/dev/null
    python3 "$here/bench_sync.py" "$bin" "$v" "$pages" "$work/results-$which.tsv" "$work/work-$which-$round"
    rm -rf "$v" "$work/work-$which-$round"
  done
done
