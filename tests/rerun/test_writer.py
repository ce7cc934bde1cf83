"""Outputs are saved by a writer thread in batches: nothing received is lost, failures stop the run."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from reviewer.jobs import Cancelled, JobContext
from reviewer.rerun.config import RunConfig
from reviewer.rerun.engine import CallResult
from reviewer.rerun.job import rerun
from reviewer.rerun.writer import OutputWriter
from reviewer.samples import ensure_samples
from reviewer.store.models import Output
from reviewer.testing.openai_server import OpenAIServer

TOOLSEL = "sample-tool-selection"


@pytest.fixture
def samples(store):
    ensure_samples(store)
    return store


def cfg(server, **kw) -> RunConfig:
    return RunConfig(base_url=server.base_url, model="m", cache=False, retries=0, **kw)


def test_a_cancelled_run_keeps_exactly_what_it_received(samples):
    with OpenAIServer(latency=0.01) as server:
        ctx = JobContext(on_progress=lambda p: p.done >= 5 and ctx.cancel())
        with pytest.raises(Cancelled):
            rerun(samples, TOOLSEL, "cut", cfg(server, concurrency=4), ctx)
        run = samples.run(TOOLSEL, "cut")
        assert run.outputs == 5  # every delivered result was written before rerun() returned
        again = rerun(samples, TOOLSEL, "cut", cfg(server, concurrency=4))
    assert again.planned == 32 - 5 and samples.run(TOOLSEL, "cut").outputs == 32


def test_many_outputs_are_written_in_fewer_transactions(samples):
    with OpenAIServer() as server:
        report = rerun(samples, TOOLSEL, "fast", cfg(server, concurrency=16, replications=4))
    assert report.summary.ok == 128 and samples.run(TOOLSEL, "fast").outputs == 128
    with samples.engine.connect() as conn:
        pairs = conn.execute(select(Output.__table__.c.item_id, Output.__table__.c.replication)
                             .where(Output.__table__.c.run_id == report.run_id)).all()
    assert len(set(pairs)) == 128


def broken_writer(samples, run_name: str) -> OutputWriter:
    """A writer whose first output meets a real database refusal: its item does not exist (foreign key)."""
    from reviewer.rerun.job import _run_row

    with OpenAIServer() as server:
        run_id = _run_row(samples, samples.dataset(TOOLSEL).id, run_name, cfg(server), "test")
    writer = OutputWriter(samples, run_id, lambda record_id: 10**9)
    writer.put(CallResult("r1", 0, text="a"))
    return writer


def test_a_failing_write_stops_the_run_and_names_the_error(samples):
    writer = broken_writer(samples, "broken")
    with pytest.raises(Exception, match="(?i)foreign key|violates"):
        writer.close()
    assert samples.run(TOOLSEL, "broken").outputs == 0  # nothing half-written


def test_a_write_error_reaches_the_engine_on_the_next_result(samples):
    writer = broken_writer(samples, "broken2")
    # Once the failed batch is done (the writer thread is not waited on here), put raises instead of queueing.
    for _ in range(1000):
        try:
            writer.put(CallResult("r2", 0, text="b"))
        except Exception as exc:  # noqa: BLE001
            assert "foreign" in str(exc).lower() or "violates" in str(exc).lower()
            break
        writer._thread.join(0.01)
    else:
        pytest.fail("put never raised the writer's error")
    writer.close(reraise=False)
