# What scripts/bench.sh and scripts/bench-smoke.sh share: the vault they generate and set up,
# the steps that put it back in shape between runs, and the MCP client. Sourced, not run.
# shellcheck shell=bash disable=SC2034

# The agent's loop every benchmark measures: an inbox of 600 captures, and a batch of 15 entries
# that finalize closes with 5 pages written for it (issue 20).
inbox_entries=600
finalize_batch=15
finalize_pages=5

# bench_tools WORK: write WORK/helper.sh (the steps below, run before a measured command) and
# WORK/mcp_client.py. The helper reads SPARKS_BIN, LIMIT (the batch `ingest --prepare`
# takes) and BATCH (the batch `ingest --finalize` closes, with PAGES pages written for it).
bench_tools() {
  local work=$1
  cat >"$work/helper.sh" <<'EOF'
#!/usr/bin/env bash
# prepare steps: helper.sh STEP VAULT SNAPSHOT
set -euo pipefail
step=$1 vault=$2 snap=$3
sparks=$SPARKS_BIN
restore() {
  "$sparks" --vault "$vault" ingest --abort >/dev/null 2>&1 || true
  cp -p "$snap/inbox.md" "$vault/inbox.md"
  rm -rf "$vault/raw/inbox"
  cp -a "$snap/raw-inbox" "$vault/raw/inbox"
}
case $step in
  cold) rm -f "$vault/sparks.db" "$vault/sparks.db-wal" "$vault/sparks.db-shm" ;;
  change)
    # A real edit of 1% of the pages: a line appended, so hash and parse run again.
    n=$(cat "$snap/edits")
    while IFS= read -r f; do printf '\nEdited by the benchmark, run %s.\n' "$n" >>"$vault/$f"; done <"$snap/changed.list"
    echo $((n + 1)) >"$snap/edits" ;;
  ingest) restore; "$sparks" --vault "$vault" scan >/dev/null ;;
  finalize)
    # An agent's loop: a batch prepared, pages written for it, then finalize (measured).
    restore
    rm -rf "$vault/wiki/bench"
    "$sparks" --vault "$vault" scan >/dev/null
    "$sparks" --vault "$vault" ingest --prepare --limit "$BATCH" >/dev/null
    mkdir -p "$vault/wiki/bench"
    n=$(date +%s%N)
    for i in $(seq "$PAGES"); do
      printf -- '---\ntitle: Bench page %s %s\ntype: concept\ntags: [bench]\n---\n\nWritten for the batch; see [[%s]].\n' \
        "$i" "$n" "$HUB_TITLE" >"$vault/wiki/bench/page-$i.md"
    done ;;
  mv-back)
    # Undo the measured rename (before the first run there is nothing to undo).
    "$sparks" --vault "$vault" mv "$MV_NEW" "$MV_OLD" >/dev/null 2>&1 || true ;;
  merge-back)
    # Undo the measured merge: the files it changed, copied before the first run into
    # SNAPSHOT/merge, put back (the deleted page with them), and the vault scanned.
    cp -a "$snap/merge/." "$vault/"
    "$sparks" --vault "$vault" scan >/dev/null ;;
  capture) cp -p "$snap/inbox.md" "$vault/inbox.md" ;;
  publish-cold)
    # No site and nothing remembered of one: every page made (issue 53).
    rm -rf "$snap/site" "$vault/.sparks/publish" ;;
  publish-one)
    # One page edited since the last publish (its body: a line appended).
    f=$(head -n 1 "$snap/changed.list")
    printf '\nEdited for the publish benchmark at %s.\n' "$(date +%s%N)" >>"$vault/$f" ;;
  publish-copy)
    # No copy of the site yet (the floor of a cold publish: its files alone).
    rm -rf "$snap/site-copy" ;;
  *) echo "unknown step $step" >&2; exit 2 ;;
esac
EOF
  # The MCP client: hand-written JSON-RPC lines over stdio (initialize, initialized, one call).
  cat >"$work/mcp_client.py" <<'EOF'
import json, subprocess, sys
# mcp_client.py SPARKS VAULT [ARGS...]: ARGS run the server (default: serve).
sparks, vault, args = sys.argv[1], sys.argv[2], sys.argv[3:] or ["serve"]
p = subprocess.Popen([sparks, "--vault", vault, *args], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def send(msg):
    p.stdin.write((json.dumps(msg) + "\n").encode())
    p.stdin.flush()
def answer(i):
    for line in p.stdout:
        msg = json.loads(line)
        if msg.get("id") == i:
            if "error" in msg:
                sys.exit("error: %s" % msg["error"])
            return msg["result"]
    sys.exit("the server closed stdout before answering %d" % i)
send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
      "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                 "clientInfo": {"name": "bench", "version": "0"}}})
answer(1)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
      "params": {"name": "sparks_status", "arguments": {}}})
if answer(2).get("isError"):
    sys.exit("sparks_status failed")
p.stdin.close()
sys.exit(p.wait())
EOF
}

# bench_generate GEN SPARKS VAULT SNAP SIZE INBOX SEED TODAY: a fresh vault of SIZE pages and
# its snapshot (the inbox and the archive to restore, the 1% of pages to edit), initialised;
# then source VAULT/.bench-hints for the names the commands query by.
bench_generate() {
  local gen=$1 sparks=$2 vault=$3 snap=$4 size=$5 inbox=$6 seed=$7 today=$8
  rm -rf "$vault" "$snap"
  "$gen" "$vault" --pages "$size" --inbox "$inbox" --seed "$seed" --today "$today" || return 1
  mkdir -p "$snap"
  cp -p "$vault/inbox.md" "$snap/inbox.md"
  cp -a "$vault/raw/inbox" "$snap/raw-inbox"
  (cd "$vault" && find wiki -name '*.md' -not -path 'wiki/collections/*' -not -path 'wiki/index*' -not -name log.md | sort | awk 'NR % 100 == 0') >"$snap/changed.list"
  echo 1 >"$snap/edits"
  "$sparks" init "$vault" >/dev/null
}

# bench_hints VAULT: the names the commands query by, from VAULT/.bench-hints (HUB_TITLE, exported
# for the helper, HUB_PATH, RESOLVE_NAME, TAG, WORD, PHRASE), and SENTENCE, the question of the
# sentence row: words of the generated pages, in a sentence.
bench_hints() {
  # shellcheck disable=SC1091
  . "$1/.bench-hints"
  export HUB_TITLE
  SENTENCE="why does $WORD rise when the cache is cold"
}

# bench_view SPARKS VAULT WORK: start `sparks view` on a free port in the background and wait
# for its watcher's first scan; sets view_pid, view_url (empty when it printed no URL within
# 10 s) and view_page, the URL of the hub page (HUB_PATH) as the viewer links it:
# `/wiki/<path>` without `.md`, one request (the `/page/wiki/…` form of earlier versions
# answers with a redirect to it).
bench_view() {
  local sparks=$1 vault=$2 work=$3
  "$sparks" --vault "$vault" view --addr 127.0.0.1:0 >"$work/view.out" 2>/dev/null &
  view_pid=$!
  view_url=
  for _ in $(seq 100); do
    view_url=$(grep -o 'http://[^ ]*' "$work/view.out" | head -n 1 || true)
    [ -n "$view_url" ] && break
    sleep 0.1
  done
  view_page=${view_url%/}/$(python3 -c "import sys, urllib.parse; p = sys.argv[1]; print(urllib.parse.quote(p[:-3] if p.endswith('.md') else p))" "$HUB_PATH")
  # Then its watcher's first scan, done when status names the viewer as the watcher vouching
  # since some time (up to 5 minutes: seconds at a million pages), so that no page is timed
  # while that scan runs.
  [ -n "$view_url" ] || return 0
  for _ in $(seq 1500); do
    "$sparks" --vault "$vault" status --json --no-refresh 2>/dev/null | python3 -c '
import json, sys
w = json.load(sys.stdin).get("watch") or {}
sys.exit(0 if w.get("pid") == int(sys.argv[1]) and w.get("since") else 1)' "$view_pid" && break
    sleep 0.1
  done
}

# bench_view_shows URL PATH: whether the viewer's page at URL is the page PATH with its
# neighbourhood drawn: the sidebar's graph, the node of PATH marked as the page shown.
bench_view_shows() {
  local url=$1 path=$2 page
  page=$(curl -sfL "$url") || return 1
  grep -qF '<section class="neighbourhood">' <<<"$page" || return 1
  grep -o '<a [^>]*aria-current="page"[^>]*>' <<<"$page" | grep -qF "data-path=\"$path\""
}

# bench_settle SPARKS VAULT: after the first scan, the index and the collection pages written,
# a batch prepared and aborted, and the vault scanned again, so that the measured commands see
# it in its steady state.
bench_settle() {
  local sparks=$1 vault=$2
  "$sparks" --vault "$vault" index >/dev/null 2>&1 || echo "bench: index failed" >&2
  "$sparks" --vault "$vault" collections regen --all >/dev/null 2>&1 || echo "bench: collections regen failed" >&2
  # The first prepare of a manifest copies every page outside git (what a revert needs), once:
  # the agent's loop that prepare and finalize are measured in comes after it.
  "$sparks" --vault "$vault" ingest --prepare --limit 1 >/dev/null 2>&1 || true
  "$sparks" --vault "$vault" ingest --abort >/dev/null 2>&1 || true
  "$sparks" --vault "$vault" scan >/dev/null 2>&1 || true
  "$sparks" --vault "$vault" scan >/dev/null 2>&1 || true
}

# bench_hub_backlinks SPARKS VAULT WANT WORK: give the hub page (HUB_TITLE, HUB_PATH) at least
# WANT backlinks, a link appended to pages that have none, then scan, so that `mv` starts from
# a warm manifest; prints how many pages link to it.
bench_hub_backlinks() {
  local sparks=$1 vault=$2 want=$3 work=$4
  "$sparks" --vault "$vault" query --links-to "$HUB_TITLE" >"$work/linking" 2>/dev/null || true
  python3 - "$vault" "$HUB_TITLE" "$HUB_PATH" "$want" "$work/linking" <<'PY'
import os, sys
vault, title, hub, want, linking = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
have = set(l.strip() for l in open(linking) if l.strip())
pages = []
for d, _, files in os.walk(os.path.join(vault, "wiki")):
    for f in files:
        rel = os.path.relpath(os.path.join(d, f), vault)
        if f.endswith(".md") and not rel.startswith(("wiki/collections/", "wiki/index")) \
                and rel not in ("wiki/log.md", hub) and rel not in have:
            pages.append(rel)
for rel in sorted(pages)[: max(0, want - len(have))]:
    with open(os.path.join(vault, rel), "a") as f:
        f.write("\nSee also [[%s]].\n" % title)
PY
  "$sparks" --vault "$vault" scan >/dev/null 2>&1 || true
  "$sparks" --vault "$vault" query --links-to "$HUB_TITLE" 2>/dev/null | wc -l
}

# bench_plan_files SPARKS VAULT OUT COMMAND ARGS...: the files `sparks COMMAND ARGS --dry-run
# --json` would rewrite, one a line in OUT: the plan of an mv or merge (a moved page by the path
# it has now, a deleted page left out; the index and collection pages regenerated after the
# plan's writes are not in it).
bench_plan_files() {
  local sparks=$1 vault=$2 out=$3
  shift 3
  "$sparks" --vault "$vault" "$@" --dry-run --json 2>/dev/null | python3 -c '
import json, sys
plan = json.load(sys.stdin)
for c in plan["changes"]:
    if c["path"] != plan.get("deleted"):
        print(c.get("moved_from", c["path"]))' >"$out"
}

# bench_merge_setup SPARKS VAULT SNAP LIST: MERGE_INTO, a small page that the hub (MERGE_FROM,
# at HUB_PATH) is merged into, written (no heading that a link could make ambiguous) and
# scanned; LIST gets the files the merge rewrites (bench_plan_files), and SNAP/merge a copy of
# them, the hub and the index and collection pages the merge may regenerate: what the helper's
# merge-back step puts back.
bench_merge_setup() {
  local sparks=$1 vault=$2 snap=$3 list=$4
  printf -- '---\ntitle: %s\ntype: concept\ntags: [bench]\n---\n\nThe page the benchmark merges the hub into.\n' \
    "$MERGE_INTO" >"$vault/wiki/concepts/$MERGE_INTO.md"
  "$sparks" --vault "$vault" scan >/dev/null 2>&1 || true
  bench_plan_files "$sparks" "$vault" "$list" merge "$MERGE_FROM" "$MERGE_INTO"
  rm -rf "$snap/merge"
  mkdir -p "$snap/merge"
  (cd "$vault" && { cat "$list"; echo "$HUB_PATH"; find wiki/index.md wiki/index wiki/collections -type f; } |
    sort -u | xargs -d '\n' cp -a --parents -t "$snap/merge")
}
