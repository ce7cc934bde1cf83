"""build_report: the figures a curator reads, on reviews small enough to check by hand."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from reviewer.agreement import Rating, build_report, render_json, render_markdown
from reviewer.errors import InputError, ReviewerError
from reviewer.jobs import Cancelled, JobContext

from .factories import random_review, rating, verdict_ratings


def _hand_review() -> list[Rating]:
    med = {"category": "EXTRACTIVE", "difficulty": "Medium"}
    hard = {"category": "FILTERING", "difficulty": "Hard"}
    gold_a = {"name": "x", "age": 3}
    return [
        # i1: full agreement, both pass.
        rating("i1", "ann", "pass", strata=med),
        rating("i1", "bob", "pass", strata=med),
        # i2: both fix with the same gold and the same patch path.
        rating(
            "i2",
            "ann",
            "fix",
            error_tags=["wrong_type"],
            fix=gold_a,
            patch=[{"op": "replace", "path": "/age", "value": 3}],
            strata=med,
            difficulty="hard",
        ),
        rating(
            "i2",
            "bob",
            "fix",
            error_tags=["wrong_type"],
            fix={"age": 3.0, "name": "x"},
            patch=[{"op": "replace", "path": "/age", "value": 3}],
            strata=med,
            difficulty="hard",
        ),
        # i3: both fix, different golds, patches over {/a,/b} and {/b,/c}: Jaccard 1/3.
        rating(
            "i3",
            "ann",
            "fix",
            error_tags=["missing_field", "wrong_type"],
            fix={"a": 1},
            patch=[{"op": "add", "path": "/a", "value": 1}, {"op": "remove", "path": "/b"}],
            strata=hard,
            ambiguity="medium",
        ),
        rating(
            "i3",
            "bob",
            "fix",
            error_tags=["missing_field"],
            fix={"a": 2},
            patch=[{"op": "remove", "path": "/b"}, {"op": "move", "from": "/c", "path": "/b"}],
            strata=hard,
            ambiguity="high",
        ),
        # i4: everything disputed.
        rating(
            "i4",
            "ann",
            "pass",
            strata=hard,
            schema_conformance=False,
            content_faithfulness=True,
            ambiguity="low",
            difficulty="medium",
        ),
        rating(
            "i4",
            "bob",
            "reject",
            error_tags=["hallucination"],
            strata=hard,
            schema_conformance=True,
            content_faithfulness=False,
            ambiguity="high",
            difficulty="hard",
        ),
    ]


def test_verdict_and_ambiguity_distributions():
    report = build_report(_hand_review(), bootstrap=0)
    assert report.verdicts.overall == {"pass": 3, "fix": 4, "reject": 1}
    assert report.verdicts.per_annotator["bob"] == {"pass": 1, "fix": 2, "reject": 1}
    assert report.verdicts.share("fix") == pytest.approx(0.5)
    assert report.ambiguity.overall == {"low": 5, "medium": 1, "high": 2}


def test_difficulty_corrections_against_the_original_tag():
    d = build_report(_hand_review(), bootstrap=0).difficulty
    # Originals: i1,i2 Medium; i3,i4 Hard. Tags: i2 both hard (corrected), i3 both medium (corrected),
    # i4 ann medium (corrected), bob hard.
    assert d.n_tagged == 8
    assert d.n_corrected == 5
    assert d.transitions == {"medium": {"medium": 2, "hard": 2}, "hard": {"medium": 3, "hard": 1}}
    assert d.consensus == {"i2": "hard", "i3": "medium"}
    assert d.per_annotator["ann"] == {"tagged": 4, "corrected": 3}


def test_error_tags_most_frequent_first():
    tags = build_report(_hand_review(), bootstrap=0).error_tags
    assert [(t.tag, t.n_ratings, t.n_items) for t in tags] == [
        ("wrong_type", 3, 2),
        ("missing_field", 2, 1),
        ("hallucination", 1, 1),
    ]


def test_fix_agreement_gold_equality_and_patch_overlap():
    fixes = build_report(_hand_review(), bootstrap=0).fixes
    assert fixes.n_items == 2
    by_item = {p.item_id: p for p in fixes.pairs}
    assert by_item["i2"].gold_equal is True  # 3 == 3.0, key order irrelevant
    assert by_item["i2"].jaccard == 1.0
    assert by_item["i3"].gold_equal is False
    assert by_item["i3"].jaccard == pytest.approx(1 / 3)  # {/a,/b} vs {/b,/c}: a move changes its source too
    assert fixes.gold_equal_rate == 0.5
    assert fixes.mean_jaccard == pytest.approx(2 / 3)


def test_fix_agreement_without_common_fixes_is_none_with_reason():
    fixes = build_report(verdict_ratings([("fix", "pass"), ("pass", "pass")]), bootstrap=0).fixes
    assert fixes.gold_equal_rate is None and fixes.mean_jaccard is None
    assert fixes.reason == "no item was fixed by two annotators"


def test_representative_disagreements_most_disputed_first():
    d = build_report(_hand_review(), bootstrap=0).disagreements
    assert [x.item_id for x in d] == ["i4", "i3"]
    assert d[0].n_fields == 4
    assert d[0].fields["ambiguity"] == {"ann": "low", "bob": "high"}
    assert d[0].verdicts == {"ann": "pass", "bob": "reject"}


def test_verdict_disagreements_are_listed_first_even_with_an_identical_rubric():
    ratings = [*_hand_review(), rating("i5", "ann", "pass"), rating("i5", "bob", "reject")]
    d = build_report(ratings, bootstrap=0).disagreements
    assert [x.item_id for x in d] == ["i4", "i5", "i3"]  # i3: same verdict, rubric differences only
    assert d[1].n_fields == 0 and d[1].verdicts == {"ann": "pass", "bob": "reject"}


def test_nestools_p_counts_unanimous_error_and_error_free_items():
    report = build_report(_hand_review(), bootstrap=0)
    # Any error tag: i1 none/none (N_T), i2 tag/tag (N_F), i3 tag/tag (N_F), i4 none/tag -> 3 / 4.
    assert report.overall["any_error"]["nestools_p"].value == pytest.approx(0.75)
    # "wrong_type": i1 T, i2 F, i3 disagree, i4 T -> 3 / 4.
    assert report.overall["error:wrong_type"]["nestools_p"].value == pytest.approx(0.75)
    assert "nestools_p" not in report.overall["verdict"]


def test_nestools_p_with_three_annotators_needs_all_of_them():
    ratings = []
    for i, tagged in enumerate([(0, 0, 0), (1, 1, 1), (1, 1, 0), (0, 0, 1)]):
        for who, t in zip("abc", tagged):
            ratings.append(rating(f"i{i}", who, "fix" if t else "pass", error_tags=["x"] if t else []))
    stats = build_report(ratings, bootstrap=0).overall["any_error"]
    assert stats["nestools_p"].value == pytest.approx(0.5)
    assert stats["percent_agreement"].value == pytest.approx((1 + 1 + 1 / 3 + 1 / 3) / 4)


def test_breakdown_by_stratum_uses_only_that_stratum():
    ratings = random_review(200, seed=4)
    report = build_report(ratings, bootstrap=0)
    for category, stats in report.by_stratum["category"].items():
        items = {r.item_id for r in ratings if r.strata["category"] == category}
        by = {(r.item_id, r.annotator): r.verdict for r in ratings if r.item_id in items}
        ids = sorted(items)
        expected = cohen_kappa_score([by[i, "a"] for i in ids], [by[i, "b"] for i in ids])
        assert stats["verdict"]["cohen_kappa"].value == pytest.approx(expected)
        assert stats["verdict"]["cohen_kappa"].n_items == len(ids)
    assert set(report.by_stratum) == {"category", "difficulty"}


def test_pairs_of_three_annotators_with_confusion_matrix():
    ratings = random_review(150, annotators=("a", "b", "c"), seed=6, missing=0.2)
    report = build_report(ratings, bootstrap=0)
    assert set(report.by_pair) == {"a vs b", "a vs c", "b vs c"}
    verdict = {(r.item_id, r.annotator): r.verdict for r in ratings}
    shared = sorted({i for i, w in verdict if w == "a"} & {i for i, w in verdict if w == "c"})
    a = [verdict[i, "a"] for i in shared]
    c = [verdict[i, "c"] for i in shared]
    pair = report.by_pair["a vs c"]
    assert pair.n_items == len(shared)
    assert pair.stats["verdict"]["cohen_kappa"].value == pytest.approx(cohen_kappa_score(a, c))
    cats = pair.confusion.categories
    expected = [[sum(1 for x, y in zip(a, c) if (x, y) == (p, q)) for q in cats] for p in cats]
    assert pair.confusion.counts == expected
    # Overall with three annotators, Cohen's kappa is explained away, not faked.
    overall = report.overall["verdict"]["cohen_kappa"]
    assert overall.value is None and "exactly two annotators" in overall.reason


def _skewed_ratings() -> list[Rating]:
    """NOTES.md's reference case on a yes/no rubric field: 179 yes/yes, 4 no/no, 17 yes/no."""
    pairs = [(True, True)] * 179 + [(False, False)] * 4 + [(True, False)] * 17
    out = []
    for i, (x, y) in enumerate(pairs):
        out.append(rating(f"i{i}", "a", "pass", schema_conformance=x))
        out.append(rating(f"i{i}", "b", "pass", schema_conformance=y))
    return out


def test_skew_warning_on_the_reference_case_points_to_ac1_and_pabak():
    report = build_report(_skewed_ratings(), bootstrap=0)
    stats = report.overall["schema_conformance"]
    assert stats["percent_agreement"].value == pytest.approx(0.915)
    assert stats["gwet_ac1"].value == pytest.approx(0.90, abs=0.005)
    [warning] = [w for w in report.warnings if w.startswith("schema conformance")]
    assert "91.5%" in warning and "Cohen's kappa 0.30" in warning and "alpha 0.28" in warning
    assert "AC1 (0.90)" in warning and "PABAK (0.83)" in warning


def test_no_skew_warning_when_kappa_matches_raw_agreement():
    pairs = [("pass", "pass")] * 45 + [("reject", "reject")] * 45 + [("pass", "reject")] * 10
    report = build_report(verdict_ratings(pairs), bootstrap=0)
    assert report.overall["verdict"]["percent_agreement"].value == pytest.approx(0.9)
    assert not [w for w in report.warnings if w.startswith("verdict")]


def test_single_category_and_unpaired_items_are_none_with_reasons_never_nan():
    ratings = verdict_ratings([("pass", "pass")] * 5 + [("pass", None)] * 3)
    report = build_report(ratings, bootstrap=50)
    kappa = report.overall["verdict"]["cohen_kappa"]
    assert kappa.value is None and "'pass'" in kappa.reason and kappa.low is None
    assert report.overall["verdict"]["gwet_ac1"].value == 1.0
    assert report.overall["verdict"]["percent_agreement"].n_items == 5
    text = render_json(report)
    assert "NaN" not in text and "Infinity" not in text

    lone = build_report([rating("i1", "a"), rating("i2", "b")], bootstrap=50)
    for est in lone.overall["verdict"].values():
        assert est.value is None and est.reason == "no item was rated by two annotators"


def test_unfinished_ratings_count_as_missing_verdicts_and_tags():
    ratings = [rating("i1", "a", "fix", error_tags=["x"]), rating("i1", "b", None)]
    report = build_report(ratings, bootstrap=0)
    assert report.overall["verdict"]["percent_agreement"].value is None
    assert report.overall["any_error"]["percent_agreement"].value is None
    assert report.overall["ambiguity"]["percent_agreement"].value == 1.0  # the rubric was filled in
    assert report.verdicts.overall == {"pass": 0, "fix": 1, "reject": 0}


def test_empty_review_gives_an_empty_report():
    report = build_report([], bootstrap=10)
    assert report.n_items == 0 and report.annotators == []
    assert report.overall["verdict"]["fleiss_kappa"].reason == "no item was rated by two annotators"
    assert report.disagreements == [] and report.by_pair == {}


@pytest.mark.parametrize(
    "bad,where",
    [
        (rating("i1", "b", "maybe"), "$.verdict"),
        (rating("i1", "b", ambiguity="extreme"), "$.rubric.ambiguity"),
        (rating("i1", "b", schema_conformance="yes"), "$.rubric.schema_conformance"),
        (rating("i1", "b", error_tags=["ok", 3]), "$.error_tags[1]"),
        (rating("i1", "b", patch=[{"op": "remove"}]), "$.patch[0].path"),
        (rating("i1", "b", patch=[{"op": "move", "path": "/a"}]), "$.patch[0].from"),
        (rating("i1", "a"), "a second rating of this item"),
        (rating("i1", "b", strata={"dataset": "other"}), "$.strata"),
        (rating("i1", "b", strata={"dataset": 3}), "$.strata.dataset"),
    ],
)
def test_bad_ratings_are_reported_with_their_place(bad, where):
    with pytest.raises(InputError) as err:
        build_report([rating("i1", "a"), bad], bootstrap=0)
    assert "rating 1 (item 'i1'" in str(err.value)
    assert where in str(err.value)


def test_strata_shared_by_the_ratings_of_an_item_are_checked_too():
    # The store hands one strata object to all ratings of an item; validation checks it once.
    shared = {"dataset": "d", "domain": ["not", "a", "string"]}
    with pytest.raises(InputError) as err:
        build_report([rating("i1", "a", strata=shared), rating("i1", "b", strata=shared)], bootstrap=0)
    assert "rating 0 (item 'i1'" in str(err.value) and "$.strata.domain" in str(err.value)
    ok = {"dataset": "d"}
    report = build_report([rating("i1", "a", strata=ok), rating("i1", "b", strata=ok)], bootstrap=0)
    assert set(report.by_stratum) == {"dataset"}


def test_levels_are_case_insensitive():
    report = build_report(
        [rating("i1", "a", "Pass", difficulty="Hard"), rating("i1", "b", "PASS", difficulty="hard")], bootstrap=0
    )
    assert report.overall["difficulty"]["percent_agreement"].value == 1.0
    assert report.verdicts.overall["pass"] == 2


def test_progress_and_cancellation():
    seen = []
    ctx = JobContext(lambda p: seen.append(p.message))
    build_report(random_review(20), bootstrap=10, ctx=ctx)
    assert seen[0] == "checking ratings" and seen[-1] == "done"

    ctx = JobContext(lambda p: ctx.cancel() if p.done == 2 else None)
    with pytest.raises(Cancelled):
        build_report(random_review(20), bootstrap=10, ctx=ctx)


def test_a_stratum_covering_every_item_equals_the_overall_figures():
    ratings = random_review(60, seed=2)
    for r in ratings:
        r.strata = {**r.strata, "dataset": "deepjson"}
    report = build_report(ratings, bootstrap=50)
    assert report.by_stratum["dataset"]["deepjson"]["verdict"] == report.overall["verdict"]
    assert np.isfinite(report.overall["verdict"]["cohen_kappa"].low)


def test_nestools_final_agreement_averages_p_over_perspectives():
    # Paper 004: p per perspective (call chain, query), then their mean.
    tagged = [(["bad_nesting"], ["bad_nesting"]), ([], []), (["vague_query"], []), (["bad_nesting"], ["vague_query"])]
    ratings = []
    for i, (a, b) in enumerate(tagged):
        ratings += [
            rating(f"i{i}", "a", "fix" if a else "pass", error_tags=a),
            rating(f"i{i}", "b", "fix" if b else "pass", error_tags=b),
        ]
    perspectives = {"call chain": ["bad_nesting", "wrong_param"], "query": ["vague_query"]}
    report = build_report(ratings, bootstrap=100, perspectives=perspectives)
    chain = report.overall["perspective:call chain"]["nestools_p"].value
    query = report.overall["perspective:query"]["nestools_p"].value
    assert chain == pytest.approx(0.75)  # i0 F, i1 T, i2 T, i3 disagree
    assert query == pytest.approx(0.5)  # i0 T, i1 T, i2 disagree, i3 disagree
    assert report.nestools_final.value == pytest.approx(0.625)
    assert report.nestools_final.low <= 0.625 <= report.nestools_final.high
    assert "p averaged over 2 perspectives: 0.625 [" in render_markdown(report)


def test_perspectives_must_name_tags():
    with pytest.raises(InputError, match=r"perspectives\['query'\].*list of error tag names"):
        build_report([rating("i1", "a")], bootstrap=0, perspectives={"query": "vague_query"})


@pytest.mark.parametrize("kwargs", [{"bootstrap": -1}, {"seed": -3}, {"bootstrap": 1.5}])
def test_bad_bootstrap_settings_are_refused_clearly(kwargs):
    name = next(iter(kwargs))
    with pytest.raises(ReviewerError, match=f"{name} must be a whole number"):
        build_report([rating("i1", "a")], **kwargs)
