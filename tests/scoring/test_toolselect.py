"""Tool-selection scoring (paper 002): NLT YES/NO lines, structured tool calls, replications."""

import json

import pytest

from reviewer.scoring.base import ScoringItem, ScoringOutput
from reviewer.scoring.toolselect import SCORER, parse_nlt, tool_key

# The "Alex" customer-service tools of paper 002, Appendix A.
TOOLS = [
    "Recap of previous conversation",
    "Website information",
    "Recent social media posts",
    "Available discounts",
    "List of upcoming events",
    "Past Purchases",
    "Talk to a Human",
]


def item(gold, record_id="alex1", category="alex"):
    tools = [{"name": t, "description": f"about {t.lower()}"} for t in TOOLS]
    return ScoringItem(record_id, "tool_select", sorted(gold), payload={"tools": tools}, category=category)


def nlt(yes, sep="--", finished=True, style=lambda line: line):
    lines = ["Thinking: the user asks where to buy tickets and about an order (Talk to a Human -- NO yet)."]
    lines += [style(f"{t} {sep} {'YES' if t in yes else 'NO'}") for t in TOOLS]
    if finished:
        lines.append("Assessment finished.")
    return "\n\n".join(lines)


def score(gold, text=None, mode="faithful", **extra):
    return SCORER.score(item(gold), ScoringOutput(text=text, extra=extra), mode)


# Input 1 of Appendix A.3.1 expects Website information and Past Purchases.
INPUT1 = ["Website information", "Past Purchases"]


def test_exact_nlt_answer_passes():
    result = score(INPUT1, nlt(INPUT1))
    assert result.passed is True and result.value == 1
    assert result.metrics["selected"] == 2


def test_extra_or_missing_tool_fails_without_partial_credit():
    extra = score(INPUT1, nlt(INPUT1 + ["Available discounts"]))
    assert extra.passed is False and extra.metrics["extra"] == 1
    missing = score(INPUT1, nlt(["Past Purchases"]))
    assert missing.passed is False and missing.metrics["missing"] == 1
    assert "missing: ['Website information']" in missing.notes[-1]


def test_no_tool_expected_and_all_no():
    assert score([], nlt([])).passed is True


def test_en_dash_separator_from_the_paper_and_last_line_wins():
    assert score(INPUT1, nlt(INPUT1, sep="–")).passed
    # The thinking line mentions "Talk to a Human -- NO" but does not start with it; later lines decide.
    decisions, finished = parse_nlt(nlt(["Talk to a Human"]), TOOLS)
    assert decisions["Talk to a Human"] is True and finished


def test_missing_finish_line_and_tool_lines_are_noted_not_failed():
    text = "Website information -- YES\nPast Purchases -- YES"
    result = score(INPUT1, text)
    assert result.passed is True
    assert any("Assessment finished" in n for n in result.notes)
    assert any("read as NO" in n for n in result.notes)


def test_markdown_lines_only_read_in_fixed_mode():
    text = nlt(INPUT1, sep=":", style=lambda line: f"- **{line.split(' : ')[0]}**: {line.split(' : ')[1]}")
    assert score(INPUT1, text).passed is False  # strict parser finds no line: selects nothing
    assert score(INPUT1, text, mode="fixed").passed is True


def test_nlt_approach_without_lines_is_unparsed():
    result = score([], "I don't think any tool is needed.", approach="nlt")
    assert result.passed is False and result.metrics["parsed"] is False


def test_structured_tool_calls_in_extra_are_mapped_to_tool_names():
    calls = [
        {"id": "1", "type": "function", "function": {"name": "check_website_information", "arguments": "{}"}},
        {"id": "2", "type": "function", "function": {"name": "check_past_purchases", "arguments": "{}"}},
    ]
    assert score(INPUT1, "Let me check.", tool_calls=calls).passed is True
    assert score(INPUT1, "Let me check.", tool_calls=calls[:1]).passed is False


def test_structured_json_text_and_unknown_tool():
    text = json.dumps({"tool_calls": [{"function": {"name": "check_talk_to_a_human", "arguments": {}}}]})
    assert score(["Talk to a Human"], text).passed is True
    result = score(["Talk to a Human"], json.dumps([{"name": "refund_everything", "arguments": {}}]))
    assert result.passed is False and any("not one of the item's tools" in n for n in result.notes)


def test_structured_answer_without_calls_selects_nothing():
    assert score([], "Thanks for the kind words!", approach="structured").passed is True
    assert score(["Talk to a Human"], "Sure.", approach="structured").passed is False


def test_tool_key_matches_function_and_display_names():
    assert tool_key("check_safety_call") == tool_key("Safety Call") == "safety_call"


def test_failed_calls_are_excluded():
    result = SCORER.score(item(INPUT1), ScoringOutput(text=None, status="error"))
    assert result.skipped


def test_aggregate_accuracy_and_variance_over_replications():
    pairs = []
    # Replication 0: both items right; replication 1: one of two right.
    for rep, answers in enumerate([(INPUT1, []), (INPUT1, ["Talk to a Human"])]):
        for record_id, (gold, said) in zip(("a", "b"), zip((INPUT1, []), answers)):
            it = item(gold, record_id=record_id)
            pairs.append((it, SCORER.score(it, ScoringOutput(text=nlt(said), extra={"replication": rep}))))
    summary = SCORER.aggregate(pairs)
    assert summary["trials"] == 4 and summary["accuracy"] == 0.75
    assert summary["by_replication"] == {0: 1.0, 1: 0.5}
    assert summary["variance"] == pytest.approx(0.0625) and summary["sd"] == pytest.approx(0.25)
    assert summary["variance_sample"] == pytest.approx(0.125)
    assert summary["consistent_items"] == 0.5
    assert summary["by_category"] == {"alex": 0.75}


def test_registered_for_its_kind():
    from reviewer.scoring.registry import scorer_for

    assert scorer_for("tool_select").name == "toolselect"
