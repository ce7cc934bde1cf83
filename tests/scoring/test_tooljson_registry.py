"""The scorer registry (reviewer/scoring/registry.py, owned with the toolJSON scorer).

Lookups by kind and name, registration by decorator, and tolerance of scorer
modules that are not there yet.
"""

from __future__ import annotations

import pytest

from reviewer.scoring import registry
from reviewer.scoring.base import ScoreResult
from reviewer.scoring.registry import UnknownScorer, register_scorer, registered_kinds, scorer_for, scorer_named


def test_the_three_scorers_of_this_module_set_are_registered():
    assert {"tool_qa", "extraction", "schema_gen"} <= set(registered_kinds())
    assert scorer_named("deepjson").kind == "extraction"
    assert scorer_for("schema_gen").name == "schemagen"


def test_unknown_kind_names_the_known_ones():
    with pytest.raises(UnknownScorer, match="no scorer for items of kind 'nope'.*tool_qa"):
        scorer_for("nope")


def test_register_scorer_decorator_and_replacement(monkeypatch):
    monkeypatch.setattr(registry, "_by_kind", dict(registry._by_kind))
    monkeypatch.setattr(registry, "_by_name", dict(registry._by_name))

    @register_scorer
    class Dummy:
        name = "dummy"
        kind = "dummy_kind"

        def score(self, item, output, mode="faithful"):
            return ScoreResult({"ok": True}, "ok", True)

        def aggregate(self, pairs):
            return {}

    assert isinstance(scorer_for("dummy_kind"), Dummy)
    assert isinstance(scorer_named("dummy"), Dummy)
    with pytest.raises(TypeError, match="needs a string class attribute 'kind'"):
        register_scorer(type("NoKind", (), {"name": "x"}))


def test_missing_scorer_modules_are_skipped_but_broken_ones_are_not(monkeypatch, tmp_path):
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "SCORER_MODULES", ("reviewer.scoring.tooljson", "reviewer.scoring.not_written_yet"))
    registry._load_modules()  # the absent module is tolerated
    broken = tmp_path / "broken_scorer_mod.py"
    broken.write_text("import a_dependency_that_is_missing\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "SCORER_MODULES", ("broken_scorer_mod",))
    with pytest.raises(ModuleNotFoundError, match="a_dependency_that_is_missing"):
        registry._load_modules()
