"""Errors a user can act on.

Every message names where the problem is: the file, then the line, record or
JSON path, so that a bad input file can be fixed without guessing.
"""

from __future__ import annotations

from pathlib import Path


class ReviewerError(Exception):
    """Base of the errors the CLI and the GUI show to the user as they are."""


class InputError(ReviewerError):
    """A file that cannot be imported.

    ``where`` is a line ("line 12"), a record ("record 'uid_3'") or a JSON path
    ("$[3].gold_answer"); any combination joined by ", " is fine.
    """

    def __init__(self, path: str | Path | None, where: str | None, message: str):
        self.path = str(path) if path is not None else None
        self.where = where
        self.message = message
        parts = [p for p in (self.path, where) if p]
        prefix = ": ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class OutputError(ReviewerError):
    """A file that cannot be written (an export): the message names it and says what was kept."""


class RunMismatch(InputError):
    """A file whose outputs would go into a stored run of another model, setup or format.
    The message adds to ``problem`` the CLI's advice (--name) and ``after`` (what else
    the import says); another front end gives its own advice."""

    def __init__(self, path, where: str | None, problem: str, after: str = ""):
        self.problem = problem
        self.after = after
        super().__init__(path, where, f"{problem}; import the file as a run of another name (--name){after}")


class FormatNotDetected(InputError):
    """No format, or more than one, recognises a file the user did not name a format for.

    The message is the CLI's (it names --format); the fields let another front end say it
    in its own words: ``what`` ("dataset" or "prediction"), ``known`` (the format names),
    ``candidates`` (the formats that all recognise the file, when more than one does) and
    ``other`` ((name, label) of a format of the other kind that recognises it: a prediction
    file given as a dataset, or the reverse), if any.
    """

    def __init__(self, path, what: str, known: list[str], candidates: list[str] | None = None,
                 other: tuple[str, str] | None = None):
        self.what = what
        self.known = list(known)
        self.candidates = list(candidates or [])
        self.other = other
        if self.candidates:
            message = f"ambiguous {what} format ({', '.join(self.candidates)}); name one with --format"
        else:
            message = f"cannot tell which {what} format this is; name one with --format ({', '.join(self.known)})"
        super().__init__(path, None, message)


class NotFound(ReviewerError):
    """A dataset, run or item that does not exist."""


class StaleWrite(ReviewerError):
    """A write based on a version that someone else has changed since it was read."""

    def __init__(self, what: str, expected: int, actual: int):
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"{what} was changed by someone else (you had version {expected}, "
            f"the database has {actual}); reload it before saving"
        )


class ItemBusy(ReviewerError):
    """An item another session holds (saving, settling) longer than a write waits for it."""

    def __init__(self, item_id: int, seconds: float):
        super().__init__(
            f"item {item_id} is held by another session (a save or settlement in progress) for more than "
            f"{seconds:g} s; nothing was written: try again"
        )


def json_path(parts) -> str:
    """Render a JSON path like ``$[3].call[0]["api name"]`` from keys and indexes."""
    out = "$"
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif isinstance(p, str) and p.isidentifier():
            out += f".{p}"
        else:
            out += f"[{p!r}]"
    return out
