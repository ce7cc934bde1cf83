"""The bundled sample data: every kind, two runs each, imported cleanly and only once."""

from __future__ import annotations

from reviewer.kinds import ItemKind
from reviewer.samples import SAMPLES, ensure_samples


def test_samples_cover_every_kind_with_two_runs_and_import_once(store):
    assert ensure_samples(store) == [s.name for s in SAMPLES]
    datasets = {d.name: d for d in store.datasets()}
    assert {d.kind for d in datasets.values()} == set(ItemKind)
    for sample in SAMPLES:
        info = datasets[sample.name]
        assert info.items >= 5, f"{sample.name} has only {info.items} items"
        runs = store.runs(sample.name)
        assert len(runs) == 2 and all(r.outputs == info.items for r in runs), (sample.name, runs)
    assert ensure_samples(store) == []  # a second start imports nothing
    assert sum(d.items for d in store.datasets()) == sum(d.items for d in datasets.values())


def test_samples_are_not_pushed_into_a_database_in_use(store, tmp_path):
    from reviewer.jobs import silent
    from reviewer.store.importing import import_dataset
    from tests.store import records as R

    import_dataset(store.engine, R.dataset([R.item(0)]), silent())
    assert ensure_samples(store) == []
    assert [d.name for d in store.datasets()] == ["demo"]


def test_a_first_start_can_score_the_sample_runs(store):
    ensure_samples(store, score=True)
    for d in store.datasets():
        for run in store.runs(d.name):
            assert store.run_scores(run.id), f"{d.name}/{run.name} has no scores"


def test_first_start_reports_progress_and_each_step_as_it_lands(store):
    from reviewer.jobs import JobContext
    from reviewer.samples import first_start

    seen, landed = [], []

    def on_landed(step):
        # Called after the commit: what it announces is already readable.
        names = {d.name: d for d in store.datasets()}
        assert step.sample in names
        if step.what == "runs":
            assert len(store.runs(step.sample)) == 2
        if step.what == "scores":
            assert all(store.run_scores(r.id) for r in store.runs(step.sample))
        landed.append((step.sample, step.what))

    ctx = JobContext(lambda p: seen.append((p.done, p.total)))
    assert first_start(ctx, store, score=True, on_landed=on_landed) == [s.name for s in SAMPLES]
    assert landed == [(s.name, what) for s in SAMPLES for what in ("dataset", "runs", "scores")]
    dones = [d for d, _ in seen]
    assert dones == sorted(dones) and len({t for _, t in seen}) == 1
    assert seen[-1][0] == seen[-1][1]
    assert first_start(ctx, store, score=True) == []  # nothing left to do


def test_an_interrupted_first_start_is_completed_by_the_next(store):
    from reviewer.jobs import Cancelled, JobContext
    from reviewer.samples import first_start

    ctx = JobContext()

    def stop_after_second_dataset(step):
        if step.what == "runs" and step.sample == SAMPLES[1].name:
            ctx.cancel()

    try:
        first_start(ctx, store, score=True, on_landed=stop_after_second_dataset)
    except Cancelled:
        pass
    else:
        raise AssertionError("the job did not stop when cancelled")
    assert [d.name for d in store.datasets()] == [SAMPLES[0].name, SAMPLES[1].name]
    assert not any(store.run_scores(r.id) for r in store.runs(SAMPLES[1].name))
    # The next start completes what is missing, and nothing twice.
    assert first_start(None, store, score=True) == [s.name for s in SAMPLES[1:]]
    for sample in SAMPLES:
        runs = store.runs(sample.name)
        assert [r.name for r in runs] == [r[0] for r in sample.runs]
        assert all(store.run_scores(r.id) for r in runs)
