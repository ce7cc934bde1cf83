"""Very big tool responses: the text view shows the start at once and the whole document
later, where the user is looking, while the event loop keeps running; the tree of a big
response is read from the helper process a batch at a time."""

from __future__ import annotations

import json
import os
import time

import orjson
import pytest
from PySide6.QtCore import QElapsedTimer, QTimer

from reviewer_ui.textdoc import PARSED_WHOLE_UP_TO, PREVIEW_FROM, ensure_value, pretty_json, prepare_json_text
from reviewer_ui.treeindex import RemoteJson
from reviewer_ui.widgets.json_tree_view import JsonTreeView
from reviewer_ui.widgets.line_view import LineView

SHOTS = os.environ.get("REVIEWER_SHOTS", "/tmp/perfgui2-shots")


def big_value(records: int) -> dict:
    return {
        "meta": {"source": "test", "count": records},
        "records": [
            {"id": f"rec-{i:06d}", "name": f"Record {i} with a longer descriptive title", "tags": ["a", f"g{i % 13}"],
             "metrics": {"a": i * 1.5, "b": -i, "ok": i % 2 == 0, "none": None, "series": list(range(i % 5, i % 5 + 12))},
             "notes": "lorem ipsum dolor sit amet " * 3}
            for i in range(records)
        ],
    }


class GapMeter:
    """A 10 ms timer on the GUI thread: the longest gap between its ticks, beyond its period."""

    def __init__(self):
        self.clock = QElapsedTimer()
        self.timer = QTimer(interval=10)
        self.timer.timeout.connect(self._tick)
        self.worst = 0.0

    def start(self):
        self.clock.start()
        self._last = self.clock.nsecsElapsed()
        self.timer.start()

    def _tick(self):
        now = self.clock.nsecsElapsed()
        self.worst = max(self.worst, (now - self._last) / 1e6)
        self._last = now

    def stop(self) -> float:
        self._tick()
        self.timer.stop()
        return max(0.0, self.worst - 10.0)


@pytest.fixture(scope="module")
def text_50mb():
    text = orjson.dumps(big_value(180_000)).decode()
    assert len(text) > 45e6
    return text


def _viewer(qtbot, size=(900, 600)):
    view = LineView()
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    return view


def test_opening_a_50_mb_response_keeps_the_event_loop_responsive(qtbot, runner, text_50mb):
    from reviewer_ui.runtime import parsepool

    parsepool.run(len, "")  # the app starts the helper at start-up
    view = _viewer(qtbot)
    # What an idle event loop sees on this (shared, 2-core) machine right now: the stall
    # allowed is 50 ms beyond that, so that a busy neighbour does not fail the test.
    idle = GapMeter()
    idle.start()
    window = QTimer(singleShot=True, interval=1500)
    with qtbot.waitSignal(window.timeout, timeout=5000):
        window.start()
    noise = idle.stop()
    meter = GapMeter()
    meter.start()
    started = time.perf_counter()
    with qtbot.waitSignal(view.completed, timeout=120_000):
        runner.start("open", lambda ctx, t: prepare_json_text(t, "the tool response"), text_50mb,
                     on_result=lambda parsed: view.set_document(parsed.document))
        qtbot.waitUntil(lambda: len(view.document()) > 0, timeout=30_000)
        first_screen_ms = (time.perf_counter() - started) * 1000
        preview = view.document()
        assert preview.pending is not None and "reading all" in preview.banner
        assert list(preview.lines[:4]) == ['{', '  "meta": {', '    "source": "test",', '    "count": 180000']
    stall = meter.stop()
    doc = view.document()
    expected = pretty_json(orjson.loads(text_50mb))
    assert len(doc) == expected.count("\n") + 1 and doc.banner is None
    assert doc.lines[len(doc) - 1] == "}" and doc.lines[len(doc) // 2] == expected.split("\n", len(doc) // 2 + 1)[len(doc) // 2]
    view.verticalScrollBar().setValue(view.verticalScrollBar().maximum())
    view.grab().save(f"{SHOTS}/big-response-end.png")
    print(f"first screen {first_screen_ms:.0f} ms, worst event-loop gap beyond the timer period {stall:.1f} ms"
          f" (idle: {noise:.1f} ms)")
    assert first_screen_ms < 1000
    assert stall < 50 + noise, f"the GUI stalled {stall:.0f} ms while a 50 MB response opened (idle: {noise:.0f} ms)"


def test_the_whole_document_appears_where_the_user_scrolled_the_preview(qtbot, runner):
    text = json.dumps(big_value(16_000))
    assert len(text) > PREVIEW_FROM
    view = _viewer(qtbot)
    parsed = prepare_json_text(text, "the tool response")
    with qtbot.waitSignal(view.completed, timeout=60_000):
        view.set_document(parsed.document)
        view.verticalScrollBar().setValue(120)  # reading the preview
        view.grab().save(f"{SHOTS}/big-response-preview.png")
    assert view.first_visible_line() == 120
    assert view.document().lines[120] == pretty_json(json.loads(text)).split("\n")[120]


def test_a_big_text_that_is_not_json_shows_the_raw_text_under_an_error_naming_the_place(qtbot):
    text = json.dumps(big_value(16_000))[:-40] + ' "oops" ]}'
    view = _viewer(qtbot)
    parsed = prepare_json_text(text, "the tool response")
    with qtbot.waitSignal(view.completed, timeout=60_000):
        view.set_document(parsed.document)
    doc = view.document()
    assert doc.banner.startswith("the tool response is not valid JSON") and "line 1" in doc.banner
    assert doc.lines[0] == text  # one long raw line


def _tree_of(qtbot, parsed) -> tuple[JsonTreeView, RemoteJson]:
    """A shown tree view of a big response, opened from the helper as the item view does."""
    handle = ensure_value(None, parsed)
    assert isinstance(handle, RemoteJson) and handle.top[2:] == ("object", 2)
    view = JsonTreeView()
    qtbot.addWidget(view)
    view.resize(800, 500)
    view.show()
    view.set_value(handle)
    return view, handle


@pytest.mark.parametrize("n", [3_000, 25_000])
def test_the_tree_of_a_big_response_is_read_from_the_helper(qtbot, n):
    """Either parsed there (up to PARSED_WHOLE_UP_TO) or, bigger, read from the text itself
    (reviewer_ui.spantree): the user sees the same tree."""
    from reviewer_ui.runtime import parsepool
    from reviewer_ui.treeindex import rows

    text = json.dumps(big_value(n))
    assert (len(text) > PARSED_WHOLE_UP_TO) == (n > 3_000)
    parsed = prepare_json_text(text, "the tool response")
    view, handle = _tree_of(qtbot, parsed)
    model = view.model
    top = model.index(0, 0)
    qtbot.waitUntil(lambda: model.rowCount(top) == 2, timeout=10_000)
    labels = [(model.index(r, 0, top).data(), model.index(r, 1, top).data()) for r in range(2)]
    assert labels == [("meta", "{2 keys}"), ("records", f"[{n} items]")]
    records = model.index(1, 0, top)
    view.tree.expand(records)
    qtbot.waitUntil(lambda: model.rowCount(records) >= 500, timeout=10_000)  # a batch at a time
    assert model.rowCount(records) % 500 == 0
    first = model.index(0, 0, records)
    view.tree.expand(first)
    qtbot.waitUntil(lambda: model.rowCount(first) == 5, timeout=10_000)
    name = model.index(1, 0, first)
    assert (name.data(), model.index(1, 1, first).data(), model.index(1, 2, first).data()) == \
        ("name", '"Record 0 with a longer descriptive title"', "string")
    assert model.path(name) == "$.records[0].name"
    fetched = model.rowCount(records)
    view.tree.scrollTo(model.index(fetched - 1, 0, records))
    # the next batch on scrolling; unless QTreeView, which fetches again whenever its scroll bar sits
    # at the bottom as rows arrive, had already fetched them all (seen in CI at 3,000 rows)
    qtbot.waitUntil(lambda: model.rowCount(records) > fetched or fetched == n, timeout=10_000)
    assert model.index(min(fetched, n - 1), 0, records).data() == f"[{min(fetched, n - 1)}]"
    view.grab().save(f"{SHOTS}/big-response-tree-{n}.png")
    view.reduced.setChecked(True)
    top = model.index(0, 0)
    qtbot.waitUntil(lambda: model.rowCount(top) == 2, timeout=10_000)
    records = model.index(1, 0, top)
    assert records.sibling(1, 1).data() == f"[{n} items]  (showing 1 of {n})"
    view.set_value(None)  # leaving the item: the helper lets go of the value
    assert parsepool.quick(rows, handle.key, (), 0, 1).result() is None  # the tree's calls keep their order
    again = ensure_value(None, parsed)  # back to the tree of the same item
    view.set_value(again)
    top = model.index(0, 0)
    qtbot.waitUntil(lambda: model.rowCount(top) == 2, timeout=10_000)
    assert model.index(1, 1, top).data().startswith(f"[{n} items]")


def test_moving_on_before_a_big_text_is_read_spares_the_helper_and_coming_back_reads_it(qtbot):
    import glob
    import tempfile

    from reviewer_ui.runtime import parsepool

    texts = [json.dumps(big_value(16_000 + k)) for k in range(3)]
    before = set(glob.glob(f"{tempfile.gettempdir()}/reviewer-src-*"))
    view = _viewer(qtbot)
    docs = [prepare_json_text(text, "the tool response").document for text in texts]
    for doc in docs:  # the user goes through three big items quickly
        view.set_document(doc)
    with qtbot.waitSignal(view.completed, timeout=60_000):
        pass
    assert view.document().lines[3] == '    "count": 16002'
    cancelled = [doc.pending.cancelled() for doc in docs[:2]]
    assert any(cancelled), "work for items no longer shown was dropped"
    parsepool.run(len, "")  # the helper is idle again
    # No file handed to the helper is left behind, read or not.
    qtbot.waitUntil(lambda: set(glob.glob(f"{tempfile.gettempdir()}/reviewer-src-*")) <= before, timeout=5000)
    with qtbot.waitSignal(view.completed, timeout=60_000):
        view.set_document(docs[0])  # back to the first item
    assert view.document().banner is None and view.document().lines[3] == '    "count": 16000'


def test_the_tree_opens_while_the_helper_is_busy_printing_the_response(qtbot):
    """Issue #14: the tree of a previewed 5 MB response waited for the helper to finish
    pretty-printing it. The tree's requests take the quick lane: they are answered while
    the helper's queue is still busy and the whole text is not printed yet."""
    from reviewer_ui.runtime import parsepool

    parsepool.run(len, "")  # the app starts the helper at start-up
    text = json.dumps(big_value(20_000))
    assert len(text) > PREVIEW_FROM  # previewed; the whole text is printed by the helper
    busy = parsepool.submit(time.sleep, 4.0)  # the helper's queue is busy (another big item)...
    parsed = prepare_json_text(text, "the tool response")
    whole = parsed.document.pending  # ...and this response is printed after that
    view, handle = _tree_of(qtbot, parsed)
    model = view.model
    top = model.index(0, 0)
    qtbot.waitUntil(lambda: model.rowCount(top) == 2, timeout=10_000)
    records = model.index(1, 0, top)
    view.tree.expand(records)
    qtbot.waitUntil(lambda: model.rowCount(records) >= 500, timeout=10_000)
    assert model.index(3, 1, records).data() == "{5 keys}"
    assert not busy.done() and not whole.done(), "the tree waited for the helper's queue"
    view.grab().save(f"{SHOTS}/tree-while-printing.png")
    busy.result()
    assert whole.result(timeout=60).lines[3] == '    "count": 20000'  # the print still completes


def test_the_print_and_the_tree_of_one_text_parse_it_once(tmp_path, monkeypatch):
    """Helper side: while a text is being parsed (for the print or for the tree), a tree
    asking for the same key waits for that parse, and a second parse of the same key
    takes the first one's value instead of parsing the text again."""
    import threading

    import reviewer_ui.textdoc as textdoc
    from reviewer_ui.treeindex import close_value, open_value, parse_once, top_row

    gate, entered, parses = threading.Event(), threading.Event(), []
    real_parse = textdoc.parse_json

    def slow_parse(data):
        parses.append(len(data))
        entered.set()
        gate.wait(10)
        return real_parse(data)

    monkeypatch.setattr(textdoc, "parse_json", slow_parse)
    sources = []
    for n in range(2):
        path = tmp_path / f"src{n}.json"
        path.write_text('{"a": [1, 2, 3]}')
        sources.append(str(path))
    printed, asked, reopened = [], [], []
    printer = threading.Thread(target=lambda: printed.append(parse_once("k-test", sources[0])))
    printer.start()
    # The tree's calls come while the parse is under way: not before it has begun (a top_row
    # arriving first finds nothing to wait for and answers None; a loaded machine can run the
    # threads in any order), so wait for the parse itself rather than for the clock.
    assert entered.wait(10), "the print's parse never started"
    threading.Thread(target=lambda: asked.append(top_row("k-test"))).start()
    threading.Thread(target=lambda: reopened.append(open_value("k-test", sources[1]))).start()
    time.sleep(0.2)  # let the tree's calls arrive while the parse is under way
    assert asked == [] and reopened == []  # both wait for it
    gate.set()
    printer.join(10)
    deadline = time.monotonic() + 10
    while not (asked and reopened) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert printed == [(16, {"a": [1, 2, 3]})]
    assert asked == [("$", "{1 keys}", "object", 1)] and reopened == [("ok", ("$", "{1 keys}", "object", 1))]
    assert parses == [16]  # parsed once
    assert not any(os.path.exists(p) for p in sources)  # both hand-over files deleted
    close_value("k-test")
    assert top_row("k-test") is None and top_row("never-parsed") is None  # no wait without a parse


def test_the_helper_prints_in_short_calls_the_same_bytes_as_one_call():
    """``pretty_bytes`` (the helper's printer, in slices so the tree is answered between
    them) gives exactly orjson's indented text, on big and odd values."""
    import random

    from reviewer_ui.textdoc import PRINT_SLICE, pretty_bytes

    rnd = random.Random(3)

    def value(depth=0):
        roll = rnd.random()
        if depth > 5 or roll < 0.3:
            return rnd.choice([0, -1, 1.5, -0.0, 1e300, "a\nb", 'é"\\', "", None, True, False, [], {}])
        wide = depth < 2
        if roll < 0.65:
            return [value(depth + 1) for _ in range(rnd.choice([0, 1, 3, PRINT_SLICE + 50, 2 * PRINT_SLICE + 1])
                                                   if wide else rnd.randint(0, 5))]
        return {f"k{rnd.randint(0, 999)}\n": value(depth + 1)
                for _ in range(rnd.choice([0, 2, PRINT_SLICE + 100]) if wide else rnd.randint(0, 4))}

    for _ in range(150):
        v = value()
        assert pretty_bytes(v) == orjson.dumps(v, option=orjson.OPT_INDENT_2)
    big = big_value(3 * PRINT_SLICE + 7)
    assert pretty_bytes(big) == orjson.dumps(big, option=orjson.OPT_INDENT_2)


def test_a_print_the_user_moved_away_from_is_dropped_when_the_next_item_is_shown(qtbot):
    """Issue #14: the next item's print (and its tree) waited behind the whole print of the item
    the user had left, queued in the helper where it could no longer be cancelled. It is
    dropped now, and the file handed over for it goes with it."""
    import glob
    import tempfile

    from reviewer_ui.runtime import parsepool

    parsepool.run(len, "")
    texts = [json.dumps(big_value(20_000 + k)) for k in range(2)]
    before = set(glob.glob(f"{tempfile.gettempdir()}/reviewer-src-*"))
    busy = parsepool.submit(time.sleep, 1.5)  # the helper is busy: the first print waits in its queue
    view = _viewer(qtbot)
    first, second = (prepare_json_text(text, "the tool response").document for text in texts)
    view.set_document(first)
    qtbot.waitUntil(lambda: getattr(first.pending, "inner", None) is not None, timeout=10_000)
    qtbot.waitUntil(lambda: first.pending.inner.running(), timeout=10_000)  # handed to the helper: not cancellable
    with qtbot.waitSignal(view.completed, timeout=60_000):
        view.set_document(second)  # the user moved on
    assert first.pending.inner.result(timeout=10) == ("abandoned",), "the first item was printed all the same"
    assert view.document().lines[3] == '    "count": 20001'
    assert busy.done()
    qtbot.waitUntil(lambda: set(glob.glob(f"{tempfile.gettempdir()}/reviewer-src-*")) <= before, timeout=5000)


def test_a_print_under_way_stops_at_its_next_piece_when_abandoned(tmp_path):
    """Helper side: ``abandon`` stops a print between two of its pieces, or before it starts."""
    from reviewer_ui import textdoc

    with pytest.raises(textdoc._Abandoned):
        textdoc.pretty_bytes(big_value(2_000), stop=lambda: True)
    src = tmp_path / "src.json"
    src.write_text(json.dumps(big_value(10)))
    textdoc.abandon(str(src))
    assert textdoc.pretty_file(str(src), None) == ("abandoned",)
    assert not src.exists()


def test_the_tree_opens_from_the_file_handed_over_for_the_print(qtbot, monkeypatch):
    """The tree of a previewed response whose print has not started is parsed on the quick lane
    from the file already handed over for the print: the app does not write the 5 MB text a
    second time (that write, and a second parse, made the tree 170-250 ms late)."""
    from reviewer_ui import textdoc
    from reviewer_ui.runtime import parsepool

    parsepool.run(len, "")
    text = json.dumps(big_value(20_000))
    writes = []
    real_write = textdoc._write_source

    def counting_write(t):
        writes.append(len(t))
        return real_write(t)

    monkeypatch.setattr(textdoc, "_write_source", counting_write)
    busy = parsepool.submit(time.sleep, 2.0)  # the print waits behind another item
    parsed = prepare_json_text(text, "the tool response")
    view, handle = _tree_of(qtbot, parsed)
    model = view.model
    qtbot.waitUntil(lambda: model.rowCount(model.index(0, 0)) == 2, timeout=10_000)
    assert not busy.done(), "the tree waited for the helper's queue"
    assert writes == [len(text)], "the text was handed to the helper twice"
    assert parsed.document.pending.result(timeout=60).lines[3] == '    "count": 20000'  # the print takes the tree's value
