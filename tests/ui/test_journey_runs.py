"""Journeys 2 and 3 in the real window at 1366x768 and 1920x1080, with the loopback server:
a rerun against a closed port shows the connection error within seconds and
stops saying why (and "Test connection" says so before the run); a cancelled
rerun is listed with its counts, in the run picker too, and continued in one click."""

from __future__ import annotations

import socket
import time

import pytest
from PySide6.QtCore import Qt

from reviewer.testing.openai_server import OpenAIServer, Reply
from tests.ui.conftest import shown_main_window
from tools.fitcheck import fit_problems
from tests.ui.journeys import shot
from tests.ui.runs.conftest import open_dataset, samples_store  # noqa: F401 - a fixture

TOOLSEL = "sample-tool-selection"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def nlt_answer(body: dict) -> Reply:
    prompt = "\n".join(m.get("content") or "" for m in body["messages"])
    return Reply(text="Thinking: nothing needed.\nAssessment finished.\n" if "Assessment finished" in prompt else "ok")


def runs_menu_action(window, text: str):
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "R&uns")
    return next(a for a in menu.actions() if a.text().startswith(text))


def fill(dialog, base_url: str, run_name: str, concurrency: int = 2, retries: int = 1):
    dialog.run_name.setCurrentText(run_name)
    dialog.base_url.setText(base_url)
    dialog.model.setText("loopback-model")
    dialog.key_source.setCurrentIndex(dialog.key_source.findData("none"))
    dialog.concurrency.setValue(concurrency)
    dialog.retries.setValue(retries)
    dialog.cache.setChecked(False)
    dialog.set_scope("all")


def row_of(panel, name: str) -> dict[str, str]:
    t = panel.runs_table
    headers = [t.horizontalHeaderItem(c).text() for c in range(t.columnCount())]
    for r in range(t.rowCount()):
        if t.item(r, 0).text() == name:
            return {h: t.item(r, c).text() for c, h in enumerate(headers)}
    return {}


SIZES = pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")


@SIZES
def test_closed_port_shows_the_error_in_seconds_and_the_run_stops(qtbot, samples_store, settings, size):
    w = shown_main_window(qtbot, samples_store, settings, size=size)
    try:
        panel = open_dataset(qtbot, w, TOOLSEL)
        runs_menu_action(w, "Rerun a model").trigger()
        dialog = panel.rerun_dialog
        url = f"http://127.0.0.1:{closed_port()}/v1"
        fill(dialog, url, "dead")
        qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)  # before the run: test the connection
        qtbot.waitUntil(lambda: "not usable" in dialog.test_result.text(), timeout=10000)
        assert "Connection" in dialog.test_result.text()
        w.runs_dock.raise_()
        shot(w, "connection-tested", dialog)
        started = time.monotonic()
        dialog.accept()
        qtbot.waitUntil(lambda: panel.progress.note.isVisible(), timeout=5000)
        assert panel.progress.note.text().startswith(f"cannot reach {url}")
        assert time.monotonic() - started < 5  # seconds, not a progress bar counting on
        shot(w, "connection-error-shown")
        qtbot.waitUntil(lambda: "stopped" in panel.status.text(), timeout=20000)
        assert "3 calls in a row could not reach" in panel.status.text()
        qtbot.waitUntil(lambda: row_of(panel, "dead").get("Errors") == "3", timeout=5000)
        assert row_of(panel, "dead")["Missing"] == "29" and row_of(panel, "dead")["OK"] == "0"
        shot(w, "run-stopped")
        assert w.size().toTuple() == size
        # The three-line error must not push the Runs panel's buttons under its table.
        try:
            qtbot.waitUntil(lambda: fit_problems(w) == [], timeout=3000)
        except Exception:  # noqa: BLE001 - report what is cut
            assert fit_problems(w) == []
    finally:
        w.runner.shutdown(5000)


@SIZES
def test_a_cancelled_rerun_is_listed_and_continued_in_one_click(qtbot, samples_store, settings, size):
    w = shown_main_window(qtbot, samples_store, settings, size=size)
    try:
        panel = open_dataset(qtbot, w, TOOLSEL)
        w.runs_dock.raise_()
        with OpenAIServer(responder=nlt_answer, latency=0.15) as server:
            dialog = panel.open_rerun_dialog()
            fill(dialog, server.base_url, "halfway")
            dialog.accept()
            qtbot.waitUntil(lambda: panel.progress.bar.value() >= 4, timeout=10000)
            job = w.runner.job("runs:work")
            with qtbot.waitSignal(job.cancelled, timeout=5000):
                qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
            # listed once the work has stopped: Runs table (with its counts) and the window's run picker
            qtbot.waitUntil(lambda: panel.rerun_button.isEnabled(), timeout=5000)
            kept = samples_store.run(TOOLSEL, "halfway").outputs
            qtbot.waitUntil(lambda: row_of(panel, "halfway").get("OK") == str(kept), timeout=5000)
            assert 4 <= kept < 32 and int(row_of(panel, "halfway")["Missing"]) == 32 - kept
            qtbot.waitUntil(lambda: w.run_box.findText("halfway", Qt.MatchFlag.MatchStartsWith) >= 0, timeout=5000)
            # one click continues it with its own settings
            panel.select_runs([r.id for r in panel.runs if r.name == "halfway"])
            assert panel.continue_button.isEnabled()
            shot(w, "cancelled-run-listed")
            with qtbot.waitSignal(panel.runs_changed, timeout=30000):
                qtbot.mouseClick(panel.continue_button, Qt.MouseButton.LeftButton)
            assert panel.last_outcome.report.planned == 32 - kept
        qtbot.waitUntil(lambda: row_of(panel, "halfway").get("Missing") == "0", timeout=5000)
        assert row_of(panel, "halfway")["OK"] == "32"
        shot(w, "continued")
        assert w.size().toTuple() == size
    finally:
        w.runner.shutdown(5000)
