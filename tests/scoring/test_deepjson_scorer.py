"""DeepJSONEval scoring: extraction, format/detailed/strict, quirks, fixed mode, aggregation.

The refdata test replays the official evaluation workbooks row by row and
counts the golds that fail their own schema.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewer.scoring.base import ScoringItem, ScoringOutput
from reviewer.scoring.deepjson import detailed_score, extract_json_text, gold_schema_failures
from reviewer.scoring.registry import scorer_for

REFDATA = Path(__file__).resolve().parents[2].parent / "shared" / "refdata" / "DeepJSONEval"

SCHEMA = json.dumps({
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "year": {"type": "integer"},
        "sequel": {"type": ["boolean", "integer"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "ratings": {"type": "array", "items": {"type": "object", "properties": {
            "source": {"type": "string"}, "value": {"type": "number"}}, "required": ["source"]}},
        "note": {"type": ["string", "null"]},
    },
    "required": ["title", "year"],
})
GOLD = {"title": "Spirited Away", "year": 2001, "sequel": False, "tags": ["anime", "fantasy"],
        "ratings": [{"source": "IMDb", "value": 8.6}, {"source": "RT", "value": 97}], "note": None}


def item(gold=GOLD, depth=3, category="movie", schema=SCHEMA):
    return ScoringItem("r1", "extraction", gold, payload={"text": "..."}, schema=schema,
                       category=category, depth=depth)


def score(text, mode="faithful", gold=GOLD, **kw):
    return scorer_for("extraction").score(item(gold, **kw), ScoringOutput(text), mode)


def fenced(obj, before="Here you go:\n", after="\nDone."):
    return f"{before}```json\n{json.dumps(obj)}\n```{after}"


def test_extraction_takes_the_last_fence_or_the_whole_text():
    text = "```json\n{\"a\": 1}\n```\nand the final one:\n```json\n{\"a\": 2}\n```"
    assert json.loads(extract_json_text(text)) == {"a": 2}
    assert extract_json_text('{"a": 3}') == '{"a": 3}'
    assert extract_json_text(None) is None
    upper = "```JSON\n{\"a\": 4}\n```"
    assert extract_json_text(upper) == upper.split("```")[0]  # faithful: not a fence
    assert json.loads(extract_json_text(upper, "fixed")) == {"a": 4}


def test_exact_copy_scores_full_marks_except_the_null_quirk():
    res = score(fenced(GOLD))
    assert res.metrics["format"] == 1 and res.metrics["strict"] == 1 and res.passed
    # Six gold keys; "note" is null so the original gives it 0: 5/6.
    assert res.metrics["detailed"] == pytest.approx(5 / 6)
    assert score(fenced(GOLD), "fixed").metrics["detailed"] == 1


def test_failures_score_zero_with_the_official_note_and_a_json_path():
    res = score("no json at all")
    assert res.metrics == {"format": 0, "detailed": 0, "strict": 0}
    assert res.notes[0] == "Not a invalid JSON"
    bad = dict(GOLD, ratings=[{"value": 1}])
    res = score(fenced(bad))
    assert res.notes[0] == "JSON output doesn't match the schema"
    assert "at $.ratings[0]: 'source' is a required property" in res.notes[1]
    assert score(None).notes[0] == "No markdown style JSON Pattern found"


def test_broken_schema_text_fails_the_record_with_a_clear_note():
    res = score(fenced(GOLD), schema="{not json")
    assert res.metrics["format"] == 0
    assert "the schema itself is invalid: the schema text is not JSON" in res.notes[1]


def test_detailed_score_rules():
    # Extra keys cost: 2 matching gold keys over 3 keys in the union.
    assert detailed_score({"a": 1, "b": 2}, {"a": 1, "b": 2, "c": 3}) == pytest.approx(2 / 3)
    # Lists of primitives: Jaccard of sets (order and duplicates ignored).
    assert detailed_score(["a", "b"], ["b", "c", "c"]) == pytest.approx(1 / 3)
    # Lists of objects: index-aligned, divided by the longer length.
    assert detailed_score([{"x": 1}, {"x": 2}], [{"x": 2}]) == 0
    assert detailed_score([{"x": 1}, {"x": 2}], [{"x": 1}]) == 0.5
    assert detailed_score([], []) == 1 and detailed_score([], [1]) == 0
    assert detailed_score({}, {}) == 1


def test_python_equality_quirk_and_its_fix():
    pred = dict(GOLD, sequel=0, year=2001.0)  # False == 0 and 2001 == 2001.0 in Python
    faithful = score(fenced(pred))
    assert faithful.metrics["strict"] == 1
    assert any("1 == 1.0 == True" in n for n in faithful.notes)
    fixed = score(fenced(pred), "fixed")
    assert fixed.metrics["strict"] == 0  # False is not 0 ...
    assert score(fenced(dict(GOLD, year=2001.0)), "fixed").metrics["strict"] == 1  # ... but 2001 is 2001.0


def test_unhashable_list_does_not_crash():
    schema = json.dumps({"type": "object"})
    gold = {"grid": [[1, 2], [3]]}
    res = score(fenced(gold), schema=schema, gold=gold)
    assert res.metrics["detailed"] == 0 and res.metrics["strict"] == 1
    assert any("raises TypeError" in n for n in res.notes)
    assert score(fenced(gold), "fixed", schema=schema, gold=gold).metrics["detailed"] == 1


def test_aggregate_overall_by_difficulty_and_category():
    sc = scorer_for("extraction")
    pairs = []
    for depth, category, text in [(3, "movie", fenced(GOLD)), (6, "movie", "oops"), (5, "game", fenced(GOLD))]:
        it = item(depth=depth, category=category)
        pairs.append((it, sc.score(it, ScoringOutput(text), "fixed")))
    agg = sc.aggregate(pairs)
    assert agg["overall"]["samples"] == 3
    assert agg["overall"]["strict"] == pytest.approx(2 / 3)
    assert agg["by_difficulty"]["Medium"]["format"] == 1
    assert agg["by_difficulty"]["Hard"]["format"] == 0.5
    assert agg["by_category"]["movie"]["detailed"] == 0.5


def test_gold_schema_failures_lists_golds_that_fail_their_schema():
    good, bad = item(), item(gold={"title": "x"})
    found = gold_schema_failures([good, bad])
    assert [(i is bad, f.path) for i, f in found] == [(True, "$")]
    assert "'year' is a required property" in found[0][1].message


def _sheet_rows(path: Path) -> list[dict]:
    openpyxl = pytest.importorskip("openpyxl")
    sheet = openpyxl.load_workbook(path, read_only=True)["sheet1"]
    rows = sheet.iter_rows(values_only=True)
    header = next(rows)
    return [dict(zip(header, row)) for row in rows]


def _refdata_item(row: dict, n: int) -> ScoringItem:
    return ScoringItem(str(n), "extraction", json.loads(row["json"]), schema=row["schema"],
                       category=row["category"], depth=row["true_depth"])


@pytest.mark.refdata
@pytest.mark.parametrize("name", ["gold_fenced", "gold_raw_nofence", "mixed"])
def test_refdata_every_record_matches_the_official_evaluation(name):
    predictions = REFDATA / "_synthetic" / "predictions" / f"{name}.xlsx"
    if not predictions.exists():
        pytest.skip(f"../shared/refdata/DeepJSONEval not found ({predictions})")
    preds = _sheet_rows(predictions)
    official = _sheet_rows(REFDATA / "_synthetic" / "evaluation" / f"{name}.xlsx")
    assert len(preds) == len(official) == 525
    sc = scorer_for("extraction")
    for n, (row, off) in enumerate(zip(preds, official)):
        res = sc.score(_refdata_item(row, n), ScoringOutput(row["model_output"]))
        got = (res.metrics["format"], res.metrics["detailed"], res.metrics["strict"], res.notes[0])
        want = (off["format_score"], off["detailed_score"], off["strict_score"], off["Notes"])
        assert got[0] == want[0] and got[2] == want[2] and got[3] == want[3], (name, n, got, want)
        assert got[1] == pytest.approx(want[1], abs=1e-12), (name, n, got, want)


@pytest.mark.refdata
def test_refdata_twelve_hard_golds_fail_their_own_schema():
    path = REFDATA / "DeepJSONEval.xlsx"
    if not path.exists():
        pytest.skip(f"../shared/refdata/DeepJSONEval not found ({path})")
    items = [_refdata_item(row, n) for n, row in enumerate(_sheet_rows(path))]
    assert len(items) == 525
    failures = gold_schema_failures(items)
    assert len(failures) == 12
    assert all(i.depth >= 5 for i, _ in failures)  # all Hard
    assert all(f.path.startswith("$") and f.message for _, f in failures)


def test_aggregate_flags_golds_that_fail_their_own_schema():
    from reviewer.scoring.base import ScoringItem, ScoringOutput
    from reviewer.scoring.deepjson import DeepJsonScorer

    schema = json.dumps({"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age"]})
    good = ScoringItem("1", "extraction", {"age": 3}, schema=schema, depth=3)
    bad = ScoringItem("2", "extraction", {"age": "3"}, schema=schema, depth=5)
    scorer = DeepJsonScorer()
    pairs = [(it, scorer.score(it, ScoringOutput(json.dumps(it.gold)))) for it in (good, bad)]
    flagged = scorer.aggregate(pairs)["gold_fails_schema"]
    assert [(f["record_id"], f["path"]) for f in flagged] == [("2", "$.age")]
    assert pairs[1][1].metrics["format"] == 0  # the exact gold itself cannot pass
