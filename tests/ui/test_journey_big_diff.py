"""Journey: a curator compares a 5 MB gold with a 5 MB model output in the app, by keyboard.
Focus mode (Ctrl+Shift+F) opens "Gold vs output"; the big pair is diffed and laid out in the
helper process (reviewer_ui.diffproc) while the first rows show; F8 steps through the changes,
J moves to the next item (another big pair), and a 5 MB tool response's tree opens from the
helper. Screenshots of each step at 1366x768 and 1920x1080 in /tmp/perf4-shots/."""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from reviewer.formats.base import OutputRecord
from reviewer.jobs import silent
from reviewer.store.importing import import_dataset, import_run
from reviewer_ui.textdoc import ByteLines
from tests.store import records as R
from tests.ui.conftest import shown_main_window

SHOTS = Path("/tmp/perf4-shots")


def big_value(n: int, tag: str) -> dict:
    """About 480 bytes of compact JSON per record (~5 MB at 10,500)."""
    return {"source": tag, "records": [
        {"id": f"rec-{i:05d}", "name": f"Record number {i} with a longer descriptive title",
         "tags": [f"t{i % 7}", f"group-{i % 13}"], "metrics": {"a": i * 1.5, "b": -i, "c": i % 2 == 0},
         "owner": {"name": f"owner {i % 97}", "city": "Lisbon"}, "notes": "lorem ipsum dolor sit amet " * 3}
        for i in range(n)]}


def edited(value: dict) -> dict:
    out = copy.deepcopy(value)
    for i in range(0, len(out["records"]), 1500):
        out["records"][i]["metrics"]["a"] += 1
        out["records"][i]["notes"] = out["records"][i]["notes"].replace("dolor", "color")
    del out["records"][777]
    out["records"].insert(1500, {"id": "new"})
    return out


@pytest.fixture(scope="module")
def big_store(tmp_path_factory):
    from reviewer.store import Store

    store = Store(str(tmp_path_factory.mktemp("bigdiff") / "big.sqlite3"))
    golds = [big_value(10_500, "first"), big_value(9_000, "second")]
    items = [R.item(i, gold=g, kind="extraction", payload={"text": "records of the archive"}, context=None,
                    schema=json.dumps({"type": "object"})) for i, g in enumerate(golds)]
    ds = import_dataset(store.engine, R.dataset(items, name="bigpair"), silent())
    outputs = [OutputRecord(record_id=f"q{i}", text=json.dumps(edited(g)), raw={}, prediction=edited(g), source_line=i + 1)
               for i, g in enumerate(golds)]
    import_run(store.engine, ds.dataset_id, R.run(outputs, name="model-big"), silent())
    response = json.dumps(big_value(10_500, "response"))
    import_dataset(store.engine, R.dataset([R.item(0, gold="10", context=response)], name="bigresponse"), silent())
    from reviewer.jsondiff import diff

    store.expected_changes = [len(diff(g, edited(g))) for g in golds]  # as the app's own diff finds them
    yield store
    store.close()


def shot(win, name: str, tag: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    win.grab().save(str(SHOTS / f"{tag}-{name}.png"))


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_a_curator_steps_through_a_5_mb_diff_and_opens_a_big_tree(qtbot, big_store, settings, size):
    from reviewer_ui.runtime import parsepool

    parsepool.run(len, "")  # the app starts the helper at start-up
    win = shown_main_window(qtbot, big_store, settings, size)
    tag = f"{size[0]}x{size[1]}"
    try:
        win.select_dataset("bigpair")
        qtbot.waitUntil(lambda: win.item_view.bundle is not None
                        and win.item_view.bundle.detail.record_id == "q0", timeout=30000)
        layout = win.item_view.current_layout()
        diff = layout.diff
        win.activateWindow()
        win.table.setFocus()
        started = time.perf_counter()
        with qtbot.waitSignal(diff.ready, timeout=60000):
            qtbot.keyClick(win.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
            assert layout.tabs.currentWidget() is diff, "focus mode shows gold vs output"
        print(f"{tag}: diff ready after {(time.perf_counter() - started) * 1000:.0f} ms")
        r = diff.result
        assert isinstance(r.left.lines, ByteLines), "a 5 MB pair is laid out in the helper"
        n = big_store.expected_changes[0]
        assert len(r.changes) == n and diff.changes.count() == n
        assert diff.summary.text().startswith(f"{n} differences")
        shot(win, "1-diff", tag)
        diff.left.setFocus()
        for step in range(3):  # F8: the next change, shown in both panes
            qtbot.keyClick(diff.left, Qt.Key.Key_F8)
            row = r.change_rows[step]
            first = diff.left.first_visible_line()
            assert diff.current_change == step and first <= row < first + diff.left.visible_line_count()
            assert diff.right.first_visible_line() == first
        assert diff.path_at(r.change_rows[2], "left") == r.changes[2].path_text  # the row's JSON path, from the helper
        shot(win, "2-third-change", tag)
        qtbot.keyClick(diff.left, Qt.Key.Key_F8, Qt.KeyboardModifier.ShiftModifier)
        assert diff.current_change == 1
        # J: the next item, another big pair, replaces this one.
        win.table.setFocus()
        with qtbot.waitSignal(diff.ready, timeout=60000):
            qtbot.keyClick(win.table, Qt.Key.Key_J)
        assert win.item_view.bundle.detail.record_id == "q1"
        assert diff.result is not r and len(diff.result.changes) == big_store.expected_changes[1]
        shot(win, "3-next-item", tag)
        qtbot.keyClick(win.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
        # The tree of a 5 MB tool response, opened from the helper.
        win.select_dataset("bigresponse")
        qtbot.waitUntil(lambda: win.item_view.bundle is not None
                        and win.item_view.bundle.detail.dataset == "bigresponse", timeout=30000)
        qa = win.item_view.current_layout()
        qa.docs.tabBar().setFocus()
        while qa.docs.currentWidget() is not qa.tree:
            qtbot.keyClick(qa.docs.tabBar(), Qt.Key.Key_Right)
        model = qa.tree.model
        qtbot.waitUntil(lambda: model.rowCount(model.index(0, 0)) > 0, timeout=30000)
        qa.tree.tree.expand(model.index(0, 0))
        shot(win, "4-tree", tag)
    finally:
        win.runner.shutdown(5000)
