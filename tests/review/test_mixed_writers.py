"""Mixed concurrent writers on PostgreSQL lose no update (issue 18).

Four processes hammer the same four items, each round picking one write path at random:
annotate (a revision of a shared annotator's note), fix (a Fix whose gold is the current
gold plus a marker), adjudicate (final gold = current gold plus a marker), set gold
(gold plus a marker) and re-score after a gold change. Every read-modify-write states
the versions it read and is retried on StaleWrite. Afterwards every marker of a
successful gold write must be in the item's gold and every marker of a successful
annotation write in that annotation's note: a marker missing is a lost update.
"""

from __future__ import annotations

import multiprocessing
import random

import pytest

from reviewer.errors import StaleWrite
from reviewer.jobs import silent
from reviewer.review import Draft, ProtocolViolation, Review
from reviewer.review.annotate import set_role
from reviewer.store import Store
from reviewer.store.importing import import_dataset, import_run
from tests.store import records as R

ITEMS = 4
ROUNDS = 20
OK = {"schema_conformance": True, "content_faithfulness": True, "cross_field_consistency": True}


def _context():
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["reviewer.store", "reviewer.review", "tests.review.test_mixed_writers"])
    return ctx


def _writer(db_url: str, ids: list[int], proc: int, result) -> None:
    try:
        result.put(_write(db_url, ids, proc))
    except BaseException as exc:  # reported to the parent, so a crash fails the test at once
        import traceback

        result.put(("crash", f"process {proc}: {exc!r}\n{traceback.format_exc()}"))


def _write(db_url: str, ids: list[int], proc: int):
    from reviewer.scoring.job import rescore_items

    store = Store(db_url)
    rng = random.Random(proc)
    carol = Review(store, "carol")
    gold_marks, note_marks, stale, refused = [], [], 0, 0
    for n in range(ROUNDS):
        item_id = rng.choice(ids)
        path = rng.choice(["annotate", "fix", "adjudicate", "set_gold", "rescore"])
        mark = f"p{proc}n{n}"
        while True:  # retry this write until it lands (or the protocol refuses it)
            try:
                if path in ("annotate", "fix"):
                    who = rng.choice(["alice", "bob"])
                    review = Review(store, who)
                    snap = review.snapshot(item_id)
                    mine = snap.mine
                    note = ((mine.draft.note + " ") if mine else "") + mark
                    if path == "fix":
                        gold = store.item(item_id)
                        if gold.version != snap.item_version:
                            continue  # read again: the two reads must agree
                        draft = Draft(verdict="fix", checks=dict(OK, content_faithfulness=False), ambiguity="low",
                                      fixed_gold=f"{gold.gold}|{mark}", note=note)
                    else:
                        draft = Draft(verdict="pass" if who == "alice" else "reject", checks=dict(OK),
                                      ambiguity="low", note=note)
                    review.annotate(item_id, draft, mine.version if mine else None, item_version=snap.item_version)
                    note_marks.append((item_id, who, mark))
                elif path == "adjudicate":
                    snap = carol.snapshot(item_id)
                    item = store.item(item_id)
                    if item.version != snap.item_version:
                        continue
                    carol.adjudicate(item_id, "fix", f"{item.gold}|{mark}", f"round {mark}",
                                     rubric={"ambiguity": "low"},
                                     expected_version=snap.adjudication.version if snap.adjudication else None,
                                     item_version=snap.item_version,
                                     annotation_versions={a.annotator: a.version for a in
                                                          ([snap.mine] if snap.mine else []) + snap.others})
                    gold_marks.append((item_id, mark))
                elif path == "set_gold":
                    item = store.item(item_id)
                    carol.set_gold(item_id, f"{item.gold}|{mark}", item.version, f"round {mark}")
                    gold_marks.append((item_id, mark))
                else:
                    rescore_items(store, [item_id])
                break
            except StaleWrite:
                stale += 1
            except ProtocolViolation:  # e.g. revising an annotation of a settled item
                refused += 1
                break
    return gold_marks, note_marks, stale, refused


@pytest.mark.postgres
def test_four_processes_mixing_every_review_write_path_lose_no_update(pg_url):
    from reviewer.scoring.job import score_run

    store = Store(pg_url)
    ds = import_dataset(store.engine, R.dataset([R.item(i, gold="A") for i in range(ITEMS)]), silent()).dataset_id
    run = import_run(store.engine, ds, R.run([R.output(i, text="A") for i in range(ITEMS)]), silent())
    score_run(store, run.run_id, "faithful")
    set_role(store, "carol", "adjudicator")
    ids = [store.find_item("demo", f"q{i}").id for i in range(ITEMS)]
    ctx = _context()
    result = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(pg_url, ids, p, result)) for p in range(4)]
    for p in procs:
        p.start()
    outcomes = [result.get(timeout=600) for _ in procs]
    crashes = [o[1] for o in outcomes if o[0] == "crash"]
    assert not crashes, crashes[0]
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    gold_marks = [m for o in outcomes for m in o[0]]
    note_marks = [m for o in outcomes for m in o[1]]
    stale = sum(o[2] for o in outcomes)
    lost = 0
    for item_id, mark in gold_marks:
        lost += mark not in store.item(item_id).gold.split("|")
    for item_id, who, mark in note_marks:
        note = Review(store, who).snapshot(item_id).mine.draft.note
        lost += mark not in note.split()
    print(f"\nmixed writers (postgres): gold writes {len(gold_marks)}, annotation writes {len(note_marks)}, "
          f"stale retries {stale}, lost updates {lost}")
    assert len(gold_marks) > 10 and len(note_marks) > 5  # the paths really ran, concurrently
    assert lost == 0
    # the gold history is one unbroken chain of versions (no write skipped a version)
    chains = {}
    for item_id in ids:
        versions = [(h.before["version"], h.after["version"]) for h in store.history("item", item_id)
                    if h.action == "edit_gold"]
        chains[item_id] = all(b == a + 1 for a, b in versions) and \
            all(versions[i][1] == versions[i + 1][0] for i in range(len(versions) - 1))
    assert all(chains.values()), chains
