"""The test collections `make eval` scores, and the readers for their files.

Two formats. The Glasgow IR group's classic collections (Cranfield, CISI, CACM) are SMART
files: documents and queries as records that open with `.I <id>` and carry fields (`.T`
title, `.W` text, `.A` authors, …), and judgments as lines of whitespace-separated columns.
BEIR's (SciFact) are corpus.jsonl (`_id`, `title`, `text`), queries.jsonl (`_id`, `text`) and
qrels/test.tsv (`query-id corpus-id score`, after a header line).

The raw files are not fetched from the web here (no registry ships them: see
scripts/eval/README.md); fetch.py finds them in the cache and checks each against the SHA-256
pinned below, taken over the file's bytes with CRLF line ends turned into LF, so a copy with
Windows line ends checks the same. A file may have more than one known copy; which one was
used is recorded with the results.
"""

import hashlib
import json
import os
import re
from dataclasses import dataclass
from typing import Callable

ROLES = ("docs", "queries", "qrels")

# A field line: a dot, one capital letter, then the end of the line or a blank.
FIELD = re.compile(r"^\.([A-Z])(?:\s+(.*))?$")


class DataError(Exception):
    """A raw file that is missing, altered or unreadable; the message names the file."""


def binary_grade(_code):
    """CISI and CACM list only relevant documents: every line is grade 1."""
    return 1


def cranfield_grade(code):
    """Cleverdon's codes: 1 a complete answer .. 4 minimum interest; -1 (and 5) no interest.

    Turned into gains 4..1 so that a better document gains more, as ir_datasets does."""
    value = int(code)
    return 5 - value if 1 <= value <= 4 else None


GLASGOW = (
    "the University of Glasgow IR group's test collections page, which distributes it for "
    "research use without a stated licence"
)


@dataclass
class Collection:
    """One test collection: its files and how to read them."""

    name: str
    title: str
    files: dict  # role ("docs", "queries", "qrels") -> path in the raw folder (SHA256 pins it)
    licence: str
    reader: str = "smart"  # or "beir"
    origin: str = GLASGOW
    published_bm25_ndcg10: float | None = None
    # Cranfield's judgments number the queries 1..225 in file order, not by their `.I` ids.
    queries_by_position: bool = False
    # Grade of a judgment from its code column, or None when the line is not a judgment of
    # relevance (Cranfield's -1).
    grade: Callable = binary_grade


# The known copies of each raw file ("collection/path"): SHA-256 of its LF bytes -> what copy
# it is ("" when there is one).
SHA256 = {
    "cranfield/cran.all.1400": {
        "b234544b6ceccd131520df4a3cb6d42aee6576eb577933d047e722bbfe7b0b09": ""
    },
    "cranfield/cran.qry": {"dd9b1419f678874daf66d5239ca372193722d74f5ea749f3b0f46a6b37cd9274": ""},
    "cranfield/cranqrel": {"92e54b58dac0b980152178f350d892fae66c8a239b8a11715b835fb8d2f6bc0e": ""},
    "cisi/CISI.ALL": {"c13934ad921234b571e7b424af3461fe39dccb16757cb21954b3aea5250d072e": ""},
    "cisi/CISI.QRY": {"b72de0e0cb8aa5c93ac988e5be0400cc18949d0a94913a248783a37dd97d5470": ""},
    "cisi/CISI.REL": {"f7396c92586c61953ccb7ae99ad8d3ac749ac3b989041fc93a9e311568f58997": ""},
    "cacm/cacm.all": {"0d0eaa9e54987161482a217dcef670a8032d687b1bbe84ba0a8e310b675bd52f": ""},
    "cacm/query.text": {"2fe81273fd7db3beccad1090c84630dea561469b7c19ad03e71370c8c7399cc9": ""},
    "cacm/qrels.text": {"da4202b0c70cad7d91c9a028eaf8cbd0a4ca981ebdc3955eb75ba7b6de6f185c": ""},
    "scifact/corpus.jsonl": {
        "dec31c8182f3d744c7d2c09423756fd1d17cbef75808db13ba01cc0aab4d1ac6": "BEIR's scifact.zip",
        "d2d0b03f01859f5392dcfd1cd53179ae3d6fdd1291bfa579b2e34b1665e1cef1": (
            "rebuilt from the SciFact release's corpus by scifact_corpus.py (565 bytes shorter "
            "than BEIR's)"
        ),
    },
    "scifact/queries.jsonl": {
        "8ff84a7c903f722981cd8d595c022660140c51867b27608a6d4910db86080313": ""
    },
    "scifact/qrels/test.tsv": {
        "68c0ac63f1c24b9e8ce497649694f09b2d0850bab7ec2b103cc66996f5f8b3a3": ""
    },
}

COLLECTIONS = [
    Collection(
        "cranfield",
        "Cranfield",
        {"docs": "cran.all.1400", "queries": "cran.qry", "qrels": "cranqrel"},
        "no licence stated; aeronautics abstracts from 1958-1962, for research use",
        queries_by_position=True,
        grade=cranfield_grade,
    ),
    Collection(
        "cisi",
        "CISI",
        {"docs": "CISI.ALL", "queries": "CISI.QRY", "qrels": "CISI.REL"},
        "no licence stated; library-science abstracts, for research use",
    ),
    Collection(
        "cacm",
        "CACM",
        {"docs": "cacm.all", "queries": "query.text", "qrels": "qrels.text"},
        "no licence stated; titles and abstracts of Communications of the ACM (1958-1979), "
        "whose copyright is the ACM's, for research use",
    ),
    Collection(
        "scifact",
        "SciFact",
        {"docs": "corpus.jsonl", "queries": "queries.jsonl", "qrels": "qrels/test.tsv"},
        "CC BY-NC 2.0 (the SciFact release); abstracts from S2ORC, for research use",
        origin=(
            "BEIR's scifact.zip (Thakur et al. 2021), of the SciFact release (Wadden et al. "
            "2020)"
        ),
        published_bm25_ndcg10=0.665,
        reader="beir",
    ),
]


def by_name(name):
    for collection in COLLECTIONS:
        if collection.name == name:
            return collection
    known = ", ".join(c.name for c in COLLECTIONS)
    raise DataError(f"no collection named {name!r} (known: {known})")


def lf_bytes(path):
    with open(path, "rb") as f:
        return f.read().replace(b"\r\n", b"\n")


def sha256_lf(path):
    return hashlib.sha256(lf_bytes(path)).hexdigest()


def read_text(path):
    data = lf_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        # The classic collections are ASCII; a stray byte is Latin-1, never an error.
        return data.decode("latin-1")


def records(path):
    """The `.I` records of a SMART file: a list of (id, {field letter: text})."""
    out = []
    current = None
    letter = None
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        match = FIELD.match(line)
        if match:
            letter, rest = match.group(1), (match.group(2) or "").strip()
            if letter == "I":
                if not rest:
                    raise DataError(f"{path}:{number}: `.I` without an id")
                current = (rest, {})
                out.append(current)
                letter = None
            elif current is None:
                raise DataError(f"{path}:{number}: field .{letter} before the first .I")
            else:
                current[1].setdefault(letter, [])
                if rest:
                    current[1][letter].append(rest)
            continue
        if current is None:
            if line.strip():
                raise DataError(f"{path}:{number}: text before the first .I")
            continue
        if letter is not None:
            current[1].setdefault(letter, []).append(line)
    return [(rid, {k: tidy(v) for k, v in fields.items()}) for rid, fields in out]


def tidy(lines):
    """Lines joined with newlines, each stripped (a leading blank must not make a code
    block of it in Markdown), blank lines at the ends dropped."""
    return "\n".join(line.strip() for line in lines).strip()


def read_docs(path):
    """(doc id, title, text) for each document; the id is the `.I` number as written,
    without leading zeros."""
    docs = []
    seen = set()
    for rid, fields in records(path):
        doc_id = str(int(rid)) if rid.isdigit() else rid
        if doc_id in seen:
            raise DataError(f"{path}: document {doc_id} appears twice")
        seen.add(doc_id)
        docs.append((doc_id, " ".join(fields.get("T", "").split()), fields.get("W", "")))
    return docs


def read_queries(path, by_position):
    """{query id: text} for each query with text; Cranfield's are numbered by position."""
    queries = {}
    for position, (rid, fields) in enumerate(records(path), start=1):
        text = " ".join((fields.get("W") or fields.get("T") or "").split())
        if not text:
            continue  # CACM ends with an empty `.I 0`
        qid = str(position) if by_position else str(int(rid)) if rid.isdigit() else rid
        queries[qid] = text
    return queries


def read_qrels(path, grade):
    """{query id: {doc id: grade}}, keeping only judgments of relevance (grade >= 1)."""
    qrels = {}
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        cols = line.split()
        if not cols:
            continue
        if len(cols) < 2 or not cols[0].isdigit() or not cols[1].isdigit():
            raise DataError(f"{path}:{number}: not `query doc [code ...]`: {line.strip()!r}")
        value = grade(cols[2] if len(cols) > 2 else "1")
        if value is None or value < 1:
            continue
        qid, doc_id = str(int(cols[0])), str(int(cols[1]))
        judged = qrels.setdefault(qid, {})
        judged[doc_id] = max(value, judged.get(doc_id, 0))
    return qrels


def read_jsonl(path):
    """The objects of a JSON-lines file, one a line; a bad line is named."""
    out = []
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as e:
            raise DataError(f"{path}:{number}: not JSON: {e}")
        if not isinstance(value, dict) or not isinstance(value.get("_id"), str):
            raise DataError(f"{path}:{number}: not an object with a string _id")
        out.append(value)
    return out


def read_beir_docs(path):
    """(doc id, title, text) for each document of a corpus.jsonl."""
    docs = []
    for d in read_jsonl(path):
        docs.append((d["_id"], " ".join(str(d.get("title") or "").split()), d.get("text") or ""))
    return docs


def read_beir_queries(path):
    return {q["_id"]: " ".join(str(q.get("text") or "").split()) for q in read_jsonl(path)}


def read_beir_qrels(path):
    """{query id: {doc id: grade}} from a BEIR qrels file, header line first."""
    qrels = {}
    lines = read_text(path).split("\n")
    for number, line in enumerate(lines[1:], start=2):
        cols = line.split("\t")
        if not line.strip():
            continue
        if len(cols) != 3 or not cols[2].strip().lstrip("-").isdigit():
            raise DataError(f"{path}:{number}: not `query-id<TAB>corpus-id<TAB>score`")
        grade = int(cols[2])
        if grade >= 1:
            qrels.setdefault(cols[0].strip(), {})[cols[1].strip()] = grade
    return qrels


def load(collection, raw):
    """(docs, queries, qrels) of a collection whose raw files are in the folder `raw`."""
    docs, queries, qrels = (os.path.join(raw, collection.files[r]) for r in ROLES)
    if collection.reader == "beir":
        return read_beir_docs(docs), read_beir_queries(queries), read_beir_qrels(qrels)
    return (
        read_docs(docs),
        read_queries(queries, collection.queries_by_position),
        read_qrels(qrels, collection.grade),
    )
