"""Score `sparks related` on real notes by hiding links (issue 52).

A page that links to another says the two belong together. Hide one such link at a time (the
link made plain text: `[[Target|label]]` becomes `label`, `[[Target]]` becomes `Target`),
scan, and ask `sparks related PAGE` for its nearest pages: Recall@5 and Recall@10 are the
share of hidden links whose target comes back in the first 5 and 10. The baseline is the
ranked search over the page's text alone (`sparks search -- TEXT`, by words and by the
default hybrid of words and meaning, the page itself left out). Every page is put back before
the next link is hidden.

The notes are a folder of Markdown files (the Obsidian help vault, `en/` of
github.com/obsidianmd/obsidian-help, is what BENCHMARKS.md reports): copied under `wiki/` of a
fresh vault, folders kept. Their digest (SHA-256 over the sorted paths and bytes) is printed,
so a run names exactly what it scored.

    python3 scripts/eval/related.py --notes DIR [--binary PATH] [--links N]
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

K = 10
WIKILINK = re.compile(r"(!?)\[\[([^\]|#^]*)((?:#[^\]|]*)?)(?:\|([^\]]*))?\]\]")


def digest(notes):
    """SHA-256 over the sorted relative paths and bytes of the Markdown files under `notes`."""
    h = hashlib.sha256()
    for rel in sorted(markdown_files(notes)):
        h.update(rel.encode() + b"\0")
        with open(os.path.join(notes, rel), "rb") as f:
            h.update(f.read())
        h.update(b"\0")
    return h.hexdigest()


def markdown_files(notes):
    out = []
    for root, dirs, files in os.walk(notes):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if name.endswith(".md"):
                out.append(os.path.relpath(os.path.join(root, name), notes))
    return out


def make_vault(binary, notes, where):
    vault = os.path.join(where, "vault")
    os.makedirs(vault)
    common.sparks(binary, "init", cwd=vault)
    for rel in markdown_files(notes):
        dest = os.path.join(vault, "wiki", rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.join(notes, rel), dest)
    common.sparks(binary, "scan", cwd=vault)
    return vault


def link_pairs(vault):
    """(page, target, target as written) of every resolved, non-embed wikilink between two
    different wiki pages, once per pair, sorted."""
    db = sqlite3.connect(os.path.join(vault, "sparks.db"))
    rows = db.execute(
        "SELECT DISTINCT source, resolved FROM links WHERE status = 'resolved' AND embed = 0 "
        "AND source LIKE 'wiki/%' AND resolved LIKE 'wiki/%.md' AND source <> resolved "
        "AND source NOT IN (SELECT source FROM links WHERE embed = 1 AND resolved = links.resolved)"
    ).fetchall()
    writes = {}
    for source, target, written in db.execute(
        "SELECT source, resolved, target FROM links WHERE status = 'resolved'"
    ):
        writes.setdefault((source, target), set()).add(written)
    db.close()
    return sorted((s, t, sorted(writes.get((s, t), ()))) for s, t in rows)


def hide(text, written):
    """`text` with every wikilink whose target is one of `written` made plain text. None when
    none was found (a link the manifest read some other way: left out)."""
    names = {w.strip().lower() for w in written}
    found = False

    def plain(m):
        nonlocal found
        embed, target, heading, label = m.groups()
        if embed or target.strip().lower() not in names:
            return m.group(0)
        found = True
        return label if label else (target or heading.lstrip("#"))

    hidden = WIKILINK.sub(plain, text)
    return hidden if found else None


def body(text):
    """A page's text without its frontmatter, as a search query."""
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end != -1:
            text = text[end + 4 :]
    return " ".join(text.split())


def ranked(binary, vault, args):
    done = subprocess.run(
        [binary, "--vault", vault, *args], capture_output=True, text=True, timeout=120
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"error: sparks {' '.join(args[:3])} …: {done.stderr.strip()[:300]}")
    return [h["path"] for h in json.loads(done.stdout)["hits"]]


def rank_of(paths, target, page):
    paths = [p for p in paths if p != page]
    return paths.index(target) + 1 if target in paths[:K] else None


NEAR_LISTED = 0.8
NEAR_SHOWN = 15


def near_duplicates(binary, vault):
    """The pairs `lint --check near-duplicates` reports at the default threshold, and at
    NEAR_LISTED: each as (similarity, page, page), the most similar first."""
    out = []
    config = os.path.join(vault, "sparks.toml")
    with open(config, encoding="utf-8") as f:
        original = f.read()
    for threshold in [None, NEAR_LISTED]:
        if threshold is not None:
            with open(config, "w", encoding="utf-8") as f:
                f.write(original.replace("near_duplicate_above = 0.93",
                                         f"near_duplicate_above = {threshold}"))
        run = subprocess.run([binary, "lint", "--check", "near-duplicates", "--json"],
                             cwd=vault, capture_output=True, text=True)
        pairs = {}
        for issue in json.loads(run.stdout)["issues"]:
            other = issue["message"].split("says nearly what ", 1)[1].split(" says (")[0]
            score = float(issue["message"].split("(similarity ", 1)[1].split(",")[0])
            pairs[tuple(sorted([issue["path"], other]))] = score
        listed = sorted(((s, a, b) for (a, b), s in pairs.items()), reverse=True)
        out.append((threshold or "0.93 (default)", listed))
    with open(config, "w", encoding="utf-8") as f:
        f.write(original)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", required=True, help="a folder of Markdown notes")
    parser.add_argument("--binary", default=common.default_binary())
    parser.add_argument("--links", type=int, default=400, help="hidden links scored, at most")
    parser.add_argument("--out", default=os.path.join(common.REPO, "target", "eval"))
    args = parser.parse_args()
    binary = common.check_binary(os.path.abspath(args.binary))
    notes = os.path.abspath(args.notes)
    if not markdown_files(notes):
        raise SystemExit(f"error: no Markdown files under {notes}")
    print(f"notes: {notes}, {len(markdown_files(notes))} files, sha256 {digest(notes)}")
    systems = {
        "related": lambda page, text: ["related", page, "--json", "--limit", str(K + 1)],
        "search (words)": lambda page, text: [
            "search", "--json", "--limit", str(K + 1), "--mode", "lexical", "--", text],
        "search (hybrid)": lambda page, text: [
            "search", "--json", "--limit", str(K + 1), "--", text],
    }
    with tempfile.TemporaryDirectory() as where:
        vault = make_vault(binary, notes, where)
        pairs = link_pairs(vault)
        step = max(1, len(pairs) // args.links)
        chosen = pairs[::step][: args.links]
        hits = {name: [] for name in systems}
        skipped = 0
        for page, target, written in chosen:
            path = os.path.join(vault, page)
            with open(path, encoding="utf-8") as f:
                original = f.read()
            hidden = hide(original, written)
            if hidden is None:
                skipped += 1
                continue
            with open(path, "w", encoding="utf-8") as f:
                f.write(hidden)
            common.sparks(binary, "scan", cwd=vault)
            for name, command in systems.items():
                paths = ranked(binary, vault, command(page, body(hidden)))
                hits[name].append(rank_of(paths, target, page))
            with open(path, "w", encoding="utf-8") as f:
                f.write(original)
        common.sparks(binary, "scan", cwd=vault)
        near = near_duplicates(binary, vault)
    scored = len(hits["related"])
    lines = [
        f"{len(pairs)} links between pages; {scored} hidden one at a time "
        f"(every {step}th; {skipped} left out, written in a way not hidden here)",
        "",
        "| system | Recall@5 | Recall@10 |",
        "|---|--:|--:|",
    ]
    recall = {}
    for name, ranks in hits.items():
        r5 = sum(1 for r in ranks if r and r <= 5) / max(1, len(ranks))
        r10 = sum(1 for r in ranks if r) / max(1, len(ranks))
        recall[name] = r10
        lines.append(f"| {name} | {r5:.3f} | {r10:.3f} |")
    base = max(recall["search (words)"], recall["search (hybrid)"])
    verdict = "met" if recall["related"] > base else "NOT met"
    lines += ["", f"related Recall@10 {recall['related']:.3f} > the better search's "
              f"{base:.3f}: {verdict}"]
    lines += ["", "near-duplicates (pairs at the default threshold, then the closest pairs "
              f"at {NEAR_LISTED} or more, to be judged by reading):"]
    for threshold, listed in near:
        lines.append(f"  at {threshold}: {len(listed)} pairs")
        lines += [f"    {score:.2f}  {a}  ~  {b}" for score, a, b in listed[:NEAR_SHOWN]]
    print("\n".join(lines))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "related.json"), "w") as f:
        json.dump({"notes_sha256": digest(notes), "hits": hits}, f)
    return 0 if verdict == "met" else 1


if __name__ == "__main__":
    sys.exit(main())
