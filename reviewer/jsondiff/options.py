"""How two JSON values are compared: the settings a dataset stores and scorers reuse.

``DiffOptions`` is immutable and round-trips through ``to_dict`` / ``from_dict``
(plain JSON values), so it can be saved per dataset and read back by a scorer.
Object key order is never significant: JSON objects are unordered.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from reviewer.errors import ReviewerError
from reviewer.jsondiff.paths import ANY, PathPattern, PathSyntaxError, PatternSet


class DiffOptionsError(ReviewerError):
    """Options that cannot be used; the message names the offending setting."""


@dataclass(frozen=True)
class DiffOptions:
    """Comparison settings.

    - ``list_keys``: pattern -> member name identifying list elements, e.g.
      ``{"$.filings[*]": "accessionNumber"}``. The pattern names the elements
      (ending in ``[*]``) or the list itself. Lists not named here are matched
      by content, then by position.
    - ``ignore_paths``: patterns whose nodes (and everything below) are never reported.
    - ``abs_tolerance`` / ``rel_tolerance``: numbers ``a``, ``b`` are equal when
      ``|a-b| <= abs_tolerance`` or ``|a-b| <= rel_tolerance * max(|a|, |b|)``.
    - ``int_float_equal``: ``1`` equals ``1.0`` (on by default; off reports them changed).
    - ``ignore_case`` / ``normalize_whitespace``: string comparison after
      case folding / collapsing whitespace runs and trimming the ends.
    - ``string_ops_min_length``: changed strings at least this long (on both
      sides) carry character-level opcodes.
    - ``detect_moves``: report list elements found at another index as ``moved``;
      when off they are reported as removed and added.
    """

    list_keys: Mapping[str, str] = field(default_factory=dict)
    ignore_paths: tuple[str, ...] = ()
    abs_tolerance: float = 0.0
    rel_tolerance: float = 0.0
    int_float_equal: bool = True
    ignore_case: bool = False
    normalize_whitespace: bool = False
    string_ops_min_length: int = 40
    detect_moves: bool = True

    def __post_init__(self):
        # Normalise containers so equal settings compare equal and stay immutable.
        object.__setattr__(self, "list_keys", dict(self.list_keys))
        object.__setattr__(self, "ignore_paths", tuple(self.ignore_paths))
        for name in ("abs_tolerance", "rel_tolerance"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise DiffOptionsError(f"diff options: {name} must be a number, got {value!r}")
            if not math.isfinite(value) or value < 0:
                raise DiffOptionsError(f"diff options: {name} must be >= 0 and finite, got {value!r}")
        for name in ("int_float_equal", "ignore_case", "normalize_whitespace", "detect_moves"):
            if not isinstance(getattr(self, name), bool):
                raise DiffOptionsError(f"diff options: {name} must be true or false, got {getattr(self, name)!r}")
        n = self.string_ops_min_length
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise DiffOptionsError(f"diff options: string_ops_min_length must be an integer >= 0, got {n!r}")

        ignored = []
        for i, text in enumerate(self.ignore_paths):
            ignored.append(_compile(text, f"ignore_paths[{i}]"))
        keyed = []
        for text, member in self.list_keys.items():
            if not isinstance(member, str) or not member:
                raise DiffOptionsError(f"diff options: list_keys[{text!r}] must be a member name, got {member!r}")
            pattern = _compile(text, f"list_keys[{text!r}]")
            steps = pattern.steps
            # "$.filings[*]" names the elements; the list itself is "$.filings".
            if steps and steps[-1] is ANY:
                pattern = PathPattern(pattern.text, steps[:-1])
            keyed.append((pattern, member))
        object.__setattr__(self, "_ignored", PatternSet(ignored))
        object.__setattr__(self, "_keyed", tuple(keyed))

    def __hash__(self) -> int:
        # The generated hash would fail on the list_keys dict; settings that
        # compare equal have equal dicts, so hash those.
        return hash(json.dumps(self.to_dict(), sort_keys=True))

    # -- queries used by the diff engine -------------------------------------------------

    def is_ignored(self, path: tuple) -> bool:
        ignored: PatternSet = self._ignored  # type: ignore[attr-defined]
        return bool(ignored) and ignored.first_match(path) is not None

    @property
    def has_ignored(self) -> bool:
        return bool(self._ignored)  # type: ignore[attr-defined]

    def list_key_for(self, list_path: tuple) -> str | None:
        """The member identifying the elements of the list at ``list_path``, if configured."""
        for pattern, member in self._keyed:  # type: ignore[attr-defined]
            if pattern.matches(list_path):
                return member
        return None

    # -- persistence ---------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict; ``from_dict(o.to_dict()) == o``."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "ignore_paths":
                value = list(value)
            elif f.name == "list_keys":
                value = dict(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DiffOptions:
        """Read options saved by ``to_dict``; missing settings take their defaults.

        Raises ``DiffOptionsError`` naming unknown or badly typed settings.
        """
        if not isinstance(data, Mapping):
            raise DiffOptionsError(f"diff options must be an object, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise DiffOptionsError(f"diff options: unknown setting(s) {', '.join(map(repr, unknown))}")
        kwargs = dict(data)
        if "ignore_paths" in kwargs:
            value = kwargs["ignore_paths"]
            if isinstance(value, str) or not isinstance(value, list | tuple):
                raise DiffOptionsError(f"diff options: ignore_paths must be a list of patterns, got {value!r}")
            kwargs["ignore_paths"] = tuple(value)
        if "list_keys" in kwargs and not isinstance(kwargs["list_keys"], Mapping):
            raise DiffOptionsError(f"diff options: list_keys must be an object, got {kwargs['list_keys']!r}")
        return cls(**kwargs)


def _compile(text: Any, where: str) -> PathPattern:
    if not isinstance(text, str):
        raise DiffOptionsError(f"diff options: {where} must be a path pattern string, got {text!r}")
    try:
        return PathPattern.compile(text)
    except PathSyntaxError as exc:
        raise DiffOptionsError(f"diff options: {where}: {exc}") from None
