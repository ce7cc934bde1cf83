"""Fixtures for rerun tests: the loopback OpenAI server, run configs and small items."""

from __future__ import annotations

import pytest

from reviewer.formats.base import ItemRecord
from reviewer.rerun.config import RunConfig
from reviewer.testing.openai_server import OpenAIServer


@pytest.fixture
def server():
    with OpenAIServer() as s:
        yield s


@pytest.fixture
def make_config(tmp_path):
    """RunConfig against a server, with a private cache under tmp_path and fast backoff."""

    def make(server: OpenAIServer, **overrides) -> RunConfig:
        values = {
            "base_url": server.base_url,
            "model": "test-model",
            "cache": False,
            "cache_dir": str(tmp_path / "cache"),
            "backoff": 0.01,
            "max_backoff": 0.05,
            "concurrency": 2,
            "timeout": 10.0,
            "strategy": "deepjsoneval",
        }
        values.update(overrides)
        return RunConfig(**values)

    return make


def extraction_item(n: int) -> ItemRecord:
    return ItemRecord(
        record_id=f"item{n}",
        kind="extraction",
        gold={"name": f"Ann {n}"},
        raw={},
        payload={"text": f"Patient number {n} is called Ann {n}."},
        schema='{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}',
    )


@pytest.fixture
def items():
    return [extraction_item(n) for n in range(6)]
