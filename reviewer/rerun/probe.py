"""Test a connection before a run: ``probe(config, ctx=None) -> ConnectionReport``.

Asks the endpoint for its model list (``GET /models``), then makes one tiny
chat completion (``max_tokens`` 1) and times it; then two more tiny ones tell
whether the endpoint accepts JSON-schema structured output
(``response_format: json_schema``) and tools (``tools`` + ``tool_choice``).
"Accepted" means the server answered without refusing the parameter (a server
may accept a parameter and still ignore it; the run notes adaptations when a
parameter is refused later). The key comes from the config's source like a
run's, and never appears in the report.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import openai

from reviewer.rerun.client import CallError, ChatClient
from reviewer.rerun.config import RunConfig
from reviewer.rerun.secrets import resolve_api_key, scrub

PROBE_TIMEOUT = 10.0  # seconds; a probe is a quick look, not a run

SCHEMA_FORMAT = {"type": "json_schema", "json_schema": {"name": "probe", "strict": True, "schema": {
    "type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": False}}}
PROBE_TOOL = {"type": "function", "function": {"name": "ping", "description": "Answer the probe.",
                                               "parameters": {"type": "object", "properties": {}}}}


@dataclass
class ConnectionReport:
    base_url: str
    reachable: bool = False
    error: str | None = None  # why the endpoint could not be used
    models: list[str] = field(default_factory=list)
    model_listed: bool | None = None  # whether the configured model is among them (None: no list)
    latency_ms: float | None = None  # of the tiny completion
    json_schema: str = "not tested"  # accepted | refused: <why> | not tested
    tools: str = "not tested"

    def describe(self) -> str:
        if not self.reachable:
            return f"{self.base_url}: not usable: {self.error}"
        lines = [f"{self.base_url}: answered in {self.latency_ms:.0f} ms" if self.latency_ms is not None
                 else f"{self.base_url}: reachable ({self.error})"]
        if self.models:
            shown = ", ".join(self.models[:8]) + (f" and {len(self.models) - 8} more" if len(self.models) > 8 else "")
            lines.append(f"models offered: {shown}")
            if self.model_listed is False:
                lines.append("the configured model is not in that list")
        else:
            lines.append("models offered: (the server gave no list)")
        lines.append(f"JSON schema output: {self.json_schema}")
        lines.append(f"tools: {self.tools}")
        return "\n".join(lines)


def probe(config: RunConfig, timeout: float = PROBE_TIMEOUT) -> ConnectionReport:
    """Test ``config``'s endpoint; never raises for what the endpoint does (see the report)."""
    report = ConnectionReport(config.base_url)
    try:
        key = resolve_api_key(config)
    except Exception as exc:  # noqa: BLE001 - a missing key is a finding, shown to the user
        report.error = str(exc)
        return report
    return asyncio.run(_probe(config, key, min(timeout, config.timeout), report))


async def _probe(config: RunConfig, key: str, timeout: float, report: ConnectionReport) -> ConnectionReport:
    raw = openai.AsyncOpenAI(base_url=config.base_url, api_key=key, max_retries=0, timeout=timeout)
    client = ChatClient(config.base_url, key, timeout)
    try:
        try:
            listed = await raw.models.list()
            report.models = sorted(m.id for m in listed.data)
            report.model_listed = config.model in report.models if report.models else None
        except openai.APIConnectionError as exc:
            report.error = scrub(f"{type(exc).__name__}: {exc}", key)
            return report
        except openai.OpenAIError:
            pass  # some servers have no /models: the completion below decides
        body = {"model": config.model, "messages": [{"role": "user", "content": "Say ok."}], "max_tokens": 1}
        started = time.monotonic()
        try:
            await client.complete(body)
        except CallError as exc:
            report.error = str(exc)
            report.reachable = exc.status is not None  # it answered, but refused the request
            return report
        report.latency_ms = (time.monotonic() - started) * 1000.0
        report.reachable = True
        report.json_schema = await _feature(client, body | {"max_tokens": 20, "response_format": SCHEMA_FORMAT})
        report.tools = await _feature(client, body | {"max_tokens": 20, "tools": [PROBE_TOOL],
                                                       "tool_choice": "auto"})
        return report
    finally:
        await client.close()
        await raw.close()


async def _feature(client: ChatClient, body: dict) -> str:
    try:
        await client.complete(body)
    except CallError as exc:
        return f"refused ({exc})" if exc.status is not None else f"not tested ({exc})"
    return "accepted"
