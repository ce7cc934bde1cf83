"""Gold programs (paper 000): the gold answer is what the item's program returns on its tool response.

toolJSONprocessing wrote Python code per question template that reads the tool
response and returns the answer. An item that carries its program
(``payload["gold_code"]``: Python source defining a function that takes the parsed
response) has the program re-run in the sandbox; when the answer differs from the
stored gold (as answer text, white space at the ends ignored, lists joined with
", " as the benchmark joins them) the item is flagged "gold drift" with both values.
``fix_from_program`` builds the gold edit that takes the program's answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

from reviewer.guards.base import ERROR, FAIL, PASS, GuardItem, GuardResult
from reviewer.guards.sandbox_adapter import ProgramRun, run_programs
from reviewer.guards.settings import Settings

_FIRST_DEF = re.compile(r"^def\s+([A-Za-z_]\w*)\s*\(", re.MULTILINE)


def answer_text(value: Any) -> str | None:
    """The answer as the benchmark stores it: text, numbers without a trailing .0, lists joined with ", "."""
    from reviewer.scoring.tooljson_metrics import as_answer_text

    text = as_answer_text(value)
    return text.strip() if isinstance(text, str) else text


def program_of(item: GuardItem) -> str | None:
    code = (item.payload or {}).get("gold_code")
    return code if isinstance(code, str) and code.strip() else None


def _job(item: GuardItem) -> tuple[str, str, Any] | str:
    code = program_of(item)
    entry = _FIRST_DEF.search(code or "")
    if entry is None:
        return "the gold program defines no function (it must define one that takes the tool response)"
    try:
        response = json.loads(item.source)
    except ValueError as exc:
        return f"the tool response is not JSON ({exc}); the gold program was not run"
    return code, entry.group(1), response


def judge(item: GuardItem, run: ProgramRun) -> GuardResult:
    if not run.ok:
        reason = (run.error or "unknown error").splitlines()[0][:300]
        return GuardResult(GoldProgramGuard.name, ERROR, f"the gold program failed: {reason}",
                           {"error": (run.error or "")[:2000]})
    program, stored = answer_text(run.value), answer_text(item.gold)
    details = {"program_answer": program, "gold": stored, "raw_value": run.value}
    if program == stored:
        return GuardResult(GoldProgramGuard.name, PASS, "the gold program gives the stored gold", details)
    return GuardResult(GoldProgramGuard.name, FAIL,
                       f"gold drift: the program answers {program!r}, the stored gold is {stored!r}", details)


class GoldProgramGuard:
    name = "gold_program"
    label = "Gold program"
    version = 1

    def applies(self, item: GuardItem, settings: Settings) -> bool:
        return item.kind == "tool_qa" and program_of(item) is not None

    def inputs(self, item: GuardItem, settings: Settings):
        return [item.gold, item.source, program_of(item)]

    def check(self, item: GuardItem, settings: Settings) -> GuardResult:
        return self.check_many([item], settings)[0]

    def check_many(self, items: list[GuardItem], settings: Settings) -> list[GuardResult]:
        """Run the programs of many items in parallel sandboxes (same results as ``check`` one by one)."""
        jobs, slots, out = [], [], {}
        for n, item in enumerate(items):
            job = _job(item)
            if isinstance(job, str):
                out[n] = GuardResult(self.name, ERROR, job)
            else:
                jobs.append(job)
                slots.append(n)
        for n, run in zip(slots, run_programs(jobs)):
            out[n] = judge(items[n], run)
        return [out[n] for n in range(len(items))]


def fix_from_program(store, item_id: int, actor: str, expected_version: int | None = None) -> int:
    """Take the program's answer as the item's gold in one action; return the new item version.

    Uses the stored drift result (so it takes exactly the value the reviewer saw),
    refuses when there is none or when it is stale, and writes the gold through
    the store (audited, optimistic concurrency on the item's version).
    """
    from reviewer.errors import ReviewerError
    from reviewer.guards import storage
    from reviewer.guards.base import input_hash
    from reviewer.guards.settings import load

    detail = store.item(item_id)
    with store.engine.connect() as conn:
        stored = storage.results(conn, [item_id]).get(item_id, {}).get(GoldProgramGuard.name)
        settings = load(conn, detail.dataset_id)
        [item] = storage.load_items(conn, detail.dataset_id, [item_id])
    if stored is not None and stored.input_hash != input_hash(GoldProgramGuard(), item, settings):
        raise ReviewerError(f"item {detail.record_id}: the gold or the response changed since the program ran; "
                            "check the item again first")
    if stored is None or stored.status != FAIL:
        raise ReviewerError(f"item {detail.record_id}: no gold drift to fix (run the gold program first)")
    answer = stored.details["program_answer"]
    version = store.set_gold(item_id, answer, actor, detail.version if expected_version is None else expected_version,
                             reason="fix: take the gold program's answer (gold drift)")
    # The new gold is the program's answer: record the pass now rather than leaving a stale failure.
    item.gold = answer
    with store.engine.begin() as conn:
        storage.save_results(conn, [(item_id, judge(item, ProgramRun(True, stored.details.get("raw_value", answer))),
                                     input_hash(GoldProgramGuard(), item, settings))])
    return version
