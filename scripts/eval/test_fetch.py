#!/usr/bin/env python3
"""Self-check of fetch.py against a stand-in `sparks`: python3 scripts/eval/test_fetch.py

The stand-in's `init` writes sparks.toml and wiki/ in its working directory and logs every
command line; the collection is a small SMART one registered for the test only.
"""

import contextlib
import io
import json
import os
import shutil
import stat
import sys
import tempfile
import unittest
import unittest.mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fetch  # noqa: E402
import testsets  # noqa: E402

STANDIN = r"""#!/usr/bin/env python3
import json, os, sys
with open(os.environ["STANDIN_LOG"], "a") as log:
    log.write(json.dumps([os.getcwd()] + sys.argv[1:]) + "\n")
if sys.argv[1:] == ["init"]:
    os.makedirs("wiki", exist_ok=True)
    open("sparks.toml", "w").close()
"""

FILES = {
    "DOCS": '.I 1\n.T\nSaid "no": a \\ title\n.W\nfirst body\n.I 2\n.W\n'
    + " ".join(f"w{i}" for i in range(12))
    + "\n.I 3\n",
    "QRY": ".I 1\n.W\nfirst\n.I 2\n.W\nunjudged\n",
    "REL": "1 1 0 0\n1 3 0 0\n",
}


class Fetch(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.TemporaryDirectory()
        self.addCleanup(self.root.cleanup)
        root = self.root.name
        self.log = os.path.join(root, "log")
        patcher = unittest.mock.patch.dict(
            os.environ, {"SPARKS_EVAL_DATA": os.path.join(root, "data"), "STANDIN_LOG": self.log}
        )
        patcher.start()
        self.addCleanup(patcher.stop)
        self.binary = os.path.join(root, "sparks")
        with open(self.binary, "w") as f:
            f.write(STANDIN)
        os.chmod(self.binary, os.stat(self.binary).st_mode | stat.S_IXUSR)
        self.source = os.path.join(root, "source")
        os.makedirs(self.source)
        hashes = {}
        for name, text in FILES.items():
            path = os.path.join(self.source, name)
            with open(path, "w", newline="\r\n") as f:  # CRLF: hashed as LF
                f.write(text)
            hashes[f"tiny/{name}"] = {testsets.sha256_lf(path): ""}
        self.collection = testsets.Collection(
            "tiny", "Tiny", {"docs": "DOCS", "queries": "QRY", "qrels": "REL"}, "test data"
        )
        for patcher in [
            unittest.mock.patch.object(testsets, "COLLECTIONS", [self.collection]),
            unittest.mock.patch.object(testsets, "SHA256", {**testsets.SHA256, **hashes}),
        ]:
            patcher.start()
            self.addCleanup(patcher.stop)

    def fetch(self, *args):
        """Run fetch.py's main; what it prints goes to self.printed."""
        argv = ["fetch.py", "--binary", self.binary, *args]
        self.printed = io.StringIO()
        with unittest.mock.patch.object(sys, "argv", argv), contextlib.redirect_stdout(
            self.printed
        ), contextlib.redirect_stderr(self.printed):
            fetch.main()

    def commands(self):
        with open(self.log) as f:
            return [json.loads(line)[1:] for line in f]

    def page(self, name):
        vault = os.path.join(os.environ["SPARKS_EVAL_DATA"], "tiny", "vault")
        with open(os.path.join(vault, "wiki", "summaries", name), encoding="utf-8") as f:
            return f.read()

    def test_pages_titles_and_the_map(self):
        self.fetch("--source", f"tiny={self.source}")
        self.assertEqual(
            self.page("1.md"),
            '---\ntitle: "Said \\"no\\": a \\\\ title"\ntype: summary\n---\n\n'
            '# Said "no": a \\ title\n\nfirst body\n',
        )
        self.assertIn('title: "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9…"', self.page("2.md"))
        self.assertEqual(
            self.page("3.md"), '---\ntitle: "Document 3"\ntype: summary\n---\n\n# Document 3\n'
        )
        with open(os.path.join(os.environ["SPARKS_EVAL_DATA"], "tiny", "collection.json")) as f:
            meta = json.load(f)
        self.assertEqual(meta["pages"]["wiki/summaries/3.md"], "3")
        self.assertEqual(meta["qrels"], {"1": {"1": 1, "3": 1}})
        self.assertEqual(self.commands()[0], ["init"])
        self.assertEqual(self.commands()[1][-2:], ["scan", "--quiet"])

    def test_a_converted_vault_is_reused_until_its_raw_files_change(self):
        self.fetch("--source", f"tiny={self.source}")
        self.fetch()
        self.assertEqual(len(self.commands()), 2)  # init and scan, once
        raw = os.path.join(os.environ["SPARKS_EVAL_DATA"], "raw", "tiny", "REL")
        with open(raw, "a") as f:
            f.write("1 2 0 0\n")
        with self.assertRaises(SystemExit) as caught:
            self.fetch()
        self.assertEqual(caught.exception.code, 2)
        self.assertIn(f"{raw}: SHA-256 of its LF bytes is", self.printed.getvalue())
        self.assertEqual(len(self.commands()), 2)

    def test_a_vault_removed_by_hand_is_built_again(self):
        self.fetch("--source", f"tiny={self.source}")
        shutil.rmtree(os.path.join(os.environ["SPARKS_EVAL_DATA"], "tiny", "vault"))
        self.fetch()
        self.assertEqual([c[-1] for c in self.commands()], ["init", "--quiet"] * 2)

    def test_an_altered_source_is_refused_and_the_cache_kept(self):
        self.fetch("--source", f"tiny={self.source}")
        with open(os.path.join(self.source, "QRY"), "a") as f:
            f.write(".I 3\n.W\nmore\n")
        with self.assertRaises(SystemExit) as caught:
            self.fetch("--source", f"tiny={self.source}")
        self.assertEqual(caught.exception.code, 2)
        raw = os.path.join(os.environ["SPARKS_EVAL_DATA"], "raw", "tiny", "QRY")
        with open(raw) as f:
            self.assertNotIn("more", f.read())
        self.fetch()  # the cache still checks, and its vault is still current
        self.assertEqual(len(self.commands()), 2)

    def test_unsafe_ids_get_distinct_file_names(self):
        taken = set()
        names = [fetch.page_name(i, taken) for i in ["a/b", "a_b", "A_B", "../x", "ok"]]
        self.assertEqual(len(set(n.lower() for n in names)), 5)
        self.assertEqual(names[1], "a_b.md")
        self.assertEqual(names[4], "ok.md")
        for name in names:
            self.assertRegex(name, r"^[A-Za-z0-9_-]+\.md$")


if __name__ == "__main__":
    unittest.main()
