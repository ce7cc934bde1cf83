"""NesTools parameter similarity: ROUGE-L as the official scorer gets it, dates, lists, dicts."""

import random

import pytest

from reviewer.scoring.nestools_similarity import (
    SimilarityError,
    normalize_date,
    rouge_l_f,
    safe_value_score,
    value_score,
)


def test_rouge_l_partial_overlap():
    # reference "the cat": 2 words; candidate "the cat sat": 3; LCS 2 -> R 1, P 2/3.
    assert rouge_l_f("the cat sat", "the cat") == pytest.approx(0.8, abs=1e-7)
    assert rouge_l_f("dog", "cat") == 0.0


def test_rouge_l_never_reaches_one_for_different_strings():
    # The 1e-8 in the official F denominator: only Python equality scores exactly 1.
    score = value_score("Paris", "paris")
    assert 0.99999 < score < 1.0
    assert value_score("Paris", "Paris") == 1.0


def test_rouge_l_counts_distinct_words_only():
    # "the the cat" has 2 distinct words, so it matches "the cat" as well as "the cat" does.
    assert rouge_l_f("the the cat", "the cat") == rouge_l_f("the cat", "the cat")


def test_rouge_l_splits_sentences_on_dots():
    # "3.5 kg" is the sentences "3" and "5 kg"; order across sentences no longer matters.
    assert rouge_l_f("5 kg. 3", "3.5 kg") == pytest.approx(rouge_l_f("3.5 kg", "3.5 kg"))


def test_empty_text_cannot_be_scored_and_scores_zero():
    with pytest.raises(SimilarityError):
        rouge_l_f("...", "x")
    assert safe_value_score("x", "") == 0.0
    assert safe_value_score(["a", "b"], ["a", ""]) == 0.0  # the error voids the whole value


def test_dates_in_different_spellings_match():
    assert normalize_date("March 3rd, 2024") == "2024-03-03"
    assert normalize_date("2024-03-03") == "2024-03-03"
    assert normalize_date("March 3th, 2024") == "March 3th, 2024"  # wrong suffix: left alone
    assert normalize_date("due March 3rd, 2024") == "due March 3, 2024"  # official oddity
    assert value_score("2024-03-03", "March 3rd, 2024") > 0.9999
    assert value_score("2024-03-03", "March 4th, 2024") == 0.0


def test_numbers_lists_and_dicts():
    assert value_score(5, 5.0) == 1.0
    assert value_score(5, 6) == 0.0
    assert value_score(5, "5") == 0.0  # a type error is not credited
    assert value_score(["a", "b"], ["a", "c"]) == pytest.approx(0.5)
    assert value_score(["a", "b"], ["a"]) == 0.0
    # keys paired by position after lowercasing and dropping "_" and " "
    assert value_score({"Start_Date": "x", "n": 1}, {"start date": "x", "n": 2}) == pytest.approx(0.5)
    assert value_score({"a": 1, "b": 2}, {"b": 2, "a": 1}) == 1.0  # equal dicts
    assert value_score({"a": 1, "b": 2}, {"b": 2, "a": 3}) == 0.0  # positions disagree


def _random_text(rng):
    words = ["alpha", "beta", "beta", "gamma.", "delta", "e.f", " ", "Alpha"]
    return " ".join(rng.choice(words) for _ in range(rng.randint(1, 7)))


@pytest.mark.parametrize("seed", range(3))
def test_matches_the_rouge_package_the_official_scorer_uses(seed):
    rouge = pytest.importorskip("rouge", reason="the reference 'rouge' package is not installed")
    scorer = rouge.Rouge()
    rng = random.Random(seed)
    for _ in range(300):
        cand, ref = _random_text(rng), _random_text(rng)
        try:
            expected = scorer.get_scores(cand, ref)[0]["rouge-l"]["f"]
        except ValueError:
            with pytest.raises(SimilarityError):
                rouge_l_f(cand, ref)
            continue
        assert rouge_l_f(cand, ref) == expected, (cand, ref)
