"""Which scorer scores which kind of item.

Scorer modules register a class with ``@register_scorer``; ``scorer_for(kind)``
returns an instance. Modules are imported on first lookup, and a module that
is not there (yet) is skipped, so a partial checkout still scores what it can.
"""

from __future__ import annotations

import importlib
import threading

from reviewer.errors import ReviewerError
from reviewer.scoring.base import Scorer

# Imported on first lookup. Order does not matter; each registers its kinds.
SCORER_MODULES = (
    "reviewer.scoring.tooljson",
    "reviewer.scoring.deepjson",
    "reviewer.scoring.schemagen",
    "reviewer.scoring.nestools",
    "reviewer.scoring.bfcl",
    "reviewer.scoring.toolselect",
)

_by_kind: dict[str, type] = {}
_by_name: dict[str, type] = {}
_loaded = False
_lock = threading.Lock()


class UnknownScorer(ReviewerError):
    """No scorer is registered for a kind or name."""


def register_scorer(cls: type) -> type:
    """Class decorator: register a scorer class under its ``kind`` and ``name``.

    Registering a second class for the same kind replaces the first (the last
    import wins), so a test can swap in its own scorer.
    """
    for attr in ("name", "kind"):
        if not isinstance(getattr(cls, attr, None), str):
            raise TypeError(f"{cls.__name__} needs a string class attribute {attr!r} to be registered")
    _by_kind[cls.kind] = cls
    _by_name[cls.name] = cls
    return cls


def _load_modules() -> None:
    global _loaded
    with _lock:
        if _loaded:
            return
        for module in SCORER_MODULES:
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as exc:
                # Only a missing scorer module is tolerated; a module that exists but
                # imports something missing is a real error and must be seen.
                if exc.name != module:
                    raise
        _loaded = True


def scorer_for(kind: str) -> Scorer:
    """A scorer instance for an ItemKind value; raises UnknownScorer when none is registered."""
    _load_modules()
    try:
        return _by_kind[str(kind)]()
    except KeyError:
        known = ", ".join(sorted(_by_kind)) or "none"
        raise UnknownScorer(f"no scorer for items of kind {kind!r} (scorers exist for: {known})") from None


def scorer_named(name: str) -> Scorer:
    """A scorer instance by its name ("tooljson", "deepjson", ...)."""
    _load_modules()
    try:
        return _by_name[name]()
    except KeyError:
        known = ", ".join(sorted(_by_name)) or "none"
        raise UnknownScorer(f"no scorer named {name!r} (known: {known})") from None


def registered_kinds() -> list[str]:
    _load_modules()
    return sorted(_by_kind)
