"""The review protocol's state machine, agreement rule and visibility: the one home of these rules.

Stages (one set of names for the table, the panels, the queue, the CLI and exports)::

    not annotated -> one review -> both reviewed -+-> unanimous (settled automatically)
                                                  +-> disputed -> adjudicated
    settled (unanimous or adjudicated) -> released | withheld   (reviewer.review.release)

"both reviewed" is the branch point: the moment the second annotator first submits,
their two FIRST submissions are compared under the dataset's agreement rule. Equal:
the item is settled as "unanimous". Different: it is "disputed" and stays disputed
(whatever either annotator revises later) until an adjudicator settles it. Revisions
are allowed before the item settles and refused afterwards.

Agreement rule: which fields must be equal for automatic settlement, set per dataset
(``dataset.meta["review"]["agreement"]``): the verdict always, and any of "rubric"
(the yes/no checks, ambiguity and difficulty) and "fix" (the gold a Fix produces).
``auto_settle`` False sends every item to the adjudicator. The rule becomes a
digest (``agreement_key``) computed from one annotation alone, so that a database
trigger can compare two annotators' submissions in team mode without anyone being
able to read the other's; there the database computes the key itself, never trusting
the client's (see reviewer.team.sql). Two Fixes agree only when their gold is the same,
whatever the rule: otherwise there is no single gold to write.

Visibility: an annotator sees only their own annotation and one of the
``ANNOTATOR_STATUS`` phrases; adjudicators and admins see everything.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from reviewer.review.rubric import AMBIGUITY, Draft


class Stage(StrEnum):
    NOT_ANNOTATED = "not_annotated"
    ONE_REVIEW = "one_review"
    BOTH_REVIEWED = "both_reviewed"  # the branch point; never stored
    UNANIMOUS = "unanimous"
    DISPUTED = "disputed"
    ADJUDICATED = "adjudicated"

    @property
    def label(self) -> str:
        return self.value.replace("_", " ")

    @property
    def settled(self) -> bool:
        return self in (Stage.UNANIMOUS, Stage.ADJUDICATED)


STORED_STAGES = (Stage.NOT_ANNOTATED, Stage.ONE_REVIEW, Stage.DISPUTED, Stage.UNANIMOUS, Stage.ADJUDICATED)
# Old filter names, still accepted by ItemQuery.review.
STAGE_ALIASES = {
    "unannotated": (Stage.NOT_ANNOTATED,), "in_review": (Stage.ONE_REVIEW,),
    "disagreement": (Stage.DISPUTED,), "settled": (Stage.UNANIMOUS, Stage.ADJUDICATED),
}
RELEASED, WITHHELD = "released", "withheld"

ROLES = ("annotator", "adjudicator", "admin")


def sees_everything(role: str) -> bool:
    """Adjudicators and admins (and exports, reports, statistics) see every annotation."""
    return role in ("adjudicator", "admin")


def may_adjudicate(role: str) -> bool:
    """Only adjudicators (and admins) settle disputes or edit gold directly."""
    return role in ("adjudicator", "admin")


ANNOTATOR_STATUS = {
    "waiting": "waiting for a second review",
    "adjudicator": "with the adjudicator",
    "settled": "settled",
}


def annotator_status(stage: Stage | str, submitted: bool) -> str:
    """What an annotator sees of an item's progress beside their own annotation."""
    stage = Stage(stage)
    if stage.settled:
        return ANNOTATOR_STATUS["settled"]
    if not submitted:
        return "not reviewed by you yet"
    if stage is Stage.DISPUTED:
        return ANNOTATOR_STATUS["adjudicator"]
    return ANNOTATOR_STATUS["waiting"]


@dataclass(frozen=True)
class AgreementRule:
    """What two first submissions must share to settle an item automatically."""

    rubric: bool = True
    fix: bool = True
    auto_settle: bool = True

    @classmethod
    def from_meta(cls, meta: dict | None) -> AgreementRule:
        review = ((meta or {}).get("review") or {}) if isinstance(meta, dict) else {}
        fields = review.get("agreement")
        if fields is None:
            return cls(auto_settle=review.get("auto_settle", True))
        return cls("rubric" in fields, "fix" in fields, review.get("auto_settle", True))

    def to_meta(self) -> dict:
        return {"agreement": ["verdict"] + [f for f, on in (("rubric", self.rubric), ("fix", self.fix)) if on],
                "auto_settle": self.auto_settle}

    def describe(self) -> str:
        if not self.auto_settle:
            return "no automatic settlement: every item twice reviewed goes to the adjudicator"
        parts = ["the verdict"] + (["every rubric field"] if self.rubric else []) + (
            ["the fixed gold"] if self.fix else [])
        text = "settled automatically (unanimous) when both first submissions share " + ", ".join(parts)
        if not self.fix:
            text += ("; two Fixes whose gold differs always go to the adjudicator (there is no single gold "
                     "to write)")
        return text


def _rubric_form(draft: Draft) -> dict:
    return {k: v for k, v in draft.rubric().items() if v is not None}


def submission(draft: Draft, patch: list | None, version: int) -> dict:
    """The JSON form of a submitted annotation kept as its first submission."""
    return {"verdict": draft.verdict, "rubric": draft.rubric(), "error_tags": list(draft.error_tags),
            "note": draft.note, "fixed_gold": draft.fixed_gold if draft.verdict == "fix" else None,
            "patch": patch, "version": version}


def draft_of(sub: dict | None) -> Draft | None:
    """The draft a stored submission holds; malformed parts (written by another client) read as empty."""
    if not sub:
        return None
    if not isinstance(sub, dict):
        return Draft()
    return Draft.from_stored(sub.get("verdict"), sub.get("rubric"), sub.get("error_tags"), sub.get("note"),
                             sub.get("fixed_gold"))


def agreement_key(draft: Draft, rule: AgreementRule, annotator: str) -> str:
    """A digest of what counts for agreement: equal keys == agreement under ``rule``.
    With automatic settlement off, the annotator's name goes in so keys never match.
    A Fix's gold always goes in, whatever ``rule.fix``: two Fixes with different gold leave
    no single gold to write, so they never settle automatically.

    In a team database the database computes the key itself (reviewer.team.sql,
    ``reviewer_agreement_key``: not the same digest, but equal exactly when these are)."""
    content: dict[str, Any] = {"verdict": draft.verdict}
    if rule.rubric:
        content["rubric"] = _rubric_form(draft)
    if draft.verdict == "fix":
        content["fix"] = draft.fixed_gold
    if not rule.auto_settle:
        content["annotator"] = annotator
    text = json.dumps(content, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _said(value) -> str:
    """A rubric answer in the words the panels use: yes / no / blank."""
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return "blank" if value is None else str(value)


def differences(a: Draft, b: Draft) -> list[str]:
    """Where two submissions disagree, in words, verdict first, then rubric, then fix content."""
    out = []
    if a.verdict != b.verdict:
        out.append(f"verdict {a.verdict} vs {b.verdict}")
    for check in sorted(set(a.checks) | set(b.checks)):
        if a.checks.get(check) != b.checks.get(check):
            out.append(f"{check.replace('_', ' ')}: {_said(a.checks.get(check))} vs {_said(b.checks.get(check))}")
    if a.ambiguity != b.ambiguity:
        out.append(f"ambiguity {_said(a.ambiguity)} vs {_said(b.ambiguity)}")
    if a.difficulty != b.difficulty:
        out.append(f"difficulty {_said(a.difficulty)} vs {_said(b.difficulty)}")
    if a.verdict == b.verdict == "fix" and a.fixed_gold != b.fixed_gold:
        out.append("the two fixes give different gold")
    return out


def settled_rubric(drafts: list[Draft]) -> dict:
    """The rubric of a unanimous item: the shared one, with the worst ambiguity if they differ."""
    rubric = drafts[0].rubric()
    known = [d.ambiguity for d in drafts if d.ambiguity in AMBIGUITY]
    if known:
        rubric["ambiguity"] = max(known, key=AMBIGUITY.index)
    return rubric


def stage_after_submissions(keys: list[str]) -> Stage:
    """The transition at each first submission: ``keys`` are the first submissions' agreement keys."""
    if not keys:
        return Stage.NOT_ANNOTATED
    if len(keys) == 1:
        return Stage.ONE_REVIEW
    return Stage.UNANIMOUS if len(set(keys)) == 1 else Stage.DISPUTED


def backfill(conn) -> None:
    """Migration 2: first submissions from the current annotations, and each item's stage."""
    from sqlalchemy import select

    from reviewer.store.models import Adjudication, Annotation, Dataset, Item, ItemReview

    ann_t, adj_t, item_t, rev_t, ds_t = (Annotation.__table__, Adjudication.__table__, Item.__table__,
                                        ItemReview.__table__, Dataset.__table__)
    rules = {r.id: AgreementRule.from_meta(r.meta) for r in conn.execute(select(ds_t.c.id, ds_t.c.meta))}
    keys: dict[int, list[str]] = {}
    for r in conn.execute(select(ann_t, item_t.c.dataset_id).join(item_t, item_t.c.id == ann_t.c.item_id)
                          .where(ann_t.c.verdict.is_not(None)).order_by(ann_t.c.id)):
        draft = Draft.from_stored(r.verdict, r.rubric, r.error_tags, r.note, r.fixed_gold)
        key = agreement_key(draft, rules[r.dataset_id], r.annotator)
        conn.execute(ann_t.update().where(ann_t.c.id == r.id).values(
            first_submission=submission(draft, r.patch, r.version), first_key=key))
        keys.setdefault(r.item_id, []).append(key)
    settled = dict(conn.execute(select(adj_t.c.item_id, adj_t.c.resolution)).all())
    for item_id in set(keys) | set(settled):
        if item_id in settled:
            stage = Stage.UNANIMOUS if settled[item_id] == "auto" else Stage.ADJUDICATED
        else:
            stage = Stage.DISPUTED if len(keys[item_id]) >= 2 else Stage.ONE_REVIEW
        conn.execute(rev_t.insert().values(item_id=item_id, stage=stage.value, version=1))
