"""Invariants of diff and align on many random documents and random edits."""

import copy
import json
import random

import pytest

from reviewer.jsondiff import DiffOptions, align, diff
from reviewer.jsondiff.align import _Layout


def random_value(rng, depth=0):
    roll = rng.random()
    if depth > 3 or roll < 0.45:
        return rng.choice([None, True, False, rng.randint(-3, 3), rng.random(), rng.choice("abcxyz"), "x" * rng.randint(0, 3)])
    if roll < 0.75:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 6))]
    return {rng.choice("abcdefg"): random_value(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def containers(value, path=()):
    out = []
    if type(value) in (dict, list):
        out.append((value, path))
        items = value.items() if type(value) is dict else enumerate(value)
        for k, v in items:
            out.extend(containers(v, path + (k,)))
    return out


def mutate(rng, document):
    for _ in range(rng.randint(1, 4)):
        found = containers(document)
        if not found:
            return random_value(rng)
        node, _ = rng.choice(found)
        if type(node) is list:
            action = rng.choice(["insert", "delete", "swap", "set"])
            if action == "insert" or not node:
                node.insert(rng.randint(0, len(node)), random_value(rng, 3))
            elif action == "delete":
                del node[rng.randrange(len(node))]
            elif action == "swap" and len(node) > 1:
                i, j = rng.sample(range(len(node)), 2)
                node[i], node[j] = node[j], node[i]
            else:
                node[rng.randrange(len(node))] = random_value(rng, 3)
        else:
            action = rng.choice(["add", "delete", "set"])
            if action == "delete" and node:
                del node[rng.choice(list(node))]
            else:
                node[rng.choice("abcdefgh")] = random_value(rng, 3)
    return document


def resolve(document, path):
    for part in path:
        document = document[part]
    return document


def pairs(count, seed):
    rng = random.Random(seed)
    for _ in range(count):
        left = {"root": random_value(rng), "list": [random_value(rng) for _ in range(rng.randint(0, 8))]}
        yield left, mutate(rng, copy.deepcopy(left))


@pytest.mark.parametrize("options", [DiffOptions(), DiffOptions(detect_moves=False), DiffOptions(list_keys={"$..[*]": "a"})])
def test_changes_point_at_the_values_they_report(options):
    for left, right in pairs(300, seed=1):
        assert diff(left, copy.deepcopy(left), options) == []
        changes = diff(left, right, options)
        # Different documents (member order aside) always have a change.
        assert bool(changes) == (json.dumps(left, sort_keys=True) != json.dumps(right, sort_keys=True))
        for c in changes:
            if c.kind != "added":
                assert resolve(left, c.left_path) is c.left
            if c.kind != "removed":
                assert resolve(right, c.right_path) is c.right


@pytest.mark.parametrize(
    "options",
    [
        DiffOptions(),
        DiffOptions(list_keys={"$..[*]": "a"}),
        DiffOptions(detect_moves=False),
        DiffOptions(abs_tolerance=0.5, ignore_paths=("$..b", "$.list[2]")),
    ],
)
def test_layout_prints_both_documents_and_marks_every_change(options):
    for left, right in pairs(300, seed=2):
        changes = diff(left, right, options)
        doc = align(left, right, changes, options=options)
        assert json.loads(doc.left_text()) == left
        assert json.loads(doc.right_text()) == right
        assert bool(changes) == any(doc.kinds)
        moved = {c.left_path for c in changes if c.kind == "moved"}
        for c in changes:
            if c.kind not in ("changed", "type_changed"):
                continue
            # A moved element is shown whole at both places, its inner changes with it.
            if not any(c.left_path[:n] in moved for n in range(len(c.left_path))):
                row = doc.row_of_path(c.left_path, "left")
                assert doc.kinds[row] == c.kind and doc.right_path(row) == c.right_path
        plain = _Layout(changes, 2, options)
        plain.use_dense_blocks = False
        by_member = plain.run(left, right)
        assert (doc.left_lines, doc.right_lines, doc.kinds) == (by_member.left_lines, by_member.right_lines, by_member.kinds)
