"""Qt-free text preparation for the viewers: pretty-printing, per-line tokenizers,
and the LineDocument the LineView paints. Runs on worker threads.

A tokenizer maps one line to ``[(start, end, kind), ...]`` (kinds: key, string,
number, keyword, punct, comment, name, error); the viewer calls it only for the
lines it paints, which is what keeps a 5 MB document cheap to open.
"""

from __future__ import annotations

import json
import re
from array import array
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from reviewer.jsondiff.render import pretty_text

try:  # 30x faster pretty-printing (shared/NOTES.md); json is the fallback
    import orjson
except ImportError:  # pragma: no cover - orjson is installed with the app
    orjson = None

Token = tuple[int, int, str]
Tokenizer = Callable[[str], list[Token]]

_JSON_TOKEN = re.compile(
    r'(?P<string>"(?:[^"\\]|\\.)*"?)(?P<colon>\s*:)?'
    r"|(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
    r"|(?P<keyword>\btrue\b|\bfalse\b|\bnull\b)"
    r"|(?P<punct>[{}\[\],:])"
)


def json_tokens(line: str) -> list[Token]:
    """Tokens of one line of (pretty-printed) JSON; a string followed by ':' is a key."""
    out: list[Token] = []
    for m in _JSON_TOKEN.finditer(line):
        if m.group("string") is not None:
            s, e = m.span("string")
            out.append((s, e, "key" if m.group("colon") else "string"))
            if m.group("colon"):
                out.append((m.end() - 1, m.end(), "punct"))
        else:
            kind = m.lastgroup or "punct"
            out.append((m.start(), m.end(), kind))
    return out


def plain_tokens(line: str) -> list[Token]:
    return []


_PY_KEYWORDS = ["False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"]
_PY_TOKEN = re.compile(
    r"(?P<comment>#.*)"
    r"|(?P<string>[rbfuRBFU]{0,2}(?:\"\"\"|'''|\"(?:[^\"\\]|\\.)*\"?|'(?:[^'\\]|\\.)*'?))"
    r"|(?P<number>\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b)"
    rf"|(?P<keyword>\b(?:{'|'.join(_PY_KEYWORDS)})\b)"
    r"|(?P<name>\b[A-Za-z_]\w*(?=\())"
)


def python_tokens(line: str) -> list[Token]:
    """A cheap per-line Python tokenizer (comments, strings, numbers, keywords, calls)."""
    return [(m.start(), m.end(), m.lastgroup or "name") for m in _PY_TOKEN.finditer(line)]


class TextLines(Sequence):
    """The lines of one big text, without a Python string per line.

    The text is cut into blocks of about ``BLOCK`` characters at line ends;
    indexing finds the block (bisect over the blocks' first line numbers) and
    splits just that block, keeping the last few split blocks. Building the
    index is a couple of C-speed ``find``/``count`` calls per block, so a
    400k-line document is indexed in milliseconds instead of the ~100 ms that
    ``text.split`` plus per-line lengths take.
    """

    BLOCK = 64 * 1024
    CACHED_BLOCKS = 32

    __slots__ = ("_cache", "block_lines", "block_starts", "n", "text")

    def __init__(self, text: str):
        self.text = text
        starts, firsts = array("q", [0]), array("q", [0])
        pos, n, size = 0, 0, len(text)
        while True:
            cut = text.find("\n", min(pos + self.BLOCK, size))
            if cut == -1:
                break
            n += text.count("\n", pos, cut + 1)
            pos = cut + 1
            starts.append(pos)
            firsts.append(n)
        self.block_starts, self.block_lines = starts, firsts
        self.n = n + text.count("\n", pos) + 1
        self._cache: dict[int, list[str]] = {}

    def __len__(self) -> int:
        return self.n

    def _block(self, b: int) -> list[str]:
        lines = self._cache.get(b)
        if lines is None:
            if len(self._cache) >= self.CACHED_BLOCKS:
                self._cache.pop(next(iter(self._cache)))
            end = self.block_starts[b + 1] - 1 if b + 1 < len(self.block_starts) else len(self.text)
            lines = self.text[self.block_starts[b] : end].split("\n")
            self._cache[b] = lines
        return lines

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.n))]
        if index < 0:
            index += self.n
        if not 0 <= index < self.n:
            raise IndexError(index)
        b = bisect_right(self.block_lines, index) - 1
        return self._block(b)[index - self.block_lines[b]]

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column) of a character offset into the text."""
        b = bisect_right(self.block_starts, offset) - 1
        start = self.block_starts[b]
        line = self.block_lines[b] + self.text.count("\n", start, offset)
        return line, offset - (self.text.rfind("\n", start, offset) + 1 if line > self.block_lines[b] else start)

    def offset(self, line: int, column: int) -> int:
        """Character offset of (line, column)."""
        b = bisect_right(self.block_lines, line) - 1
        pos = self.block_starts[b]
        for _ in range(line - self.block_lines[b]):
            pos = self.text.index("\n", pos) + 1
        return pos + column

    def longest_in_first_block(self) -> int:
        return max(map(len, self._block(0)), default=0)


@dataclass
class LineDocument:
    """What a LineView shows: lines plus optional per-line decoration.

    ``roles[i]`` names line i's background (added, removed, changed, filler,
    error, current...); ``spans[i]`` lists ``(start, end, role)`` character
    ranges to mark inside line i (character-level diff, validation errors);
    ``numbers[i]`` is the line number printed in the gutter (None: no number,
    e.g. an alignment filler); ``paths[i]`` the JSON path of line i when known.
    """

    lines: Sequence[str]  # a list, or TextLines for big texts
    tokenizer: Tokenizer = plain_tokens
    roles: dict[int, str] = field(default_factory=dict)
    spans: dict[int, list[tuple[int, int, str]]] = field(default_factory=dict)
    numbers: Sequence[int | None] | None = None
    paths: Sequence[str | None] | None = None
    banner: str | None = None  # a message shown above the text (parse error...)
    max_len: int = -1

    def __post_init__(self) -> None:
        if self.max_len < 0:
            self.max_len = max(map(len, self.lines), default=0)

    def __len__(self) -> int:
        return len(self.lines)

    def number(self, index: int) -> int | None:
        return index + 1 if self.numbers is None else self.numbers[index]

    def text(self) -> str:
        if isinstance(self.lines, TextLines):
            return self.lines.text
        return "\n".join(self.lines)


def pretty_json(value: Any) -> str:
    """``value`` as JSON indented by 2, the same text the diff view aligns."""
    return pretty_text(value, 2)


def parse_json(text: str) -> Any:
    """Parse JSON text; raises ValueError with line and column on bad input."""
    if orjson is not None:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # json gives the better message (and accepts big integers)
    return json.loads(text)


BIG_TEXT = 256 * 1024  # above this, parse and pretty-print in the helper process


@dataclass
class ParsedJsonText:
    """A JSON text parsed and pretty-printed for display, or the reason it could not be.

    For big texts the value is not kept (``value_ready`` False): the viewer only
    needs the pretty lines, and ``ensure_value`` parses it when a tree asks for it.
    """

    value: Any
    document: LineDocument
    ok: bool
    source: str | None = None
    value_ready: bool = True


def pretty_index(text: str) -> tuple[bool, str]:
    """(True, pretty text) or (False, error message) for a JSON text.
    Runs in the helper process (reviewer_ui.runtime.parsepool)."""
    try:
        value = parse_json(text)
    except ValueError as exc:
        return False, str(exc)
    return True, pretty_text(value, 2)


def big_document(text: str, banner: str | None = None) -> LineDocument:
    """A LineDocument over a big text, indexed by blocks (TextLines). The longest
    line is taken from the first block; the viewer widens its range as it meets longer ones."""
    lines = TextLines(text)
    return LineDocument(lines, json_tokens, banner=banner, max_len=lines.longest_in_first_block())


def json_document(value: Any) -> LineDocument:
    """A LineDocument of ``value`` pretty-printed, highlighted as JSON."""
    return LineDocument(pretty_json(value).split("\n"), json_tokens)


def prepare_json_text(text: str | None, what: str = "text") -> ParsedJsonText:
    """Parse and pretty-print a JSON text for the viewer; on a parse error the raw
    text is shown under a banner naming the line and column. Big texts go to
    the helper process (reviewer_ui.runtime.parsepool) so that parsing never holds up the GUI."""
    if text is None:
        return ParsedJsonText(None, LineDocument([], banner=f"no {what}"), False)
    if len(text) > BIG_TEXT:
        from reviewer_ui.runtime import parsepool

        ok, pretty = parsepool.run(pretty_index, text)
        if ok:
            return ParsedJsonText(None, big_document(pretty), True, text, value_ready=False)
        return ParsedJsonText(None, big_document(text, f"{what} is not valid JSON: {pretty}"), False, text)
    try:
        value = parse_json(text)
    except ValueError as exc:
        doc = LineDocument(text.split("\n"), json_tokens, banner=f"{what} is not valid JSON: {exc}")
        return ParsedJsonText(None, doc, False, text)
    return ParsedJsonText(value, json_document(value), True, text)


def ensure_value(ctx, parsed: ParsedJsonText) -> Any:
    """The parsed value (a job: parsing a big text takes a while)."""
    if not parsed.value_ready and parsed.ok:
        from reviewer_ui.runtime import gcpolicy

        with gcpolicy.paused():
            parsed.value = parse_json(parsed.source)
        parsed.value_ready = True
    return parsed.value


def value_document(value: Any) -> LineDocument:
    """A JSON value for display: strings as plain text lines, the rest as JSON."""
    if isinstance(value, str):
        return LineDocument(value.split("\n"), plain_tokens)
    return json_document(value)
