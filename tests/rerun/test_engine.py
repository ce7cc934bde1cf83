"""The rerun engine end to end: real openai client -> loopback server, no mocks, no sleeps."""

from __future__ import annotations

import threading
import time

import pytest

from reviewer.errors import InputError
from reviewer.jobs import Cancelled, JobContext
from reviewer.rerun.engine import CallResult, execute, plan
from reviewer.testing.openai_server import OpenAIServer, Reply


def run(calls, config, ctx=None):
    results: list[CallResult] = []
    summary = execute(calls, config, ctx or JobContext(), results.append)
    return results, summary


# --- planning and resume ---------------------------------------------------------------


def test_plan_makes_one_call_per_item_and_replication(server, make_config, items):
    config = make_config(server, replications=2)
    calls = plan(items[:3], config)
    assert [(c.record_id, c.replication) for c in calls] == [
        ("item0", 0), ("item0", 1), ("item1", 0), ("item1", 1), ("item2", 0), ("item2", 1)
    ]
    assert "Patient number 1" in calls[2].request.messages[0]["content"]


def test_plan_skips_done_and_can_retry_only_failures(server, make_config, items):
    config = make_config(server, replications=2)
    done = {("item0", 0), ("item0", 1), ("item1", 0)}
    missing = plan(items[:3], config, done=done)
    assert [(c.record_id, c.replication) for c in missing] == [("item1", 1), ("item2", 0), ("item2", 1)]
    only_failed = plan(items[:3], config, done=done, retry_errors_only=True, failed={("item2", 1)})
    assert [(c.record_id, c.replication) for c in only_failed] == [("item2", 1)]


def test_plan_names_the_record_of_a_bad_item_before_sending(server, make_config, items):
    items[4].payload = {}  # no source text
    with pytest.raises(InputError, match="item4.*payload.text"):
        plan(items, make_config(server))
    assert server.request_count == 0


def test_resume_after_cancel_sends_only_the_missing_calls(server, make_config, items):
    config = make_config(server, concurrency=1)
    ctx = JobContext()
    first: list[CallResult] = []

    def keep(result):
        first.append(result)
        if len(first) == 2:
            ctx.cancel()

    with pytest.raises(Cancelled):
        execute(plan(items, config), config, ctx, keep)
    sent_before = server.request_count
    done = {(r.record_id, r.replication) for r in first if r.status == "ok"}
    rest, _ = run(plan(items, config, done=done), config)
    assert sorted(r.record_id for r in first + rest) == sorted(i.record_id for i in items)
    assert server.request_count == sent_before + len(rest) == sent_before + len(items) - 2


# --- results, threading, progress ------------------------------------------------------


def test_results_carry_text_tokens_and_arrive_on_the_callers_thread(make_config, items):
    with OpenAIServer(responder=lambda body: "```json\n{\"name\": \"Ann\"}\n```", latency=0.02) as server:
        config = make_config(server, concurrency=3)
        seen_threads = set()
        progress = []
        results = []

        def on_result(result):
            seen_threads.add(threading.get_ident())
            results.append(result)

        ctx = JobContext(on_progress=progress.append)
        summary = execute(plan(items, config), config, ctx, on_result)
    assert seen_threads == {threading.get_ident()}
    assert summary.ok == len(items) and summary.errors == 0
    assert all(r.text.startswith("```json") and r.prompt_tokens > 0 and r.completion_tokens > 0 for r in results)
    assert all(r.finish_reason == "stop" and r.latency_ms > 0 for r in results)
    assert results[0].meta["setup_type"] == "deepjsoneval"
    assert (progress[-1].done, progress[-1].total) == (len(items), len(items))


def test_no_more_than_concurrency_calls_in_flight(make_config, items):
    with OpenAIServer(latency=0.1) as server:
        config = make_config(server, concurrency=3)
        run(plan(items * 2, config), config)
        log = server.chat_requests()
    events = sorted([(r.received_at, 1) for r in log] + [(r.answered_at, -1) for r in log])
    in_flight = peak = 0
    for _, step in events:
        in_flight += step
        peak = max(peak, in_flight)
    assert 2 <= peak <= 3


def test_tool_calls_are_parsed(make_config):
    from reviewer.formats.base import ItemRecord

    item = ItemRecord(
        "bfcl1", "function_call", [], {},
        question="area?",
        payload={"functions": [{"name": "math.area", "description": "d", "parameters": {"type": "dict", "properties": {"r": {"type": "float"}}}}]},
    )
    reply = Reply(text=None, tool_calls=[{"name": "math_area", "arguments": {"r": 2.5}}])
    with OpenAIServer(responder=lambda body: reply) as server:
        config = make_config(server, strategy="default")
        [result], _ = run(plan([item], config), config)
        sent = server.chat_requests()[0].body
    assert sent["tools"][0]["function"]["parameters"]["properties"]["r"]["type"] == "number"
    assert result.tool_calls == [{"id": "call_0", "name": "math_area", "arguments": '{"r": 2.5}'}]
    assert result.finish_reason == "tool_calls"
    assert result.meta["tool_names"] == {"math_area": "math.area"}


# --- cancellation ------------------------------------------------------------------------


def test_cancel_abandons_calls_in_flight_and_sends_nothing_more(make_config, items):
    never = threading.Event()
    with OpenAIServer() as server:
        server.script("a", "b", Reply(hold=never), Reply(hold=never), Reply(hold=never), Reply(hold=never))
        config = make_config(server, concurrency=2)
        ctx = JobContext()
        # Cancel once both held requests have reached the server (no sleeps).
        canceller = threading.Thread(target=lambda: server.wait_for_requests(4) and ctx.cancel())
        canceller.start()
        results = []
        started = time.monotonic()
        with pytest.raises(Cancelled):
            execute(plan(items, config), config, ctx, results.append)
        elapsed = time.monotonic() - started
        canceller.join()
        assert sorted(r.text for r in results) == ["a", "b"]
        assert server.request_count == 4  # the two held ones; nothing after the cancel
    assert elapsed < 5  # the held answers never come: returning at all means they were abandoned


def test_cancel_during_a_rate_limit_pause_returns_promptly(make_config, items):
    with OpenAIServer() as server:
        server.script(Reply.rate_limited(retry_after=60))
        config = make_config(server, concurrency=1)
        ctx = JobContext()
        canceller = threading.Thread(target=lambda: server.wait_for_requests(1) and ctx.cancel())
        canceller.start()
        started = time.monotonic()
        with pytest.raises(Cancelled):
            execute(plan(items[:1], config), config, ctx, lambda r: None)
        canceller.join()
        assert time.monotonic() - started < 30  # far below the 60 s retry-after
        assert server.request_count == 1


def test_an_exception_in_on_result_stops_the_run(server, make_config, items):
    config = make_config(server, concurrency=1)

    def boom(result):
        raise RuntimeError("store is full")

    with pytest.raises(RuntimeError, match="store is full"):
        execute(plan(items, config), config, JobContext(), boom)
    assert server.request_count == 1


# --- retries and rate limits -----------------------------------------------------------


def test_429_retry_after_is_honoured(server, make_config, items):
    server.script(Reply.rate_limited(retry_after=0.4), "fine")
    config = make_config(server, concurrency=1)
    [result], summary = run(plan(items[:1], config), config)
    first, second = server.chat_requests()
    assert result.status == "ok" and result.text == "fine" and result.retries == 1
    assert summary.rate_limit_pauses == 1
    assert second.received_at - first.answered_at >= 0.4


def test_429_pauses_the_other_workers_too(server, make_config, items):
    # The first request is told to wait 0.6 s. The other worker's answer comes 0.3 s later
    # (ample time for the client to have read the 429), and its next request must still
    # wait out the shared pause instead of going straight out.
    server.script(Reply.rate_limited(retry_after=0.6), Reply(text="b1", delay=0.3))
    config = make_config(server, concurrency=2)
    results, _ = run(plan(items[:3], config), config)
    # The 429 is told by its status, the other worker's first call ("b1") as the first of the
    # rest: not by arriving within 0.1 s of the 429's request, which two threads on a loaded
    # machine need not manage.
    requests = server.chat_requests()
    [limited] = [r for r in requests if r.status == 429]
    _b1, *after_pause = [r for r in requests if r is not limited]
    assert all(r.status == "ok" for r in results)
    assert len(after_pause) == 2  # the retry and the third call
    assert all(r.received_at >= limited.answered_at + 0.6 for r in after_pause)


def test_500_is_retried_then_succeeds(server, make_config, items):
    server.script(Reply.server_error(500), Reply.server_error(503), "fine")
    config = make_config(server, concurrency=1, retries=3)
    [result], summary = run(plan(items[:1], config), config)
    assert (result.status, result.text, result.retries) == ("ok", "fine", 2)
    assert server.request_count == 3 and summary.retries == 2


def test_dropped_connection_is_retried(server, make_config, items):
    server.script(Reply.dropped(), "fine")
    config = make_config(server, concurrency=1)
    [result], _ = run(plan(items[:1], config), config)
    assert (result.status, result.text, result.retries) == ("ok", "fine", 1)
    assert server.request_count == 2


def test_retries_are_bounded_and_the_error_is_reported(server, make_config, items):
    server.script(*[Reply.server_error(500)] * 3)
    config = make_config(server, concurrency=1, retries=2)
    [result], summary = run(plan(items[:1], config), config)
    assert result.status == "error" and result.retries == 2 and "500" in result.error
    assert server.request_count == 3 and summary.errors == 1


def test_a_client_error_is_not_retried(server, make_config, items):
    server.script(Reply(text=None, status=400, error="context length exceeded"))
    config = make_config(server, concurrency=1)
    [result], _ = run(plan(items[:1], config), config)
    assert result.status == "error" and "context length exceeded" in result.error and result.retries == 0
    assert server.request_count == 1


# --- endpoint adaptations ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("rejected", "param", "overrides"),
    [
        ("json_schema", "response_format", {"strategy_options": {"constrained": True}}),
        ("seed", "seed", {"seed": 7}),
    ],
)
def test_a_rejected_parameter_is_dropped_for_the_rest_of_the_run(make_config, items, rejected, param, overrides):
    with OpenAIServer(reject={rejected}) as server:
        config = make_config(server, concurrency=1, **overrides)
        results, summary = run(plan(items[:3], config), config)
        bodies = [r.body for r in server.chat_requests()]
    assert all(r.status == "ok" for r in results)
    assert param in bodies[0] and all(param not in b for b in bodies[1:])
    assert len(bodies) == 4  # one refusal, then one request per call
    assert results[0].adaptations == [f"server rejected {param}; sent without it"]
    assert results[1].adaptations == [f"sent without {param} (the server rejected it earlier in this run)"]
    assert f"server rejected {param}; sent without it" in summary.adaptations
    assert results[0].retries == 0


def test_rejected_tool_choice_is_dropped(make_config):
    from reviewer.formats.base import ItemRecord

    item = ItemRecord(
        "fc", "function_call", [], {}, question="q",
        payload={"functions": [{"name": "f", "description": "", "parameters": {"type": "dict", "properties": {}}}]},
    )
    with OpenAIServer(reject={"tool_choice"}) as server:
        config = make_config(server, strategy="bfcl_fc", strategy_options={"tool_choice": "required"})
        [result], _ = run(plan([item], config), config)
        bodies = [r.body for r in server.chat_requests()]
    assert bodies[0]["tool_choice"] == "required" and "tool_choice" not in bodies[1]
    assert result.status == "ok" and result.adaptations == ["server rejected tool_choice; sent without it"]


def test_a_timed_out_attempt_is_retried(server, make_config, items):
    # The retry's answer has to come within the timeout: 1.5 s, not 0.3 s, so that a loaded
    # machine (or a long GC pause in a big test process) does not time the retry out too; the
    # first answer, 5 s late, still times out.
    server.script(Reply(text="too late", delay=5), "in time")
    config = make_config(server, concurrency=1, timeout=1.5)
    [result], _ = run(plan(items[:1], config), config)
    assert (result.status, result.text, result.retries) == ("ok", "in time", 1)
