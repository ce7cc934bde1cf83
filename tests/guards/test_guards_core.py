"""Each semantic guard on items built for it: what a reviewer would see flagged, and why."""

from __future__ import annotations

import json

import pytest

from reviewer.guards.base import FAIL, PASS, GuardItem
from reviewer.guards.constraints import ConstraintGuard, RuleError, parse_rule
from reviewer.guards.grounding import GroundingGuard
from reviewer.guards.length import LengthGuard, word_count
from reviewer.guards.schema import SchemaGuard
from reviewer.guards.settings import Settings


def extraction(gold, text="", schema=None) -> GuardItem:
    return GuardItem(id=1, record_id="r1", kind="extraction", gold=gold, source=text,
                     schema=json.dumps(schema) if schema is not None else None)


# -- constraints ---------------------------------------------------------------


def test_date_order_violation_names_the_paths_and_both_values():
    gold = {"trip": {"start_date": "2024-05-10", "end_date": "3 May 2024"}}
    result = ConstraintGuard().check(extraction(gold), Settings(rules=["$.trip.start_date <= $.trip.end_date"]))
    assert result.status == FAIL
    [v] = result.details["violations"]
    assert v["path"] == "$.trip.start_date" and v["value"] == "2024-05-10"
    assert v["other_path"] == "$.trip.end_date" and v["other"] == "3 May 2024"
    assert "$.trip.start_date" in result.summary and "3 May 2024" in result.summary
    ok = {"trip": {"start_date": "2024-05-01", "end_date": "May 3, 2024"}}  # different formats, right order
    assert ConstraintGuard().check(extraction(ok), Settings(rules=["$.trip.start_date <= $.trip.end_date"])).status == PASS


def test_ranges_units_equality_and_id_links():
    gold = {
        "items": [{"price": "1,250"}, {"price": -3}],
        "patient": {"age": 212, "height": "180 cm", "weight": "72"},
        "orders": [{"customer": "c1"}, {"customer": "c9"}],
        "customers": [{"id": "c1"}, {"id": "c2"}],
        "total": 10, "sum": 10,
    }
    rules = ["$..price >= 0", "$.patient.age between 0 and 130", '$.patient.height unit in ["cm", "m"]',
             '$.patient.weight unit in ["kg"]', "$.orders[*].customer in $.customers[*].id", "$.total == $.sum"]
    result = ConstraintGuard().check(extraction(gold), Settings(rules=rules))
    found = {(v["rule"], v["path"]) for v in result.details["violations"]}
    assert found == {
        ("$..price >= 0", "$.items[1].price"),
        ("$.patient.age between 0 and 130", "$.patient.age"),
        ('$.patient.weight unit in ["kg"]', "$.patient.weight"),
        ("$.orders[*].customer in $.customers[*].id", "$.orders[1].customer"),
    }
    assert result.details["count"] == 4


def test_paired_paths_compare_element_by_element():
    gold = {"events": [{"start": 1, "end": 2}, {"start": 5, "end": 4}, {"start": 7, "end": 9}]}
    result = ConstraintGuard().check(extraction(gold), Settings(rules=["$.events[*].start <= $.events[*].end"]))
    assert [v["path"] for v in result.details["violations"]] == ["$.events[1].start"]


def test_a_rule_whose_path_names_nothing_does_not_apply():
    assert ConstraintGuard().check(extraction({"a": 1}), Settings(rules=["$.b >= 0"])).status == PASS


@pytest.mark.parametrize("bad", ["$.a", "a <= 1", "$.a between 1", "$.a in 3", "$.a[x <= 1"])
def test_bad_rules_are_refused_with_the_rule_named(bad):
    with pytest.raises(RuleError, match="rule"):
        parse_rule(bad)
    with pytest.raises(RuleError):
        Settings.from_dict({"rules": [bad]})


# -- grounding -----------------------------------------------------------------

SOURCE = """Maria  Silva was admitted on 5 March 2021 to the Central Hospital.
Her bill came to 1,234 dollars; the ward has 1.2e3 beds.
Weekday hours: opens at 8:00 AM and closes at 5:00 PM."""


def test_an_ungrounded_value_flags_the_item_and_says_which():
    gold = {"name": "Maria Silva", "doctor": "Dr. Chen"}
    result = GroundingGuard().check(extraction(gold, SOURCE), Settings())
    assert result.status == FAIL
    assert result.details["missing"] == ["$.doctor"]
    assert "Dr. Chen" in result.summary


def test_grounded_values_written_differently_are_found_with_their_span():
    gold = {"name": "maria silva", "admitted": "2021-03-05", "bill": 1234, "beds": 1200,
            "hospital": "CENTRAL HOSPITAL", "hours": "8:00 AM - 5:00 PM", "insured": True, "note": None}
    result = GroundingGuard().check(extraction(gold, SOURCE), Settings())
    assert result.status == PASS, result.summary
    by_path = {v["path"]: v for v in result.details["values"]}
    assert set(by_path) == {"$.name", "$.admitted", "$.bill", "$.beds", "$.hospital", "$.hours"}  # no bool/null
    spans = {p: SOURCE[v["spans"][0][0]:v["spans"][0][1]] for p, v in by_path.items()}
    assert spans["$.name"] == "Maria  Silva"  # case and white space ignored
    assert spans["$.admitted"] == "5 March 2021" and by_path["$.admitted"]["how"] == "date"
    assert spans["$.bill"] == "1,234" and spans["$.beds"] == "1.2e3"
    assert by_path["$.hours"]["how"] == "time" and spans["$.hours"] == "8:00 AM and closes at 5:00 PM"


def test_times_punctuation_and_scattered_words_written_differently():
    text = "Weekends: from 10:00 AM to 11:30 PM. Maker: 幻影科技（PhantomTech）. Led by Dr.  Ana Ruiz of Lima."
    gold = {"hours": "10:00-23:30", "maker": "幻影科技 (PhantomTech)", "who": "Ana Ruiz, Lima", "bad": "10:00-22:30"}
    result = GroundingGuard().check(extraction(gold, text), Settings())
    how = {v["path"]: v["how"] for v in result.details["values"]}
    assert how == {"$.hours": "time", "$.maker": "text", "$.who": "parts", "$.bad": None}


def test_numbers_inside_longer_numbers_are_not_evidence():
    result = GroundingGuard().check(extraction({"n": 234, "m": 1.2}, SOURCE), Settings())
    assert result.details["missing"] == ["$.n", "$.m"]


def test_cjk_values_and_numbers_with_units():
    text = "患者李明，目前服用二甲双胍，剂量为850毫克每天；成交量跃升至3764.10万股。"
    gold = {"name": "李明", "dose": 850.0, "volume": 37641000, "drug": "阿司匹林"}
    result = GroundingGuard().check(extraction(gold, text), Settings())
    assert result.details["missing"] == ["$.drug"]


def test_tool_qa_answers_are_grounded_in_the_response_and_aggregations_skipped():
    response = json.dumps({"results": [{"name": "Air Max"}, {"name": "Gel-Kayano"}]})
    item = GuardItem(2, "q", "tool_qa", "Air Max, Gel-Kayano, Pegasus", response, category="FILTERING")
    result = GroundingGuard().check(item, Settings())
    assert result.details["missing"] == ["$[2]"]
    agg = GuardItem(3, "q", "tool_qa", "17.5", response, category="AGGREGATION")
    assert not GroundingGuard().applies(agg, Settings())


# -- length --------------------------------------------------------------------


def test_a_short_source_is_flagged_for_fix_or_reject_with_the_counts():
    item = extraction({"a": 1}, "word " * 1499)
    result = LengthGuard().check(item, Settings())
    assert result.status == FAIL and result.details == {"words": 1499, "min_words": 1500}
    assert "Fix or Reject" in result.summary
    assert LengthGuard().check(extraction({"a": 1}, "word " * 1500), Settings()).status == PASS
    assert LengthGuard().check(item, Settings(min_words=1000)).status == PASS  # the dataset's threshold
    assert not LengthGuard().applies(item, Settings(min_words=0))
    tool = GuardItem(1, "q", "tool_qa", "x", "{}")
    assert not LengthGuard().applies(tool, Settings())  # the paper's rule is for source texts


def test_cjk_characters_count_as_words():
    assert word_count("患者李明 was admitted") == 6


# -- schema --------------------------------------------------------------------


def test_schema_failures_name_the_path():
    schema = {"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age", "name"]}
    result = SchemaGuard().check(extraction({"age": "three"}, schema=schema), Settings())
    assert result.status == FAIL
    assert {e["path"] for e in result.details["errors"]} == {"$", "$.age"}
    assert SchemaGuard().check(extraction({"age": 3, "name": "x"}, schema=schema), Settings()).status == PASS
    broken = SchemaGuard().check(extraction({"age": 3}, schema={"type": "strng"}), Settings())
    assert broken.status == FAIL and "schema" in broken.summary
