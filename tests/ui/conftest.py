"""UI test fixtures: offscreen Qt, a demo store with every item kind, private settings."""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before anything imports Qt: no display here

import pytest


@pytest.fixture
def demo_store(tmp_path):
    """A SQLite store holding ui.demo's dataset of every kind (each with two runs)."""
    from reviewer.store import Store
    from tools.demo import build_demo_store

    store = Store(str(tmp_path / "ui.sqlite3"))
    store.demo_ids = build_demo_store(store)
    yield store
    store.close()


@pytest.fixture
def settings(tmp_path):
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def runner(qtbot):
    from PySide6.QtCore import QThreadPool

    from reviewer_ui.runtime.jobs import JobRunner

    pool = QThreadPool()
    r = JobRunner(pool)
    yield r
    r.shutdown(5000)


def shown_main_window(qtbot, store, settings, size=(1400, 850)):
    """A MainWindow on ``store``, shown and holding its dataset list; the caller
    yields it and then calls ``w.runner.shutdown(5000)``."""
    from reviewer_ui.main_window import MainWindow

    w = MainWindow(store, settings)
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    qtbot.waitUntil(lambda: bool(w.datasets), timeout=5000)
    return w


@pytest.fixture
def window(qtbot, demo_store, settings):
    w = shown_main_window(qtbot, demo_store, settings)
    yield w
    w.runner.shutdown(5000)


def open_dataset(qtbot, window, kind: str):
    """Select demo-<kind> and wait until its first item is shown; return the layout."""
    window.select_dataset(f"demo-{kind}")
    qtbot.waitUntil(
        lambda: window.item_view.bundle is not None and window.item_view.bundle.detail.kind == kind, timeout=5000
    )
    return window.item_view.current_layout()


def rows_shown(qtbot, window, timeout: int = 5000):
    """Wait until the table shows the newest query's rows, all of them read (the model reads
    on the job runner: a filter or a sort lands a moment later); return the model."""
    model = window.model
    qtbot.waitUntil(lambda: not model.loading() and all(
        model.is_loaded(r) for r in range(0, model.rowCount(), model.page_size)), timeout=timeout)
    return model
