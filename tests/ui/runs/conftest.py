"""Fixtures for the Runs dock tests: offscreen Qt, the bundled samples in a fresh
SQLite store, and the main window with the dock installed."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before Qt is imported anywhere

import pytest


@pytest.fixture
def samples_store(tmp_path):
    from reviewer.samples import ensure_samples
    from reviewer.store import Store

    store = Store(tmp_path / "db.sqlite3")
    ensure_samples(store)
    yield store
    store.close()


@pytest.fixture
def runs_window(qtbot, samples_store, settings):
    from tests.ui.conftest import shown_main_window

    w = shown_main_window(qtbot, samples_store, settings, size=(1500, 900))
    yield w
    w.runner.shutdown(5000)


def open_dataset(qtbot, window, name: str):
    """Select dataset ``name`` and wait until the Runs panel shows its runs; return the panel."""
    panel = window.runs_panel
    window.select_dataset(name)
    qtbot.waitUntil(lambda: panel.dataset is not None and panel.dataset.name == name
                    and panel.runs_table.rowCount() == len(panel.runs) > 0, timeout=5000)
    return panel
