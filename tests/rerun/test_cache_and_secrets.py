"""Cache behaviour through real runs, and the API key staying out of disk, reprs, logs and errors."""

from __future__ import annotations

import json
import logging
import os
import stat
import uuid
from pathlib import Path

import diskcache
import pytest

from reviewer.jobs import JobContext
from reviewer.rerun.cache import ResponseCache, cache_key
from reviewer.rerun.config import RunConfig
from reviewer.rerun.engine import execute, plan
from reviewer.rerun.secrets import MissingKey, resolve_api_key, scrub
from reviewer.testing.openai_server import OpenAIServer, Reply


def run(calls, config):
    results = []
    summary = execute(calls, config, JobContext(), results.append)
    return results, summary


def answer_by_prompt(body):
    # Different items get different answers, so a cache mix-up would show.
    return "answer to " + body["messages"][-1]["content"][-40:]


# --- cache ---------------------------------------------------------------------------------


def test_a_cached_rerun_sends_no_request(make_config, items):
    with OpenAIServer(responder=answer_by_prompt) as server:
        config = make_config(server, cache=True, replications=2)
        first, _ = run(plan(items, config), config)
        assert server.request_count == len(items) * 2
        second, summary = run(plan(items, config), config)
        assert server.request_count == len(items) * 2  # nothing more was sent
    assert summary.cached == len(second) and all(r.cached for r in second)
    by_key = {(r.record_id, r.replication): r for r in first}
    for r in second:
        original = by_key[(r.record_id, r.replication)]
        assert (r.text, r.prompt_tokens, r.completion_tokens) == (original.text, original.prompt_tokens, original.completion_tokens)
        assert not original.cached


def test_cache_off_sends_every_request_again(make_config, items):
    with OpenAIServer() as server:
        config = make_config(server, cache=True)
        run(plan(items, config), config)
        bypass = make_config(server, cache=False)
        results, _ = run(plan(items, bypass), bypass)
        assert server.request_count == 2 * len(items)
    assert not any(r.cached for r in results)


def test_a_changed_parameter_misses_the_cache(make_config, items):
    with OpenAIServer() as server:
        run(plan(items[:2], make_config(server, cache=True)), make_config(server, cache=True))
        hotter = make_config(server, cache=True, temperature=0.7)
        results, _ = run(plan(items[:2], hotter), hotter)
        assert server.request_count == 4
    assert not any(r.cached for r in results)


def test_errors_are_never_cached(make_config, items):
    with OpenAIServer() as server:
        server.script(Reply(text=None, status=400, error="bad request"))
        config = make_config(server, cache=True, concurrency=1)
        [failed], _ = run(plan(items[:1], config), config)
        assert failed.status == "error"
        [again], _ = run(plan(items[:1], config), config)
        assert server.request_count == 2
    assert again.status == "ok" and not again.cached


def test_cache_key_ignores_nothing_that_changes_the_answer():
    wire = {"messages": [{"role": "user", "content": "hi"}]}
    base = cache_key("http://h/v1", "m", wire, {"temperature": 0}, 0)
    assert base == cache_key("http://h/v1/", "m", wire, {"temperature": 0}, 0)
    assert base != cache_key("http://other/v1", "m", wire, {"temperature": 0}, 0)
    assert base != cache_key("http://h/v1", "m2", wire, {"temperature": 0}, 0)
    assert base != cache_key("http://h/v1", "m", {**wire, "tools": []}, {"temperature": 0}, 0)
    assert base != cache_key("http://h/v1", "m", wire, {"temperature": 0, "seed": 1}, 0)
    assert base != cache_key("http://h/v1", "m", wire, {"temperature": 0}, 1)


class _LeavesAMark:
    """A pickle whose loading creates a file: what an attacker would plant to run code."""

    def __init__(self, mark: Path):
        self.mark = mark

    def __reduce__(self):
        return (Path.touch, (self.mark,))


def test_cache_directory_is_private_and_never_unpickles(tmp_path):
    directory = tmp_path / "shared-looking"
    directory.mkdir(mode=0o777)
    os.chmod(directory, 0o777)
    mark = tmp_path / "code-ran"
    with ResponseCache(directory) as cache:
        cache.put("k", {"text": "x"})
        assert cache.get("k") == {"text": "x"}
    # Someone who can write the directory plants pickled values the way diskcache stores
    # them (its default Disk pickles anything that is not str/bytes/int/float).
    with diskcache.Cache(str(directory)) as planter:
        planter.set("planted", _LeavesAMark(mark))
        planter.set("planted-big", [_LeavesAMark(mark)] * 2 + ["x" * 100_000])  # stored in a file, not inline
    with ResponseCache(directory) as cache:
        assert cache.get("planted") is None and cache.get("planted-big") is None
        assert cache.get("k") == {"text": "x"}
    assert not mark.exists(), "a planted pickle was loaded: the cache ran the attacker's code"
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_the_planted_pickle_would_run_code_if_loaded(tmp_path):
    """The check above is meaningful: the same planted value, read by diskcache's default
    (pickling) storage, does create the mark."""
    mark = tmp_path / "code-ran"
    with diskcache.Cache(str(tmp_path / "c")) as plain:
        plain.set("planted", _LeavesAMark(mark))
        plain.get("planted")
    assert mark.exists()


# --- the API key ---------------------------------------------------------------------------


def test_the_key_is_sent_but_never_stored_logged_or_shown(make_config, items, tmp_path, monkeypatch, caplog):
    key = f"sk-test-{uuid.uuid4().hex}"
    monkeypatch.setenv("REVIEWER_TEST_KEY", key)
    caplog.set_level(logging.DEBUG)
    with OpenAIServer() as server:
        # One call fails with an error that quotes the key, as some gateways do.
        server.script(Reply(text=None, status=401, error=f"invalid api key {key}"))
        config = make_config(server, cache=True, concurrency=1, api_key_env="REVIEWER_TEST_KEY")
        results, _ = run(plan(items, config), config)
        assert all(r.headers.get("authorization") == f"Bearer {key}" for r in server.chat_requests())
    assert results[0].status == "error" and "***" in results[0].error
    written = tmp_path / "results.jsonl"
    written.write_text("\n".join(json.dumps(r.to_dict()) for r in results))
    texts = [repr(config), config.to_json(), repr(results), caplog.text]
    assert not any(key in t for t in texts)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.parent.name == "cache" for p in files)  # the cache really was written
    for path in files:
        assert key.encode() not in path.read_bytes(), path


def test_missing_key_names_the_variable_not_a_value(make_config, monkeypatch, server, items):
    monkeypatch.delenv("REVIEWER_ABSENT_KEY", raising=False)
    config = make_config(server, api_key_env="REVIEWER_ABSENT_KEY")
    with pytest.raises(MissingKey, match="REVIEWER_ABSENT_KEY"):
        execute(plan(items, config), config, JobContext(), lambda r: None)
    assert server.request_count == 0


def test_keyring_without_the_package_is_a_clear_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_keyring(name, *args, **kwargs):
        if name == "keyring":
            raise ImportError("no keyring")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_keyring)
    config = RunConfig(base_url="http://127.0.0.1:1/v1", model="m", keyring_service="reviewer")
    with pytest.raises(MissingKey, match="keyring"):
        resolve_api_key(config)


def test_config_round_trips_without_a_key_field():
    config = RunConfig(base_url="https://api.example.com/v1", model="m", api_key_env="EXAMPLE_KEY", seed=3)
    assert RunConfig.from_json(config.to_json()) == config
    assert "EXAMPLE_KEY" in config.to_json()  # where to find it, never what it is
    with pytest.raises(Exception, match="api_key"):
        RunConfig.from_dict({**config.to_dict(), "api_key": "sk-x"})


def test_scrub_removes_every_occurrence():
    assert scrub("a sk-1 b sk-1", "sk-1") == "a *** b ***"
    assert scrub("nothing", None) == "nothing"
