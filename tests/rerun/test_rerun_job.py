"""Reruns over the store against the project's loopback OpenAI-compatible server."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from reviewer.errors import ReviewerError
from reviewer.rerun.config import RunConfig
from reviewer.rerun.job import rerun
from reviewer.samples import ensure_samples
from reviewer.testing.openai_server import OpenAIServer, Reply


def nlt_answer(body: dict) -> Reply:
    """Answer every tool of the NLT prompt with NO, then finish, as a cautious model would."""
    prompt = "\n".join(m.get("content") or "" for m in body["messages"])
    return Reply(text="Thinking: nothing needed.\nAssessment finished.\n" if "Assessment finished" in prompt else "ok")


@pytest.fixture
def samples(store):
    ensure_samples(store)
    return store


def config(server, tmp_path, **kw) -> RunConfig:
    return RunConfig(base_url=server.base_url, model="loopback-model", cache_dir=str(tmp_path / "cache"),
                     retries=1, backoff=0.01, **kw)


def test_rerun_saves_outputs_and_resumes_only_what_is_missing(samples, tmp_path):
    store = samples
    with OpenAIServer(responder=nlt_answer) as server:
        server.script(*([Reply.server_error()] * 2))  # the first call fails twice (retries=1): an error output
        cfg = config(server, tmp_path, concurrency=1, cache=False)
        first = rerun(store, "sample-tool-selection", "loop", cfg)
        assert first.planned == 32 and first.summary.errors == 1 and first.summary.ok == 31
        run = store.run("sample-tool-selection", "loop")
        assert (run.outputs, run.errors) == (32, 1)
        before = server.request_count
        again = rerun(store, "sample-tool-selection", "loop", cfg, retry_errors_only=True)
        assert again.planned == 1 and again.summary.ok == 1
        assert server.request_count == before + 1
        assert store.run("sample-tool-selection", "loop").errors == 0
        nothing = rerun(store, "sample-tool-selection", "loop", cfg)
        assert nothing.planned == 0 and server.request_count == before + 1


def test_cached_rerun_sends_no_request_and_key_never_stored(samples, tmp_path, monkeypatch):
    store = samples
    secret = "sk-test-SECRET-7f3a9"
    monkeypatch.setenv("LOOPBACK_KEY", secret)
    with OpenAIServer(responder=nlt_answer) as server:
        cfg = config(server, tmp_path, api_key_env="LOOPBACK_KEY")
        rerun(store, "sample-schema-generation", "first", cfg)
        seen = server.request_count
        assert seen == 5
        assert all(r.headers.get("authorization") == f"Bearer {secret}" for r in server.chat_requests())
        rerun(store, "sample-schema-generation", "second", cfg)
        assert server.request_count == seen  # every answer came from the cache
    assert store.runs("sample-schema-generation")[-1].outputs == 5
    # the key is in no file: not the database, not the cache
    for root, _, files in os.walk(tmp_path):
        for name in files:
            assert secret.encode() not in open(os.path.join(root, name), "rb").read(), name


def test_continuing_a_run_with_other_settings_is_refused(samples, tmp_path):
    with OpenAIServer(responder=nlt_answer) as server:
        rerun(samples, "sample-function-calls", "r", config(server, tmp_path))
        other = RunConfig(base_url=server.base_url, model="another-model", cache=False)
        with pytest.raises(ReviewerError, match="choose another run name"):
            rerun(samples, "sample-function-calls", "r", other)


def test_run_command_reruns_and_scores(tmp_path, db_url):
    from reviewer.store import Store

    ensure_samples(Store(db_url))
    with OpenAIServer(responder=nlt_answer) as server:
        proc = subprocess.run(
            [sys.executable, "-m", "reviewer.cli", "run", "sample-tool-selection", "--db", db_url,
             "--base-url", server.base_url, "--model", "m", "--name", "cli-run", "--no-cache", "--score"],
            capture_output=True, text=True, timeout=300,
        )
    assert proc.returncode == 0, proc.stderr
    assert "32 calls planned, 32 ok, 0 errors" in proc.stdout
    # every item answered "nothing needed": exactly the items whose expected set is empty pass
    assert "scored 32 outputs" in proc.stdout
