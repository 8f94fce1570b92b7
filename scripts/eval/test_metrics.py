#!/usr/bin/env python3
"""Self-check of the metric code and the collection readers: python3 scripts/eval/test_metrics.py"""

import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import metrics  # noqa: E402
import testsets  # noqa: E402


class Ndcg(unittest.TestCase):
    def test_a_perfect_ranking_scores_one(self):
        judged = {"a": 3, "b": 2, "c": 1}
        self.assertAlmostEqual(metrics.ndcg_at(["a", "b", "c"], judged), 1.0)
        self.assertAlmostEqual(metrics.recall_at(["a", "b", "c"], judged), 1.0)

    def test_a_small_example_worked_by_hand(self):
        # Ranks 1..3 hold x (unjudged), b (grade 2), c (grade 1); d (grade 3) is missed.
        # DCG = 0/log2(2) + 2/log2(3) + 1/log2(4) = 1.2618595 + 0.5 = 1.7618595
        # IDCG = 3/log2(2) + 2/log2(3) + 1/log2(4) = 3 + 1.2618595 + 0.5 = 4.7618595
        # nDCG@10 = 1.7618595 / 4.7618595 = 0.369994
        judged = {"b": 2, "c": 1, "d": 3}
        self.assertAlmostEqual(metrics.ndcg_at(["x", "b", "c"], judged), 0.369994, places=6)
        self.assertAlmostEqual(metrics.recall_at(["x", "b", "c"], judged), 2 / 3)

    def test_gains_are_the_grades_not_two_to_the_grade(self):
        # Grade 1 ranked above grade 3: (1 + 3/log2(3)) / (3 + 1/log2(3)) = 0.796708;
        # with gains 2^grade - 1 it would be (1 + 7/log2(3)) / (7 + 1/log2(3)) = 0.709810.
        expected = (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))
        self.assertAlmostEqual(metrics.ndcg_at(["b", "a"], {"a": 3, "b": 1}), expected)
        self.assertAlmostEqual(expected, 0.796708, places=6)

    def test_only_the_first_k_ranks_count(self):
        ranking = [f"x{i}" for i in range(10)] + ["a"]
        self.assertEqual(metrics.ndcg_at(ranking, {"a": 1}), 0.0)
        self.assertEqual(metrics.recall_at(ranking, {"a": 1}), 0.0)

    def test_the_ideal_is_cut_at_k_too(self):
        # 12 documents of grade 1, all of the top 10 relevant: the ideal is 10 of them.
        judged = {f"r{i}": 1 for i in range(12)}
        self.assertAlmostEqual(metrics.ndcg_at([f"r{i}" for i in range(10)], judged), 1.0)

    def test_a_document_listed_twice_counts_once(self):
        self.assertAlmostEqual(
            metrics.ndcg_at(["a", "a", "b"], {"a": 1, "b": 1}), 1.0
        )

    def test_no_relevant_document_scores_zero(self):
        self.assertEqual(metrics.ndcg_at(["a"], {"a": 0}), 0.0)
        self.assertEqual(metrics.recall_at(["a"], {}), 0.0)


class Recall(unittest.TestCase):
    def test_more_than_k_relevant_divides_by_all_of_them_as_beir_does(self):
        judged = {f"r{i}": 1 for i in range(12)}
        ranking = [f"r{i}" for i in range(12)]
        self.assertAlmostEqual(metrics.recall_at(ranking, judged), 10 / 12)

    def test_grade_zero_is_not_relevant(self):
        self.assertAlmostEqual(metrics.recall_at(["a", "b"], {"a": 1, "b": 0, "c": 1}), 0.5)


class Readers(unittest.TestCase):
    def write(self, text, newline="\n"):
        f = tempfile.NamedTemporaryFile("w", delete=False, newline=newline, suffix=".txt")
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_documents_fields_and_crlf(self):
        path = self.write(
            ".I 001\n.T\nA  title\nover two lines\n.A\nsomeone\n.W\n  body one\nbody two\n"
            ".X\n1 5 1\n.I 2\n.W\nno title here\n",
            newline="\r\n",
        )
        docs = testsets.read_docs(path)
        self.assertEqual(
            docs,
            [("1", "A title over two lines", "body one\nbody two"), ("2", "", "no title here")],
        )

    def test_cranfield_queries_are_numbered_by_position(self):
        path = self.write(".I 001\n.W\nfirst\n.I 004\n.W\nsecond  query\n.I 0\n")
        self.assertEqual(testsets.read_queries(path, True), {"1": "first", "2": "second query"})
        self.assertEqual(testsets.read_queries(path, False), {"1": "first", "4": "second query"})

    def test_cranfield_codes_become_gains_and_minus_one_is_dropped(self):
        path = self.write("1 184 1\n1 29 4\n2 7 -1\n2 8 2 \n")
        qrels = testsets.read_qrels(path, testsets.cranfield_grade)
        self.assertEqual(qrels, {"1": {"184": 4, "29": 1}, "2": {"8": 3}})

    def test_a_bad_judgment_line_is_named(self):
        path = self.write("01 1410 0 0\nnot a line\n")
        with self.assertRaises(testsets.DataError) as caught:
            testsets.read_qrels(path, testsets.binary_grade)
        self.assertIn(f"{path}:2", str(caught.exception))

    def test_text_before_the_first_record_is_named(self):
        path = self.write("stray\n.I 1\n")
        with self.assertRaises(testsets.DataError) as caught:
            testsets.read_docs(path)
        self.assertIn(f"{path}:1", str(caught.exception))

    def test_beir_files(self):
        corpus = self.write(
            '{"_id": "d1", "title": "A  title", "text": "Some text.", "metadata": {}}\n'
            '{"_id": "d2", "text": "No title."}\n'
        )
        queries = self.write('{"_id": "q1", "text": "a claim\\nover lines"}\n')
        qrels = self.write("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\nq2\td2\t2\n")
        docs = [("d1", "A title", "Some text."), ("d2", "", "No title.")]
        self.assertEqual(testsets.read_beir_docs(corpus), docs)
        self.assertEqual(testsets.read_beir_queries(queries), {"q1": "a claim over lines"})
        self.assertEqual(testsets.read_beir_qrels(qrels), {"q1": {"d1": 1}, "q2": {"d2": 2}})

    def test_a_bad_beir_line_is_named(self):
        corpus = self.write('{"_id": "d1", "text": "ok"}\n{"_id": 7}\n')
        with self.assertRaises(testsets.DataError) as caught:
            testsets.read_beir_docs(corpus)
        self.assertIn(f"{corpus}:2", str(caught.exception))
        qrels = self.write("query-id\tcorpus-id\tscore\nq1 d1 1\n")
        with self.assertRaises(testsets.DataError) as caught:
            testsets.read_beir_qrels(qrels)
        self.assertIn(f"{qrels}:2", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
