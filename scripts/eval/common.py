"""Paths and the sparks binary, shared by fetch.py and run.py."""

import os
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def data_dir():
    """The cache: $SPARKS_EVAL_DATA, else target/eval-data in the repository."""
    return os.path.abspath(
        os.environ.get("SPARKS_EVAL_DATA") or os.path.join(REPO, "target", "eval-data")
    )


def default_binary():
    """The release binary `make eval` builds: $CARGO_TARGET_DIR/release/sparks, else
    target/release/sparks in the repository."""
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO, "target")
    return os.path.join(os.path.abspath(target), "release", "sparks")


def check_binary(path):
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise SystemExit(
            f"error: no sparks binary at {path}: build it (make eval builds the release one) "
            "or pass --binary PATH"
        )
    return path


def sparks(binary, *args, cwd=None, timeout=600):
    """Run the binary; a non-zero exit raises with its stderr."""
    done = subprocess.run(
        [binary, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0:
        raise SystemExit(
            f"error: `sparks {' '.join(args)}` (in {cwd or os.getcwd()}) exited "
            f"{done.returncode}: {done.stderr.strip()}"
        )
    return done.stdout


def collection_dir(name):
    return os.path.join(data_dir(), name)


def vault_dir(name):
    return os.path.join(collection_dir(name), "vault")


def meta_path(name):
    """The converted collection: queries, judgments, and which page is which document."""
    return os.path.join(collection_dir(name), "collection.json")
