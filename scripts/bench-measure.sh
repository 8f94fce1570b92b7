# What scripts/bench.sh and scripts/bench-million.sh share: measuring commands beside the floors
# of the same vault into one results file, and describing the machine. Sourced, not run.
#
# The functions read the caller's variables: bench_name (what log lines start with), sparks,
# vault, snap, size, work, results (the TSV, one line a measurement: size id label floor status
# runs median min max rss_kb note), helper (bench-common.sh's helper.sh), budget (seconds of
# measuring per command), timeout_s, py, repo and bench; max_runs, floor_runs and floor_warmup
# when set (see measure and floor).
# shellcheck shell=bash disable=SC2154

log() { printf '%s: %s\n' "${bench_name:-bench}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${bench_name:-bench}" "$*" >&2; exit 1; }

# bench_paths: target (CARGO_TARGET_DIR, or target/ in repo), bench (its bench/ folder), and
# the release binaries sparks and gen (the vault generator) unless SPARKS and GEN_VAULT name
# others.
bench_paths() {
  target=${CARGO_TARGET_DIR:-target}
  case $target in /*) ;; *) target=$repo/$target ;; esac
  sparks=${SPARKS:-$target/release/sparks}
  gen=${GEN_VAULT:-$target/release/examples/gen_vault}
  bench=$target/bench
}

# bench_need_tools: hyperfine, GNU time, python3 and curl, installed from Debian's packages
# when missing and run as root; sets py, Debian's interpreter when there is one (a version
# manager's shim can add 0.3 s to each start).
bench_need_tools() {
  local need=()
  command -v hyperfine >/dev/null || need+=(hyperfine)
  { [ -x /usr/bin/time ] && /usr/bin/time --version 2>&1 | grep -q GNU; } || need+=(time)
  { [ -x /usr/bin/python3 ] || command -v python3 >/dev/null; } || need+=(python3)
  command -v curl >/dev/null || need+=(curl)
  if [ ${#need[@]} -gt 0 ]; then
    [ "$(id -u)" -eq 0 ] || die "missing ${need[*]}: install Debian's packages (apt-get install -y ${need[*]})"
    log "installing ${need[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 update -qq
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${need[@]}" >/dev/null
  fi
  py=/usr/bin/python3
  [ -x "$py" ] || py=$(command -v python3)
}

record() { local IFS=$'\t'; printf '%s\n' "$*" >>"$results"; }

# record_ok ID LABEL FLOOR RSS NOTE STATS: a measurement that completed, STATS being its runs,
# median, min and max in seconds (tab-separated), recorded and logged.
record_ok() {
  local id=$1 label=$2 floor=$3 rss=$4 note=$5 runs median min max
  IFS=$'\t' read -r runs median min max <<<"$6"
  record "$size" "$id" "$label" "$floor" ok "$runs" "$median" "$min" "$max" "$rss" "$note"
  local peak=""
  [ "$rss" = - ] || peak=", $rss KB"
  log "$size $label: median ${median}s over $runs runs${note:+ ($note)}$peak"
}

# bench_workdir DIR: DIR emptied, with a copy of the binary sparks names, which it then names
# (a rebuild during the run cannot swap the binary under the measurements), once it and the
# generator (gen) are found to exist.
bench_workdir() {
  [ -x "$sparks" ] || die "$sparks is missing: run \`make $bench_name\` (or cargo build --release)"
  [ -x "$gen" ] || die "$gen is missing: run \`make $bench_name\` (or cargo build --release --example gen_vault)"
  rm -rf "$1"
  mkdir -p "$1"
  cp -p "$sparks" "$1/sparks"
  sparks=$1/sparks
}

# wanted ID: whether BENCH_ONLY (when set) names ID.
wanted() { [ -z "${BENCH_ONLY:-}" ] || [[ " $BENCH_ONLY " == *" $1 "* ]]; }

# measure ID LABEL FLOOR OK_CODES PREPARE_STEP -- COMMAND...
# A probe run (after its prepare step) gives the peak RSS and the time that sets how many runs
# fit the budget, at most max_runs (30); one that exceeds timeout_s is recorded as not
# completing. With max_runs under 3 a slow command is measured by its probe alone.
measure() {
  local id=$1 label=$2 floor=$3 ok=$4 prep=$5
  shift 6
  wanted "$id" || return 0
  local prep_cmd=()
  [ -n "$prep" ] && prep_cmd=(bash "$helper" "$prep" "$vault" "$snap")
  [ -n "$prep" ] && "${prep_cmd[@]}"
  local rc=0
  /usr/bin/time -f '%e %M' -o "$work/time" timeout -k 5 "$timeout_s" "$@" >"$work/out" 2>"$work/err" || rc=$?
  local probe rss
  read -r probe rss < <(tail -n 1 "$work/time")
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    log "$size $label: did not complete in ${timeout_s}s"
    record "$size" "$id" "$label" "$floor" timeout 1 "$timeout_s" "$timeout_s" "$timeout_s" "$rss" "killed after ${timeout_s} s"
    return 0
  fi
  if [[ " $ok " != *" $rc "* ]]; then
    local why
    why=$(head -c 200 "$work/err" | tr '\t\n' '  ')
    log "$size $label: exit $rc: $why"
    record "$size" "$id" "$label" "$floor" failed 0 - - - "$rss" "exit $rc: $why"
    return 0
  fi
  # Runs: as many as the budget holds, 3 to 30. A command slower than a third of its budget
  # runs three times (the probe and two more, each after its prepare step) and the median of
  # the three is the figure: the probe alone, the first run after other commands, may read
  # from disk what they pushed out of the page cache, and a single run of a long command is
  # as noisy as this VM (mv at 100,000 pages: 12 to 17 s by hand). One over a minute runs once.
  local runs warmup
  runs=$(python3 -c "import sys; b,t,m=float(sys.argv[1]),max(float(sys.argv[2]),0.001),int(sys.argv[3]); print(max(1,min(m,int(b/t))))" "$budget" "$probe" "${max_runs:-30}")
  warmup=$(python3 -c "import sys; t=float(sys.argv[1]); print(2 if t < 0.5 else (1 if t < 5 else 0))" "$probe")
  local stats note=""
  if [ "$runs" -lt 3 ]; then
    local times=("$probe")
    note="one run (the probe)"
    if [ "${max_runs:-30}" -ge 3 ] && python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 60 else 1)" "$probe"; then
      local again
      for _ in 1 2; do
        [ -n "$prep" ] && "${prep_cmd[@]}"
        /usr/bin/time -f '%e %M' -o "$work/time" timeout -k 5 "$timeout_s" "$@" >"$work/out" 2>"$work/err" || true
        read -r again _ < <(tail -n 1 "$work/time")
        times+=("$again")
      done
      note="three runs: the probe and two more"
    fi
    stats=$(python3 -c "import sys,statistics as s; t=[float(x) for x in sys.argv[1:]]; print('%d\t%.6f\t%.6f\t%.6f' % (len(t), s.median(t), min(t), max(t)))" "${times[@]}")
  else
    local hf=(hyperfine -N --style basic --runs "$runs" --warmup "$warmup" --export-json "$work/hf.json")
    [ "$ok" != 0 ] && hf+=(-i)
    [ -n "$prep" ] && hf+=(--prepare "$(printf '%q ' "${prep_cmd[@]}")")
    "${hf[@]}" --command-name "$label" "$(printf '%q ' "$@")" >"$work/hf.out" 2>&1 ||
      { log "$size $label: hyperfine failed: $(tail -n 3 "$work/hf.out")"; record "$size" "$id" "$label" "$floor" failed 0 - - - "$rss" "hyperfine failed"; return 0; }
    stats=$(python3 -c "import json,sys; r=json.load(open(sys.argv[2]))['results'][0]; print('%s\t%.6f\t%.6f\t%.6f' % (sys.argv[1], r['median'], r['min'], r['max']))" "$runs" "$work/hf.json")
  fi
  record_ok "$id" "$label" "$floor" "$rss" "$note" "$stats"
}

# floor ID LABEL SHELL-COMMAND: a shell pipeline measured by hyperfine (shell time subtracted),
# floor_runs runs (10) after floor_warmup warm-ups (2).
floor() {
  local id=$1 label=$2 cmd=$3
  hyperfine --style basic --runs "${floor_runs:-10}" --warmup "${floor_warmup:-2}" --export-json "$work/hf.json" --command-name "$label" "$cmd" >"$work/hf.out" 2>&1 ||
    die "floor $label failed: $(tail -n 3 "$work/hf.out")"
  local stats
  stats=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print('%d\t%.6f\t%.6f\t%.6f' % (len(r['times']), r['median'], r['min'], r['max']))" "$work/hf.json")
  record_ok "$id" "$label" - - "" "$stats"
}

# durable ID WHOSE LIST: the durable-write floor of the files LIST names (vault-relative):
# scripts/bench_durable.py replaces copies of them under $work, on the vault's filesystem, the
# way Sparks writes a file (temporary file, fsync, rename), 16 at a time as mv and merge write.
durable() {
  local id=$1 whose=$2 list=$3 count stats
  count=$(wc -l <"$list")
  local label="write $count files durably (temp, fsync, rename): $whose floor"
  stats=$("$py" "$repo/scripts/bench_durable.py" "$vault" "$list" "$work/durable" "$budget" 2>"$work/err") || {
    log "$size $label: failed: $(head -c 200 "$work/err")"
    record "$size" "$id" "$label" - failed 0 - - - - "$(head -c 200 "$work/err" | tr '\t\n' '  ')"
    return 0
  }
  record_ok "$id" "$label" - - "rounds timed inside python; each directory synced once a round" "$stats"
}

# bench_new_vault: the vault of size pages generated afresh with its snapshot (bench_generate,
# from seed and today), the generator's report logged; dies if it fails.
bench_new_vault() {
  bench_generate "$gen" "$sparks" "$vault" "$snap" "$size" "$inbox_entries" "$seed" "$today" 2>"$work/gen.err" ||
    die "gen_vault failed: $(cat "$work/gen.err")"
  cat "$work/gen.err" >&2
}

# bench_floors: the floors of the vault, over the same files the scan walks (hidden entries and
# sparks.db* left out), with a warm page cache, as the commands have: its files and bytes, list
# (every file with its metadata) and read (every byte).
bench_floors() {
  local files nfiles nbytes
  files="find '$vault' \\( -name 'sparks.db*' -o -name '.*' \\) -prune -o -type f"
  sh -c "$files -exec cat {} + >/dev/null"
  nfiles=$(sh -c "$files -print" | wc -l)
  nbytes=$(sh -c "$files -printf '%s\n'" | awk '{s += $1} END {printf "%.0f\n", s}')
  record "$size" _files "files" - info 0 "$nfiles" "$nbytes" - - ""
  floor list "list every file (find -printf)" "$files -printf '%s %T@ %p\\n' >/dev/null"
  floor read "read every byte (find -exec cat)" "$files -exec cat {} + >/dev/null"
}

# bench_measure_view: start the viewer on the vault and measure the hub page (HUB_PATH) with its
# neighbourhood, checked first to be that page with that drawing, and /graph; their peak RSS is
# the server's.
bench_measure_view() {
  local label="view: GET the hub page with its neighbourhood (curl)" hwm
  bench_view "$sparks" "$vault" "$work"
  if [ -z "$view_url" ]; then
    record "$size" view "$label" list failed 0 - - - - "the viewer printed no URL"
    kill "$view_pid" 2>/dev/null || true
    wait "$view_pid" 2>/dev/null || true
    return 0
  fi
  # The hub page, which thousands of pages link to, its neighbourhood drawn in the sidebar
  # (issues 38, 39); checked to be that page with that drawing before it is timed.
  if bench_view_shows "$view_page" "$HUB_PATH"; then
    measure view "$label" list 0 "" -- curl -sfL -o /dev/null "$view_page"
  else
    record "$size" view "$label" list failed 0 - - - - "$view_page is not the hub page with its neighbourhood"
  fi
  measure view_graph "view: GET /graph (curl)" list 0 "" -- curl -sfL -o /dev/null "${view_url%/}/graph"
  # The server's peak RSS, not curl's.
  hwm=$(awk '/VmHWM/ {print $2}' "/proc/$view_pid/status" 2>/dev/null || echo -)
  python3 - "$results" "$size" "$hwm" <<'EOF'
import sys
path, size, hwm = sys.argv[1:]
rows = [l.rstrip("\n").split("\t") for l in open(path)]
for r in rows:
    if r[0] == size and r[1] in ("view", "view_graph"):
        r[9] = hwm
        r[10] = (r[10] + "; " if r[10] else "") + "peak RSS of the server"
open(path, "w").write("".join("\t".join(r) + "\n" for r in rows))
EOF
  kill "$view_pid" 2>/dev/null || true
  wait "$view_pid" 2>/dev/null || true
}

# bench_describe LOAD_BEFORE: export BENCH_MACHINE (CPU, memory, disk, kernel, the load average
# at the start and now) and BENCH_VERSIONS (sparks, the work tree, hyperfine, rustc).
bench_describe() {
  local load_before=$1 load_after cpu mem fsinfo dev rot
  load_after=$(cut -d' ' -f1-3 /proc/loadavg)
  cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
  mem=$(awk '/MemTotal/ {printf "%.1f GB", $2 / 1048576}' /proc/meminfo)
  fsinfo=$(df -PT "$bench" | awk 'NR == 2 {print $2 " on " $1 ", " int($3 / 1048576) " GB"}')
  dev=$(df -P "$bench" | awk 'NR == 2 {print $1}' | sed 's#/dev/##; s#[0-9]*$##')
  rot=$(cat "/sys/block/$dev/queue/rotational" 2>/dev/null || echo "?")
  case $rot in 0) fsinfo="$fsinfo, reported not rotational" ;; 1) fsinfo="$fsinfo, reported rotational (a virtual disk may say so whatever it is)" ;; esac
  BENCH_MACHINE="nproc $(nproc); CPU: $cpu; RAM: $mem; disk: $fsinfo; kernel: $(uname -sr); load average (1, 5, 15 min) $load_before at the start, $load_after at the end"
  BENCH_VERSIONS="$("$sparks" --version), work tree at $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$repo" diff --quiet HEAD 2>/dev/null || echo ' with uncommitted changes'); $(hyperfine --version); $(rustc --version 2>/dev/null || echo rustc ?)"
  export BENCH_MACHINE BENCH_VERSIONS
}
