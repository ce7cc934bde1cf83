"""The distributions, counted from the code tables, equal a plain count over the rating records.

``reviewer.agreement.distributions`` counts with array operations for speed
(issue 14); the oracle here is the obvious loop over the ratings (the
implementation before that change), run on reviews with everything that makes
counting tricky: ratings in shuffled order, unfinished ratings, missing rubric
fields, items without an original difficulty or with one outside the levels
("Easy", "HARD"), and a third annotator on only some items.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from reviewer.agreement.distributions import (
    ambiguity_distribution,
    difficulty_corrections,
    error_tag_counts,
    verdict_distribution,
)
from reviewer.agreement.model import AMBIGUITY_LEVELS, VERDICTS, validate_ratings
from reviewer.agreement.table import build_rating_set
from reviewer.testing.agreement import synthetic_review


def messy_review(seed: int) -> list:
    rnd = random.Random(seed)
    ratings = synthetic_review(300, seed=seed, annotators=("ann", "bob", "cid"), share=0.5)
    originals = ["Medium", "Hard", "Easy", "HARD", None, ""]
    by_item = {}
    for r in ratings:
        if r.item_id not in by_item:
            original = rnd.choice(originals)
            others = {k: v for k, v in r.strata.items() if k != "difficulty"}
            by_item[r.item_id] = others if original is None else {**others, "difficulty": original}
        r.strata = by_item[r.item_id]
        if rnd.random() < 0.1:
            r.verdict = None
        for name in ("ambiguity", "difficulty"):
            if rnd.random() < 0.1:
                r.rubric[name] = None
    rnd.shuffle(ratings)
    return validate_ratings(ratings)


def counted(ratings, categories, value_of):
    overall, per = dict.fromkeys(categories, 0), {}
    for r in ratings:
        counts = per.setdefault(r.annotator, dict.fromkeys(categories, 0))
        if value_of(r) is not None:
            overall[value_of(r)] += 1
            counts[value_of(r)] += 1
    return overall, dict(sorted(per.items()))


def corrections(ratings):
    transitions, per, tags_of, original_of = {}, {}, {}, {}
    n_tagged = n_corrected = n_without = 0
    for r in ratings:
        tagged = r.rubric.get("difficulty")
        if tagged is None:
            continue
        original = (r.strata.get("difficulty") or "").lower()
        if not original:
            n_without += 1
            continue
        n_tagged += 1
        row = transitions.setdefault(original, {})
        row[tagged] = row.get(tagged, 0) + 1
        mine = per.setdefault(r.annotator, {"tagged": 0, "corrected": 0})
        mine["tagged"] += 1
        if tagged != original:
            n_corrected += 1
            mine["corrected"] += 1
        tags_of.setdefault(r.item_id, []).append(tagged)
        original_of[r.item_id] = original
    consensus = {i: t[0] for i, t in tags_of.items() if len(t) >= 2 and len(set(t)) == 1 and t[0] != original_of[i]}
    return transitions, n_tagged, n_corrected, n_without, dict(sorted(per.items())), consensus


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_table_counts_equal_record_counts(seed):
    ratings = messy_review(seed)
    rating_set = build_rating_set(ratings)
    verdicts = verdict_distribution(rating_set)
    assert (verdicts.overall, verdicts.per_annotator) == counted(ratings, VERDICTS, lambda r: r.verdict)
    ambiguity = ambiguity_distribution(rating_set)
    expected = counted(ratings, AMBIGUITY_LEVELS, lambda r: r.rubric.get("ambiguity"))
    assert (ambiguity.overall, ambiguity.per_annotator) == expected
    d = difficulty_corrections(rating_set)
    transitions, n_tagged, n_corrected, n_without, per, consensus = corrections(ratings)
    # Key order is compared too: reports list originals, tags and consensus items as they first appear.
    assert list(d.transitions.items()) == list(transitions.items())
    assert [list(row) for row in d.transitions.values()] == [list(row) for row in transitions.values()]
    assert (d.n_tagged, d.n_corrected, d.n_without_original) == (n_tagged, n_corrected, n_without)
    assert d.per_annotator == per and list(d.per_annotator) == list(per)
    assert list(d.consensus.items()) == list(consensus.items())
    assert n_without > 0 and "easy" in transitions and consensus  # the tricky cases occurred
    per_rating, items = Counter(), {}
    for r in ratings:
        if r.verdict is not None:
            for tag in set(r.error_tags):
                per_rating[tag] += 1
                items.setdefault(tag, set()).add(r.item_id)
    tags = [(c.tag, c.n_ratings, c.n_items) for c in error_tag_counts(rating_set)]
    assert tags == [(t, per_rating[t], len(items[t])) for t in sorted(per_rating, key=lambda t: (-per_rating[t], t))]


def test_no_ratings_no_counts():
    rating_set = build_rating_set([])
    assert verdict_distribution(rating_set).overall == dict.fromkeys(VERDICTS, 0)
    d = difficulty_corrections(rating_set)
    assert (d.transitions, d.n_tagged, d.consensus, d.per_annotator) == ({}, 0, {}, {})
    assert error_tag_counts(rating_set) == []
