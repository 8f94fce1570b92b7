# The two set-up commands are `make demo` and `make test`; the rest are for development.
CARGO ?= cargo
DEMO_DIR ?= target/demo

.PHONY: all build test demo bench man fmt clippy

all: build

build:
	$(CARGO) build --release

## Every check CI runs: formatting, lints, all tests.
test:
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets -- -D warnings
	bash scripts/test-deps.sh
	$(CARGO) test

## Build the release binary and walk a sample vault through the whole ingest cycle.
demo:
	$(CARGO) build --release --bins --examples
	SPARKS="$(abspath $(or $(CARGO_TARGET_DIR),target))/release/sparks" \
	AGENT="$(abspath $(or $(CARGO_TARGET_DIR),target))/release/examples/standin_agent" \
	DEMO_DIR="$(DEMO_DIR)" sh examples/demo.sh

## Build the release binary and the vault generator, then benchmark 1k/10k/100k-page vaults
## into BENCHMARKS.md (about 20 minutes; not part of `make test`).
bench:
	$(CARGO) build --release --bin sparks --example gen_vault
	bash scripts/bench.sh

## Write the man pages, sparks.1 and one per command, to target/man/ (`man -l target/man/sparks.1`).
man:
	$(CARGO) run --quiet --example man -- "$(or $(CARGO_TARGET_DIR),target)/man"

fmt:
	$(CARGO) fmt

clippy:
	$(CARGO) clippy --all-targets -- -D warnings
