"""A dead endpoint: the connection error is reported at once and the run stops
after a few calls in a row got no answer, saying why; a connection test
reports models, latency and features of a live endpoint."""

from __future__ import annotations

import socket
import time

import pytest

from reviewer.jobs import JobContext
from reviewer.rerun.engine import UNREACHABLE_CALLS_TO_STOP, EndpointUnreachable, execute, plan
from reviewer.rerun.probe import probe
from reviewer.testing.openai_server import OpenAIServer, Reply


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Recorder(JobContext):
    def __init__(self):
        super().__init__()
        self.messages: list[tuple[float, str]] = []
        self.started = time.monotonic()

    def progress(self, done, total=None, message=""):
        super().progress(done, total, message)
        self.messages.append((time.monotonic() - self.started, message))


def test_closed_port_reports_the_error_and_stops(make_config, items, server):
    config = make_config(server, base_url=f"http://127.0.0.1:{closed_port()}/v1", retries=2, concurrency=1)
    calls = plan(items, config)
    ctx, results = Recorder(), []
    started = time.monotonic()
    with pytest.raises(EndpointUnreachable, match=r"3 calls in a row could not reach http://127.0.0.1:\d+/v1"):
        execute(calls, config, ctx, results.append)
    assert time.monotonic() - started < 10
    first = next(t for t, m in ctx.messages if m.startswith("cannot reach"))
    assert first < 2.0  # the connection error shows within seconds, not when the run ends
    assert "Connection" in next(m for _, m in ctx.messages if m.startswith("cannot reach"))
    assert len(results) == UNREACHABLE_CALLS_TO_STOP < len(calls)  # stopped: the other items were not tried
    assert all(r.status == "error" for r in results)


def test_errors_with_an_answer_do_not_stop_the_run(make_config, items, server):
    server.script(*[Reply.server_error(400)] * 4)  # the server answers, refusing: not a dead endpoint
    config = make_config(server, retries=0, concurrency=1)
    results = []
    summary = execute(plan(items, config), config, JobContext(), results.append)
    assert summary.errors == 4 and summary.ok == 2


def test_probe_reports_models_latency_and_features():
    with OpenAIServer(model="probe-model", reject=("tool_choice",)) as server:
        from reviewer.rerun.config import RunConfig

        report = probe(RunConfig(base_url=server.base_url, model="probe-model", cache=False))
    assert report.reachable and report.error is None
    assert "probe-model" in report.models and report.model_listed
    assert report.latency_ms is not None and report.latency_ms >= 0
    assert report.json_schema == "accepted"
    assert report.tools.startswith("refused") and "tool_choice" in report.tools
    text = report.describe()
    assert "models offered: probe-model" in text and "tools: refused" in text


def test_probe_of_a_closed_port_says_why():
    from reviewer.rerun.config import RunConfig

    report = probe(RunConfig(base_url=f"http://127.0.0.1:{closed_port()}/v1", model="m", cache=False))
    assert not report.reachable and "Connection" in report.error
    assert "not usable" in report.describe()
