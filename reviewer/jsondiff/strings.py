"""String comparison under the options, and character-level edits of long strings."""

from __future__ import annotations

from difflib import SequenceMatcher

from reviewer.jsondiff.changes import StringOp

# Above this length difflib's matching gets slow (worst case quadratic) for an
# interactive tool; such strings are reported as changed without opcodes.
MAX_OPS_LENGTH = 20_000


def normalize(text: str, ignore_case: bool, normalize_whitespace: bool) -> str:
    if normalize_whitespace:
        text = " ".join(text.split())
    if ignore_case:
        text = text.casefold()
    return text


def string_ops(left: str, right: str) -> tuple[StringOp, ...] | None:
    """Character-level edits turning ``left`` into ``right`` (no "equal" runs), or
    None when either string is longer than ``MAX_OPS_LENGTH``."""
    if len(left) > MAX_OPS_LENGTH or len(right) > MAX_OPS_LENGTH:
        return None
    matcher = SequenceMatcher(None, left, right, autojunk=False)
    return tuple(op for op in matcher.get_opcodes() if op[0] != "equal")
