"""A dataset's guard settings: constraint rules and thresholds, stored with the dataset.

Stored as one JSON object in ``guard_settings`` (one row per dataset); missing keys
take the defaults below, so older rows keep working when a setting is added.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from sqlalchemy import select

from reviewer.errors import ReviewerError
from reviewer.guards.tables import GuardSettings
from reviewer.store.models import utcnow

settings_t = GuardSettings.__table__

# Paper 001, Appendix D: "source text (or evidence bundle) must have at least 1500 words".
PAPER_MIN_WORDS = 1500


@dataclass
class Settings:
    # Constraint rules, one per string (grammar: reviewer.guards.constraints).
    rules: list[str] = field(default_factory=list)
    # Length compliance: minimum words in the source; None = the kind's default
    # (1500 for text-to-JSON extraction as in the paper, off for other kinds); 0 = off.
    min_words: int | None = None
    # Leakage audit: word n-gram size of the shingles, MinHash permutations, and the
    # Jaccard similarity at or above which a pair is flagged, per comparison set.
    ngram: int = 5
    num_perm: int = 128
    near_duplicate: float = 0.8
    prompt_similarity: float = 0.5
    corpus_similarity: float = 0.5
    corpus_dir: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict | None) -> Settings:
        known = {f.name for f in fields(cls)}
        data = data or {}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ReviewerError(f"unknown guard setting(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        s = cls(**{k: v for k, v in data.items() if k in known})
        s.validate()
        return s

    def validate(self) -> None:
        from reviewer.guards.constraints import parse_rule

        if not isinstance(self.rules, list) or not all(isinstance(r, str) for r in self.rules):
            raise ReviewerError("guard setting 'rules' must be a list of rule strings")
        for n, rule in enumerate(self.rules):
            parse_rule(rule, where=f"rule {n + 1}")
        if self.min_words is not None and (not isinstance(self.min_words, int) or self.min_words < 0):
            raise ReviewerError("guard setting 'min_words' must be a whole number >= 0 (0 turns the check off)")
        for name in ("near_duplicate", "prompt_similarity", "corpus_similarity"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0 < value <= 1:
                raise ReviewerError(f"guard setting {name!r} must be a similarity in (0, 1], not {value!r}")
        if not isinstance(self.ngram, int) or not 1 <= self.ngram <= 20:
            raise ReviewerError("guard setting 'ngram' must be a whole number from 1 to 20")
        if not isinstance(self.num_perm, int) or not 16 <= self.num_perm <= 1024:
            raise ReviewerError("guard setting 'num_perm' must be a whole number from 16 to 1024")

    def min_words_for(self, kind: str) -> int:
        if self.min_words is not None:
            return self.min_words
        return PAPER_MIN_WORDS if kind == "extraction" else 0


def load(conn, dataset_id: int) -> Settings:
    row = conn.execute(select(settings_t.c.settings).where(settings_t.c.dataset_id == dataset_id)).first()
    return Settings.from_dict(row[0] if row else None)


def save(conn, dataset_id: int, settings: Settings) -> None:
    """Validate and store (replacing) the dataset's settings."""
    settings.validate()
    values = {"settings": settings.to_dict(), "updated_at": utcnow()}
    updated = conn.execute(settings_t.update().where(settings_t.c.dataset_id == dataset_id).values(**values)).rowcount
    if not updated:
        conn.execute(settings_t.insert().values(dataset_id=dataset_id, **values))


def has_settings(conn, dataset_id: int) -> bool:
    return conn.execute(select(settings_t.c.dataset_id).where(settings_t.c.dataset_id == dataset_id)).first() is not None


def update(store, dataset_id: int, actor: str = "settings", **changes: Any) -> Settings:
    """Change some settings of a dataset (validated, audited) and return them all."""
    from reviewer.store import audit

    with store.engine.begin() as conn:
        before = load(conn, dataset_id)
        after = Settings.from_dict({**before.to_dict(), **changes})
        save(conn, dataset_id, after)
        audit.record(conn, actor, "dataset", dataset_id, "guard_settings", before=before.to_dict(),
                     after=after.to_dict())
    return after
