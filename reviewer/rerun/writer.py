"""Saves a run's outputs on a thread of its own, in batches, while the calls go on.

The engine hands each ``CallResult`` over on its event-loop thread; a store
write there (a SQLite commit is an fsync: several ms, more on a busy disk)
would hold up every call in flight. ``OutputWriter.put`` only queues the
result; the writer thread takes whatever has queued up since its last write
and saves it in one transaction (replacing earlier outputs of the same item
and replication), so the cost per output falls as the rate rises.

Nothing received is lost to a cancel or an error: ``close`` waits until every
queued result is written. A write that fails stops the writer; the next
``put`` (and ``close``) raises that error, which stops the run.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from sqlalchemy import and_, or_

from reviewer.rerun.engine import CallResult
from reviewer.store.models import Output, utcnow

output_t = Output.__table__

MAX_BATCH = 500  # outputs in one transaction at most
_STOP = object()


class OutputWriter:
    """``put(result)`` from one thread, ``close()`` once at the end (see the module docstring).

    ``item_id(record_id)`` maps a result to its item's id.
    """

    def __init__(self, store, run_id: int, item_id: Callable[[str], int]):
        self.store, self.run_id, self.item_id = store, run_id, item_id
        self.written = 0
        self.batches = 0
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._loop, name=f"rerun-writer-{run_id}", daemon=True)
        self._thread.start()

    def put(self, result: CallResult) -> None:
        if self._error is not None:
            raise self._error
        self._queue.put(result)

    def close(self, reraise: bool = True) -> None:
        """Write everything queued, stop the thread; raise the writer's error (with ``reraise``)."""
        self._queue.put(_STOP)
        self._thread.join()
        if reraise and self._error is not None:
            raise self._error

    def _loop(self) -> None:
        stop = False
        while not stop:
            batch = [self._queue.get()]
            while len(batch) < MAX_BATCH:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            if batch[-1] is _STOP:
                stop = True
                batch.pop()
            if batch and self._error is None:
                try:
                    self._write(batch)
                except BaseException as exc:  # noqa: BLE001 - handed to the run's thread by put/close
                    self._error = exc

    def _write(self, results: list[CallResult]) -> None:
        rows = []
        for result in results:
            extra = {"tool_calls": result.tool_calls, "adaptations": result.adaptations, **result.meta}
            rows.append(dict(
                run_id=self.run_id, item_id=self.item_id(result.record_id), replication=result.replication,
                text=result.text, prediction=None, status=result.status, error=result.error, extra=extra, raw=None,
                latency_ms=result.latency_ms, prompt_tokens=result.prompt_tokens,
                completion_tokens=result.completion_tokens, retries=result.retries,
                finish_reason=result.finish_reason, cached=result.cached, created_at=utcnow(),
            ))
        # A resumed or retried call replaces the output it had (the last result of a pair wins).
        latest = {(r["item_id"], r["replication"]): r for r in rows}
        keys = list(latest)
        with self.store.engine.begin() as conn:
            for start in range(0, len(keys), 200):
                chunk = keys[start:start + 200]
                conn.execute(output_t.delete().where(
                    output_t.c.run_id == self.run_id,
                    or_(*(and_(output_t.c.item_id == i, output_t.c.replication == r) for i, r in chunk))))
            conn.execute(output_t.insert(), list(latest.values()))
        self.written += len(latest)
        self.batches += 1
