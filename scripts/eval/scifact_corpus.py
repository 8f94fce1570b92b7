#!/usr/bin/env python3
"""Rebuild SciFact's corpus.jsonl in BEIR's form from the SciFact release's corpus, for when
BEIR's scifact.zip cannot be had (it could not on the machine that first ran `make eval`).

Usage: scifact_corpus.py CORPUS_CSV OUT_JSONL

CORPUS_CSV is the release's corpus table (allenai/scifact, config "corpus": doc_id, title,
abstract, structured) as pandas writes it to CSV, the abstract a numpy array of sentences
printed with Python's quoting; the one known copy (corpus_train.csv, 5,183 rows) is pinned
below. Each document becomes BEIR's line {"_id", "title", "text", "metadata": {}}, the text
the abstract's sentences joined by a space. The result is the copy testsets.py knows as
"rebuilt from the SciFact release's corpus": 565 bytes shorter than BEIR's own corpus.jsonl,
whose bytes were not at hand to find where.
"""

import ast
import csv
import hashlib
import json
import re
import sys

CSV_SHA256 = "f4a79c38ef6abf2ebb23612d155e77b4add75cc94f218e9a5d70a454fe3190b4"
# One Python string literal, as numpy prints each sentence of the array.
LITERAL = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*\"""", re.S)


def sentences(cell, where):
    """The sentences of one abstract cell: `['…' '…']`, literals apart by blanks."""
    cell = cell.strip()
    if not (cell.startswith("[") and cell.endswith("]")):
        raise SystemExit(f"error: {where}: the abstract is not a bracketed list")
    inner = cell[1:-1]
    if LITERAL.sub("", inner).strip():
        raise SystemExit(f"error: {where}: the abstract has text outside string literals")
    return [ast.literal_eval(m.group(0)) for m in LITERAL.finditer(inner)]


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__.split("\n\n")[1])
    source, out = sys.argv[1], sys.argv[2]
    with open(source, "rb") as f:
        got = hashlib.sha256(f.read()).hexdigest()
    if got != CSV_SHA256:
        raise SystemExit(f"error: {source}: SHA-256 is {got}, want {CSV_SHA256}")
    csv.field_size_limit(1 << 30)
    lines = []
    with open(source, encoding="utf-8", newline="") as f:
        for number, row in enumerate(csv.DictReader(f), start=2):
            text = " ".join(sentences(row["abstract"], f"{source}: row {number}"))
            document = {"_id": row["doc_id"], "title": row["title"], "text": text, "metadata": {}}
            lines.append(json.dumps(document, ensure_ascii=False) + "\n")
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(lines)
    print(f"{out}: {len(lines)} documents")


if __name__ == "__main__":
    main()
