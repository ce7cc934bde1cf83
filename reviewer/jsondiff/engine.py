"""The structural diff: ``diff(left, right, options) -> list[Change]``.

Walks both values together with an explicit stack (no recursion, so nesting
depth is limited only by memory), skips subtrees that are identical (identity,
then ``==`` confirmed by a canonical fingerprint) and reports differences in
document order. Lists are aligned by ``lists.match_lists``.
"""

from __future__ import annotations

import math
from typing import Any

from reviewer.errors import ReviewerError
from reviewer.jobs import JobContext
from reviewer.jsondiff.canonical import strictly_equal
from reviewer.jsondiff.changes import ADDED, CHANGED, MOVED, REMOVED, TYPE_CHANGED, Change
from reviewer.jsondiff.lists import LEFT_ONLY, PAIR, SAME, match_lists, merge_order
from reviewer.jsondiff.options import DiffOptions
from reviewer.jsondiff.paths import render_path
from reviewer.jsondiff.strings import normalize, string_ops

DEFAULT_OPTIONS = DiffOptions()

# How often (in compared nodes) a long diff reports progress and checks for cancel.
_CHECK_EVERY = 4096


class NotJsonError(ReviewerError):
    """A value that is not JSON (e.g. a set or an object) inside a compared document."""


def json_type(value: Any, path: tuple = ()) -> str:
    """The JSON type name of a parsed value: null, boolean, number, string, array, object."""
    t = type(value)
    if t is str:
        return "string"
    if t is bool:  # before int: bool is a subclass of int
        return "boolean"
    if t is int or t is float:
        return "number"
    if t is dict:
        return "object"
    if t is list:
        return "array"
    if value is None:
        return "null"
    raise NotJsonError(f"{render_path(path)}: not a JSON value ({t.__name__})")


def diff(left: Any, right: Any, options: DiffOptions = DEFAULT_OPTIONS, ctx: JobContext | None = None) -> list[Change]:
    """Differences between two parsed JSON values, in document order.

    ``left`` is the reference (e.g. gold), ``right`` the other side (e.g. a
    model output). Objects are compared member by member regardless of member
    order; lists as described in ``lists``; scalars under ``options``.
    ``ctx`` (optional) receives progress and may cancel a very large diff.
    Raises ``NotJsonError`` naming the path of a value that is not JSON.
    """
    out: list[Change] = []
    # Items are either a pending comparison (tuple) or a finished Change to emit
    # once everything before it in document order has been emitted.
    stack: list = [(left, right, (), ())]
    visited = 0
    while stack:
        item = stack.pop()
        if type(item) is Change:
            out.append(item)
            continue
        a, b, lp, rp = item
        if a is b:
            continue
        if options.has_ignored and options.is_ignored(lp):
            continue
        visited += 1
        if ctx is not None and visited % _CHECK_EVERY == 0:
            ctx.check_cancelled()
            ctx.progress(visited, None, "comparing")
        ta, tb = type(a), type(b)
        if ta is dict and tb is dict:
            if not strictly_equal(a, b):
                stack.extend(reversed(_object_steps(a, b, lp, rp, options)))
        elif ta is list and tb is list:
            if not strictly_equal(a, b):
                stack.extend(reversed(_list_steps(a, b, lp, rp, options)))
        else:
            change = _compare_leaves(a, b, lp, rp, options)
            if change is not None:
                out.append(change)
    return out


def _object_steps(a: dict, b: dict, lp: tuple, rp: tuple, options: DiffOptions) -> list:
    steps: list = []
    for k, va in a.items():
        if k in b:
            vb = b[k]
            if va is not vb:
                steps.append((va, vb, lp + (k,), rp + (k,)))
        else:
            path = lp + (k,)
            if not options.is_ignored(path):
                steps.append(Change(REMOVED, path, path, None, va, None))
    for k, vb in b.items():
        if k not in a:
            path = rp + (k,)
            if not options.is_ignored(path):
                steps.append(Change(ADDED, path, None, path, None, vb))
    return steps


def _list_steps(a: list, b: list, lp: tuple, rp: tuple, options: DiffOptions) -> list:
    match = match_lists(a, b, options.list_key_for(lp), options.detect_moves)
    partner = {i: (j, basis) for i, j, basis in match.pairs}
    moved_right = {partner[i][0] for i in match.moved}
    steps: list = []
    for step in merge_order(len(a), len(b), match.in_order_pairs()):
        if step[0] == PAIR:
            i, j = step[1], step[2]
            if partner[i][1] != SAME:
                steps.append((a[i], b[j], lp + (i,), rp + (j,)))
        elif step[0] == LEFT_ONLY:
            i = step[1]
            path = lp + (i,)
            if options.is_ignored(path):
                continue
            if i in match.moved:
                j, basis = partner[i]
                steps.append(Change(MOVED, path, path, rp + (j,), a[i], b[j]))
                if basis != SAME:
                    steps.append((a[i], b[j], path, rp + (j,)))
            else:
                steps.append(Change(REMOVED, path, path, None, a[i], None))
        else:
            j = step[1]
            path = rp + (j,)
            # A moved element's right end was reported with its left end.
            if j not in moved_right and not options.is_ignored(path):
                steps.append(Change(ADDED, path, None, path, None, b[j]))
    return steps


def _compare_leaves(a: Any, b: Any, lp: tuple, rp: tuple, options: DiffOptions) -> Change | None:
    ja, jb = json_type(a, lp), json_type(b, rp)
    if ja != jb:
        return Change(TYPE_CHANGED, lp, lp, rp, a, b)
    if ja == "number":
        if _numbers_equal(a, b, options):
            return None
    elif ja == "string":
        if a == b:
            return None
        if options.ignore_case or options.normalize_whitespace:
            if normalize(a, options.ignore_case, options.normalize_whitespace) == normalize(
                b, options.ignore_case, options.normalize_whitespace
            ):
                return None
        ops = None
        if min(len(a), len(b)) >= options.string_ops_min_length:
            ops = string_ops(a, b)
        return Change(CHANGED, lp, lp, rp, a, b, ops)
    elif a == b:  # null, boolean
        return None
    return Change(CHANGED, lp, lp, rp, a, b)


def _numbers_equal(a, b, options: DiffOptions) -> bool:
    if type(a) is not type(b) and not options.int_float_equal:
        return False
    if a == b:
        return True
    if not (options.abs_tolerance or options.rel_tolerance):
        return False
    try:
        return math.isclose(a, b, rel_tol=options.rel_tolerance, abs_tol=options.abs_tolerance)
    except OverflowError:  # an integer too large for a float: only exact equality counts
        return False
