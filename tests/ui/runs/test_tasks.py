"""The dock's job functions (Qt-free): which items a rerun sends, stored aggregates."""

from __future__ import annotations

from reviewer.jobs import JobContext
from reviewer.rerun.config import RunConfig
from reviewer.scoring.job import score_run
from reviewer.store.queries import ItemQuery
from reviewer.testing.openai_server import OpenAIServer, Reply
from reviewer_ui.runs import tasks

TOOLSEL = "sample-tool-selection"


def _config(server) -> RunConfig:
    return RunConfig(base_url=server.base_url, model="m", cache=False, retries=0, concurrency=4)


def test_rerun_scopes_send_the_filtered_and_the_fixed_items(samples_store):
    store = samples_store
    ds = store.dataset(TOOLSEL)
    query = ItemQuery(dataset_id=ds.id, text="alex")
    expected = store.count_items(query)
    assert 0 < expected < ds.items
    item = store.find_item(TOOLSEL, "sage-01")
    store.set_gold(item.id, ["Safety Call"], "tester", item.version, "test fix")
    with OpenAIServer(responder=lambda body: Reply(text="Assessment finished.")) as server:
        filtered = tasks.rerun_run(JobContext(), store, ds.id, "f", _config(server), "filter", query)
        edited = tasks.rerun_run(JobContext(), store, ds.id, "e", _config(server), "edited")
        assert server.request_count == expected + 1
    assert filtered.report.planned == expected and filtered.error_count == 0
    assert edited.report.planned == 1
    assert store.run(TOOLSEL, "e").outputs == 1


def test_rerun_errors_are_listed_by_record(samples_store):
    ds = samples_store.dataset("sample-schema-generation")
    with OpenAIServer(responder=lambda body: Reply(text="{}")) as server:
        server.script(Reply.server_error(), Reply.server_error())
        outcome = tasks.rerun_run(JobContext(), samples_store, ds.id, "r", _config(server))
    assert outcome.error_count == 2 and len(outcome.errors) == 2
    assert all("500" in message for _, message in outcome.errors)


def test_stored_aggregate_equals_the_one_scoring_returned(samples_store):
    run = samples_store.run("sample-extraction", "demo-beta-13b")
    assert tasks.stored_run_scores(samples_store, run.id, "fixed") is None
    scored = score_run(samples_store, run.id, "fixed")
    stored = tasks.stored_run_scores(samples_store, run.id, "fixed")
    assert (stored.by_category, stored.summary, stored.scored) == (scored.by_category, scored.summary, scored.scored)
