"""The sample datasets bundled in ``data/``, imported on the app's first start.

Each sample is a dataset in one benchmark's own format with two model runs, all
made up by this project (no data copied from the benchmarks' repositories).
Importing is idempotent, so calling ``ensure_samples`` at every start is cheap
and never duplicates anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from reviewer.jobs import JobContext, silent

DATA_DIR = Path(__file__).resolve().parents[1] / "data"


@dataclass(frozen=True)
class Sample:
    name: str
    path: str  # relative to data/
    format: str
    runs: tuple[tuple[str, str, str], ...] = field(default=())  # (run name, path, format)


SAMPLES: tuple[Sample, ...] = (
    Sample("sample-tool-qa", "tooljson", "tooljson", (
        ("alpha-7b direct", "tooljson/predictions/citybikes.example.org_v1_stations_alpha-7b_direct_prompting_predictions.json",
         "tooljson-predictions"),
        ("beta-13b code", "tooljson/predictions/citybikes.example.org_v1_stations_beta-13b_code_generation_predictions.json",
         "tooljson-predictions"),
    )),
    Sample("sample-extraction", "deepjson/DeepJSONEval-sample.xlsx", "deepjson", (
        ("demo-alpha-7b", "deepjson/predictions/demo-alpha-7b.xlsx", "deepjson-predictions"),
        ("demo-beta-13b", "deepjson/predictions/demo-beta-13b.xlsx", "deepjson-predictions"),
    )),
    Sample("sample-call-chains", "nestools", "nestools", (
        ("chainsmith-8b", "nestools/predictions/chainsmith-8b/raw_response.jsonl", "nestools-predictions"),
        ("tiny-planner-1b", "nestools/predictions/tiny-planner-1b/raw_response.jsonl", "nestools-predictions"),
    )),
    Sample("sample-function-calls", "bfcl", "bfcl", (
        ("gorilla-lite-7b", "bfcl/outputs/gorilla-lite-7b.jsonl", "outputs-jsonl"),
        ("toolformer-xl", "bfcl/outputs/toolformer-xl.jsonl", "outputs-jsonl"),
    )),
    Sample("sample-schema-generation", "schemagen/schemagen.jsonl", "schemagen", (
        ("struct-tuned-8b", "schemagen/outputs/struct-tuned-8b.jsonl", "outputs-jsonl"),
        ("base-8b", "schemagen/outputs/base-8b.jsonl", "outputs-jsonl"),
    )),
    Sample("sample-tool-selection", "toolselect/appendix_a.jsonl", "toolselect", (
        ("careful-nlt", "toolselect/outputs/careful-nlt.jsonl", "outputs-jsonl"),
        ("hasty-nlt", "toolselect/outputs/hasty-nlt.jsonl", "outputs-jsonl"),
    )),
)


def ensure_samples(
    store, ctx: JobContext | None = None, data_dir: Path = DATA_DIR, score: bool = False
) -> list[str]:
    """Import every bundled sample into an empty ``store`` and, with ``score``, score
    its runs (faithful mode) so that a first start shows scores; return the names imported.

    A store that already holds any dataset is left alone: the samples are for a
    first start, not something to push into a team's database.
    """
    from reviewer.scoring.job import score_run

    ctx = ctx or silent()
    if store.datasets():
        return []
    imported = []
    for sample in SAMPLES:
        store.import_dataset(data_dir / sample.path, format=sample.format, name=sample.name, ctx=ctx)
        for run_name, path, fmt in sample.runs:
            summary = store.import_run(sample.name, data_dir / path, format=fmt, name=run_name, ctx=ctx)
            if score:
                score_run(store, summary.run_id, "faithful", ctx)
        imported.append(sample.name)
    return imported
