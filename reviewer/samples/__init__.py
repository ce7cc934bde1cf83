"""The sample datasets shipped inside the package (``reviewer/samples/data``),
imported on the app's first start.

Each sample is a dataset in one benchmark's own format with two model runs, all
made up by this project (no data copied from the benchmarks' repositories).

The files are package data, found through ``importlib.resources``, so an
installed wheel reads them from site-packages exactly as a checkout reads them
from the source tree.

``first_start`` is the job the app runs in the background on a first start: it
imports each sample (dataset, then its runs, then their scores) and reports each
step as it lands, so the window can fill its table while the rest is on its way.
It is idempotent and resumable: a first start interrupted half-way completes the
missing samples on the next start, and a store that holds anything else than
samples is left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

from reviewer.jobs import JobContext, silent


def _data_dir() -> Path:
    """The folder of the sample files. Installed packages live on the file system
    (pip never installs zipped), so the resource is a real folder."""
    return Path(str(files(__name__) / "data"))


DATA_DIR = _data_dir()


@dataclass(frozen=True)
class Sample:
    name: str
    path: str  # relative to DATA_DIR
    format: str
    runs: tuple[tuple[str, str, str], ...] = field(default=())  # (run name, path, format)


# In the order the window lists datasets (by name): the one shown first lands first.
SAMPLES: tuple[Sample, ...] = (
    Sample("sample-call-chains", "nestools", "nestools", (
        ("chainsmith-8b", "nestools/predictions/chainsmith-8b/raw_response.jsonl", "nestools-predictions"),
        ("tiny-planner-1b", "nestools/predictions/tiny-planner-1b/raw_response.jsonl", "nestools-predictions"),
    )),
    Sample("sample-extraction", "deepjson/DeepJSONEval-sample.xlsx", "deepjson", (
        ("demo-alpha-7b", "deepjson/predictions/demo-alpha-7b.xlsx", "deepjson-predictions"),
        ("demo-beta-13b", "deepjson/predictions/demo-beta-13b.xlsx", "deepjson-predictions"),
    )),
    Sample("sample-function-calls", "bfcl", "bfcl", (
        ("gorilla-lite-7b", "bfcl/outputs/gorilla-lite-7b.jsonl", "outputs-jsonl"),
        ("toolformer-xl", "bfcl/outputs/toolformer-xl.jsonl", "outputs-jsonl"),
    )),
    Sample("sample-schema-generation", "schemagen/schemagen.jsonl", "schemagen", (
        ("struct-tuned-8b", "schemagen/outputs/struct-tuned-8b.jsonl", "outputs-jsonl"),
        ("base-8b", "schemagen/outputs/base-8b.jsonl", "outputs-jsonl"),
    )),
    Sample("sample-tool-qa", "tooljson", "tooljson", (
        ("alpha-7b direct", "tooljson/predictions/citybikes.example.org_v1_stations_alpha-7b_direct_prompting_predictions.json",
         "tooljson-predictions"),
        ("beta-13b code", "tooljson/predictions/citybikes.example.org_v1_stations_beta-13b_code_generation_predictions.json",
         "tooljson-predictions"),
    )),
    Sample("sample-tool-selection", "toolselect/appendix_a.jsonl", "toolselect", (
        ("careful-nlt", "toolselect/outputs/careful-nlt.jsonl", "outputs-jsonl"),
        ("hasty-nlt", "toolselect/outputs/hasty-nlt.jsonl", "outputs-jsonl"),
    )),
)


@dataclass(frozen=True)
class Landed:
    """One step of the first start that is now in the database."""

    sample: str
    what: str  # "dataset" | "runs" | "scores"


@dataclass(frozen=True)
class _Step:
    sample: Sample
    what: str  # "dataset" | "run" | "score"
    run: tuple[str, str, str] | None = None


class _StepContext(JobContext):
    """The context one step's import or scoring sees: its progress becomes a share
    of the whole first start's progress, and it is cancelled with the whole."""

    def __init__(self, outer: JobContext, index: int, steps: int, message: str):
        super().__init__()
        self._outer, self._index, self._steps, self._message = outer, index, steps, message

    def progress(self, done: int, total: int | None = None, message: str = "") -> None:
        fraction = min(1.0, done / total) if total else 0.0
        self._outer.progress(int((self._index + fraction) * 100), self._steps * 100, self._message)

    @property
    def cancelled(self) -> bool:
        return self._outer.cancelled

    def check_cancelled(self) -> None:
        self._outer.check_cancelled()


def _plan(store, score: bool) -> list[_Step]:
    """What is missing of the samples, in the order the window shows the datasets
    (by name), so the dataset shown first is complete first. Empty when the store
    holds any dataset that is not a sample (never push samples into a team's data)."""
    datasets = {d.name: d for d in store.datasets()}
    names = {s.name for s in SAMPLES}
    if any(name not in names for name in datasets):
        return []
    steps: list[_Step] = []
    for sample in SAMPLES:
        runs = {r.name: r for r in store.runs(sample.name)} if sample.name in datasets else {}
        if sample.name not in datasets:
            steps.append(_Step(sample, "dataset"))
        steps += [_Step(sample, "run", run) for run in sample.runs if run[0] not in runs]
        if score:
            steps += [_Step(sample, "score", run) for run in sample.runs
                      if run[0] not in runs or not store.run_scores(runs[run[0]].id)]
    return steps


def first_start(
    ctx: JobContext | None, store, score: bool = True, data_dir: Path | None = None,
    on_landed: Callable[[Landed], None] | None = None,
) -> list[str]:
    """Import (and with ``score`` score) whatever the store lacks of the samples;
    return the names of the samples it touched.

    A job (``fn(ctx, ...)``): progress covers the whole first start, cancellation
    stops between records (each import is one transaction, so nothing is
    half-written). ``on_landed`` is called from the job's thread after each
    dataset, each sample's runs and each sample's scores are committed.
    """
    ctx = ctx or silent()
    data_dir = data_dir or DATA_DIR
    steps = _plan(store, score)
    touched: list[str] = []
    for index, step in enumerate(steps):
        ctx.check_cancelled()
        name = step.sample.name
        if step.what == "dataset":
            sub = _StepContext(ctx, index, len(steps), f"Sample data: importing {name}")
            sub.progress(0, 1)
            store.import_dataset(data_dir / step.sample.path, format=step.sample.format, name=name, ctx=sub)
        elif step.what == "run":
            run_name, path, fmt = step.run
            sub = _StepContext(ctx, index, len(steps), f"Sample data: importing run {run_name} of {name}")
            sub.progress(0, 1)
            store.import_run(name, data_dir / path, format=fmt, name=run_name, ctx=sub)
        else:
            from reviewer.scoring.job import score_run  # scorers are heavy: only when scoring

            sub = _StepContext(ctx, index, len(steps), f"Sample data: scoring {step.run[0]} of {name}")
            sub.progress(0, 1)
            score_run(store, store.run(name, step.run[0]).id, "faithful", sub)
        if name not in touched:
            touched.append(name)
        following = steps[index + 1] if index + 1 < len(steps) else None
        if on_landed is not None and (following is None or (following.sample, following.what) != (step.sample, step.what)):
            on_landed(Landed(name, {"dataset": "dataset", "run": "runs", "score": "scores"}[step.what]))
    if steps:
        ctx.progress(len(steps) * 100, len(steps) * 100, "Sample data: ready")
    return touched


def ensure_samples(
    store, ctx: JobContext | None = None, data_dir: Path | None = None, score: bool = False
) -> list[str]:
    """Import every bundled sample into a store that holds no other dataset and,
    with ``score``, score its runs (faithful mode); return the names imported.

    The blocking form of ``first_start``, for tests, tools and the CLI.
    """
    return first_start(ctx, store, score=score, data_dir=data_dir)


__all__ = ["DATA_DIR", "Landed", "SAMPLES", "Sample", "ensure_samples", "first_start"]
