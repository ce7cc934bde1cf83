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
