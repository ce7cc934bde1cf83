"""Qt-free text preparation for the viewers: pretty-printing, per-line tokenizers,
and the LineDocument the LineView paints. Runs on worker threads.

A tokenizer maps one line to ``[(start, end, kind), ...]`` (kinds: key, string,
number, keyword, punct, comment, name, error); the viewer calls it only for the
lines it paints, which is what keeps a 5 MB document cheap to open.
"""

from __future__ import annotations

from itertools import islice

import json
import mmap
import os
import re
import tempfile
import threading
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, Future
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


def block_index(text: str | bytes, block: int) -> tuple[array, array, int]:
    """Cut ``text`` (str or bytes) into blocks of about ``block`` characters at line
    ends: (first offset of each block, first line number of each block, line count).
    A couple of C-speed ``find``/``count`` calls per block: a 200 MB text is indexed
    in about 100 ms and the index is a few kilobytes."""
    nl = "\n" if isinstance(text, str) else b"\n"
    starts, firsts = array("q", [0]), array("q", [0])
    pos, n, size = 0, 0, len(text)
    while True:
        cut = text.find(nl, min(pos + block, size))
        if cut == -1:
            break
        n += text.count(nl, pos, cut + 1)
        pos = cut + 1
        starts.append(pos)
        firsts.append(n)
    return starts, firsts, n + text.count(nl, pos) + 1


class _BlockLines(Sequence):
    """Lines of one big text kept whole, cut into blocks at line ends (see ``block_index``);
    indexing finds the block (bisect over the blocks' first line numbers) and splits just
    that block, keeping the last few split blocks. Subclasses say how a block becomes lines."""

    BLOCK = 64 * 1024
    CACHED_BLOCKS = 32

    __slots__ = ("_cache", "block_lines", "block_starts", "n")

    def __init__(self, starts: array, firsts: array, n: int):
        self.block_starts, self.block_lines, self.n = starts, firsts, n
        self._cache: dict[int, list[str]] = {}

    def _size(self) -> int:
        raise NotImplementedError

    def _split(self, start: int, end: int) -> list[str]:
        raise NotImplementedError

    def __len__(self) -> int:
        return self.n

    def _block(self, b: int) -> list[str]:
        lines = self._cache.get(b)
        if lines is None:
            if len(self._cache) >= self.CACHED_BLOCKS:
                self._cache.pop(next(iter(self._cache)))
            end = self.block_starts[b + 1] - 1 if b + 1 < len(self.block_starts) else self._size()
            lines = self._split(self.block_starts[b], end)
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

    def longest_in_first_block(self) -> int:
        return max(map(len, self._block(0)), default=0)


class TextLines(_BlockLines):
    """The lines of one big str, without a Python string per line (see ``_BlockLines``).
    Building the index is a few C calls per block, so a 400k-line document is indexed
    in milliseconds instead of the ~100 ms that ``text.split`` plus per-line lengths take."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text
        super().__init__(*block_index(text, self.BLOCK))

    def _size(self) -> int:
        return len(self.text)

    def _split(self, start: int, end: int) -> list[str]:
        return self.text[start:end].split("\n")

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


class ByteLines(_BlockLines):
    """The lines of a big UTF-8 text held as bytes, typically a read-only ``mmap`` of a
    file the helper process wrote (reviewer_ui.runtime.parsepool): only the blocks
    on screen are ever decoded, and pages never touched never count in this process's
    memory. The block index comes with the buffer (computed where the text was made)."""

    __slots__ = ("buffer",)

    def __init__(self, buffer, starts: array, firsts: array, n: int):
        self.buffer = buffer
        super().__init__(starts, firsts, n)

    def _size(self) -> int:
        return len(self.buffer)

    def _split(self, start: int, end: int) -> list[str]:
        # Blocks end at a newline, so no UTF-8 sequence is ever cut in two.
        return self.buffer[start:end].decode("utf-8", "replace").split("\n")

    def text(self) -> str:
        return self.buffer[:].decode("utf-8", "replace")


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
    banner_role: str = "error_bg"  # the banner's background (a theme colour name)
    # A document still being made elsewhere (a concurrent.futures.Future of the finished
    # LineDocument): this one is a preview, and the viewer swaps the result in when it is done.
    # A viewer that stops showing it cancels it (``cancel_pending``); ``restart`` makes a new one.
    pending: Any = None
    restart: Any = None

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
        if isinstance(self.lines, ByteLines):
            return self.lines.text()
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
    try:
        return json.loads(text)
    except RecursionError:  # json's parser is recursive: a thousand nested levels exhaust it
        raise ValueError("nested too deeply to read (more than about 1,000 levels)") from None


BIG_TEXT = 256 * 1024  # above this, parse and pretty-print in the helper process
PREVIEW_FROM = 4 * 1024 * 1024  # above this, show the start at once while the helper works
_WRITE_CHUNK = 1 << 20  # characters per write when handing a text to the helper (short GIL holds)


@dataclass
class ParsedJsonText:
    """A JSON text parsed and pretty-printed for display, or the reason it could not be.

    For big texts the value is not kept (``value_ready`` False): the viewer only
    needs the pretty lines, and ``ensure_value`` parses it when a tree asks for it.
    For very big texts ``document`` is a preview whose ``pending`` future brings the
    whole document; ``ok`` is then True until the helper says otherwise (the viewer
    shows its message in place of the text).
    """

    value: Any
    document: LineDocument
    ok: bool
    source: str | None = None
    value_ready: bool = True
    helper_key: str | None = None  # where the helper keeps the parsed value for the tree, if it does


def pretty_index(text: str) -> tuple[bool, str]:
    """(True, pretty text) or (False, error message) for a JSON text.
    Runs in the helper process (reviewer_ui.runtime.parsepool)."""
    try:
        value = parse_json(text)
    except ValueError as exc:
        return False, str(exc)
    return True, pretty_text(value, 2)


# Texts up to this are parsed whole in the helper, and the value kept for the tree; above
# it, a text is printed a piece at a time and its tree read from the text (streamprint,
# spantree): parsed whole, a text takes 7-9 times its size in Python objects.
PARSED_WHOLE_UP_TO = 4 * 1024 * 1024


def pretty_file(src_path: str, key: str | None = None) -> tuple:
    """Helper-process side of a big text: read the JSON text the app wrote to ``src_path``
    (and delete it), pretty-print it into a new temporary file, and index its lines.

    Returns ``("ok", out_path, block_starts, block_lines, n_lines)``, the index being a
    few kilobytes whatever the size (``block_index``), or ``("error", message)``. The app
    maps ``out_path`` read-only and deletes it (``_mapped_document``): nothing big travels
    through the pipe, and nothing big is ever copied into the app's memory. With a ``key``,
    the parsed value of a text up to PARSED_WHOLE_UP_TO stays in the helper under it, so
    that the tree (reviewer_ui.treeindex) need not parse the text again. A text above
    that is never parsed whole (unless it must be: see streamprint): it is printed a piece
    at a time (reviewer_ui.streamprint), and its tree is read from the text
    (reviewer_ui.spantree), which the helper keeps instead."""
    from reviewer_ui import treeindex

    if _take_abandoned(src_path):  # the app moved on before the helper came to it
        _discard(src_path)  # (unless the tree read it)
        return ("abandoned",)
    try:
        # Kept before printing, so the tree need not wait for the print; parsed once even
        # when the tree brought the same text first (reviewer_ui.treeindex). A huge text
        # comes as a SpanTree over its bytes (reviewer_ui.spantree): printed in pieces.
        size, value = treeindex.parse_once(key, src_path)
        if size is None:
            return "error", value
        if treeindex.is_span_tree(value):
            streamed = _print_streamed(value.data, src_path)
            if streamed is not None:
                return streamed
            try:  # not cut into pieces (see streamprint): parsed whole, which names any problem
                value = parse_json(value.data)
            except ValueError as exc:
                treeindex.forget_invalid(key, str(exc))
                return "error", str(exc)
        pretty = None
        if orjson is not None:
            try:
                pretty = pretty_bytes(value, lambda: src_path in _abandoned)
            except orjson.JSONEncodeError:
                pass  # very deep or a very big integer: the slower printer below copes
            except _Abandoned:
                return ("abandoned",)
        if pretty is None:
            pretty = pretty_text(value, 2).encode("utf-8", "surrogatepass")
        del value
    finally:
        _take_abandoned(src_path)
    starts, firsts, n = block_index(pretty, _BlockLines.BLOCK)
    fd, out_path = tempfile.mkstemp(prefix="reviewer-pretty-", suffix=".json")
    with os.fdopen(fd, "wb") as f:
        f.write(pretty)
    _release_freed_memory()
    return "ok", out_path, starts, firsts, n


def _print_streamed(data: bytes, src_path: str) -> tuple | None:
    """Helper side: ``pretty_file``'s answer for the huge text ``data``, printed a piece at a
    time (reviewer_ui.streamprint), or None when it must be parsed whole instead."""
    if orjson is None:
        return None
    from reviewer_ui.runtime import gcpolicy
    from reviewer_ui.streamprint import NotSplittable, Stopped, pretty_file_streamed

    fd, out_path = tempfile.mkstemp(prefix="reviewer-pretty-", suffix=".json")
    os.close(fd)
    try:
        with gcpolicy.paused():  # each piece's objects are freed by reference counting; no cycles
            starts, firsts, n = pretty_file_streamed(data, out_path, _BlockLines.BLOCK, lambda: src_path in _abandoned)
    except Stopped:
        return ("abandoned",)
    except (NotSplittable, ValueError, orjson.JSONEncodeError):  # duplicate keys, not JSON, nested
        return None  # deeper than orjson prints (255 levels; it reads 1024): parsed whole
    finally:
        _release_freed_memory()
    return "ok", out_path, starts, firsts, n


# Helper side: the texts (by the file handed over) the app no longer shows, newest last.
_abandoned: OrderedDict[str, None] = OrderedDict()
_ABANDONED_KEPT = 64  # marks of texts whose print was over before the mark came are forgotten
_abandoned_lock = threading.Lock()


class _Abandoned(Exception):
    """The app no longer shows the text being printed (``abandon``)."""


def abandon(src_path: str) -> None:
    """Helper side (quick lane): do not print (any more) the text handed over in ``src_path``:
    the user moved on, and the next item's print and its tree would wait behind it (a 5 MB
    print: 150-500 ms). ``pretty_file`` answers ``("abandoned",)`` when it comes to it, or at
    its next piece."""
    with _abandoned_lock:
        _abandoned[src_path] = None
        while len(_abandoned) > _ABANDONED_KEPT:
            _abandoned.popitem(last=False)


def _take_abandoned(src_path: str) -> bool:
    with _abandoned_lock:
        return _abandoned.pop(src_path, 0) is None


PRINT_SLICE = 200  # members printed per orjson call by ``pretty_bytes``
_SLICE_FROM_DEPTH = 3  # containers this deep (or with at most PRINT_SLICE members) are printed whole


def pretty_bytes(value: Any, stop: Callable[[], bool] | None = None) -> bytes:
    """``orjson.dumps(value, option=OPT_INDENT_2)``, byte for byte, made by many short
    calls instead of one: the helper's quick lane (reviewer_ui.runtime.parsepool)
    answers the tree between two calls, where one call on a 5 MB value held the
    helper's GIL, and so the tree, for 30-150 ms. Big containers near the top are
    printed PRINT_SLICE members at a time; the rest whole. ``stop`` is asked before
    each piece: True raises _Abandoned."""
    parts: list[bytes] = []
    print_pieces(value, stoppable(parts.append, stop, _Abandoned))
    return b"".join(parts)


def stoppable(put: Callable[[bytes], object], stop: Callable[[], bool] | None,
              stopped: type[Exception]) -> Callable[[bytes], object]:
    """``put``, asking ``stop`` first each time (if given): True raises ``stopped``."""
    if stop is None:
        return put

    def put_unless_stopped(piece: bytes) -> None:
        if stop():
            raise stopped
        put(piece)

    return put_unless_stopped


def print_pieces(value: Any, put: Callable[[bytes], Any], indent: bool = True) -> None:
    """Hand ``orjson.dumps(value)`` (``indent``: with OPT_INDENT_2) to ``put`` in pieces, each
    made by one short C call (see ``pretty_bytes``); joined, they are byte for byte what one
    call makes. Raises TypeError (orjson.JSONEncodeError) where that call would, e.g. on a
    non-string key; ``put`` may then have received some pieces."""
    _print_into(value, 0, put, indent)


def _indented(data: bytes, depth: int) -> bytes:
    # Raw newlines in orjson's output are all between lines (strings escape theirs).
    return data.replace(b"\n", b"\n" + b"  " * depth) if depth else data


def _print_into(value: Any, depth: int, put: Callable[[bytes], Any], indent: bool) -> None:
    kind = type(value)
    option = orjson.OPT_INDENT_2 if indent else None
    pad = (lambda d: b"  " * d) if indent else (lambda d: b"")
    newline = b"\n" if indent else b""
    if kind not in (dict, list) or not value or depth >= _SLICE_FROM_DEPTH:
        put(_indented(orjson.dumps(value, option=option), depth) if indent else orjson.dumps(value))
        return
    opener, closer = (b"{", b"}") if kind is dict else (b"[", b"]")
    put(opener + newline)
    if len(value) > PRINT_SLICE and all(type(v) not in (dict, list) or len(v) <= PRINT_SLICE for v in _sample(value)):
        # Many small members: a slice at a time, printed as a container of its own
        # whose brackets are dropped ("[\n" ... "\n]" indented, "[" ... "]" compact).
        members = list(value.items()) if kind is dict else value
        cut = len(opener + newline)
        for start in range(0, len(members), PRINT_SLICE):
            piece = members[start : start + PRINT_SLICE]
            printed = orjson.dumps(dict(piece) if kind is dict else piece, option=option)
            if start:
                put(b"," + newline)
            put(pad(depth) + _indented(printed[cut:-cut], depth) if indent else printed[cut:-cut])
    else:
        members = value.items() if kind is dict else ((None, v) for v in value)
        for n, (key, member) in enumerate(members):
            if n:
                put(b"," + newline)
            put(pad(depth + 1))
            if kind is dict:
                if type(key) is not str:  # as one call would (orjson writes only string keys)
                    raise orjson.JSONEncodeError(f"Dict key must be str: {key!r}")
                put(orjson.dumps(key) + (b": " if indent else b":"))
            _print_into(member, depth + 1, put, indent)
    put(newline + pad(depth) + closer)


def _sample(value) -> list:
    """A few members of a container (its first ones), to tell small members from big."""
    members = value.values() if type(value) is dict else value
    return list(islice(members, 8))


def _read_source(src_path: str) -> bytes:
    """Helper side: the bytes of the file the app handed over, which is deleted."""
    try:
        with open(src_path, "rb") as f:
            return f.read()
    finally:
        os.unlink(src_path)


def _release_freed_memory() -> None:
    """Give the helper's freed heap back to the system (glibc keeps it otherwise)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        pass


def _mapped_document(out_path: str, starts, firsts, n: int) -> LineDocument:
    """The helper's pretty file as a LineDocument: mapped read-only, then deleted
    (the mapping keeps the data; no file is left behind)."""
    try:
        with open(out_path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            buffer = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    finally:
        os.unlink(out_path)
    lines = ByteLines(buffer, starts, firsts, n)
    return LineDocument(lines, json_tokens, max_len=lines.longest_in_first_block())


def _write_source(text: str) -> str:
    """Write ``text`` to a new temporary file for the helper process (which deletes it),
    a chunk at a time: pickling it whole would hold the GIL, and so the GUI, for one
    long C call."""
    fd, src_path = tempfile.mkstemp(prefix="reviewer-src-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            for i in range(0, len(text), _WRITE_CHUNK):
                f.write(text[i : i + _WRITE_CHUNK])
    except BaseException:
        os.unlink(src_path)
        raise
    return src_path


def _pretty_in_helper(text: str, key: str | None = None) -> tuple:
    """Have the helper process pretty-print ``text`` (see ``pretty_file``)."""
    from reviewer_ui.runtime import parsepool

    return parsepool.run(pretty_file, _write_source(text), key)


def _finished_document(outcome: tuple, text: str, what: str) -> tuple[bool, LineDocument]:
    if outcome[0] == "ok":
        return True, _mapped_document(*outcome[1:])
    return False, big_document(text, f"{what} is not valid JSON: {outcome[1]}")


_PREVIEW_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")(\s*:)?|([{}\[\],])|([^\s{}\[\],:"]+))')


def preview_lines(text: str, max_lines: int = 400, max_chars: int = 1 << 18) -> list[str]:
    """The first lines of ``text`` laid out as ``pretty_json`` lays them out (indent 2),
    re-indenting the tokens as written, without parsing the whole text: what a very big
    response shows while the helper process reads all of it. Stops at ``max_lines``, at
    ``max_chars`` of input, or at the first token it does not understand."""
    end = min(len(text), max_chars)
    chunk = text[:end]
    out: list[str] = []
    depth, prefix, just_opened, pos = 0, "", False, 0
    while len(out) < max_lines:
        m = _PREVIEW_TOKEN.match(chunk, pos)
        if m is None or m.end() == pos or (m.end() == end and end < len(text)):
            break  # the end of what we read (a token may be cut there) or something odd
        pos = m.end()
        string, colon, punct, bare = m.groups()
        if string is not None and colon:
            prefix = f"{string}: "
            continue
        if punct in ("{", "["):
            out.append(f"{'  ' * depth}{prefix}{punct}")
            depth, prefix, just_opened = depth + 1, "", True
        elif punct in ("}", "]"):
            depth = max(0, depth - 1)
            if just_opened:
                out[-1] += punct
            else:
                out.append(f"{'  ' * depth}{punct}")
            just_opened = False
        elif punct == ",":
            if out:
                out[-1] += ","
        else:
            out.append(f"{'  ' * depth}{prefix}{string if string is not None else bare}")
            prefix, just_opened = "", False
    return out


def big_document(text: str, banner: str | None = None) -> LineDocument:
    """A LineDocument over a big text, indexed by blocks (TextLines). The longest
    line is taken from the first block; the viewer widens its range as it meets longer ones."""
    lines = TextLines(text)
    return LineDocument(lines, json_tokens, banner=banner, max_len=lines.longest_in_first_block())


def json_document(value: Any) -> LineDocument:
    """A LineDocument of ``value`` pretty-printed, highlighted as JSON."""
    return LineDocument(pretty_json(value).split("\n"), json_tokens)


def _start_whole(text: str, what: str, key: str | None = None) -> Future:
    """A Future of the whole document of a big text, made by the helper process; a
    thread hands the text over so that the caller returns at once. Cancelling the
    Future before the helper has started on it spares the helper the work."""
    whole: Future = Future()
    whole.source = Future()  # the file handed over: the tree parses it if the print has not started

    def make() -> None:
        try:
            src_path = _write_source(text)
            whole.source.set_result(src_path)
            from reviewer_ui.runtime import parsepool

            inner = parsepool.submit(pretty_file, src_path, key)
            whole.inner = inner
            if whole.cancelled():
                inner.cancel()
            try:
                outcome = inner.result()
            except CancelledError:  # never started: the helper did not delete the file (unless the tree read it)
                _discard(src_path)
                return
            if outcome[0] == "abandoned":  # the viewer moved on while it was printed
                return
            doc = _finished_document(outcome, text, what)[1]
            if not whole.cancelled():
                whole.set_result(doc)
        except BaseException as exc:  # noqa: BLE001 - the viewer shows it in place of the text
            if not whole.source.done():
                whole.source.set_result(None)
            if not whole.cancelled():
                whole.set_exception(exc)

    threading.Thread(target=make, name="pretty-feeder", daemon=True).start()
    return whole


def _discard(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def cancel_pending(doc: LineDocument) -> None:
    """The viewer no longer shows ``doc``: drop the helper's work for it if not started,
    and stop it if it is under way (``abandon``)."""
    whole = doc.pending
    if whole is not None and whole.cancel():
        inner = getattr(whole, "inner", None)
        if inner is not None and not inner.cancel() and inner.running():
            from reviewer_ui.runtime import parsepool

            parsepool.quick(abandon, whole.source.result())


def _prepare_big(text: str, what: str) -> ParsedJsonText:
    """A big text: pretty-printed in the helper process into a file this process maps.
    Up to PREVIEW_FROM the caller (a worker) waits for it; above, it gets a preview of
    the start at once and the viewer swaps the whole document in when it is ready."""
    from reviewer_ui.treeindex import new_key

    key = new_key()
    if len(text) <= PREVIEW_FROM:
        ok, doc = _finished_document(_pretty_in_helper(text, key), text, what)
        return ParsedJsonText(None, doc, ok, text, value_ready=False, helper_key=key)
    size = len(text) / 1e6
    preview = LineDocument(preview_lines(text), json_tokens, banner=f"Showing the start of {what}: "
                           f"reading all {size:.0f} MB…", banner_role="current",
                           pending=_start_whole(text, what, key), restart=lambda: _start_whole(text, what, key))
    return ParsedJsonText(None, preview, True, text, value_ready=False, helper_key=key)


def prepare_json_text(text: str | None, what: str = "text") -> ParsedJsonText:
    """Parse and pretty-print a JSON text for the viewer; on a parse error the raw
    text is shown under a banner naming the line and column. Big texts go to
    the helper process (reviewer_ui.runtime.parsepool) so that parsing never holds up the GUI."""
    if text is None:
        return ParsedJsonText(None, LineDocument([], banner=f"no {what}"), False)
    if len(text) > BIG_TEXT:
        try:
            return _prepare_big(text, what)
        except UnicodeEncodeError:  # lone surrogates: cannot go through a UTF-8 file
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
    """The parsed value for the tree (a job: parsing a big text takes a while). For a big
    text it stays in the helper process and this returns a handle to it (a
    reviewer_ui.treeindex.RemoteJson, which the tree model reads a batch of rows at a time):
    the app never holds, nor has to free, the million objects of a parsed 5 MB response.
    A handle whose value the helper has let go of (the tree was closed) is renewed."""
    from reviewer_ui.treeindex import RemoteJson, open_text

    remote = isinstance(parsed.value, RemoteJson)
    if parsed.ok and parsed.source is not None and (remote or not parsed.value_ready):
        handed = getattr(parsed.document.pending, "source", None)  # the print's file of this text, if any
        handed_over = handed.result() if handed is not None and not remote else None
        parsed.value = open_text(parsed.source, parsed.value.key if remote else parsed.helper_key, handed_over)
        parsed.value_ready = True
    return parsed.value


def value_document(value: Any) -> LineDocument:
    """A JSON value for display: strings as plain text lines, the rest as JSON."""
    if isinstance(value, str):
        return LineDocument(value.split("\n"), plain_tokens)
    return json_document(value)
