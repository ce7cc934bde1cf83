"""Blind to model identity, held by PostgreSQL: what an annotator reads of runs and outputs.

Paper 001 (Appendix D) wants annotators blind to which model wrote an output when the
dataset asks for it (``dataset.meta.review.blind_models``). In a team database that must
hold for psql too, so the database enforces it:

- annotators have no SELECT on the identifying columns of ``run`` (name, source, model,
  setup, endpoint, config) nor on ``output.raw`` / ``output.extra`` (a predictions file's
  own fields may name the model): column privileges, so ``select * from run`` is refused;
- a schema ``<schema>_blind`` holds security-barrier views ``run`` and ``output`` owned by
  the team's owner. They show names as usual for datasets that are not blind, and for
  blind ones ``run <id>`` with no model or settings, and outputs without their raw record
  and without the identifying keys of ``extra`` (IDENTITY_KEYS). The output view keeps the
  assignment rule of the ``output`` table's row-level security (it runs as its owner);
- an annotator's connections read with ``search_path = <schema>_blind, <schema>``
  (``use_masked_reads``), so every query of the core reads through the views unchanged.

Adjudicators and admins read the tables themselves. The core blinds further per item
("Output 1, 2, 3" in a shuffled order: reviewer.review.core.blind_outputs).
"""

from __future__ import annotations

# Keys of an output's ``extra`` that may name the model or its run (a predictions file's own
# fields, a rerun's response metadata). Dropped for annotators of blind datasets, in the
# database's views and in the core's blinded outputs alike.
IDENTITY_KEYS = ("model", "model_name", "model_id", "run", "run_name", "endpoint", "provider", "system_fingerprint",
                 "config", "setup", "source", "deployment", "engine")

RUN_OPEN_COLUMNS = ("id", "dataset_id", "format", "created_at")  # what an annotator may read of ``run`` itself
RUN_MASKED_COLUMNS = ("name", "source", "model", "setup", "endpoint", "config")
OUTPUT_HIDDEN_COLUMNS = ("raw", "extra")


def masked_schema(schema: str) -> str:
    """The schema of the annotators' views for the team schema ``schema``."""
    return f"{schema[:57]}_blind"


def _blind(ds: str) -> str:
    return f"coalesce({ds}.meta -> 'review' ->> 'blind_models', 'false') = 'true'"


def statements(schema: str, annotator: str) -> list[str]:
    """The grants and views that make runs and outputs blind for ``annotator`` (a role)."""
    from reviewer.store.models import Output, Run

    mask = masked_schema(schema)
    run_cols = [c.name for c in Run.__table__.columns]
    out_cols = [c.name for c in Output.__table__.columns]
    assert set(RUN_OPEN_COLUMNS) | set(RUN_MASKED_COLUMNS) == set(run_cols), "run has a column not classified"
    open_out = [c for c in out_cols if c not in OUTPUT_HIDDEN_COLUMNS]

    def run_col(c: str) -> str:
        if c == "name":
            return f"CASE WHEN {_blind('d')} THEN 'run ' || r.id ELSE r.name END AS name"
        if c in RUN_MASKED_COLUMNS:
            return f"CASE WHEN {_blind('d')} THEN NULL ELSE r.{c} END AS {c}"
        return f"r.{c}"

    strip = "".join(f" - '{k}'" for k in IDENTITY_KEYS)

    def out_col(c: str) -> str:
        if c == "raw":
            return f"CASE WHEN {_blind('d')} THEN NULL ELSE o.raw END AS raw"
        if c == "extra":
            return f"CASE WHEN {_blind('d')} THEN (o.extra::jsonb{strip})::json ELSE o.extra END AS extra"
        return f"o.{c}"

    return [
        f"REVOKE SELECT ON run, output FROM {annotator}",
        f"GRANT SELECT ({', '.join(RUN_OPEN_COLUMNS)}) ON run TO {annotator}",
        f"GRANT SELECT ({', '.join(open_out)}) ON output TO {annotator}",
        f"CREATE SCHEMA IF NOT EXISTS {mask}",
        f"GRANT USAGE ON SCHEMA {mask} TO {annotator}",
        f"CREATE OR REPLACE VIEW {mask}.run WITH (security_barrier) AS SELECT "
        + ", ".join(run_col(c) for c in run_cols)
        + f" FROM {schema}.run r JOIN {schema}.dataset d ON d.id = r.dataset_id",
        f"CREATE OR REPLACE VIEW {mask}.output WITH (security_barrier) AS SELECT "
        + ", ".join(out_col(c) for c in out_cols)
        + f" FROM {schema}.output o JOIN {schema}.run r ON r.id = o.run_id"
          f" JOIN {schema}.dataset d ON d.id = r.dataset_id"
          f" WHERE EXISTS (SELECT 1 FROM {schema}.assignment a WHERE a.item_id = o.item_id"
          f" AND a.annotator = current_user)",
        f"REVOKE ALL ON {mask}.run, {mask}.output FROM PUBLIC",
        f"GRANT SELECT ON {mask}.run, {mask}.output TO {annotator}",
    ]


def use_masked_reads(engine) -> bool:
    """Make an annotator's connections to a team database read runs and outputs through the
    blind views (see the module docstring); True when it did. Nothing changes for other
    databases and roles. Called once when a store opens."""
    if engine.dialect.name != "postgresql":
        return False
    from sqlalchemy import event, text

    from reviewer.review.core import team_identity, team_prefix

    with engine.connect() as conn:
        prefix = team_prefix(conn)
        if prefix is None or team_identity(conn, prefix)[1] != "annotator":
            return False
        schema = conn.execute(text("select current_schema()")).scalar()
        mask = masked_schema(schema)
        if conn.execute(text("select to_regclass(:v)"), {"v": f"{mask}.run"}).scalar() is None:
            return False  # a team database initialised before blind views existed: `team init` again adds them
    path = f'"{mask}", "{schema}"'

    def on_connect(dbapi_conn, _record) -> None:
        with dbapi_conn.cursor() as cur:
            cur.execute(f"SET search_path TO {path}")
        dbapi_conn.commit()

    event.listen(engine, "connect", on_connect)
    engine.dispose()  # connections opened before read the tables themselves
    return True
