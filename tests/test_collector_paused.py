"""Long jobs over a whole dataset run with Python's cyclic collector paused (reviewer.jobs):
its collections, longer as a 100,000-item export went on, held the GIL and froze the app's
window for over 2 s at a time. Re-entrant across threads; never turns on a collector that
something else had turned off."""

from __future__ import annotations

import gc
import threading

import pytest

from reviewer.jobs import collector_paused, silent


@pytest.fixture(autouse=True)
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    gc.enable() if was else gc.disable()


def test_overlapping_jobs_keep_it_paused_until_the_last_ends():
    inside, release = threading.Event(), threading.Event()

    def other_job():
        with collector_paused():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other_job)
    thread.start()
    inside.wait(10)
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other job still runs
    release.set()
    thread.join(10)
    assert gc.isenabled()


def test_a_collector_switched_off_before_stays_off():
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_an_export_and_a_check_run_with_it_paused(store, tmp_path, monkeypatch):
    from reviewer.formats.registry import dataset_formats
    from reviewer.guards import job as guards_job
    from tests.store import records as R

    store.import_dataset(R.nestools_like(tmp_path / "src", 5), format="nestools", name="nt")
    seen = []
    writer = dataset_formats()["nestools"]
    real_write = type(writer).write
    monkeypatch.setattr(type(writer), "write", lambda self, *a: (seen.append(gc.isenabled()), real_write(self, *a))[1])
    store.export_dataset("nt", tmp_path / "out")
    real_load = guards_job.storage.load_items
    monkeypatch.setattr(guards_job.storage, "load_items", lambda *a: (seen.append(gc.isenabled()), real_load(*a))[1])
    guards_job.run_checks(store, store.dataset("nt").id, silent())
    assert seen == [False, False] and gc.isenabled()
