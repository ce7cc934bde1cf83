"""The layout draws the members of a container one at a time: the first rows of a
diff with a 50,000-element list are handed over before the list's later elements are
looked at, and the rows handed over are exactly the top of the whole layout."""

from __future__ import annotations

import copy
import random
import sys

import pytest

from reviewer.jsondiff import DiffOptions, align, diff
from reviewer.jsondiff.render import pretty_text

BIG = 50_000
# The module (the package's ``align`` attribute is the function of the same name).
align_module = sys.modules["reviewer.jsondiff.align"]


def _counting(monkeypatch, name: str) -> list[int]:
    """Count what ``align`` draws from ``name`` (merge_order steps or printed scalars)."""
    seen = [0]
    original = getattr(align_module, name)
    if name == "merge_order":
        def wrapper(*args):
            for step in original(*args):
                seen[0] += 1
                yield step
    else:
        def wrapper(*args):
            seen[0] += 1
            return original(*args)
    monkeypatch.setattr(align_module, name, wrapper)
    return seen


def _first_screen_cost(left, right, counter) -> tuple[int, int]:
    changes = diff(left, right)
    at_first = []
    align(left, right, changes, as_text=True, first_rows=200, on_first_rows=lambda doc: at_first.append(counter[0]))
    assert len(at_first) == 1
    return at_first[0], counter[0]


def test_first_rows_of_a_big_list_come_before_its_later_elements(monkeypatch):
    left = {"records": [{"id": i, "v": i} for i in range(BIG)]}
    right = copy.deepcopy(left)
    del right["records"][7]  # elements standing alone: the list is laid out element by element
    right["records"].insert(BIG // 2, {"id": "new"})
    right["records"][-1]["v"] = -1
    steps = _counting(monkeypatch, "merge_order")
    at_first, total = _first_screen_cost(left, right, steps)
    assert total >= BIG  # the whole layout went through every element
    assert at_first < 100  # the first 200 rows needed only the first elements


def test_first_rows_of_a_big_object_come_before_its_later_members(monkeypatch):
    left = {f"key{i:05d}": [i, i + 1] for i in range(BIG)}
    right = dict(left)
    right["key00003"] = [3, 5]
    del right["key00010"]
    right["added"] = 1
    printed = _counting(monkeypatch, "scalar_text")
    at_first, total = _first_screen_cost(left, right, printed)
    assert total >= BIG
    assert at_first < 1_000


def _random_value(rnd: random.Random, depth: int = 0):
    roll = rnd.random()
    if depth > 3 or roll < 0.35:
        return rnd.choice([0, 1, 2, 1.5, "a", "b", "", None, True, False, [], {}])
    if roll < 0.7:
        return [_random_value(rnd, depth + 1) for _ in range(rnd.randint(0, 7))]
    return {rnd.choice("abcdefg"): _random_value(rnd, depth + 1) for _ in range(rnd.randint(0, 6))}


def _edited(rnd: random.Random, value):
    """A copy of ``value`` with elements inserted, removed, swapped and changed here and there."""
    if isinstance(value, list):
        out = [_edited(rnd, v) for v in value]
        if out and rnd.random() < 0.3:
            del out[rnd.randrange(len(out))]
        if rnd.random() < 0.3:
            out.insert(rnd.randint(0, len(out)), _random_value(rnd))
        if len(out) > 2 and rnd.random() < 0.2:
            i, j = rnd.sample(range(len(out)), 2)
            out[i], out[j] = out[j], out[i]
        return out
    if isinstance(value, dict):
        out = {k: _edited(rnd, v) for k, v in value.items() if rnd.random() > 0.1}
        if rnd.random() < 0.2:
            out[rnd.choice("hijk")] = _random_value(rnd)
        return out
    return _random_value(rnd) if rnd.random() < 0.15 else value


@pytest.mark.parametrize("seed", range(4))
def test_first_rows_are_the_top_of_the_whole_layout(seed):
    rnd = random.Random(seed)
    checked = 0
    for _ in range(150):
        left = [_random_value(rnd) for _ in range(rnd.randint(1, 30))]
        right = _edited(rnd, left)
        options = DiffOptions(ignore_paths=["$[2]"]) if rnd.random() < 0.2 else DiffOptions()
        changes = diff(left, right, options)
        whole = align(left, right, changes, options=options, as_text=True)
        lines = align(left, right, changes, options=options)
        # The left pane shows the left document as printed, member after member.
        assert "\n".join(line for line in lines.left_lines if line is not None) == pretty_text(left, 2)
        first_rows = rnd.randint(1, max(1, len(whole) - 1))
        seen = []
        align(left, right, changes, options=options, as_text=True, first_rows=first_rows,
              on_first_rows=lambda doc: seen.append(("\n".join(doc.left_chunks), "\n".join(doc.right_chunks),
                                                     list(doc.kinds), list(doc.changed_runs))))
        if not seen:  # the layout reached first_rows only with its last rows: nothing to show early
            continue
        checked += 1
        left_text, right_text, kinds, runs = seen[0]
        n = len(kinds)
        assert kinds == whole.kinds[:n]
        assert left_text.split("\n") == "\n".join(whole.left_chunks).split("\n")[:n]
        assert right_text.split("\n") == "\n".join(whole.right_chunks).split("\n")[:n]
        assert runs == whole.changed_runs[: len(runs)]
    assert checked > 50
