#!/bin/sh
# `make demo`: a sample vault walked through the ingest cycle. The agent step is a scripted
# stand-in (examples/standin_agent.rs), not a language model.
set -eu
: "${SPARKS:?set SPARKS to the sparks binary}" "${AGENT:?set AGENT to the stand-in agent}"
DEMO_DIR="${DEMO_DIR:-target/demo}"
rm -rf "$DEMO_DIR"
mkdir -p "$DEMO_DIR"
DEMO_DIR=$(cd "$DEMO_DIR" && pwd)
V="$DEMO_DIR/notes"
export SPARKS

# Show each command (on stderr, so that redirected output stays pure data) as a shell would
# need it typed, arguments with spaces or quotes quoted, then run it.
run() {
  shown=""
  for arg in "$@"; do
    case "$arg" in
      *[!A-Za-z0-9_./=:@%+,-]*|"") arg="'$(printf '%s' "$arg" | sed "s/'/'\\\\''/g")'" ;;
    esac
    shown="$shown $arg"
  done
  printf '\n$%s\n' "$shown" | sed "s#$SPARKS#sparks#g; s#$AGENT#standin_agent#g; s#$DEMO_DIR/##g" >&2
  "$@"
}

run "$SPARKS" init "$V" --agent claude
cd "$V"
git init -q
git config user.name "Sparks Demo"
git config user.email demo@example.invalid

cat >> inbox.md <<'CAPTURES'
2026-04-10
Read https://sqlite.org/wal.html on write-ahead logging.
- [ ] Try WAL mode on the notes database
---
book: The Pragmatic Programmer
---
> Simplicity is prerequisite for reliability.
"Simplicity is prerequisite for reliability" — Edsger Dijkstra
---
to-read: https://www.rfc-editor.org/rfc/rfc9110
---
Idea: a weekly review that starts from the inbox archive.
CAPTURES

run "$SPARKS" status
run "$SPARKS" ingest --prepare --limit 3 > "$DEMO_DIR/batch.json"
echo "(batch of $(grep -c '"capture_date"' "$DEMO_DIR/batch.json") entries written to batch.json)"
run "$AGENT" "$V" < "$DEMO_DIR/batch.json"
echo "A capture arrives while the agent works; it is not part of the batch:"
printf -- '---\nCaptured during the ingest: stays in the inbox.\n' >> inbox.md
run tail -n 2 inbox.md
run "$SPARKS" ingest --finalize
run git log --stat --format='%h %s'
run "$SPARKS" status
run "$SPARKS" query --type summary
run "$SPARKS" query --resolve "the pragmatic programmer"
run "$SPARKS" search write-ahead logging
# The stand-in's pages are thin and unlinked, and lint says so (exit 1 is expected here).
run "$SPARKS" lint || true
run "$SPARKS" brief --days 7
run "$SPARKS" done try wal
run tail -n 4 wiki/collections/Tasks.md
run "$SPARKS" ingest --prepare --json=false
run "$SPARKS" ingest --abort
echo
echo "Demo vault: $V"
echo "The sparks binary: $SPARKS"
echo "Put it on your PATH: make install (that is, cargo install --path . --locked)"
echo "Then read the vault in a browser: sparks view --vault $V --open"
