"""The review object: one person's view of, and hand on, the review protocol.

``Review(store, viewer)`` is the one Qt-free object that the store's queries, the CLI
and the widgets ask about review state; none of them re-derives it. It owns:

- the state machine (reviewer.review.protocol.Stage; the stored stage in ``item_review``
  is written here and, in team mode, by the database trigger of reviewer.team.sql);
- the rubric rules (``check``: reviewer.review.rubric.problems, applied on every save);
- visibility: an annotator gets their own annotation and a status phrase, never
  another annotator's verdict, rubric, fix, note or tags; adjudicators see all;
- the single gold writer (reviewer.review.gold.write_gold) for adjudication, direct
  gold edits and unanimous fixes.

Every write is one transaction with its audit entry, and checks the version of
everything it read (the item, the annotations, the adjudication): a write based on
a state that moved on raises StaleWrite and writes nothing.

Identity: in team mode (PostgreSQL after ``reviewer team init``) the viewer IS the
database login (``current_user``) and the role comes from its PostgreSQL roles; the
database enforces both (row-level security). On SQLite, names are local profiles,
not access control: the rules are enforced by this object only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError

from reviewer.errors import ItemBusy, NotFound, ReviewerError, StaleWrite
from reviewer.review.gold import write_gold
from reviewer.review.patch import make_patch, touched_paths
from reviewer.review.protocol import (
    AgreementRule, Stage, agreement_key, annotator_status, differences, draft_of, may_adjudicate,
    sees_everything, settled_rubric, stage_after_submissions, submission,
)
from reviewer.review.rubric import AMBIGUITY, VERDICTS, Draft, Problem, problems
from reviewer.review.views import (
    AdjudicationView, AnnotationView, Progress, QueueEntry, ReviewedGold, ReviewSnapshot, Saved,
)
from reviewer.store import audit
from reviewer.store.item_json import ORIGINAL_GOLD
from reviewer.store.models import (
    Adjudication, Annotation, Assignment, AuditEntry, Dataset, Item, ItemReview, Person, utcnow,
)

item_t, ann_t, adj_t, rev_t, ds_t, person_t, asg_t, audit_t = (
    Item.__table__, Annotation.__table__, Adjudication.__table__, ItemReview.__table__, Dataset.__table__,
    Person.__table__, Assignment.__table__, AuditEntry.__table__,
)


class ProtocolViolation(ReviewerError):
    """A save the protocol forbids (High ambiguity passed, a fix that changes nothing, a settled item...)."""


class NotPermitted(ReviewerError):
    """The viewer's role does not allow this (only adjudicators adjudicate or edit gold)."""


@dataclass(frozen=True)
class ItemState:
    """An item's review state as one viewer may see it (the item table's Review column)."""

    stage: Stage
    mine: str | None  # the viewer's own verdict, if any
    verdicts: tuple[str, ...]  # every verdict; empty for annotators (blind)
    text: str

    def label(self) -> str:
        return self.text


# -- identity --------------------------------------------------------------------------------


def team_prefix(conn: Connection) -> str | None:
    """The team's role prefix when the database is in team mode, else None."""
    if conn.dialect.name != "postgresql":
        return None
    if conn.execute(text("select to_regclass('reviewer_team')")).scalar() is None:
        return None
    return conn.execute(text("select prefix from reviewer_team limit 1")).scalar()


def team_identity(conn: Connection, prefix: str) -> tuple[str, str]:
    """(login, role) of the connected PostgreSQL user in a team database."""
    row = conn.execute(text(
        "select current_user as who, pg_has_role(current_user, :adm, 'MEMBER') as adm, "
        "pg_has_role(current_user, :adj, 'MEMBER') as adj"
    ), {"adm": prefix + "admin", "adj": prefix + "adjudicator"}).one()
    return row.who, "admin" if row.adm else "adjudicator" if row.adj else "annotator"


def local_role(conn: Connection, name: str) -> str:
    return conn.execute(select(person_t.c.role).where(person_t.c.name == name)).scalar() or "annotator"


def set_local_role(store, name: str, role: str) -> None:
    """Register a local profile (SQLite, or PostgreSQL outside team mode) as annotator or adjudicator."""
    if role not in ("annotator", "adjudicator"):
        raise ReviewerError(f"unknown role {role!r}: annotator or adjudicator")
    with store.engine.begin() as conn:
        if team_prefix(conn):
            raise NotPermitted("in team mode roles are PostgreSQL roles: use `reviewer team add LOGIN --role ROLE`")
        if conn.execute(person_t.update().where(person_t.c.name == name).values(role=role)).rowcount == 0:
            conn.execute(person_t.insert().values(name=name, role=role))


def to_view(row) -> AnnotationView:
    draft = Draft.from_stored(row.verdict, row.rubric, row.error_tags, row.note, row.fixed_gold)
    return AnnotationView(row.id, row.item_id, row.annotator, draft, row.patch, row.version, row.updated_at)


def _adjudication(conn: Connection, item_id: int) -> AdjudicationView | None:
    r = conn.execute(select(adj_t).where(adj_t.c.item_id == item_id)).first()
    if r is None:
        return None
    return AdjudicationView(r.item_id, r.adjudicator, r.verdict, r.final_gold, r.rubric, r.rationale,
                            r.resolution, r.version, r.updated_at)


def _stage(conn: Connection, item_id: int) -> Stage:
    value = conn.execute(select(rev_t.c.stage).where(rev_t.c.item_id == item_id)).scalar()
    return Stage(value) if value else Stage.NOT_ANNOTATED


def _set_stage(conn: Connection, item_id: int, stage: Stage) -> None:
    if conn.execute(rev_t.update().where(rev_t.c.item_id == item_id)
                    .values(stage=stage.value, version=rev_t.c.version + 1, updated_at=utcnow())).rowcount == 0:
        conn.execute(rev_t.insert().values(item_id=item_id, stage=stage.value, version=1, updated_at=utcnow()))


# How long a write waits for an item another session holds (PostgreSQL; SQLite waits busy_timeout):
# a save takes milliseconds, so a longer hold is someone idling in a transaction (in team mode an
# annotator's psql session can hold an assigned item it may still save): the write is refused with
# ItemBusy, writing nothing, instead of waiting without bound.
ITEM_LOCK_WAIT_S = 5


def _lock_item(conn: Connection, item_id: int, team: bool):
    """Read the item (kind, gold, version, dataset meta) holding its write lock until the
    transaction ends, so no gold edit lands between this read and the caller's write.

    ``team``: the caller is a team member (who may not write items if an annotator); the definer
    function reviewer_lock_item (reviewer.team.sql) takes the lock for items assigned to them and
    not settled. A team database from before that function keeps the trigger's serialisation
    only (re-running ``reviewer team init`` adds it). Raises ItemBusy when another session holds
    the item for more than ITEM_LOCK_WAIT_S (PostgreSQL)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text(f"set local lock_timeout = '{ITEM_LOCK_WAIT_S}s'"))
    try:
        if not team:
            conn.execute(item_t.update().where(item_t.c.id == item_id).values(version=item_t.c.version))
        elif conn.execute(text("select to_regprocedure('reviewer_lock_item(bigint)')")).scalar() is not None:
            conn.execute(text("select reviewer_lock_item(:id)"), {"id": item_id})
    except OperationalError as exc:
        if getattr(exc.orig, "sqlstate", None) == "55P03":  # lock_not_available
            raise ItemBusy(item_id, ITEM_LOCK_WAIT_S) from None
        raise
    row = conn.execute(
        select(item_t.c.kind, item_t.c.gold, ORIGINAL_GOLD, item_t.c.version, item_t.c.dataset_id,
               ds_t.c.meta).join(ds_t, ds_t.c.id == item_t.c.dataset_id).where(item_t.c.id == item_id)
    ).first()
    if row is None:
        raise NotFound(f"no item with id {item_id} (or it is not assigned to you)")
    return row


def settle_after_submission(conn: Connection, item_id: int, item) -> Stage:
    """The transition after a first submission (outside team mode; the team trigger does the same).

    Called inside the submission's transaction with the item locked. Moves only forward:
    a disputed or settled item keeps its stage."""
    current = _stage(conn, item_id)
    if current not in (Stage.NOT_ANNOTATED, Stage.ONE_REVIEW):
        return current
    rows = conn.execute(
        select(ann_t.c.annotator, ann_t.c.first_key, ann_t.c.first_submission)
        .where(ann_t.c.item_id == item_id, ann_t.c.first_key.is_not(None)).order_by(ann_t.c.id)
    ).all()
    stage = stage_after_submissions([r.first_key for r in rows[:2]])
    if stage is Stage.UNANIMOUS:
        drafts = [draft_of(r.first_submission) for r in rows[:2]]
        verdict = drafts[0].verdict
        final_gold = drafts[0].fixed_gold if verdict == "fix" else item.gold
        names = ", ".join(r.annotator for r in rows[:2])
        conn.execute(adj_t.delete().where(adj_t.c.item_id == item_id))
        conn.execute(adj_t.insert().values(
            item_id=item_id, verdict=verdict, final_gold=final_gold, rubric=settled_rubric(drafts), adjudicator=None,
            rationale=f"unanimous: both annotators ({names}) agreed", resolution="auto", version=1,
            created_at=utcnow(), updated_at=utcnow()))
        audit.record(conn, "auto", "adjudication", item_id, "unanimous", before=None,
                     after={"verdict": verdict, "final_gold": final_gold})
        if verdict == "fix":
            write_gold(conn, item_id, final_gold, "auto", item.version, "unanimous fix", settles=True)
    _set_stage(conn, item_id, stage)
    return stage


class Review:
    """The review protocol as ``viewer`` may see and change it (see the module docstring)."""

    assumed = False  # built by ``assume``: the database has not confirmed who this is

    def __init__(self, store, viewer: str | None = None):
        self.store = store
        with store.engine.connect() as conn:
            self.prefix = team_prefix(conn)
            if self.prefix:
                self.viewer, self.role = team_identity(conn, self.prefix)
            else:
                if not viewer:
                    raise ReviewerError("a reviewer needs a name (a local profile)")
                self.viewer, self.role = viewer, local_role(conn, viewer)

    @classmethod
    def for_reports(cls, store) -> Review:
        """The view exports, reports and statistics use: everything outside team mode; in team
        mode what the connected login may see (the database decides)."""
        with store.engine.connect() as conn:
            prefix = team_prefix(conn)
        if prefix:
            return cls(store)
        review = cls.__new__(cls)
        review.store, review.prefix, review.viewer, review.role = store, None, "reports", "admin"
        return review

    @classmethod
    def assume(cls, store, viewer: str) -> Review:
        """``viewer`` before the database said who they are and what they may do, built without
        reading anything (a GUI reads the role off its GUI thread and shows this meanwhile): the
        least privilege, an annotator, outside team mode as far as known. Fit for reads an
        annotator may make (blinded outputs); every write is refused until the confirmed
        ``Review(store, viewer)`` replaces it (in team mode even the login is not known yet)."""
        review = cls.__new__(cls)
        review.store, review.prefix, review.viewer, review.role = store, None, viewer, "annotator"
        review.assumed = True
        return review

    @property
    def team(self) -> bool:
        return self.prefix is not None

    @property
    def sees_everything(self) -> bool:
        return sees_everything(self.role)

    @property
    def may_adjudicate(self) -> bool:
        return may_adjudicate(self.role)

    def _require_confirmed(self) -> None:
        if self.assumed:
            raise NotPermitted(f"{self.viewer} is still signing in: the database has not confirmed the role yet")

    def _require_adjudicator(self, what: str) -> None:
        self._require_confirmed()
        if not self.may_adjudicate:
            raise NotPermitted(f"only adjudicators {what}; {self.viewer} is an {self.role}")

    # -- rules ----------------------------------------------------------------------------

    @staticmethod
    def check(draft: Draft, kind: str, gold: Any = None) -> list[Problem]:
        """The protocol's rules applied to a draft (errors block the save; warnings do not)."""
        ops = len(make_patch(gold, draft.fixed_gold)) if draft.verdict == "fix" and draft.fixed_gold is not None \
            else 0
        return problems(draft, kind, ops)

    def rule(self, dataset_id: int) -> AgreementRule:
        with self.store.engine.connect() as conn:
            return AgreementRule.from_meta(conn.execute(select(ds_t.c.meta).where(ds_t.c.id == dataset_id)).scalar())

    def set_rule(self, dataset_id: int, rule: AgreementRule, blind_models: bool | None = None) -> None:
        """Set the dataset's agreement rule (adjudicators; applies to later first submissions)."""
        self._require_adjudicator("set the agreement rule")
        with self.store.engine.begin() as conn:
            meta = dict(conn.execute(select(ds_t.c.meta).where(ds_t.c.id == dataset_id)).scalar() or {})
            review = dict(meta.get("review") or {}, **rule.to_meta())
            if blind_models is not None:
                review["blind_models"] = blind_models
            meta["review"] = review
            conn.execute(ds_t.update().where(ds_t.c.id == dataset_id).values(meta=meta))
            audit.record(conn, self.viewer, "dataset", dataset_id, "review_rule", after=review)

    def outputs(self, item_id: int, dataset_id: int) -> list:
        """The item's outputs as this viewer may see them: blinded (see ``blind_outputs``) for an
        annotator when the dataset asks for it (``blind_models``), else with run and model names."""
        outputs = self.store.outputs(item_id)
        return blind_outputs(outputs, item_id) if self.blind_models(dataset_id) else outputs

    def blind_models(self, dataset_id: int) -> bool:
        """Whether this viewer sees a dataset's runs as "Output 1, 2, 3" (annotators, when the dataset asks)."""
        if self.sees_everything:
            return False
        with self.store.engine.connect() as conn:
            meta = conn.execute(select(ds_t.c.meta).where(ds_t.c.id == dataset_id)).scalar() or {}
        return bool((meta.get("review") or {}).get("blind_models"))

    # -- reads ------------------------------------------------------------------------------

    def stage(self, item_id: int) -> Stage:
        with self.store.engine.connect() as conn:
            return _stage(conn, item_id)

    def snapshot(self, item_id: int) -> ReviewSnapshot:
        """The item's review as this viewer may see it."""
        with self.store.engine.connect() as conn:
            stage = _stage(conn, item_id)
            version = conn.execute(select(item_t.c.version).where(item_t.c.id == item_id)).scalar()
            if version is None:
                raise NotFound(f"no item with id {item_id} (or it is not assigned to you)")
            stmt = select(ann_t).where(ann_t.c.item_id == item_id).order_by(ann_t.c.annotator)
            if not self.sees_everything:
                stmt = stmt.where(ann_t.c.annotator == self.viewer)
            anns = [to_view(r) for r in conn.execute(stmt)]
            firsts = {r.annotator: draft_of(r.first_submission) for r in conn.execute(
                select(ann_t.c.annotator, ann_t.c.first_submission).where(ann_t.c.item_id == item_id))} \
                if self.sees_everything else {}
            adj = _adjudication(conn, item_id) if self.sees_everything else None
        mine = next((a for a in anns if a.annotator == self.viewer), None)
        others = [a for a in anns if a.annotator != self.viewer] if self.sees_everything else []
        submitted = mine is not None and mine.draft.verdict is not None
        status = stage.label if self.sees_everything else annotator_status(stage, submitted)
        return ReviewSnapshot(item_id, stage, mine, others, adj, status, version, firsts)

    def reviewed_gold(self, item_id: int) -> ReviewedGold:
        """The gold the item's annotators reviewed (adjudicators only): the base their fixes were
        made against, which an adjudicator compares them with. Not the current gold: a settlement
        writes the settled gold, and an adjudicator may edit the gold while the item is disputed.

        Annotations do not store the gold they saw; the audit log holds every gold write with the
        gold before it (reviewer.review.gold.write_gold, and the team trigger's unanimous fix) and
        every annotation save, numbered in commit order (an annotation save and a gold write both
        lock the item). The gold an annotator saw at their latest save is the gold before the
        first gold write after that save, or the current gold when there was none. A settlement
        writes the gold after every save by construction (a settled item takes no more saves),
        even where the database logs it first (team mode: the unanimous fix is written by a
        trigger that runs before the one logging the save); an annotation with no logged save
        (written by another tool) counts as saved before the first settlement."""
        self._require_confirmed()
        if not self.sees_everything:
            raise NotPermitted(f"only adjudicators see the whole review of an item; {self.viewer} is an {self.role}")
        with self.store.engine.connect() as conn:
            current = conn.execute(select(item_t.c.gold).where(item_t.c.id == item_id)).first()
            if current is None:
                raise NotFound(f"no item with id {item_id}")
            return _reviewed_gold(conn, item_id, current.gold)

    def states(self, item_ids: list[int]) -> dict[int, ItemState]:
        """The Review column of the item table for these items."""
        ids = list(item_ids)
        if not ids:
            return {}
        with self.store.engine.connect() as conn:
            stages = dict(conn.execute(select(rev_t.c.item_id, rev_t.c.stage).where(rev_t.c.item_id.in_(ids))).all())
            stmt = select(ann_t.c.item_id, ann_t.c.annotator, ann_t.c.verdict).where(ann_t.c.item_id.in_(ids)) \
                .order_by(ann_t.c.item_id, ann_t.c.annotator)
            if not self.sees_everything:
                stmt = stmt.where(ann_t.c.annotator == self.viewer)
            anns: dict[int, list] = {}
            for r in conn.execute(stmt):
                anns.setdefault(r.item_id, []).append(r)
            settled = dict(conn.execute(select(adj_t.c.item_id, adj_t.c.verdict).where(adj_t.c.item_id.in_(ids)))
                           .all()) if self.sees_everything else {}
        out = {}
        for item_id in ids:
            stage = Stage(stages.get(item_id, Stage.NOT_ANNOTATED))
            rows = anns.get(item_id, [])
            mine = next((r.verdict for r in rows if r.annotator == self.viewer), None)
            if self.sees_everything:
                verdicts = tuple(r.verdict or "" for r in rows)
                label = stage.label
                if item_id in settled:
                    label += f": {settled[item_id]}"
                elif verdicts and any(verdicts):
                    label += f" ({' vs '.join(v or '—' for v in verdicts)})" if stage is Stage.DISPUTED else \
                        f" ({', '.join(v for v in verdicts if v)})"
            else:
                verdicts = ()
                status = annotator_status(stage, mine is not None)
                label = f"yours: {mine} · {status}" if mine else status
            out[item_id] = ItemState(stage, mine, verdicts, label)
        return out

    def queue(self, dataset_id: int) -> list[QueueEntry]:
        """The adjudicator's queue: disputed items, verdict disagreements first, then the
        most disagreement; reasons come from the first submissions."""
        self._require_adjudicator("see the adjudication queue")
        with self.store.engine.connect() as conn:
            rows = conn.execute(
                select(ann_t, item_t.c.record_id.label("record_id"))
                .join(item_t, item_t.c.id == ann_t.c.item_id)
                .join(rev_t, rev_t.c.item_id == item_t.c.id)
                .where(item_t.c.dataset_id == dataset_id, rev_t.c.stage == Stage.DISPUTED.value,
                       ann_t.c.first_key.is_not(None))
                .order_by(item_t.c.position, ann_t.c.id)
            ).all()
        by_item: dict[int, list] = {}
        for r in rows:
            by_item.setdefault(r.item_id, []).append(r)
        entries = []
        for item_id, anns in by_item.items():
            if len(anns) < 2:
                continue
            a, b = (draft_of(r.first_submission) for r in anns[:2])
            pa, pb = ((r.first_submission or {}).get("patch") for r in anns[:2])
            reasons = differences(a, b) or ["automatic settlement is off for this dataset"]
            entries.append(QueueEntry(item_id, anns[0].record_id, disagreement_score(a, b, pa, pb), reasons,
                                      a.verdict != b.verdict))
        entries.sort(key=lambda e: (not e.verdict_differs, -e.score))
        return entries

    def progress(self, dataset_id: int) -> Progress:
        with self.store.engine.connect() as conn:
            items = conn.execute(select(func.count()).select_from(item_t)
                                 .where(item_t.c.dataset_id == dataset_id)).scalar_one()
            mine = conn.execute(
                select(func.count()).select_from(ann_t.join(item_t, item_t.c.id == ann_t.c.item_id))
                .where(item_t.c.dataset_id == dataset_id, ann_t.c.annotator == self.viewer,
                       ann_t.c.verdict.is_not(None))
            ).scalar_one()
            by = dict(conn.execute(
                select(rev_t.c.stage, func.count()).join(item_t, item_t.c.id == rev_t.c.item_id)
                .where(item_t.c.dataset_id == dataset_id).group_by(rev_t.c.stage)).all())
        disputed, unanimous, adjudicated = (by.get(s.value, 0) for s in
                                            (Stage.DISPUTED, Stage.UNANIMOUS, Stage.ADJUDICATED))
        return Progress(items, mine, disputed + unanimous + adjudicated, disputed, unanimous + adjudicated, unanimous)

    def next_item(self, dataset_id: int, after_position: int = -1) -> int | None:
        """The next item (by position, wrapping around) this viewer has not submitted and that
        still takes reviews (not disputed, not settled); None when done."""
        mine = select(ann_t.c.item_id).where(ann_t.c.annotator == self.viewer, ann_t.c.verdict.is_not(None))
        stmt = (
            select(item_t.c.id, item_t.c.position)
            .outerjoin(rev_t, rev_t.c.item_id == item_t.c.id)
            .where(item_t.c.dataset_id == dataset_id, item_t.c.id.not_in(mine),
                   func.coalesce(rev_t.c.stage, Stage.NOT_ANNOTATED.value).in_(
                       [Stage.NOT_ANNOTATED.value, Stage.ONE_REVIEW.value]))
            .order_by(item_t.c.position)
        )
        with self.store.engine.connect() as conn:
            mine_assigned = select(asg_t.c.item_id).where(asg_t.c.dataset_id == dataset_id,
                                                          asg_t.c.annotator == self.viewer)
            if conn.execute(mine_assigned.limit(1)).first() is not None:  # a queue was assigned: follow it
                stmt = stmt.where(item_t.c.id.in_(mine_assigned))
            later = conn.execute(stmt.where(item_t.c.position > after_position).limit(1)).first()
            if later is None:
                later = conn.execute(stmt.limit(1)).first()
        return later.id if later else None

    # -- writes -----------------------------------------------------------------------------

    def annotate(self, item_id: int, draft: Draft, expected_version: int | None,
                 item_version: int | None = None) -> AnnotationView:
        """Save the viewer's annotation of the item; return it as stored.

        ``expected_version``: the annotation's version this save is based on (None: the first).
        ``item_version``: the item version whose gold the annotator saw (checked when given;
        a Fix always checks it). The first save with a verdict is the first submission: it is
        kept unchanged and, when it is the item's second, decides unanimous vs disputed.
        Raises ProtocolViolation (rules, settled item) or StaleWrite.
        """
        self._require_confirmed()
        with self.store.engine.begin() as conn:
            item = _lock_item(conn, item_id, self.team)
            if item_version is not None and item.version != item_version:
                raise StaleWrite(f"item {item_id}", item_version, item.version)
            if _stage(conn, item_id).settled:
                raise ProtocolViolation(f"item {item_id} is settled; its annotations can no longer be revised")
            patch = make_patch(item.gold, draft.fixed_gold) \
                if draft.verdict == "fix" and draft.fixed_gold is not None else None
            errors = [p for p in problems(draft, item.kind, len(patch or [])) if p.level == "error"]
            if errors:
                raise ProtocolViolation("; ".join(p.message for p in errors))
            existing = conn.execute(
                select(ann_t).where(ann_t.c.item_id == item_id, ann_t.c.annotator == self.viewer)).first()
            values = dict(
                verdict=draft.verdict, rubric=draft.rubric(), error_tags=list(draft.error_tags), note=draft.note,
                patch=patch, fixed_gold=draft.fixed_gold if draft.verdict == "fix" else None, updated_at=utcnow(),
            )
            version = 1 if existing is None else existing.version + 1
            first = draft.verdict is not None and (existing is None or existing.first_key is None)
            if first:  # in team mode the database rebuilds both from the row (reviewer_first_submission)
                rule = AgreementRule.from_meta(item.meta)
                values.update(first_submission=submission(draft, patch, version),
                              first_key=agreement_key(draft, rule, self.viewer))
            what = f"{self.viewer}'s annotation of item {item_id}"
            if existing is None:
                if expected_version is not None:
                    raise StaleWrite(what, expected_version, 0)
                conn.execute(ann_t.insert().values(item_id=item_id, annotator=self.viewer, version=1,
                                                   created_at=utcnow(), **values))
                before = None
            else:
                if expected_version != existing.version:
                    raise StaleWrite(what, expected_version or 0, existing.version)
                if conn.execute(ann_t.update().where(ann_t.c.id == existing.id,
                                                     ann_t.c.version == existing.version)
                                .values(version=version, **values)).rowcount != 1:
                    raise StaleWrite(what, expected_version, existing.version + 1)
                before = _audit_form(existing._mapping)
            row = conn.execute(select(ann_t).where(ann_t.c.item_id == item_id,
                                                   ann_t.c.annotator == self.viewer)).one()
            if not self.team:  # in team mode the database audits annotations (reviewer_audit_annotation)
                audit.record(conn, self.viewer, "annotation", row.id, "submit" if first else "annotate",
                             before=before, after=_audit_form(row._mapping))
            if first and not self.team:
                settle_after_submission(conn, item_id, item)
            elif not first and _stage(conn, item_id) is Stage.NOT_ANNOTATED and not self.team:
                pass  # a draft without a verdict does not move the item
            return to_view(row)

    def save(self, item_id: int, draft: Draft, expected_version: int | None, item_version: int | None = None,
             dataset_id: int | None = None, position: int | None = None, advance: bool = False) -> Saved:
        """One save as a panel needs it, in one call (a job body: the GUI runs it off its thread):
        ``annotate``, then the item's snapshot, the viewer's progress in ``dataset_id`` (when
        given) and, with ``advance``, the next item of the viewer's queue after ``position``."""
        view = self.annotate(item_id, draft, expected_version, item_version)
        snap = self.snapshot(item_id)
        progress = self.progress(dataset_id) if dataset_id is not None else None
        nxt = self.next_item(dataset_id, -1 if position is None else position) \
            if advance and dataset_id is not None else None
        return Saved(view, snap, progress, nxt, advance)

    def adjudicate(self, item_id: int, verdict: str, final_gold: Any, rationale: str, rubric: dict | None = None,
                   expected_version: int | None = None, item_version: int | None = None,
                   annotation_versions: dict[str, int] | None = None) -> AdjudicationView:
        """Settle an item (adjudicators only), with a rationale. The item's gold becomes
        ``final_gold`` for Fix; for Pass and Reject, the gold the annotators reviewed
        (``reviewed_gold``), whatever an earlier settlement or edit wrote since.

        Checks every version the adjudicator read: the adjudication's (``expected_version``,
        None when there was none), the item's (``item_version``, whose gold the final gold is
        based on) and each annotation's (``annotation_versions``, annotator -> version).
        """
        self._require_adjudicator("adjudicate")
        if verdict not in VERDICTS:
            raise ReviewerError(f"unknown verdict {verdict!r}")
        if not (rationale or "").strip():
            raise ProtocolViolation("an adjudication needs a rationale")
        decision = Draft.from_stored(verdict, rubric, [], "", None)
        errors = [p.message for p in problems(decision, "") if p.level == "error" and p.field != "fixed_gold"]
        if errors:  # the same rules as an annotation's (High ambiguity must be Fix or Reject...)
            raise ProtocolViolation("; ".join(errors))
        with self.store.engine.begin() as conn:
            item = _lock_item(conn, item_id, False)
            if item_version is not None and item.version != item_version:
                raise StaleWrite(f"item {item_id}", item_version, item.version)
            current = _adjudication(conn, item_id)
            seen = current.version if current else None
            if seen != expected_version:
                raise StaleWrite(f"the adjudication of item {item_id}", expected_version or 0, seen or 0)
            if annotation_versions is not None:
                now = dict(conn.execute(select(ann_t.c.annotator, ann_t.c.version)
                                        .where(ann_t.c.item_id == item_id)).all())
                for who in set(now) | set(annotation_versions):
                    if now.get(who) != annotation_versions.get(who):
                        raise StaleWrite(f"{who}'s annotation of item {item_id}", annotation_versions.get(who) or 0,
                                         now.get(who) or 0)
            if verdict != "fix":
                # Pass and Reject judge the gold the annotators reviewed, and it stands: not the current
                # gold, which a settlement as Fix (settled again now) or an edit in the dispute replaced.
                final_gold = _reviewed_gold(conn, item_id, item.gold).gold
            values = dict(verdict=verdict, final_gold=final_gold, rubric=rubric, adjudicator=self.viewer,
                          rationale=rationale, resolution="manual", updated_at=utcnow())
            if current is None:
                conn.execute(adj_t.insert().values(item_id=item_id, version=1, created_at=utcnow(), **values))
            elif conn.execute(adj_t.update().where(adj_t.c.item_id == item_id, adj_t.c.version == current.version)
                              .values(version=current.version + 1, **values)).rowcount != 1:
                raise StaleWrite(f"the adjudication of item {item_id}", current.version, current.version + 1)
            audit.record(conn, self.viewer, "adjudication", item_id, "adjudicate",
                         before=None if current is None else {"verdict": current.verdict,
                                                              "final_gold": current.final_gold},
                         after={"verdict": verdict, "final_gold": final_gold, "rationale": rationale})
            write_gold(conn, item_id, final_gold, self.viewer, item.version, f"adjudicated: {rationale}", settles=True)
            _set_stage(conn, item_id, Stage.ADJUDICATED)
            return _adjudication(conn, item_id)

    def set_gold(self, item_id: int, gold: Any, expected_version: int, reason: str = "") -> int:
        """Edit an item's gold directly (adjudicators only); return the new item version."""
        self._require_adjudicator("edit gold directly")
        with self.store.engine.begin() as conn:
            _lock_item(conn, item_id, False)
            return write_gold(conn, item_id, gold, self.viewer, expected_version, reason, skip_unchanged=False)


def _reviewed_gold(conn, item_id: int, current_gold: Any) -> ReviewedGold:
    """Review.reviewed_gold on an open connection (``current_gold``: the item's gold now)."""
    rows = conn.execute(select(ann_t.c.id, ann_t.c.annotator, ann_t.c.updated_at).where(
        ann_t.c.item_id == item_id, ann_t.c.verdict.is_not(None))).all()
    anns = {r.id: r.annotator for r in rows}
    # an annotation with no audit entry (written by another tool) is placed by its own timestamp
    saved_at = {r.id: r.updated_at for r in rows}
    # Entries under these ids from before a deletion that freed them are another row's (SQLite reuses ids).
    starts = audit.history_starts(conn, {"annotation": list(anns), "item": [item_id]})
    ann_from, item_from = starts["annotation"], starts["item"][item_id]
    saves: dict[int, int] = {}  # annotation id -> its latest save's audit id
    if anns:
        entries = conn.execute(select(audit_t.c.entity_id, audit_t.c.id).where(
            audit_t.c.entity == "annotation", audit_t.c.entity_id.in_(list(anns)))).all()
        for ann_id, entry_id in entries:
            if entry_id > ann_from[ann_id]:
                saves[ann_id] = max(saves.get(ann_id, 0), entry_id)
    writes = conn.execute(
        select(audit_t.c.id, audit_t.c.at, audit_t.c.actor, audit_t.c.before, audit_t.c.after)
        .where(audit_t.c.entity == "item", audit_t.c.entity_id == item_id, audit_t.c.action == "edit_gold",
               audit_t.c.id > item_from)
        .order_by(audit_t.c.id)).all()

    def settles(write) -> bool:
        after = write.after or {}
        if "settles" in after:  # written since write_gold says so
            return bool(after["settles"])
        # earlier entries: the settlement's reason (a direct edit's reason could read the same)
        return write.actor == "auto" or str(after.get("reason") or "").startswith("adjudicated")

    def came_after(write, ann_id: int) -> bool:
        if ann_id in saves:
            return write.id > saves[ann_id]
        return saved_at[ann_id] is not None and write.at is not None and write.at > saved_at[ann_id]

    def seen_at(ann_id: int) -> tuple[int, Any]:
        """(how many gold writes came before the annotation's latest save, the gold it saw)."""
        for n, write in enumerate(writes):
            if settles(write) or came_after(write, ann_id):
                return n, (write.before or {}).get("gold")
        return len(writes), current_gold

    seen = {name: seen_at(ann_id) for ann_id, name in anns.items()}
    latest = max(seen.values(), key=lambda s: s[0], default=(len(writes), current_gold))
    return ReviewedGold(latest[1], {name: gold for name, (_at, gold) in seen.items()})


def _audit_form(m) -> dict:
    return {k: m[k] for k in ("item_id", "annotator", "verdict", "rubric", "error_tags", "note", "patch",
                              "fixed_gold", "version")}


def disagreement_score(a: Draft, b: Draft, patch_a: list | None = None, patch_b: list | None = None) -> float:
    """How far apart two submissions are: the verdict weighs most, then the fixes'
    content, then each rubric field (ambiguity by ordinal distance), then error tags."""
    score = 4.0 if a.verdict != b.verdict else 0.0
    checks = set(a.checks) | set(b.checks)
    score += sum(a.checks.get(c) != b.checks.get(c) for c in checks)
    if a.ambiguity in AMBIGUITY and b.ambiguity in AMBIGUITY:
        score += abs(AMBIGUITY.index(a.ambiguity) - AMBIGUITY.index(b.ambiguity))
    elif a.ambiguity != b.ambiguity:
        score += 1
    score += a.difficulty != b.difficulty
    if a.verdict == b.verdict == "fix" and a.fixed_gold != b.fixed_gold:
        pa, pb = touched_paths(patch_a), touched_paths(patch_b)
        score += 2 + len(pa ^ pb) / max(1, len(pa | pb))
    ta, tb = set(a.error_tags), set(b.error_tags)
    if ta | tb:
        score += len(ta ^ tb) / len(ta | tb)
    return score


def blind_numbers(outputs: list, item_id: int) -> dict[int, int]:
    """run id -> its number ("Output N") for an annotator blind to model identity: the item's
    runs in an order shuffled per item (seeded by the item, so stable across visits)."""
    import random

    runs = sorted({o.run_id for o in outputs})
    random.Random(f"blind-{item_id}").shuffle(runs)
    return {run_id: i + 1 for i, run_id in enumerate(runs)}


def blind_outputs(outputs: list, item_id: int) -> list:
    """Outputs as an annotator blind to model identity sees them (Appendix D): each run becomes
    "Output 1, 2, 3..." in an order shuffled per item (seeded by the item, so stable across
    visits), with run and model names removed, and the identifying keys of ``extra``
    (reviewer.team.masking.IDENTITY_KEYS). ``outputs`` are store OutputViews."""
    from dataclasses import replace

    number = blind_numbers(outputs, item_id)
    from reviewer.team.masking import IDENTITY_KEYS

    blinded = [replace(o, run=f"Output {number[o.run_id]}", model=None,
                       extra={k: v for k, v in (o.extra or {}).items() if k not in IDENTITY_KEYS}) for o in outputs]
    return sorted(blinded, key=lambda o: (number[o.run_id], o.replication))
