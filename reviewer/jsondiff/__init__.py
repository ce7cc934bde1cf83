"""Structure-aware JSON diff: differences by JSON path, not by line.

Qt-free. ``diff`` compares two parsed JSON values under ``DiffOptions``;
``align`` lays the two pretty-printed documents side by side for the UI;
``ChangeIndex`` counts changes and navigates between them.
"""

from reviewer.jsondiff.align import AlignedDocument, CollapsedRun, align
from reviewer.jsondiff.changes import KINDS, Change, ChangeKind, StringOp
from reviewer.jsondiff.engine import NotJsonError, diff, json_type
from reviewer.jsondiff.options import DiffOptions, DiffOptionsError
from reviewer.jsondiff.paths import PathPattern, PathSyntaxError, parse_path, render_path
from reviewer.jsondiff.summary import ChangeIndex, count_by_kind

__all__ = [
    "AlignedDocument",
    "ChangeIndex",
    "CollapsedRun",
    "align",
    "count_by_kind",
    "KINDS",
    "Change",
    "ChangeKind",
    "DiffOptions",
    "DiffOptionsError",
    "NotJsonError",
    "PathPattern",
    "PathSyntaxError",
    "StringOp",
    "diff",
    "json_type",
    "parse_path",
    "render_path",
]
