"""How the official NesTools script groups items: depth groups and structure numbers.

The official report has a table per nesting depth ("depth1", "depth2",
"depth345") and per nesting structure ("struct0", "struct2", ...: positions in
a fixed list of 18 shapes). Faithful mode groups items the way that script
does; fixed mode uses reviewer.callgraph's exact reading.

Quirk of the official depth (faithful only, named "substring depth"): a call
is taken to consume another call's response when the placeholder appears
anywhere inside the text of a parameter value, so "API_call_1" is found in
"API_call_10", and a call may even "consume" its own response.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reviewer import callgraph

# The official script's list of shapes, by position; (p, c) means call p's
# response feeds call c, a bare number a call that consumes nothing.
OFFICIAL_STRUCTURES: tuple[frozenset, ...] = tuple(
    frozenset(s)
    for s in (
        {1, (2, 3), (1, 2)},
        {1, 3, (1, 2)},
        {1, (1, 3), (1, 2)},
        {1, (1, 3), (2, 3), (1, 2)},
        {1, 2, 3},
        {1, 2, (2, 3)},
        {1, 2, (1, 3)},
        {1, 2, (1, 3), (2, 3)},
        {(3, 4), 1, 3, (1, 4), (1, 2)},
        {1, (1, 2)},
        {1, 2},
        {(3, 4), 1, (2, 3), (1, 2)},
        {(3, 4), 1, 3, (2, 4), (1, 2)},
        {1, 2, (1, 4), (1, 3), (2, 4), (2, 3)},
        {1, 2, 4, (1, 3), (2, 3)},
        {1, 2, (1, 3), (2, 4)},
        {(3, 4), 1, 2, (1, 3), (2, 3)},
        {1},
    )
)


def official_depth(calls: Sequence[dict]) -> int:
    """The item depth as the official script computes it (substring matching)."""
    depths = [1] * len(calls)
    seen: list[list[Any]] = []
    for index, call in enumerate(calls):
        seen.append(list(call.get("responses") or []))
        consumed = []
        for value in call.get("parameters", {}).values():
            text = str(value)
            for producer, names in enumerate(seen):
                if any(str(name) in text for name in names):
                    consumed.append(producer)
        if consumed:
            depths[index] = max(depths[p] + 1 for p in consumed)
    return max(depths, default=1)


def structure_index(calls: Sequence[dict]) -> int | None:
    """Position of the item's nesting shape in the official list, or None if unlisted.

    Uses reviewer.callgraph's edges; on the NesTools test set this agrees with
    the official classification (placeholders there are numbered below 100).
    """
    links = callgraph.structure_links(calls)
    for index, shape in enumerate(OFFICIAL_STRUCTURES):
        if links == shape:
            return index
    return None


def depth_group(depth: int) -> str | None:
    """The official depth table an item falls in, by the depth used."""
    if depth == 1:
        return "depth1"
    if depth == 2:
        return "depth2"
    if 3 <= depth <= 5:
        return "depth345"
    return None
