"""Fixes as RFC 6902 JSON Patches (through the ``jsonpatch`` library).

A fix is stored twice: the patch (what the annotator changed, readable by path)
and its result (the gold it produces). ``merge`` combines two annotators'
fixes for the adjudicator's three-way view.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import jsonpatch


def make_patch(original: Any, fixed: Any) -> list[dict]:
    """The RFC 6902 operations that turn ``original`` into ``fixed``."""
    if not isinstance(original, (dict, list)) or not isinstance(fixed, (dict, list)):
        # A scalar gold (an answer string) is replaced as a whole at the root.
        return [] if original == fixed and type(original) is type(fixed) else [
            {"op": "replace", "path": "", "value": fixed}
        ]
    return jsonpatch.make_patch(original, fixed).patch


def apply_patch(original: Any, ops: list[dict]) -> Any:
    """Apply ``ops`` to a copy of ``original``; the original is never modified."""
    if ops and all(op.get("path") == "" for op in ops):
        doc = copy.deepcopy(original)
        for op in ops:
            doc = copy.deepcopy(op["value"]) if op["op"] in ("replace", "add") else doc
        return doc
    return jsonpatch.apply_patch(original, ops, in_place=False)


def touched_paths(ops: list[dict] | None) -> set[str]:
    """The JSON Pointers a patch writes to (a move touches both ends)."""
    paths: set[str] = set()
    for op in ops or []:
        paths.add(op["path"])
        if op["op"] in ("move", "copy") and "from" in op:
            paths.add(op["from"])
    return paths


@dataclass
class Merge:
    """Fix A and fix B applied to the original gold together.

    ``conflicts`` are the paths both changed to different results; when there
    are any, ``merged`` is None and the adjudicator has to pick.
    """

    merged: Any
    conflicts: list[str]


def _overlaps(p: str, q: str) -> bool:
    return p == q or p.startswith(q + "/") or q.startswith(p + "/") or p == "" or q == ""


def merge(original: Any, ops_a: list[dict], ops_b: list[dict]) -> Merge:
    result_a = apply_patch(original, ops_a)
    result_b = apply_patch(original, ops_b)
    if result_a == result_b:
        return Merge(result_a, [])
    paths_a, paths_b = touched_paths(ops_a), touched_paths(ops_b)
    conflicts = sorted({p for p in paths_a for q in paths_b if _overlaps(p, q)} | {
        q for p in paths_a for q in paths_b if _overlaps(p, q)
    })
    if conflicts:
        return Merge(None, conflicts)
    try:
        return Merge(apply_patch(result_a, ops_b), [])
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
        return Merge(None, [f"fix B does not apply on top of fix A: {exc}"])
