"""The SQL that makes a PostgreSQL schema a team database (``reviewer team init``).

Rights are PostgreSQL roles (``<prefix>annotator``, ``<prefix>adjudicator``,
``<prefix>admin``) granted to logins; blindness and assignment are row-level
security policies, so they hold for any client (the app, the CLI, psql).

What an annotator can read and write, per table:

=================  ==========================================================
annotation         read/insert/update only their own rows (annotator =
                   current_user), insert only on items assigned to them; the
                   first submission is frozen by a trigger, settled items
                   refuse revisions
item               read only items assigned to them; no write
item_review        read the stage of assigned items (columns item_id, stage,
                   version, updated_at); no write (the trigger writes)
adjudication       nothing (no privilege at all)
assignment         read their own rows
audit_log          read and write only entries whose actor = current_user
output             read outputs of assigned items only; not raw / extra
                   (the blind view shows them, less identifying keys)
run                id, dataset_id, format, created_at only; names, models and
                   settings through the view <schema>_blind.run, which hides
                   them for datasets blind to model identity
                   (reviewer.team.masking)
score              read scores of outputs of assigned items only
blob               read only the blobs (tool responses, source texts, schemas)
                   that an assigned item points at
check_result,      read the guards' results and overrides of assigned items
guard_override     only (they quote the item's gold and source)
dataset, person,   read
guard_settings
=================  ==========================================================

Adjudicators read everything, write adjudications, item gold and stages; admins
also import (dataset, item, run, output, score, blob) and assign.

Automatic settlement needs a comparison of two annotations no annotator may read:
the trigger ``reviewer_after_submission`` runs as its owner (SECURITY DEFINER)
and compares only the agreement keys computed by reviewer.review.protocol.
"""

from __future__ import annotations

from reviewer.team.masking import statements as masking_statements

ROLE_NAMES = ("annotator", "adjudicator", "admin")
DEFAULT_PREFIX = "reviewer_"


def role(prefix: str, name: str) -> str:
    return f"{prefix}{name}"


def init_statements(prefix: str, schema: str) -> list[str]:
    ann, adj, adm = (role(prefix, n) for n in ROLE_NAMES)
    everyone = f"{ann}, {adj}, {adm}"
    deciders = f"{adj}, {adm}"
    assigned = ("EXISTS (SELECT 1 FROM assignment a WHERE a.item_id = {col} AND a.annotator = current_user)")
    stmts = []
    for r in (ann, adj, adm):
        stmts.append(f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{r}') "
                     f"THEN CREATE ROLE {r} NOLOGIN; END IF; END $$")
    stmts += [
        "CREATE TABLE IF NOT EXISTS reviewer_team (prefix varchar(60) NOT NULL)",
        "DELETE FROM reviewer_team",
        f"INSERT INTO reviewer_team (prefix) VALUES ('{prefix}')",
        f"GRANT USAGE ON SCHEMA {schema} TO {everyone}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {everyone}",
        f"GRANT SELECT ON reviewer_team, reviewer_schema, dataset, item, run, output, score, blob, person, "
        f"assignment, audit_log TO {everyone}",
        f"GRANT SELECT, INSERT, UPDATE ON annotation TO {everyone}",
        f"GRANT INSERT ON audit_log TO {everyone}",
        f"GRANT SELECT (item_id, stage, version, updated_at) ON item_review TO {ann}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON item_review, adjudication TO {deciders}",
        f"GRANT UPDATE ON item, dataset TO {deciders}",
        f"GRANT INSERT, UPDATE, DELETE ON run, output, score TO {deciders}",
        f"GRANT INSERT, UPDATE, DELETE ON dataset, item, blob, assignment, person TO {adm}",
        # quality guards (reviewer.guards): results and overrides are read by everyone; written by
        # those who may change gold (results follow gold) and settle items; settings by admins.
        f"GRANT SELECT ON check_result, guard_override, guard_settings TO {everyone}",
        f"GRANT INSERT, UPDATE, DELETE ON check_result, guard_override TO {deciders}",
        f"GRANT INSERT, UPDATE, DELETE ON guard_settings TO {adm}",
        # row-level security
        "ALTER TABLE annotation ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS own_annotations ON annotation",
        f"CREATE POLICY own_annotations ON annotation FOR ALL TO {everyone} USING (annotator = current_user) "
        f"WITH CHECK (annotator = current_user AND {assigned.format(col='annotation.item_id')})",
        "DROP POLICY IF EXISTS deciders_read_annotations ON annotation",
        f"CREATE POLICY deciders_read_annotations ON annotation FOR SELECT TO {deciders} USING (true)",
        "ALTER TABLE item ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS assigned_items ON item",
        f"CREATE POLICY assigned_items ON item FOR SELECT TO {ann} USING ({assigned.format(col='item.id')})",
        "DROP POLICY IF EXISTS deciders_items ON item",
        f"CREATE POLICY deciders_items ON item FOR ALL TO {deciders} USING (true) WITH CHECK (true)",
        "ALTER TABLE item_review ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS assigned_stages ON item_review",
        f"CREATE POLICY assigned_stages ON item_review FOR SELECT TO {ann} "
        f"USING ({assigned.format(col='item_review.item_id')})",
        "DROP POLICY IF EXISTS deciders_stages ON item_review",
        f"CREATE POLICY deciders_stages ON item_review FOR ALL TO {deciders} USING (true) WITH CHECK (true)",
        "ALTER TABLE output ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS assigned_outputs ON output",
        f"CREATE POLICY assigned_outputs ON output FOR SELECT TO {ann} USING ({assigned.format(col='output.item_id')})",
        "DROP POLICY IF EXISTS deciders_outputs ON output",
        f"CREATE POLICY deciders_outputs ON output FOR ALL TO {deciders} USING (true) WITH CHECK (true)",
        *_assigned_reads(ann, deciders, assigned),
        "ALTER TABLE assignment ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS own_assignments ON assignment",
        f"CREATE POLICY own_assignments ON assignment FOR SELECT TO {ann} USING (annotator = current_user)",
        "DROP POLICY IF EXISTS deciders_assignments ON assignment",
        f"CREATE POLICY deciders_assignments ON assignment FOR ALL TO {deciders} USING (true) WITH CHECK (true)",
        "ALTER TABLE audit_log ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS own_audit ON audit_log",
        f"CREATE POLICY own_audit ON audit_log FOR ALL TO {everyone} USING (actor = current_user) "
        "WITH CHECK (actor = current_user)",
        "DROP POLICY IF EXISTS deciders_audit ON audit_log",
        f"CREATE POLICY deciders_audit ON audit_log FOR SELECT TO {deciders} USING (true)",
        _GUARD, _AFTER,
        "DROP TRIGGER IF EXISTS reviewer_annotation_guard ON annotation",
        "CREATE TRIGGER reviewer_annotation_guard BEFORE UPDATE ON annotation "
        "FOR EACH ROW EXECUTE FUNCTION reviewer_annotation_guard()",
        "DROP TRIGGER IF EXISTS reviewer_after_submission ON annotation",
        "CREATE TRIGGER reviewer_after_submission AFTER INSERT OR UPDATE ON annotation "
        "FOR EACH ROW EXECUTE FUNCTION reviewer_after_submission()",
        f"REVOKE ALL ON FUNCTION reviewer_after_submission() FROM PUBLIC",
        # blind to model identity: run names and models through views (reviewer.team.masking)
        *masking_statements(schema, ann),
        "DROP TRIGGER IF EXISTS reviewer_notify_review ON item_review",
        _NOTIFY,
        "CREATE TRIGGER reviewer_notify_review AFTER INSERT OR UPDATE ON item_review "
        "FOR EACH ROW EXECUTE FUNCTION reviewer_notify_review()",
        # a dataset's review settings (blind to model identity, the agreement rule) and the
        # assignments change what an annotator's open window shows: announced the same way
        "DROP TRIGGER IF EXISTS reviewer_notify_dataset ON dataset",
        "CREATE TRIGGER reviewer_notify_dataset AFTER UPDATE ON dataset "
        "FOR EACH STATEMENT EXECUTE FUNCTION reviewer_notify_review()",
        "DROP TRIGGER IF EXISTS reviewer_notify_assignment ON assignment",
        "CREATE TRIGGER reviewer_notify_assignment AFTER INSERT OR UPDATE OR DELETE ON assignment "
        "FOR EACH STATEMENT EXECUTE FUNCTION reviewer_notify_review()",
    ]
    return stmts


def _assigned_reads(ann: str, deciders: str, assigned: str) -> list[str]:
    """What an annotator reads of scores, blobs and guard results: only what belongs to their
    assigned items. A blob holds a tool response or source text, a score's output is an item's,
    a guard result quotes the item's gold and source: readable for every item, they would show
    an annotator the items not assigned to them.

    Each policy is one EXISTS probe over indexed columns per row read (score → output by primary
    key → assignment by item_id; blob → item by context_hash / schema_hash → the same), so a
    page of items costs index look-ups, not scans (bench/team_rls_bench.py)."""
    stmts = [
        # the look-ups the blob policy makes (a blob is found by the items that point at it)
        "CREATE INDEX IF NOT EXISTS ix_item_context_hash ON item (context_hash)",
        "CREATE INDEX IF NOT EXISTS ix_item_schema_hash ON item (schema_hash)",
    ]
    # "Readable" is what the annotator may read of output and item themselves: their row-level
    # security (assigned items only) applies inside these probes too, so each probe is one
    # look-up plus that rule's assignment probe, and the rules cannot drift apart.
    probes = {
        "score": "EXISTS (SELECT 1 FROM output o WHERE o.id = score.output_id)",
        "blob": "EXISTS (SELECT 1 FROM item i WHERE i.context_hash = blob.hash) "
                "OR EXISTS (SELECT 1 FROM item i WHERE i.schema_hash = blob.hash)",
        "check_result": assigned.format(col="check_result.item_id"),
        "guard_override": assigned.format(col="guard_override.item_id"),
    }
    for table, probe in probes.items():
        stmts += [
            f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
            f"DROP POLICY IF EXISTS assigned_{table} ON {table}",
            f"CREATE POLICY assigned_{table} ON {table} FOR SELECT TO {ann} USING ({probe})",
            f"DROP POLICY IF EXISTS deciders_{table} ON {table}",
            f"CREATE POLICY deciders_{table} ON {table} FOR ALL TO {deciders} USING (true) WITH CHECK (true)",
        ]
    return stmts


# Annotations keep their first submission and their owner; settled items take no revisions.
_GUARD = r"""
CREATE OR REPLACE FUNCTION reviewer_annotation_guard() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
  IF OLD.first_key IS NOT NULL THEN
    NEW.first_key := OLD.first_key;
    NEW.first_submission := OLD.first_submission;
  END IF;
  NEW.annotator := OLD.annotator;
  NEW.item_id := OLD.item_id;
  IF EXISTS (SELECT 1 FROM item_review r WHERE r.item_id = NEW.item_id
             AND r.stage IN ('unanimous', 'adjudicated')) THEN
    RAISE EXCEPTION 'item % is settled; its annotations can no longer be revised', NEW.item_id
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$
"""

# The state machine's transition at a first submission (reviewer.review.core.settle_after_submission
# does the same outside team mode): the first two first submissions decide unanimous vs disputed.
_AFTER = r"""
CREATE OR REPLACE FUNCTION reviewer_after_submission() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
  cur text; n int; k int; fs json; rub json; names text; next_stage text;
  it record;
BEGIN
  IF NEW.first_key IS NULL OR (TG_OP = 'UPDATE' AND OLD.first_key IS NOT NULL) THEN
    RETURN NULL;
  END IF;
  SELECT gold, original_gold, version INTO it FROM item WHERE id = NEW.item_id FOR UPDATE;
  SELECT stage INTO cur FROM item_review WHERE item_id = NEW.item_id;
  IF cur IS NOT NULL AND cur NOT IN ('not_annotated', 'one_review') THEN
    RETURN NULL;
  END IF;
  SELECT count(*), count(DISTINCT s.first_key), string_agg(s.annotator, ', ' ORDER BY s.id)
    INTO n, k, names
    FROM (SELECT id, annotator, first_key FROM annotation
          WHERE item_id = NEW.item_id AND first_key IS NOT NULL ORDER BY id LIMIT 2) s;
  IF n < 2 THEN
    next_stage := 'one_review';
  ELSIF k = 1 THEN
    next_stage := 'unanimous';
    SELECT first_submission INTO fs FROM annotation
      WHERE item_id = NEW.item_id AND first_key IS NOT NULL ORDER BY id LIMIT 1;
    SELECT s.first_submission -> 'rubric' INTO rub
      FROM (SELECT id, first_submission FROM annotation
            WHERE item_id = NEW.item_id AND first_key IS NOT NULL ORDER BY id LIMIT 2) s
      ORDER BY CASE s.first_submission -> 'rubric' ->> 'ambiguity'
               WHEN 'high' THEN 3 WHEN 'medium' THEN 2 WHEN 'low' THEN 1 ELSE 0 END DESC, s.id
      LIMIT 1;
    DELETE FROM adjudication WHERE item_id = NEW.item_id;
    INSERT INTO adjudication (item_id, adjudicator, verdict, final_gold, rubric, rationale, resolution,
                              version, created_at, updated_at)
    VALUES (NEW.item_id, NULL, fs ->> 'verdict',
            CASE WHEN fs ->> 'verdict' = 'fix' THEN fs -> 'fixed_gold' ELSE it.gold END, rub,
            'unanimous: both annotators (' || names || ') agreed', 'auto', 1,
            now() AT TIME ZONE 'utc', now() AT TIME ZONE 'utc');
    INSERT INTO audit_log (at, actor, entity, entity_id, action, before, after)
    VALUES (now() AT TIME ZONE 'utc', 'auto', 'adjudication', NEW.item_id, 'unanimous', NULL,
            json_build_object('verdict', fs ->> 'verdict'));
    IF fs ->> 'verdict' = 'fix' AND (it.gold::jsonb IS DISTINCT FROM (fs -> 'fixed_gold')::jsonb) THEN
      UPDATE item SET gold = fs -> 'fixed_gold',
                      gold_edited = ((fs -> 'fixed_gold')::jsonb IS DISTINCT FROM original_gold::jsonb),
                      version = version + 1
        WHERE id = NEW.item_id;
      INSERT INTO audit_log (at, actor, entity, entity_id, action, before, after)
      VALUES (now() AT TIME ZONE 'utc', 'auto', 'item', NEW.item_id, 'edit_gold',
              json_build_object('gold', it.gold, 'version', it.version),
              json_build_object('gold', fs -> 'fixed_gold', 'version', it.version + 1, 'reason', 'unanimous fix'));
    END IF;
  ELSE
    next_stage := 'disputed';
  END IF;
  INSERT INTO item_review (item_id, stage, version, updated_at)
  VALUES (NEW.item_id, next_stage, 1, now() AT TIME ZONE 'utc')
  ON CONFLICT (item_id) DO UPDATE SET stage = EXCLUDED.stage, version = item_review.version + 1,
                                      updated_at = EXCLUDED.updated_at;
  RETURN NULL;
END $$
"""

# Live updates: every stage change, dataset setting and assignment change is announced on channel
# "reviewer" (reviewer.review.live).
_NOTIFY = r"""
CREATE OR REPLACE FUNCTION reviewer_notify_review() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM pg_notify('reviewer', '');  -- no payload: listeners re-read what they may see
  RETURN NULL;
END $$
"""
