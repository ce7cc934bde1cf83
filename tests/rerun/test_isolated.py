"""Reruns whose calls are made in a child process (reviewer.rerun.isolated), as the GUI makes them.

The contract is the in-process engine's: results on the caller's thread, cancel within a
poll, nothing sent after a cancel, errors raised here, the key only in memory.
"""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest

from reviewer.errors import ReviewerError
from reviewer.jobs import Cancelled, JobContext
from reviewer.rerun.engine import EndpointUnreachable, plan
from reviewer.rerun.isolated import execute_isolated
from reviewer.rerun.job import rerun
from reviewer.rerun.secrets import MissingKey
from reviewer.samples import ensure_samples
from reviewer.testing.openai_server import OpenAIServer, Reply



def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_results_arrive_on_the_callers_thread_with_the_summary(make_config, items):
    with OpenAIServer(responder=lambda body: "```json\n{\"name\": \"Ann\"}\n```") as server:
        config = make_config(server, concurrency=3)
        threads, results, progress = set(), [], []

        def on_result(result):
            threads.add(threading.get_ident())
            results.append(result)

        summary = execute_isolated(plan(items, config), config, JobContext(progress.append), on_result)
    assert threads == {threading.get_ident()}
    assert summary.ok == len(items) == len(results) and summary.errors == 0
    assert sorted(r.record_id for r in results) == sorted(i.record_id for i in items)
    assert all(r.text.startswith("```json") and r.prompt_tokens > 0 for r in results)
    assert (progress[-1].done, progress[-1].total) == (len(items), len(items))


def test_cancel_returns_promptly_and_nothing_more_is_sent(make_config, items):
    never = threading.Event()
    with OpenAIServer() as server:
        server.script("a", "b", Reply(hold=never), Reply(hold=never), Reply(hold=never), Reply(hold=never))
        config = make_config(server, concurrency=2)
        ctx = JobContext()
        results = []
        cancelled_at = []

        def cancel_when_held():
            if server.wait_for_requests(4, timeout=30):
                cancelled_at.append(time.monotonic())
                ctx.cancel()

        canceller = threading.Thread(target=cancel_when_held)
        canceller.start()
        with pytest.raises(Cancelled):
            execute_isolated(plan(items, config), config, ctx, results.append)
        returned = time.monotonic()
        canceller.join()
        sent = server.request_count
        never.set()  # release the held answers: nobody is listening any more
        assert sorted(r.text for r in results) == ["a", "b"]
        assert sent == 4  # the two held calls; nothing after the cancel
        # the child is told at once; its engine lets go within a poll, the child exits
        assert returned - cancelled_at[0] < 1.0
        assert not server.wait_for_requests(5, timeout=0.3)


def test_endpoint_errors_come_back_as_the_same_exception(make_config, items, server):
    config = make_config(server, base_url=f"http://127.0.0.1:{closed_port()}/v1", retries=0, concurrency=1)
    results = []
    with pytest.raises(EndpointUnreachable, match="could not reach"):
        execute_isolated(plan(items, config), config, JobContext(), results.append)
    assert len(results) == 3 and all(r.status == "error" for r in results)


def test_an_exception_in_on_result_stops_the_child(make_config, items):
    # The child runs ahead of us by the call it starts after sending a result; with answers
    # taking 0.3 s, the error here reaches it long before that second call is answered.
    with OpenAIServer(latency=0.3) as server:
        config = make_config(server, concurrency=1)

        def boom(result):
            raise RuntimeError("store is full")

        with pytest.raises(RuntimeError, match="store is full"):
            execute_isolated(plan(items, config), config, JobContext(), boom)
        assert not server.wait_for_requests(3, timeout=1.0)  # the first call, the second already on its way


def test_a_missing_key_is_refused_before_any_process_starts(make_config, items, server):
    config = make_config(server, api_key_env="REVIEWER_TEST_NO_SUCH_KEY")
    with pytest.raises(MissingKey, match="REVIEWER_TEST_NO_SUCH_KEY"):
        execute_isolated(plan(items, config), config, JobContext(), lambda r: None)
    assert server.request_count == 0


def test_the_key_reaches_the_server_but_not_the_childs_command_line_or_environment(make_config, items, monkeypatch):
    secret = "sk-isolated-SECRET-42a"
    monkeypatch.setenv("ISOLATED_TEST_KEY", secret)
    seen = {}

    def look(body):
        # The child is the server's client: find it among our children and read what it was given.
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                cmdline = open(f"/proc/{pid}/cmdline", "rb").read()
            except OSError:
                continue
            if b"reviewer.rerun.isolated" in cmdline:
                seen["cmdline"] = cmdline
                try:
                    seen["environ"] = open(f"/proc/{pid}/environ", "rb").read()
                except OSError:
                    pass
        return "ok"

    with OpenAIServer(responder=look) as server:
        config = make_config(server, api_key_env="ISOLATED_TEST_KEY", concurrency=1)
        execute_isolated(plan(items[:1], config), config, JobContext(), lambda r: None)
        assert server.chat_requests()[0].headers["authorization"] == f"Bearer {secret}"
    assert seen.get("cmdline") and secret.encode() not in seen["cmdline"]
    # The environment is the app's own (it holds the variable the key was read from, as the app's
    # does); what matters is that nothing new carries the key: it travels only through the pipe.
    assert seen["environ"].count(secret.encode()) == os.environb.get(b"ISOLATED_TEST_KEY", b"").count(
        secret.encode())


def _child_pids() -> list[int]:
    pids = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if b"reviewer.rerun.isolated" in open(f"/proc/{pid}/cmdline", "rb").read():
                    pids.append(int(pid))
            except OSError:
                pass
    return pids


def test_a_killed_child_is_reported_and_what_arrived_is_kept(store):
    ensure_samples(store)
    from reviewer.rerun.config import RunConfig

    asked = []

    def kill_the_client_at_the_sixth_call(body):
        asked.append(1)
        if len(asked) == 6:
            for pid in _child_pids():
                os.kill(pid, 9)
        return "ok"

    with OpenAIServer(responder=kill_the_client_at_the_sixth_call) as server:
        cfg = RunConfig(base_url=server.base_url, model="m", cache=False, retries=0, concurrency=1)
        with pytest.raises(ReviewerError, match="rerun process ended unexpectedly"):
            rerun(store, "sample-tool-selection", "killed", cfg, isolate=True)
    assert store.run("sample-tool-selection", "killed").outputs == 5  # the five answered before the kill


def test_rerun_through_a_child_saves_every_output(store):
    ensure_samples(store)
    from reviewer.rerun.config import RunConfig

    with OpenAIServer() as server:
        cfg = RunConfig(base_url=server.base_url, model="m", cache=False, retries=0, concurrency=8)
        report = rerun(store, "sample-tool-selection", "iso", cfg, isolate=True)
    assert report.planned == 32 and report.summary.ok == 32
    assert store.run("sample-tool-selection", "iso").outputs == 32


SHADOW_JSON = '''
import os, sys
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "RAN"), "a") as fh:
    fh.write("%d\\n" % os.getpid())
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
del sys.modules[__name__]
import json as _real
sys.modules[__name__] = _real
'''


def test_the_rerun_process_runs_no_code_from_the_working_folder(make_config, items, tmp_path, monkeypatch):
    """The child holds the API key: a json.py in the folder the app was started from (a cloned
    benchmark repository, say) must not be imported there, as ``python -m`` would."""
    folder = tmp_path / "untrusted-checkout"
    folder.mkdir()
    (folder / "json.py").write_text(SHADOW_JSON)
    monkeypatch.chdir(folder)
    with OpenAIServer(responder=lambda body: "ok") as server:
        summary = execute_isolated(plan(items, make_config(server)), make_config(server), JobContext(), lambda r: None)
    assert summary.ok == len(items)
    assert not (folder / "RAN").exists()
