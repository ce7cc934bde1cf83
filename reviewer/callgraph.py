"""Data flow inside a nested tool-call chain (NesTools, paper 004).

A call chain is a list of calls ``{"api_name", "parameters", "responses"}``.
Each call names its return values with placeholders "API_call_k" (numbered
globally from 0); a later call that takes a return value as input puts that
placeholder in one of its parameter values. Gold calls list their responses
(``["API_call_0", "API_call_1"]``); model predictions map response names to
placeholders (``{"book_details": "API_call_0"}``); both are understood here.

The functions are used by the NesTools importer (item depth), the scorer
(breakdowns by depth and nesting structure) and the UI's graph view (edges).
A placeholder is matched as a whole token: "API_call_1" does not refer to
"API_call_10" (the official evaluation script matches substrings when it
computes depth; the scorer reproduces that separately in faithful mode).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

PLACEHOLDER = re.compile(r"(?<![A-Za-z0-9_])API_call_\d+(?!\d)")


@dataclass(frozen=True)
class Edge:
    """One return value feeding one parameter: ``producer`` response → ``consumer`` parameter.

    ``producer`` and ``consumer`` are 0-based call positions; ``response_index``
    is the position of the placeholder among the producer's responses;
    ``parameter`` is the consumer's parameter name whose value holds it.
    """

    producer: int
    response: str
    response_index: int
    consumer: int
    parameter: str


def response_names(call: Any) -> list[str]:
    """The placeholders a call returns, in order (list form or name→placeholder dict)."""
    if not isinstance(call, dict):
        return []
    responses = call.get("responses")
    if isinstance(responses, dict):
        responses = list(responses.values())
    if not isinstance(responses, list):
        return []
    return [r for r in responses if isinstance(r, str)]


def placeholders_in(value: Any) -> Iterator[str]:
    """Every "API_call_k" token inside a parameter value (strings, lists, dicts)."""
    if isinstance(value, str):
        yield from PLACEHOLDER.findall(value)
    elif isinstance(value, list):
        for v in value:
            yield from placeholders_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from placeholders_in(v)


def edges(calls: Sequence[Any]) -> list[Edge]:
    """Producer-response → consumer-parameter edges, in call then parameter order.

    A placeholder refers to the latest earlier call that returns it; a
    placeholder that no earlier call returns makes no edge (see ``dangling``).
    """
    out: list[Edge] = []
    producers: dict[str, tuple[int, int]] = {}  # placeholder -> (call, response position)
    for consumer, call in enumerate(calls):
        params = call.get("parameters") if isinstance(call, dict) else None
        if isinstance(params, dict):
            for name, value in params.items():
                for token in placeholders_in(value):
                    if token in producers:
                        producer, index = producers[token]
                        out.append(Edge(producer, token, index, consumer, str(name)))
        # Registered after the parameters: a call cannot consume its own output.
        for index, token in enumerate(response_names(call)):
            producers[token] = (consumer, index)
    return out


def dangling(calls: Sequence[Any]) -> list[tuple[int, str, str]]:
    """(call, parameter, placeholder) for placeholders no earlier call returns."""
    known: set[str] = set()
    out = []
    for position, call in enumerate(calls):
        params = call.get("parameters") if isinstance(call, dict) else None
        if isinstance(params, dict):
            for name, value in params.items():
                out.extend((position, str(name), t) for t in placeholders_in(value) if t not in known)
        known.update(response_names(call))
    return out


def call_depths(calls: Sequence[Any]) -> list[int]:
    """Each call's nesting depth: 1, or 1 + the deepest call whose output it consumes."""
    depths = [1] * len(calls)
    for edge in edges(calls):  # edges come in consumer order, producers before consumers
        depths[edge.consumer] = max(depths[edge.consumer], depths[edge.producer] + 1)
    return depths


def chain_depth(calls: Sequence[Any]) -> int:
    """The item's depth: the deepest call (1 when nothing is nested, 0 for no calls)."""
    return max(call_depths(calls), default=0)


def structure_links(calls: Sequence[Any]) -> frozenset:
    """The nesting structure as a set: (producer, consumer) 1-based pairs, and the
    1-based position of every call that consumes no earlier output.

    This is the shape the official NesTools script classifies items by.
    """
    pairs = {(e.producer + 1, e.consumer + 1) for e in edges(calls)}
    consumers = {c for _, c in pairs}
    roots = {i + 1 for i in range(len(calls)) if i + 1 not in consumers}
    return frozenset(pairs | roots)


def nesting_structure(calls: Sequence[Any]) -> str:
    """A canonical label of the nesting shape, in the paper's notation.

    Edges "p→c" (1-based call positions) and every call that takes part in no
    edge, ordered by position: "1→2, 1→3", "1→2, 2→3", "1, 2→3", "1, 2" (no nesting).
    """
    pairs = sorted({(e.producer + 1, e.consumer + 1) for e in edges(calls)})
    linked = {p for pair in pairs for p in pair}
    isolated = [i + 1 for i in range(len(calls)) if i + 1 not in linked]
    parts = sorted([((p, c), f"{p}→{c}") for p, c in pairs] + [((i, 0), str(i)) for i in isolated])
    return ", ".join(text for _, text in parts) if parts else "empty"
