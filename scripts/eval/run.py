#!/usr/bin/env python3
"""Score `sparks search` on the test collections fetch.py converted: nDCG@10 and Recall@10.

Usage: run.py [--binary PATH] [--only NAME ...] [--workers N] [--out DIR]

Every judged query of a collection is run through the binary as a person would type it
(its text with runs of blanks and line breaks made one space):

    sparks --vault VAULT search --json --limit 10 --no-refresh [--mode M] -- QUERY

once per mode. The modes come from `sparks search --help`: with a --mode option, lexical,
semantic and hybrid; without one, the default search alone, scored as "lexical (today)", and
the other two n/a. Each vault is scanned by the binary first, so that a newer binary's index
is the one searched. Hits map back to documents by path; metrics.py says how the scores are
computed (trec_eval's definitions, averaged over the queries with at least one relevant
document). Beside each mode: plain SQLite FTS5 bm25() over the same pages (baseline.py), and
the published BM25 nDCG@10 where there is one.

Prints a table and writes DIR/results.json (default target/eval/) with every query's hits,
scores and errors. Its exit code is 0 whatever the scores; 1 when the harness itself failed
(a collection not converted, a binary that does not run).
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import baseline  # noqa: E402
import common  # noqa: E402
import metrics  # noqa: E402
import testsets  # noqa: E402

K = 10
MODES = ["lexical", "semantic", "hybrid"]
TODAY = "lexical (today)"
FTS5 = "fts5 bm25()"
QUERY_TIMEOUT = 120


def detect_modes(binary):
    """[(label, extra args)] for the searches to score, and the modes that are n/a."""
    help_text = common.sparks(binary, "search", "--help")
    if "--mode" in help_text:
        return [(mode, ["--mode", mode]) for mode in MODES], []
    return [(TODAY, [])], ["semantic", "hybrid"]


def load(name):
    path = common.meta_path(name)
    if not os.path.isfile(path):
        raise SystemExit(f"error: {path} is missing: run scripts/eval/fetch.py first")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def judged_queries(meta):
    """(query id, text) of the queries with at least one relevant document, by id."""
    qrels = meta["qrels"]
    ids = [qid for qid in meta["queries"] if qrels.get(qid)]
    ids.sort(key=lambda q: (len(q), q))
    return [(qid, meta["queries"][qid]) for qid in ids]


def run_query(binary, vault, mode_args, text):
    """(paths, error): the hits of one search, or why it failed."""
    command = [binary, "--vault", vault, "search", "--json", "--limit", str(K), "--no-refresh"]
    command += [*mode_args, "--", text]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=QUERY_TIMEOUT)
    except subprocess.TimeoutExpired:
        return [], f"timed out after {QUERY_TIMEOUT} s"
    if done.returncode != 0:
        return [], f"exit {done.returncode}: {done.stderr.strip()[:500]}"
    try:
        hits = json.loads(done.stdout)["hits"]
        return [hit["path"] for hit in hits], None
    except (ValueError, KeyError, TypeError) as e:
        return [], f"unreadable JSON ({e}): {done.stdout[:200]!r}"


def score(meta, queries, ranked):
    """Per-query rows and the averages, from {query id: (paths, error)}."""
    pages = meta["pages"]
    rows = []
    for qid, text in queries:
        paths, error = ranked[qid]
        docs = [pages.get(p, p) for p in paths]
        judged = meta["qrels"][qid]
        rows.append(
            {
                "id": qid,
                "query": text,
                "hits": docs,
                "relevant": len(judged),
                "ndcg@10": metrics.ndcg_at(docs, judged, K),
                "recall@10": metrics.recall_at(docs, judged, K),
                "error": error,
            }
        )
    return {
        "ndcg@10": metrics.mean(r["ndcg@10"] for r in rows),
        "recall@10": metrics.mean(r["recall@10"] for r in rows),
        "errors": sum(1 for r in rows if r["error"]),
        "empty": sum(1 for r in rows if not r["error"] and not r["hits"]),
        "queries": rows,
    }


def run_sparks(binary, vault, queries, mode_args, workers):
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {
            qid: pool.submit(run_query, binary, vault, mode_args, text) for qid, text in queries
        }
        return {qid: future.result() for qid, future in futures.items()}


def run_collection(binary, name, modes, workers):
    meta = load(name)
    vault = common.vault_dir(name)
    common.sparks(binary, "--vault", vault, "scan", "--quiet", cwd=vault)
    queries = judged_queries(meta)
    runs = {}
    db, paths = baseline.build(vault, meta["pages"])
    ranked = {qid: (baseline.search(db, paths, text, K), None) for qid, text in queries}
    runs[FTS5] = score(meta, queries, ranked)
    db.close()
    for label, mode_args in modes:
        started = time.monotonic()
        runs[label] = score(meta, queries, run_sparks(binary, vault, queries, mode_args, workers))
        runs[label]["seconds"] = round(time.monotonic() - started, 1)
    return {
        "name": name,
        "title": meta["title"],
        "docs": meta["docs"],
        "queries": len(queries),
        "published_bm25_ndcg10": meta["published_bm25_ndcg10"],
        "runs": runs,
    }


def fmt(value):
    return "—" if value is None else f"{value:.3f}"


def table(results, na):
    """The result as a Markdown table, one row per collection and system."""
    lines = [
        "| collection | docs | queries | system | nDCG@10 | R@10 | errors | empty "
        "| published BM25 nDCG@10 |",
        "|---|--:|--:|---|--:|--:|--:|--:|--:|",
    ]
    for c in results:
        for system, run in c["runs"].items():
            lines.append(
                f"| {c['title']} | {c['docs']:,} | {c['queries']} | {system} "
                f"| {fmt(run['ndcg@10'])} | {fmt(run['recall@10'])} | {run['errors']} "
                f"| {run['empty']} | {fmt(c['published_bm25_ndcg10'])} |"
            )
        for mode in na:
            lines.append(
                f"| {c['title']} | {c['docs']:,} | {c['queries']} | {mode} | n/a | n/a "
                f"| n/a | n/a | {fmt(c['published_bm25_ndcg10'])} |"
            )
    return "\n".join(lines)


def checks(results):
    """The issue's conditions for done, one line each, for every collection."""
    lines = []
    for c in results:
        runs = c["runs"]
        label = "lexical" if "lexical" in runs else TODAY
        lexical, fts = runs[label], runs[FTS5]
        verdict = "met" if lexical["ndcg@10"] >= fts["ndcg@10"] else "NOT met"
        lines.append(
            f"{c['title']}: {label} {fmt(lexical['ndcg@10'])} >= FTS5 bm25() "
            f"{fmt(fts['ndcg@10'])}: {verdict}"
        )
        if "hybrid" in runs:
            best = max(runs["lexical"]["ndcg@10"], runs["semantic"]["ndcg@10"])
            verdict = "met" if runs["hybrid"]["ndcg@10"] >= best else "NOT met"
            lines.append(
                f"{c['title']}: hybrid {fmt(runs['hybrid']['ndcg@10'])} >= the better of "
                f"lexical and semantic {fmt(best)}: {verdict}"
            )
        for system, run in runs.items():
            if system == FTS5:
                continue
            verdict = "met" if run["errors"] == 0 and run["empty"] == 0 else "NOT met"
            lines.append(
                f"{c['title']}: {system}: {run['errors']} queries failed, {run['empty']} "
                f"returned nothing (every query is a sentence or a phrase): {verdict}"
            )
    return lines


def version(binary):
    try:
        return common.sparks(binary, "--version").strip()
    except SystemExit:
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=common.default_binary())
    parser.add_argument("--only", action="append", default=[], metavar="NAME")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=os.path.join(common.REPO, "target", "eval"))
    args = parser.parse_args()
    if args.workers < 1:
        raise SystemExit(f"error: --workers must be at least 1, got {args.workers}")
    try:
        names = [testsets.by_name(n).name for n in args.only] or [
            c.name for c in testsets.COLLECTIONS
        ]
    except testsets.DataError as e:
        raise SystemExit(f"error: {e}")
    binary = common.check_binary(os.path.abspath(args.binary))

    started = time.monotonic()
    modes, na = detect_modes(binary)
    results = [run_collection(binary, name, modes, args.workers) for name in names]
    elapsed = time.monotonic() - started

    print(table(results, na))
    print()
    for line in checks(results):
        print(line)
    print(f"\n{sum(c['queries'] for c in results)} queries per system, {elapsed:.0f} s")

    os.makedirs(args.out, exist_ok=True)
    out = os.path.join(args.out, "results.json")
    document = {
        "binary": binary,
        "version": version(binary),
        "at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(elapsed, 1),
        "k": K,
        "not_available": na,
        "collections": results,
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(document, f, ensure_ascii=False, indent=1)
    print(f"per-query results: {out}")


if __name__ == "__main__":
    main()
