"""The plain FTS5 bm25() baseline run.py prints beside sparks: SQLite's own ranking over the
same pages, with nothing of sparks' query language or ranking.

One FTS5 table (title, body), tokenizer `unicode61 remove_diacritics 2`, filled from the
vault's pages as written: title = the frontmatter title, body = everything after the
frontmatter (the `# Title` line included). A query becomes its alphanumeric tokens, each
double-quoted, joined by OR; hits are ranked by bm25() with its default weights, best first.
"""

import json
import os
import re
import sqlite3

TOKEN = re.compile(r"[^\W_]+")


def split_page(text):
    """(title, body) of a page fetch.py wrote: frontmatter, then the body."""
    if not text.startswith("---\n"):
        raise ValueError("no frontmatter")
    end = text.index("\n---\n", 4)
    title = ""
    for line in text[4:end].split("\n"):
        if line.startswith("title: "):
            title = json.loads(line[len("title: ") :])
    return title, text[end + len("\n---\n") :]


def build(vault, pages):
    """An in-memory FTS5 index of the pages; rowid i is the i-th path of `pages`."""
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE VIRTUAL TABLE pages USING fts5(title, body, "
        "tokenize = 'unicode61 remove_diacritics 2')"
    )
    paths = sorted(pages)
    rows = []
    for rowid, path in enumerate(paths, start=1):
        with open(os.path.join(vault, path), encoding="utf-8") as f:
            try:
                title, body = split_page(f.read())
            except ValueError as e:
                raise ValueError(f"{os.path.join(vault, path)}: {e}") from e
        rows.append((rowid, title, body))
    db.executemany("INSERT INTO pages(rowid, title, body) VALUES (?, ?, ?)", rows)
    return db, paths


def match_expression(query):
    """The query's alphanumeric tokens, each quoted, joined by OR; None when it has none."""
    tokens = TOKEN.findall(query)
    return " OR ".join(f'"{t}"' for t in tokens) if tokens else None


def search(db, paths, query, limit=10):
    """The paths of the best `limit` pages for the query, best first."""
    expression = match_expression(query)
    if expression is None:
        return []
    rows = db.execute(
        "SELECT rowid FROM pages WHERE pages MATCH ? ORDER BY bm25(pages) LIMIT ?",
        (expression, limit),
    )
    return [paths[rowid - 1] for (rowid,) in rows]
