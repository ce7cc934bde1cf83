"""Scoring through the store: scores saved per output, re-scoring on gold edits, comparisons."""

from __future__ import annotations

import pytest

from reviewer.jobs import Cancelled, JobContext
from reviewer.samples import ensure_samples
from reviewer.scoring.job import compare_runs, rescore_items, score_run, stored_results


@pytest.fixture
def samples(store):
    ensure_samples(store)
    return store


def test_scores_are_stored_per_output_with_their_mode(samples):
    store = samples
    a, b = store.runs("sample-tool-qa")
    faithful = score_run(store, b.id, "faithful")
    fixed = score_run(store, b.id, "fixed")
    assert faithful.scored == fixed.scored == 6
    # the code run returns a number where the gold is a string: only fixed mode accepts it
    assert fixed.by_category["(all)"]["pass_rate"] > faithful.by_category["(all)"]["pass_rate"]
    stored = stored_results(store, b.id, "faithful")
    assert len(stored) == 6 and all(r.primary for r in stored.values())
    again = score_run(store, b.id, "faithful")  # scoring again replaces, never duplicates
    assert len(stored_results(store, b.id, "faithful")) == 6 and again.summary == faithful.summary
    assert set(store.run_scores(b.id, mode="fixed").values()) <= {0.0, 1.0}


def test_editing_gold_rescores_and_lists_flipped_verdicts(samples):
    store = samples
    runs = {r.name: r for r in store.runs("sample-extraction")}
    for run in runs.values():
        score_run(store, run.id, "faithful")
    scores = {name: store.run_scores(run.id) for name, run in runs.items()}
    # an item one run gets right (strict) and the other gets wrong but with parseable JSON
    item_id, winner, loser = next(
        (i, w, l) for i in scores["demo-alpha-7b"] for w, l in (("demo-alpha-7b", "demo-beta-13b"),
                                                               ("demo-beta-13b", "demo-alpha-7b"))
        if scores[w][i] == 1.0 and scores[l][i] == 0.0
        and _parsed(next(o for o in store.outputs(i) if o.run == l).text) is not None
    )
    item = store.item(item_id)
    losing_answer = _parsed(next(o for o in store.outputs(item_id) if o.run == loser).text)
    store.set_gold(item_id, losing_answer, actor="alice", expected_version=item.version)
    flips = {(f.run, f.before, f.after) for f in rescore_items(store, [item_id])}
    assert (winner, True, False) in flips and (loser, False, True) in flips
    assert store.run_scores(runs[winner].id)[item_id] == 0.0
    assert rescore_items(store, [item_id]) == []  # nothing changed since: nothing flips


def _parsed(text):
    import json

    from reviewer.scoring.deepjson import extract_json_text

    try:
        return json.loads(extract_json_text(text))
    except (TypeError, ValueError):
        return None


def test_cancelled_scoring_keeps_only_complete_scores(samples):
    store = samples
    run = store.runs("sample-tool-selection")[0]
    ctx = JobContext()

    def stop_after_some(progress):
        if progress.done == 5:
            ctx.cancel()

    ctx._on_progress = stop_after_some
    with pytest.raises(Cancelled):
        score_run(store, run.id, "faithful", ctx)
    # nothing half-written: every stored score is whole; the rest simply is not there yet
    assert all(r.primary for r in stored_results(store, run.id).values())
    assert score_run(store, run.id, "faithful").scored == 32


def test_two_runs_compare_largest_difference_first(samples):
    store = samples
    a, b = store.runs("sample-function-calls")
    score_run(store, a.id)
    score_run(store, b.id)
    rows = compare_runs(store, a.id, b.id)
    assert len(rows) == 6
    diffs = [abs(r["difference"]) for r in rows]
    assert diffs == sorted(diffs, reverse=True) and diffs[0] == 1.0
    for first, second in zip(rows, rows[1:]):  # equal differences: in dataset order, not by id as text
        if first["difference"] == second["difference"]:
            assert first["position"] < second["position"]


def test_llm_judge_asks_the_endpoint_with_figure_24_prompt(samples, tmp_path):
    from reviewer.rerun.config import RunConfig
    from reviewer.testing.openai_server import OpenAIServer, Reply

    store = samples
    run = store.runs("sample-tool-qa")[0]
    with OpenAIServer(responder=lambda body: Reply(text="True. The answers match.")) as server:
        judge = RunConfig(base_url=server.base_url, model="judge", cache=False)
        score_run(store, run.id, "faithful", judge=judge)
        prompts = [r.body["messages"][-1]["content"] for r in server.chat_requests()]
    assert len(prompts) == 6
    assert all("Ground truth" in p or "ground truth" in p.lower() for p in prompts)
    assert all(r.metrics["llm_as_a_judge"] is True for r in stored_results(store, run.id).values())
