"""Leakage audit: near-duplicate items, a corpus folder (text, JSONL, Parquet) and the prompts,
each flag naming the most similar document and its similarity."""

from __future__ import annotations

import json
import random
import sys

import numpy as np
import pytest

from reviewer import guards
from reviewer.errors import ReviewerError
from reviewer.guards import leakage, settings as guard_settings
from reviewer.jobs import silent
from reviewer.store.importing import import_dataset
from tests.store import records as R

WORDS = ("river mountain engine patient ticket museum harvest ledger violin orbit canyon pepper lantern "
         "tractor glacier sonnet cobalt meadow falcon quartz ribbon saddle thunder walnut").split()


def essay(seed: int, n: int = 400) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) + str(rng.randrange(50)) for _ in range(n))


def test_near_duplicates_are_found_and_unrelated_texts_are_not():
    base = essay(1)
    words = base.split()
    edited = " ".join(words[:200] + ["inserted", "clause"] + words[200:])  # a light rewrite
    texts = [base, essay(2), edited, essay(3), ""]
    sig = leakage.signatures(texts)
    matches = leakage.best_matches(sig, None, 0.8)
    assert set(matches) == {0, 2}
    assert matches[0].index == 2 and matches[2].index == 0 and matches[0].similarity >= 0.9
    exact = len(set(leakage_shingles(base)) & set(leakage_shingles(edited))) / len(
        set(leakage_shingles(base)) | set(leakage_shingles(edited)))
    assert abs(matches[0].similarity - exact) < 0.1  # the MinHash estimate is close to the true Jaccard


def leakage_shingles(text: str, n: int = 5):
    w = text.lower().split()
    return [" ".join(w[i:i + n]) for i in range(len(w) - n + 1)]


def test_cjk_text_is_shingled_by_character():
    a = "患者李明在医院接受治疗，医生说他的病情很稳定，明天可以出院回家休息，并且需要按时服药复查。" * 3
    b = a.replace("明天", "后天", 1)
    sig = leakage.signatures([a, b, "完全不同的一段文字，讲的是天气和旅行的计划，与医院无关。" * 3])
    assert set(leakage.best_matches(sig, None, 0.7)) == {0, 1}


def test_lsh_banding_finds_pairs_at_the_threshold():
    bands, rows = leakage.lsh_params(0.8, 128)
    assert bands * rows <= 128
    # a pair at the threshold shares a band (becomes a candidate) almost surely, a 0.4 one rarely
    assert 1 - (1 - 0.8 ** rows) ** bands >= 0.95 and 1 - (1 - 0.4 ** rows) ** bands < 0.1


def test_corpus_folder_of_text_and_jsonl_is_read_and_named(tmp_path):
    (tmp_path / "notes.txt").write_text(essay(7))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "dump.jsonl").write_text(
        json.dumps({"id": 1, "text": essay(8)}) + "\n\n" + json.dumps({"content": essay(9)}) + "\n")
    (tmp_path / "ignored.bin").write_bytes(b"\x00\x01")
    docs = list(leakage.corpus_documents(tmp_path))
    assert [name for name, _ in docs] == ["notes.txt", "sub/dump.jsonl:1", "sub/dump.jsonl:3"]
    (tmp_path / "bad.jsonl").write_text('{"text": "fine"}\n{broken\n')
    with pytest.raises(ReviewerError, match=r"bad.jsonl: line 2"):
        list(leakage.corpus_documents(tmp_path))
    with pytest.raises(ReviewerError, match="does not exist"):
        list(leakage.corpus_documents(tmp_path / "nowhere"))


def test_parquet_corpus_is_read_row_by_row(tmp_path):
    import pyarrow as pa  # a test dependency: the Parquet path is tested for real
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": [1, 2], "text": [essay(1), essay(2)]}), tmp_path / "c.parquet")
    docs = list(leakage.corpus_documents(tmp_path))
    assert [n for n, _ in docs] == ["c.parquet#0", "c.parquet#1"]
    assert docs[1][1] == essay(2)


def test_parquet_corpus_without_pyarrow_says_what_is_missing(tmp_path, monkeypatch):
    (tmp_path / "c.parquet").write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as on a machine without it
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(ReviewerError, match="needs pyarrow"):
        list(leakage.corpus_documents(tmp_path))


def test_the_dataset_scan_flags_items_and_names_the_closest_document(store, tmp_path):
    leaked = essay(20)
    (tmp_path / "web.jsonl").write_text(json.dumps({"text": leaked}) + "\n" + json.dumps({"text": essay(21)}) + "\n")
    dup = essay(10)
    items = [R.item(i, gold={"a": 1}, kind="extraction", payload={"text": t}, context=None)
             for i, t in enumerate([dup, dup + " one more sentence here", essay(11), leaked, essay(12)])]
    summary = import_dataset(store.engine, R.dataset(items), silent())
    guard_settings.update(store, summary.dataset_id, corpus_dir=str(tmp_path), min_words=0)
    result = guards.run_checks(store, summary.dataset_id, guards=["leakage"])
    assert result.counts["leakage"] == {"fail": 3, "pass": 2}
    views = guards.item_guards(store, summary.dataset_id)
    by_record = {v.record_id: v.results["leakage"] for v in views.values()}
    assert by_record["q0"].details["near_duplicate"]["document"] == "q1"
    assert by_record["q1"].details["near_duplicate"]["similarity"] >= 0.9
    assert by_record["q3"].details["corpus"] == {"document": "web.jsonl:1", "similarity": 1.0}
    assert "similar to corpus document web.jsonl:1 (similarity 1.00)" in by_record["q3"].summary
    assert by_record["q2"].status == "pass" and by_record["q4"].status == "pass"


def test_tool_qa_items_sharing_one_response_are_compared_on_question_and_gold(store):
    """Paper 000 asks many questions about each API response, from templates run over every
    response: a shared response or template is the design. Two tool_qa items are duplicates when
    they ask the same question with the same answer; the other kinds still compare their source."""
    questions = [
        ("What is the form type of the filing with accession number 0001193125-23-072650?", "ARS"),
        ("What is the form type of the filing with accession number 0000200406-23-000025?", "DEFA14A"),
        ("What is the filing date of the form with accession number 0001193125-23-072650?", "2023-03-16"),
        ("List the different form types available as a comma separated list of unique values.", "ARS, DEFA14A, 10-K"),
        ("Provide the number of filings whose period and filing date fall on the same day.", "12"),
        ("Which company filed the most recent annual report among all the filings listed here?", "ACME Corp"),
        # the same question as the one before it, the same answer: a real duplicate
        ("Which company filed the most recent annual report among all the filings listed here?", "ACME Corp"),
        # the same template question again, a different answer (as about another response): not a duplicate
        ("Provide the number of filings whose period and filing date fall on the same day.", "3"),
    ]
    items = [R.item(i, gold=g, question=q) for i, (q, g) in enumerate(questions)]  # all share R.RESPONSE
    summary = import_dataset(store.engine, R.dataset(items), silent())
    result = guards.run_checks(store, summary.dataset_id, guards=["leakage"])
    assert result.counts["leakage"] == {"pass": 6, "fail": 2}  # the old scan: {"fail": 8}, all "similarity 1.00"
    by_record = {v.record_id: v.results["leakage"] for v in guards.item_guards(store, summary.dataset_id).values()}
    assert [r for r, v in by_record.items() if v.status == "fail"] == ["q5", "q6"]
    assert by_record["q5"].summary == "near-duplicate of item q6 (similarity 1.00)"
    # an item without a question has nothing to compare
    bare = import_dataset(store.engine, R.dataset([R.item(0, question=None), R.item(1, question="")], name="bare"),
                          silent())
    assert guards.run_checks(store, bare.dataset_id, guards=["leakage"]).counts["leakage"] == {"skip": 2}


def test_prompt_text_is_compared_without_the_items_own_source():
    from reviewer.guards.base import GuardItem
    from reviewer.guards.prompts import prompt_documents

    item = GuardItem(1, "r", "extraction", {"a": 1}, essay(30), schema=json.dumps({"type": "object"}),
                     payload={"text": essay(30)})
    docs = prompt_documents(item, None, [])
    assert docs and all(essay(30)[:200] not in text for _, text in docs)
    # an item that copies a prompt's instructions is flagged against that prompt
    name, text = max(docs, key=lambda d: len(d[1]))
    sig = leakage.signatures([text + " " + essay(31, 20)])
    ref = leakage.signatures([t for _, t in docs])
    assert leakage.best_matches(sig, ref, 0.5)


def test_signatures_are_one_row_per_text():
    sig = leakage.signatures(["a b c", "", "x"] * 5, num_perm=64)
    assert sig.shape == (15, 64) and sig.dtype == np.uint32
