#!/usr/bin/env python3
"""Check the raw test collections and turn each into a Sparks vault, for run.py.

Usage: fetch.py [--binary PATH] [--source NAME=DIR ...] [--only NAME ...]

The raw files of each collection (testsets.py names them and pins their SHA-256) live in
$SPARKS_EVAL_DATA/raw/NAME/ (default target/eval-data/raw/NAME/). No package registry ships
them, so they are not downloaded here: `--source NAME=DIR` copies them in from a directory
that holds them (each checked before anything is copied), and a missing or altered file is
an error that names it, what it should hash to, and what was found.

Each collection becomes a vault in $SPARKS_EVAL_DATA/NAME/vault: `sparks init`, one page per
document under wiki/summaries/ (file name from the document id, made safe; frontmatter
`title:` the document's title, or its first words when it has none, and `type: summary`;
then `# Title` and the text), then `sparks scan`. Beside the vault, collection.json holds the
queries, the judgments and which page is which document. A vault whose raw files and
converter are unchanged (source.sha256) is reused as it is.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
import testsets  # noqa: E402

# Bump when the pages written for the same raw files change, so that vaults are rebuilt.
CONVERTER = "1"
TITLE_WORDS = 10


def raw_dir(name):
    return os.path.join(common.data_dir(), "raw", name)


def check_files(collection, directory):
    """({path: SHA-256} of the copy's files, problems): a problem per line, each naming the
    file, what it hashes to and what it should."""
    hashes, problems = {}, []
    for file_name in collection.files.values():
        path = os.path.join(directory, file_name)
        known = testsets.SHA256[f"{collection.name}/{file_name}"]
        want = " or ".join(known)
        if not os.path.isfile(path):
            problems.append(f"{path}: missing (want SHA-256 {want} of its LF bytes)")
            continue
        got = testsets.sha256_lf(path)
        if got not in known:
            problems.append(f"{path}: SHA-256 of its LF bytes is {got}, want {want}")
        hashes[file_name] = got
    return hashes, problems


def import_source(collection, directory):
    _, problems = check_files(collection, directory)
    if problems:
        raise testsets.DataError("\n".join(problems))
    for file_name in collection.files.values():
        target = os.path.join(raw_dir(collection.name), file_name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(directory, file_name), target)


def source_hash(hashes):
    digest = hashlib.sha256(f"converter {CONVERTER}\n".encode())
    for file_name in sorted(hashes):
        digest.update(f"{file_name} {hashes[file_name]}\n".encode())
    return digest.hexdigest()


def copies(collection, hashes):
    """Which known copy each file is, where a file has more than one."""
    out = {}
    for file_name, digest in hashes.items():
        label = testsets.SHA256[f"{collection.name}/{file_name}"][digest]
        if label:
            out[file_name] = label
    return out


def page_name(doc_id, taken):
    """A file name for the document: its id when that is safe, else the id with unsafe
    characters replaced and a hash of the id added, so two ids never share a file (nor two
    that differ only in case, for case-insensitive file systems)."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", doc_id)
    if safe != doc_id or not safe or safe.lower() in taken:
        safe = f"{safe}-{hashlib.sha256(doc_id.encode()).hexdigest()[:10]}"
    taken.add(safe.lower())
    return safe + ".md"


def page_title(doc_id, title, text):
    if title:
        return title
    words = text.split()
    if words:
        more = "…" if len(words) > TITLE_WORDS else ""
        return " ".join(words[:TITLE_WORDS]) + more
    return f"Document {doc_id}"


def page_text(title, text):
    """The page: JSON's quoting of the title is a valid YAML double-quoted scalar."""
    head = f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\ntype: summary\n---\n\n"
    body = f"# {title}\n\n{text}\n" if text else f"# {title}\n"
    return head + body


def convert(collection, binary, hashes):
    """Write the vault and collection.json for one collection whose raw files checked."""
    docs, queries, qrels = testsets.load(collection, raw_dir(collection.name))
    known = {doc_id for doc_id, _, _ in docs}
    for qid, judged in qrels.items():
        unknown = sorted(set(judged) - known)
        if unknown:
            raise testsets.DataError(
                f"{collection.files['qrels']}: query {qid} judges documents not in "
                f"{collection.files['docs']}: {', '.join(unknown[:5])}"
            )

    home = common.collection_dir(collection.name)
    vault = common.vault_dir(collection.name)
    stamp = os.path.join(home, "source.sha256")
    os.makedirs(home, exist_ok=True)
    if os.path.exists(stamp):
        os.remove(stamp)  # a build cut short is never taken for a finished one
    if os.path.exists(vault):
        shutil.rmtree(vault)
    os.makedirs(vault)
    common.sparks(binary, "init", cwd=vault)
    summaries = os.path.join(vault, "wiki", "summaries")
    os.makedirs(summaries, exist_ok=True)
    pages, taken = {}, set()
    for doc_id, title, text in docs:
        name = page_name(doc_id, taken)
        with open(os.path.join(summaries, name), "w", encoding="utf-8") as f:
            f.write(page_text(page_title(doc_id, title, text), text))
        pages[f"wiki/summaries/{name}"] = doc_id
    common.sparks(binary, "--vault", vault, "scan", "--quiet", cwd=vault)

    meta = {
        "name": collection.name,
        "title": collection.title,
        "docs": len(docs),
        "queries": queries,
        "qrels": qrels,
        "pages": pages,
        "published_bm25_ndcg10": collection.published_bm25_ndcg10,
        "licence": collection.licence,
        "origin": collection.origin,
        "copies": copies(collection, hashes),
        "source_sha256": source_hash(hashes),
    }
    with open(common.meta_path(collection.name), "w", encoding="utf-8") as f:
        json.dump(meta, f, ensure_ascii=False)
    with open(stamp, "w") as f:
        f.write(meta["source_sha256"] + "\n")
    return len(docs), len(queries), len(qrels)


def is_current(collection, hashes):
    stamp = os.path.join(common.collection_dir(collection.name), "source.sha256")
    vault_config = os.path.join(common.vault_dir(collection.name), "sparks.toml")
    if not all(os.path.isfile(p) for p in (stamp, common.meta_path(collection.name), vault_config)):
        return False
    with open(stamp) as f:
        return f.read().strip() == source_hash(hashes)


def parse_sources(values):
    sources = {}
    for value in values:
        name, sep, directory = value.partition("=")
        if not sep or not directory:
            raise SystemExit(f"error: --source wants NAME=DIR, got {value!r}")
        testsets.by_name(name)
        sources[name] = directory
    return sources


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=common.default_binary())
    parser.add_argument("--source", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--only", action="append", default=[], metavar="NAME")
    args = parser.parse_args()
    try:
        sources = parse_sources(args.source)
        chosen = [testsets.by_name(n) for n in args.only] or testsets.COLLECTIONS
    except testsets.DataError as e:
        raise SystemExit(f"error: {e}")
    ignored = sorted(set(sources) - {c.name for c in chosen})
    if ignored:
        raise SystemExit(f"error: --source {', '.join(ignored)} is not among the --only names")
    binary = common.check_binary(os.path.abspath(args.binary))

    failed = []
    for collection in chosen:
        try:
            if collection.name in sources:
                import_source(collection, sources[collection.name])
            hashes, problems = check_files(collection, raw_dir(collection.name))
            if problems:
                raise testsets.DataError("\n".join(problems))
            if is_current(collection, hashes):
                print(f"{collection.name}: vault up to date, reused")
                continue
            docs, queries, judged = convert(collection, binary, hashes)
            print(f"{collection.name}: {docs} pages, {queries} queries ({judged} judged)")
        except testsets.DataError as e:
            failed.append(collection.name)
            print(f"error: {collection.name}:\n  " + str(e).replace("\n", "\n  "), file=sys.stderr)
    if failed:
        print(
            f"error: {len(failed)} collection(s) not ready: {', '.join(failed)}. Get the raw "
            "files as scripts/eval/README.md says, then pass --source NAME=DIR "
            "(or --only the others).",
            file=sys.stderr,
        )
        sys.exit(2)


if __name__ == "__main__":
    main()
