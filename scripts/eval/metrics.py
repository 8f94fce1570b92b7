"""nDCG@k and Recall@k as trec_eval computes them (and so BEIR, through pytrec_eval).

- nDCG@k (trec_eval's ndcg_cut.k): DCG = sum over ranks i = 1..k of gain_i / log2(i + 1),
  where a document's gain is its relevance grade in the judgments (0 when unjudged); the
  ideal DCG ranks the judged documents by grade, best first, cut at k. 0 when no document
  of the query is relevant.
- Recall@k (trec_eval's recall.k, BEIR's "Recall@k"): relevant documents in the top k over
  all relevant documents of the query, NOT over min(k, relevant): a query with 12 relevant
  documents and 10 of them in its top 10 scores 10/12. (BEIR's separate "R_cap@k" divides by
  min(k, relevant); it is not computed here.)

A document is relevant when its grade is at least 1. A document listed twice in a ranking
counts once, at its first rank, as trec_eval reads a run.
"""

import math


def first_k(ranking, k):
    """The first k distinct ids of a ranking."""
    seen = []
    for doc_id in ranking:
        if doc_id not in seen:
            seen.append(doc_id)
            if len(seen) == k:
                break
    return seen


def dcg(gains):
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))


def ndcg_at(ranking, judged, k=10):
    """ranking: doc ids best first; judged: {doc id: grade}."""
    ideal = dcg(sorted((g for g in judged.values() if g > 0), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return dcg([max(judged.get(d, 0), 0) for d in first_k(ranking, k)]) / ideal


def recall_at(ranking, judged, k=10):
    relevant = {d for d, g in judged.items() if g >= 1}
    if not relevant:
        return 0.0
    return len(relevant.intersection(first_k(ranking, k))) / len(relevant)


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else 0.0
