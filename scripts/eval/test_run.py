#!/usr/bin/env python3
"""Self-check of run.py against a stand-in `sparks`: python3 scripts/eval/test_run.py

The stand-in answers `search --help` with or without a --mode option, logs every command
line, and returns a ranking per mode; a query "boom" exits 3, "nothing" finds nothing.
"""

import json
import os
import stat
import sys
import tempfile
import unittest
import unittest.mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import run  # noqa: E402

STANDIN = r"""#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
with open(os.environ["STANDIN_LOG"], "a") as log:
    log.write(json.dumps(args) + "\n")
if args[:2] == ["search", "--help"]:
    print("Usage: sparks search [OPTIONS] <QUERY>...")
    if os.environ.get("STANDIN_MODES"):
        print("      --mode <MODE>  hybrid, lexical or semantic")
    sys.exit(0)
if "scan" in args or args == ["--version"]:
    sys.exit(0)
query = args[args.index("--") + 1]
mode = args[args.index("--mode") + 1] if "--mode" in args else "default"
if query == "boom":
    print("error: the index is gone", file=sys.stderr)
    sys.exit(3)
ranking = {"default": ["b"], "lexical": ["b", "a"], "semantic": ["a"], "hybrid": ["a", "b"]}
names = [] if query == "nothing" else ranking[mode]
hits = [{"path": f"wiki/summaries/{n}.md"} for n in names]
hits += [{"path": "wiki/index.md"}] if names else []
print(json.dumps({"query": query, "hits": hits}))
"""


class Run(unittest.TestCase):
    def setUp(self):
        self.home = tempfile.TemporaryDirectory()
        self.addCleanup(self.home.cleanup)
        root = self.home.name
        environment = {
            "SPARKS_EVAL_DATA": os.path.join(root, "data"),
            "STANDIN_LOG": os.path.join(root, "log"),
        }
        patcher = unittest.mock.patch.dict(os.environ, environment)
        patcher.start()
        self.addCleanup(patcher.stop)
        os.environ.pop("STANDIN_MODES", None)
        self.binary = os.path.join(root, "sparks")
        with open(self.binary, "w") as f:
            f.write(STANDIN)
        os.chmod(self.binary, os.stat(self.binary).st_mode | stat.S_IXUSR)
        summaries = os.path.join(root, "data", "tiny", "vault", "wiki", "summaries")
        os.makedirs(summaries)
        for name, title, body in [("a", "Alpha", "alpha words"), ("b", "Beta", "beta words")]:
            with open(os.path.join(summaries, f"{name}.md"), "w") as f:
                f.write(f'---\ntitle: "{title}"\ntype: summary\n---\n\n# {title}\n\n{body}\n')
        meta = {
            "title": "Tiny",
            "docs": 2,
            "queries": {"1": "alpha", "2": "boom", "3": "nothing", "4": "never judged"},
            "qrels": {"1": {"a": 1}, "2": {"b": 1}, "3": {"a": 1}},
            "pages": {"wiki/summaries/a.md": "a", "wiki/summaries/b.md": "b"},
            "published_bm25_ndcg10": None,
        }
        with open(os.path.join(root, "data", "tiny", "collection.json"), "w") as f:
            json.dump(meta, f)

    def searches(self):
        with open(os.environ["STANDIN_LOG"]) as f:
            lines = [json.loads(line) for line in f]
        return [args for args in lines if "search" in args and "--help" not in args]

    def test_each_mode_is_scored_with_its_own_flag(self):
        os.environ["STANDIN_MODES"] = "1"
        modes, na = run.detect_modes(self.binary)
        self.assertEqual([m for m, _ in modes], ["lexical", "semantic", "hybrid"])
        self.assertEqual(na, [])
        result = run.run_collection(self.binary, "tiny", modes, 2)
        runs = result["runs"]
        self.assertEqual(result["queries"], 3)
        # Query 1 (a relevant): hybrid and semantic rank a first, lexical second.
        self.assertAlmostEqual(runs["hybrid"]["queries"][0]["ndcg@10"], 1.0)
        self.assertAlmostEqual(runs["lexical"]["queries"][0]["ndcg@10"], 1 / 1.5849625, 6)
        self.assertEqual(runs["hybrid"]["queries"][0]["hits"], ["a", "b", "wiki/index.md"])
        for label in ("lexical", "semantic", "hybrid"):
            self.assertEqual(runs[label]["errors"], 1)
            self.assertEqual(runs[label]["empty"], 1)
            self.assertIn("the index is gone", runs[label]["queries"][1]["error"])
        self.assertIn("fts5 bm25()", runs)
        lines = run.checks([result])
        self.assertIn("Tiny: hybrid 0.333 >= the better of lexical and semantic 0.333: met", lines)

    def test_every_search_is_typed_as_documented(self):
        run.run_collection(self.binary, "tiny", [(run.TODAY, [])], 2)
        searches = self.searches()
        self.assertEqual(len(searches), 3)  # the unjudged query is not run
        vault = os.path.join(os.environ["SPARKS_EVAL_DATA"], "tiny", "vault")
        expected = ["--vault", vault, "search", "--json", "--limit", "10", "--no-refresh", "--"]
        self.assertEqual(sorted(s[:-1] == expected for s in searches), [True] * 3)
        self.assertEqual(sorted(s[-1] for s in searches), ["alpha", "boom", "nothing"])

    def test_without_a_mode_flag_the_default_is_lexical_today_and_the_rest_na(self):
        modes, na = run.detect_modes(self.binary)
        self.assertEqual(modes, [(run.TODAY, [])])
        self.assertEqual(na, ["semantic", "hybrid"])
        result = run.run_collection(self.binary, "tiny", modes, 1)
        text = run.table([result], na)
        self.assertIn("| Tiny | 2 | 3 | lexical (today) | 0.000 | 0.000 | 1 | 1 | — |", text)
        self.assertIn("| Tiny | 2 | 3 | hybrid | n/a | n/a | n/a | n/a | — |", text)

    def test_the_fts5_baseline_ors_the_words(self):
        result = run.run_collection(self.binary, "tiny", [], 1)
        fts = result["runs"]["fts5 bm25()"]["queries"]
        self.assertEqual(fts[0]["hits"], ["a"])  # "alpha"
        self.assertEqual(fts[2]["hits"], [])  # "nothing" is in no page


if __name__ == "__main__":
    unittest.main()
