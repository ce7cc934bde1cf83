"""The import's storability check of a JSON text (a tool response, a schema) is made once per
distinct text: toolJSON items share a few dozen responses, and scanning each item's copy again
made the 495-item reference import take 1.06-1.18 s (0.13 s now). A response holding a value
the databases cannot store alike is still refused, naming the first item that holds it."""

from __future__ import annotations

import pytest

from reviewer.errors import InputError
from reviewer.jobs import silent
from reviewer.store import checks
from reviewer.store.importing import import_dataset
from tests.store import records as R


def test_each_distinct_response_is_scanned_once(store, monkeypatch):
    scanned = []
    real = checks._scan_json_text
    monkeypatch.setattr(checks, "_scan_json_text", lambda value: scanned.append(value) or real(value))
    checks._CHECKED_TEXTS.clear()
    # copies, not one object: as a reader that loads each item's response file makes them
    responses = ["".join([R.RESPONSE[:-1], f', "page": {p}}}']) for p in range(3)]
    items = [R.item(i, context="".join(list(responses[i % 3])), schema=None) for i in range(30)]
    import_dataset(store.engine, R.dataset(items), silent())
    assert sorted(t for t in scanned if t.startswith("{\"filings")) == sorted(responses)  # once each, not 10 times


def test_a_shared_response_with_nan_is_refused_at_its_first_item(store):
    checks._CHECKED_TEXTS.clear()
    bad = '{"price": NaN, "id": 7}'
    items = [R.item(0), R.item(1, context=bad), R.item(2, context="".join(list(bad)))]
    with pytest.raises(InputError) as refused:
        import_dataset(store.engine, R.dataset(items), silent())
    message = str(refused.value)
    assert "line 2" in message and "context $.price" in message and "NaN" in message
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM item").scalar() == 0  # nothing half-written
