"""orjson is an optional speed-up: without it the results must be the same."""

import pytest

from reviewer.jsondiff import DiffOptions, align, diff
from reviewer.jsondiff import canonical as canonical_module
from reviewer.jsondiff import lists as lists_module
from reviewer.jsondiff import render as render_module
from reviewer.jsondiff.synthetic import filings_pair


def results(left, right, options):
    changes = diff(left, right, options)
    doc = align(left, right, changes)
    return changes, doc.left_lines, doc.right_lines, doc.kinds


@pytest.mark.skipif(canonical_module.orjson is None, reason="orjson is not installed: only the json path exists")
def test_json_module_fallback_gives_the_same_diff_and_layout(monkeypatch):
    left, right, _ = filings_pair(records=40, changes=12, seed=5)
    right["filings"].insert(7, right["filings"].pop(30))  # a move
    del right["filings"][3]["tags"][1]
    right["filings"][5]["amended"] = 1  # a type change True/False -> 1
    options = DiffOptions(abs_tolerance=0.5)
    with_orjson = results(left, right, options)

    monkeypatch.setattr(canonical_module, "orjson", None)
    monkeypatch.setattr(canonical_module, "canonical", canonical_module._json_canonical)
    monkeypatch.setattr(lists_module, "canonical", canonical_module._json_canonical)
    monkeypatch.setattr(render_module, "orjson", None)
    assert results(left, right, options) == with_orjson
