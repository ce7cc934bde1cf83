"""NesTools scorer on small hand-made chains: each metric, each quirk, each fix."""

import copy

import pytest

from reviewer.scoring.base import ScoringItem, ScoringOutput
from reviewer.scoring.nestools import SCORER
from reviewer.scoring.nestools_aggregate import official_row

TASK = "Find a flight from Paris on March 3rd, 2024, book 2 seats on it and email the booking to ann@example.com."
APIS = [{"api_name": "find_flight"}, {"api_name": "book_flight"}, {"api_name": "send_email"}]
IDS = [101, 202, 303]
GOLD = [
    {"api_name": "find_flight", "parameters": {"origin": "Paris", "date": "2024-03-03"}, "responses": ["API_call_0"]},
    {"api_name": "book_flight", "parameters": {"flight_id": "API_call_0", "seats": 2},
     "responses": ["API_call_1", "API_call_2"]},
    {"api_name": "send_email", "parameters": {"to": "ann@example.com", "body": "API_call_2"},
     "responses": ["API_call_3"]},
]


def make_item(gold=GOLD, apis=APIS, ids=IDS, record_id="t1"):
    return ScoringItem(record_id, "call_chain", copy.deepcopy(gold), payload={"apis": apis, "api_ids": ids, "task": TASK})


def predicted(ids=(101, 202, 303), first="API_call_0", conf="API_call_1", price="API_call_2", body=None, **edits):
    """The right answer with consistent placeholder names, then per-call parameter edits."""
    calls = [
        {"api_name": "find_flight", "api_id": ids[0], "parameters": {"origin": "Paris", "date": "2024-03-03"},
         "responses": {"flight": first}},
        {"api_name": "book_flight", "api_id": ids[1], "parameters": {"flight_id": first, "seats": 2},
         "responses": {"confirmation": conf, "price": price}},
        {"api_name": "send_email", "api_id": ids[2], "parameters": {"to": "ann@example.com", "body": body or price},
         "responses": {"status": "API_call_3"}},
    ]
    for key, params in edits.items():
        calls[int(key[1:])]["parameters"] = params
    return calls


def score(calls_or_text, mode="faithful", item=None):
    import json

    text = calls_or_text if isinstance(calls_or_text, str) else json.dumps(calls_or_text)
    return SCORER.score(item or make_item(), ScoringOutput(text=text), mode)


def counts(result):
    m = result.metrics
    return {d: (m[f"{d}_tp"], m[f"{d}_pred"], m[f"{d}_gold"]) for d in ("selection", "order", "param", "nested")}


def test_right_answer_with_renumbered_placeholders_passes():
    result = score(predicted(first="API_call_7", conf="API_call_8", price="API_call_9"))
    assert counts(result) == {"selection": (3, 3, 3), "order": (2, 2, 2), "param": (6, 6, 6), "nested": (2, 2, 2)}
    assert result.passed is True and result.value == 1.0
    assert result.metrics["depth"] == 3


def test_string_ids_fail_faithfully_and_count_in_fixed_mode():
    calls = predicted(ids=("101", "202", "303"))
    faithful = score(calls)
    assert counts(faithful)["selection"] == (0, 3, 3)
    assert any("different type" in n for n in faithful.notes)
    fixed = score(calls, "fixed")
    assert counts(fixed)["selection"] == (3, 3, 3) and fixed.passed


def test_nested_value_pointing_at_the_wrong_response_is_confusion():
    result = score(predicted(body="API_call_1"))  # the confirmation, not the price
    assert counts(result)["nested"] == (1, 2, 2)
    assert result.metrics["nest_confusion"] == 1
    # Faithful counts the same mistake again as a non-nested "others" error; fixed does not.
    assert result.metrics["others"] == 1
    assert score(predicted(body="API_call_1"), "fixed").metrics["others"] == 0
    assert result.passed is False


def test_date_in_another_spelling_earns_almost_full_credit_but_no_tree_pass():
    result = score(predicted(c0={"origin": "Paris", "date": "March 3rd, 2024"}))
    assert 5.9999 < result.metrics["param_tp"] < 6
    assert result.passed is False  # only exact equality scores exactly 1


def test_order_counts_consecutive_pairs_and_nested_needs_an_earlier_producer():
    calls = predicted()
    calls = [calls[2], calls[0], calls[1]]  # email first, before the booking it reports
    result = score(calls)
    assert counts(result)["order"] == (1, 2, 2)  # only (find, book) survives
    assert counts(result)["selection"] == (3, 3, 3)
    assert counts(result)["nested"] == (1, 2, 2)  # the email body's producer was not yet matched


def test_repeated_api_takes_the_best_matching_gold_call():
    gold = [
        {"api_name": "find_flight", "parameters": {"origin": "Paris"}, "responses": ["API_call_0"]},
        {"api_name": "find_flight", "parameters": {"origin": "Lyon"}, "responses": ["API_call_1"]},
    ]
    item = make_item(gold=gold, apis=APIS[:1], ids=IDS[:1])
    calls = [
        {"api_name": "find_flight", "api_id": 101, "parameters": {"origin": "Lyon"}},
        {"api_name": "find_flight", "api_id": 101, "parameters": {"origin": "Paris"}},
    ]
    result = score(calls, item=item)
    assert counts(result)["param"] == (2, 2, 2)
    assert counts(result)["selection"] == (2, 2, 2)


def test_format_failure_counts_the_gold_and_predicts_nothing():
    result = score("I cannot do that.")
    assert result.metrics["format_ok"] is False
    assert counts(result) == {"selection": (0, 0, 3), "order": (0, 0, 2), "param": (0, 0, 6), "nested": (0, 0, 2)}
    assert any(n.startswith("format failure") for n in result.notes)


def test_failed_call_is_skipped_and_left_out_of_the_summary():
    skipped = SCORER.score(make_item(), ScoringOutput(text=None, status="error"))
    assert skipped.skipped
    good = score(predicted())
    summary = SCORER.aggregate([(make_item(), skipped), (make_item(), good)])
    assert summary["skipped"] == 1 and summary["items"] == 1 and summary["average"] == 1.0


def test_parameter_error_categories():
    calls = predicted(
        c0={"origin": "Lyon", "date": "UNK", "class": "economy"},  # extraction, omission, redundancy
        c1={"flight_id": "AF123", "seats": "2"},  # nested identification, type
        c2={"to": "API_call_0"},  # nested hallucination; body missing: nested omission
    )
    m = score(calls, "fixed").metrics
    # "to" is wrong and its gold value is in the task, so it is also an extraction error.
    assert (m["extraction"], m["omission"], m["redundancy"], m["type"]) == (2, 1, 1, 1)
    assert (m["nest_identification"], m["nest_hallucination"], m["nest_omission"]) == (1, 1, 1)
    # a wrong value that does not appear in the task is "others"
    assert score(predicted(c0={"origin": "Paris", "date": "tomorrow"}), "fixed").metrics["others"] == 1


def test_aggregate_micro_averages_counts_across_items():
    perfect = score(predicted())
    failed = score("nothing")
    summary = SCORER.aggregate([(make_item(), perfect), (make_item(), failed)])
    assert summary["format_accuracy"] == 0.5 and summary["tree_pass_rate"] == 0.5
    assert summary["selection_p"] == 1.0 and summary["selection_r"] == 0.5
    assert summary["selection_f1"] == pytest.approx(2 / 3)
    assert summary["average"] == pytest.approx(2 / 3)
    assert official_row(summary)[:4] == ["50.0", "100.0", "50.0", "66.7"]


def test_breakdowns_by_depth_and_structure():
    flat_gold = [
        {"api_name": "find_flight", "parameters": {"origin": "Paris"}, "responses": ["API_call_0"]},
        {"api_name": "send_email", "parameters": {"to": "ann@example.com"}, "responses": ["API_call_1"]},
    ]
    flat = make_item(gold=flat_gold, record_id="flat")
    flat_result = score([{"api_name": "find_flight", "api_id": 101, "parameters": {"origin": "Paris"}},
                         {"api_name": "send_email", "api_id": 303, "parameters": {"to": "ann@example.com"}}],
                        item=flat)
    summary = SCORER.aggregate([(make_item(), score(predicted())), (flat, flat_result)])
    assert set(summary["by_depth"]) == {"depth1", "depth345"}
    assert summary["by_depth"]["depth1"]["nested_f1"] is None  # the official depth-1 table has no nested column
    assert len(official_row(summary["by_depth"]["depth1"])) == 10
    assert set(summary["by_structure"]) == {"1, 2", "1→2, 2→3"}
    assert set(summary["by_official_structure"]) == {"struct0", "struct10"}


def test_substring_depth_quirk_only_in_faithful_mode():
    gold = [
        {"api_name": "find_flight", "parameters": {}, "responses": ["API_call_1"]},
        {"api_name": "book_flight", "parameters": {"flight_id": "API_call_10"}, "responses": []},
    ]
    item = make_item(gold=gold, apis=APIS[:2], ids=IDS[:2])
    assert score("[]", item=item).metrics["depth"] == 2  # "API_call_1" found inside "API_call_10"
    assert score("[]", "fixed", item=item).metrics["depth"] == 1


def test_items_deeper_than_five_leave_the_faithful_main_table():
    apis = [{"api_name": f"step{k}"} for k in range(6)]
    gold = [{"api_name": f"step{k}", "parameters": {"x": f"API_call_{k - 1}"} if k else {"x": 1},
             "responses": [f"API_call_{k}"]} for k in range(6)]
    deep = make_item(gold=gold, apis=apis, ids=list(range(6)), record_id="deep")
    pairs = [(deep, score("[]", item=deep)), (make_item(), score(predicted()))]
    assert SCORER.aggregate(pairs)["items"] == 1 and SCORER.aggregate(pairs)["outside_main_table"] == 1
    fixed_pairs = [(deep, score("[]", "fixed", item=deep)), (make_item(), score(predicted(), "fixed"))]
    assert SCORER.aggregate(fixed_pairs)["items"] == 2


def test_gold_naming_an_unknown_api_is_reported_not_scored():
    gold = [{"api_name": "no_such_api", "parameters": {}, "responses": []}]
    result = score("[]", item=make_item(gold=gold))
    assert result.skipped and "no_such_api" in result.notes[0] and "$.gold[0]" in result.notes[0]


def test_registered_for_its_kind():
    from reviewer.scoring.registry import scorer_for

    assert scorer_for("call_chain").name == "nestools"
