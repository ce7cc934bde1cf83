"""The request a strategy builds, the item shape it reads, and the strategy registry.

A *strategy* turns one benchmark item into one chat request, the way a paper
prompted its models. Each item kind has its own module in this package that
registers its strategies with ``@strategy(kind, name)``; ``build_request``
looks them up. Builders are pure: no I/O, no client, same item and options in
-> same request out (so the cache key of a rerun is stable).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from reviewer.errors import InputError


class RerunItem(Protocol):
    """What a strategy reads of an item (the attribute names of ``ItemRecord``).

    ``reviewer.formats.base.ItemRecord`` satisfies it; so does any object with
    these attributes (``question`` may be missing, it is read with getattr).
    """

    record_id: str
    kind: str
    gold: Any
    payload: dict
    context: str | None
    schema: str | None


@dataclass
class ChatRequest:
    """One chat completion to send, minus the generation parameters of the run.

    ``tools`` are OpenAI function tools (``{"type": "function", "function": ...}``);
    ``tool_choice`` and ``response_format`` are passed through as the API takes
    them. ``meta`` is for the caller, never sent: the strategy's setup name,
    the tool-name map used to read tool calls back, notes on what was pruned.
    """

    messages: list[dict]
    tools: list[dict] | None = None
    tool_choice: Any = None
    response_format: dict | None = None
    meta: dict = field(default_factory=dict)

    def wire_fields(self) -> dict:
        """The fields that go to the server (and into the cache key)."""
        out: dict[str, Any] = {"messages": self.messages}
        if self.tools is not None:
            out["tools"] = self.tools
        if self.tool_choice is not None:
            out["tool_choice"] = self.tool_choice
        if self.response_format is not None:
            out["response_format"] = self.response_format
        return out


Builder = Callable[[RerunItem, dict], ChatRequest]

# kind -> strategy name -> builder; the first strategy registered for a kind is its default.
_STRATEGIES: dict[str, dict[str, Builder]] = {}


def strategy(kind: str, name: str) -> Callable[[Builder], Builder]:
    """Register ``builder(item, options) -> ChatRequest`` as strategy ``name`` of ``kind``."""

    def register(builder: Builder) -> Builder:
        _STRATEGIES.setdefault(str(kind), {})[name] = builder
        return builder

    return register


def _load_builtin() -> None:
    # Import for the registration side effect; kept here so that importing
    # base alone (e.g. from a kind module) does not recurse.
    from reviewer.rerun.prompts import (  # noqa: F401
        call_chain,
        extraction,
        function_call,
        schema_gen,
        tool_qa,
        tool_select,
    )


def strategies_for(kind: str) -> list[str]:
    """Strategy names available for ``kind``; the first is the default."""
    _load_builtin()
    return list(_STRATEGIES.get(str(kind), {}))


def build_request(item: RerunItem, strategy_name: str | None = None, options: dict | None = None) -> ChatRequest:
    """Build the chat request for ``item`` with a named strategy of its kind.

    ``strategy_name`` None or "default" picks the kind's default. Raises
    InputError naming the record when the strategy is unknown or the item lacks
    a field the strategy needs.
    """
    _load_builtin()
    kind = str(item.kind)
    table = _STRATEGIES.get(kind)
    where = f"record {item.record_id!r}"
    if not table:
        raise InputError(None, where, f"no rerun strategy for item kind {kind!r}")
    if strategy_name in (None, "", "default"):
        strategy_name = next(iter(table))
    builder = table.get(strategy_name)
    if builder is None:
        raise InputError(
            None, where, f"unknown strategy {strategy_name!r} for kind {kind!r}; choose one of {', '.join(table)}"
        )
    request = builder(item, dict(options or {}))
    request.meta.setdefault("strategy", strategy_name)
    return request


# --- small helpers shared by the kind modules -------------------------------------------


def require(item: RerunItem, value: Any, what: str) -> Any:
    """``value`` unless it is None or empty; else an InputError naming the record and field."""
    if value is None or value == "" or value == [] or value == {}:
        raise InputError(None, f"record {item.record_id!r}, {what}", "is missing; this strategy needs it")
    return value


def parse_json_field(item: RerunItem, text: Any, what: str) -> Any:
    """Parse a JSON text field of an item (already-parsed values pass through)."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            None, f"record {item.record_id!r}, {what}, line {exc.lineno} column {exc.colno}", f"invalid JSON: {exc.msg}"
        ) from None


def fill(template: str, values: dict[str, str]) -> str:
    """Replace each placeholder in ``template`` by its value in one pass.

    One pass matters: a tool response or schema may itself contain text that
    looks like a placeholder, and it must not be substituted again. Braces in
    values are left alone (unlike ``str.format``).
    """
    pattern = re.compile("|".join(re.escape(k) for k in sorted(values, key=len, reverse=True)))
    return pattern.sub(lambda m: values[m.group(0)], template)


def json_schema_format(schema: Any, name: str = "answer") -> dict:
    """``response_format`` asking the server to constrain the output to ``schema``."""
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def system(text: str) -> dict:
    return {"role": "system", "content": text}


def check_options(item: RerunItem, options: dict, allowed: dict[str, tuple]) -> dict:
    """Validate ``options`` against ``allowed`` (name -> allowed values, () = any) and fill defaults.

    ``allowed[name][0]`` is the default. Unknown names and values raise InputError,
    so a typo in a run configuration fails before any request is sent.
    """
    out = {}
    for name, values in allowed.items():
        default = values[0] if values else None
        value = options.get(name, default)
        if len(values) > 1 and value not in values:
            raise InputError(
                None, f"strategy option {name!r}", f"{value!r} is not one of {', '.join(map(repr, values))}"
            )
        out[name] = value
    unknown = set(options) - set(allowed)
    if unknown:
        raise InputError(
            None,
            f"record {item.record_id!r}",
            f"unknown strategy option(s) {', '.join(sorted(unknown))}; known: {', '.join(allowed) or 'none'}",
        )
    return out
