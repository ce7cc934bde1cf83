"""The guards on DeepJSONEval's 525 reference items (../shared/refdata; skipped when absent)."""

from __future__ import annotations

import pytest

from reviewer import guards
from reviewer.store import ItemQuery, Store
from tests.conftest import refdata

pytestmark = pytest.mark.refdata


def test_deepjsoneval_guard_counts(tmp_path):
    book = refdata("DeepJSONEval", "DeepJSONEval.xlsx")
    store = Store(tmp_path / "ref.sqlite3")
    ds = store.import_dataset(book, name="deepjson")
    summary = guards.run_checks(store, ds.dataset_id)
    c = summary.counts
    assert sum(c["schema"].values()) == 525
    # shared/FORMATS.md: "12 gold objects fail their own schema (all Hard)"
    assert c["schema"] == {"pass": 513, "fail": 12}
    failing = store.item_page(ItemQuery(dataset_id=ds.dataset_id, guard_failed="schema"), 0, 50)
    assert {r.difficulty for r in failing} == {"Hard"}
    # the paper's 1,500-word rule: most sources are shorter (median ~1,100 words, CJK counted by character)
    assert c["length"]["fail"] > c["length"]["pass"] > 100
    assert c["constraints"] == {"skip": 525}  # no rules until the dataset's curators write them
    assert 0 < c["grounding"].get("fail", 0) < 525 * 0.4
    assert c["leakage"].get("pass", 0) > 500
    store.close()
