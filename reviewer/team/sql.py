"""The SQL that makes a PostgreSQL schema a team database (``reviewer team init``).

Rights are PostgreSQL roles (``<prefix>annotator``, ``<prefix>adjudicator``,
``<prefix>admin``) granted to logins; blindness and assignment are row-level
security policies, so they hold for any client (the app, the CLI, psql).

What an annotator can read and write, per table:

=================  ==========================================================
annotation         read/insert/update only their own rows (annotator =
                   current_user), insert only on items assigned to them;
                   UPDATE on the app's columns only (no table lock); the
                   first submission and its agreement key are built by the
                   database from the row and then frozen; settled items
                   refuse revisions
item               read only items assigned to them; no write; a save holds
                   its item (reviewer_lock_item, assigned items only)
item_review        read the stage of assigned items (columns item_id, stage,
                   version, updated_at); no write (the trigger writes)
adjudication       nothing (no privilege at all)
assignment         read their own rows
audit_log          read only entries whose actor = current_user; no write
                   (their saves are audited by a trigger)
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
sequences          USAGE on annotation_id_seq only (no SELECT: no last_value)
dataset, person,   read
guard_settings
=================  ==========================================================

Adjudicators read everything, write adjudications, item gold and stages; admins
also import (dataset, item, run, output, score, blob) and assign.

Automatic settlement needs a comparison of two annotations no annotator may read:
the trigger ``reviewer_after_submission`` runs as its owner (SECURITY DEFINER)
and compares only the agreement keys, which the database computes itself
(``reviewer_agreement_key``, equal exactly when reviewer.review.protocol's are).
The definer functions belong to ``<prefix>definer``, a NOLOGIN non-superuser role,
and search ``<schema>, pg_catalog, pg_temp`` (see the section at the end).
Re-running ``team init`` upgrades a team database in place.
"""

from __future__ import annotations

from reviewer.team.masking import statements as masking_statements

ROLE_NAMES = ("annotator", "adjudicator", "admin")
DEFAULT_PREFIX = "reviewer_"
# The NOLOGIN, non-superuser role that owns the SECURITY DEFINER functions (not a member role).
DEFINER_ROLE = "definer"
# The columns of ``annotation`` the app updates (reviewer.review.core.Review.annotate).
ANNOTATION_UPDATABLE = ("verdict", "rubric", "error_tags", "note", "patch", "fixed_gold", "version",
                        "first_submission", "first_key", "updated_at")
# Tables the definer functions read or write; each has a policy letting the definer role through RLS.
_DEFINER_RLS_TABLES = ("annotation", "item", "item_review", "audit_log", "assignment")


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
        # sequences: annotators only draw annotation ids (no SELECT: last_value would show others'
        # activity); the audit rows of their saves are written by a definer trigger (teamfix hole 12)
        f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {schema} FROM {ann}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {deciders}",
        f"GRANT USAGE ON SEQUENCE {schema}.annotation_id_seq TO {ann}",
        f"GRANT SELECT ON reviewer_team, reviewer_schema, dataset, item, run, output, score, blob, person, "
        f"assignment, audit_log TO {everyone}",
        # UPDATE on the columns the app writes only: table-level UPDATE would let anyone
        # LOCK annotation IN ACCESS EXCLUSIVE MODE and stall everyone (teamfix hole 6)
        f"REVOKE UPDATE ON annotation FROM {everyone}",
        f"GRANT SELECT, INSERT ON annotation TO {everyone}",
        f"GRANT UPDATE ({', '.join(ANNOTATION_UPDATABLE)}) ON annotation TO {everyone}",
        # annotators write no audit rows themselves: their saves are logged by the trigger
        # reviewer_audit_annotation (teamfix hole 10); deciders' actions by the core
        f"REVOKE INSERT ON audit_log FROM {ann}",
        f"GRANT INSERT ON audit_log TO {deciders}",
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
        # quality guards' results carry gold values: the assignment rule of item (teamfix hole 8)
        *guard_result_policies(schema, ann, deciders),
        # blind to model identity: run names and models through views (reviewer.team.masking)
        *masking_statements(schema, ann),
        # the definer functions and triggers, owned by a dedicated role (teamfix holes 1-5, 9, 10)
        *definer_statements(prefix, schema),
        # a dataset's review settings (blind to model identity, the agreement rule) and the
        # assignments change what an annotator's open window shows: announced like stage changes
        "DROP TRIGGER IF EXISTS reviewer_notify_dataset ON dataset",
        f"CREATE TRIGGER reviewer_notify_dataset AFTER UPDATE ON dataset "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {schema}.reviewer_notify_review()",
        "DROP TRIGGER IF EXISTS reviewer_notify_assignment ON assignment",
        f"CREATE TRIGGER reviewer_notify_assignment AFTER INSERT OR UPDATE OR DELETE ON assignment "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {schema}.reviewer_notify_review()",
    ]
    return stmts


# ============================================================================================
# teamfix (issue 16, red-team holes 8): row-level security of the quality guards' results
# ============================================================================================

def guard_result_policies(schema: str, ann: str, deciders: str) -> list[str]:
    """check_result and guard_override follow item's assignment rule: a guard's details and
    summary may quote the gold (the grounding guard does), so annotators see only the rows of
    items assigned to them; adjudicators and admins see and write all."""
    out = []
    for table in ("check_result", "guard_override"):
        out += [
            f"ALTER TABLE {schema}.{table} ENABLE ROW LEVEL SECURITY",
            f"DROP POLICY IF EXISTS assigned_{table} ON {schema}.{table}",
            f"CREATE POLICY assigned_{table} ON {schema}.{table} FOR SELECT TO {ann} USING (EXISTS "
            f"(SELECT 1 FROM {schema}.assignment a WHERE a.item_id = {table}.item_id AND a.annotator = current_user))",
            f"DROP POLICY IF EXISTS deciders_{table} ON {schema}.{table}",
            f"CREATE POLICY deciders_{table} ON {schema}.{table} FOR ALL TO {deciders} USING (true) WITH CHECK (true)",
        ]
    return out


# ============================================================================================
# teamfix (issue 16, red-team holes 1-5, 9, 10): the SECURITY DEFINER functions
#
# - owned by ``<prefix>definer``, a NOLOGIN non-superuser role with exactly the rights the
#   functions need (and RLS policies letting it through), never by whoever ran `team init`;
# - ``SET search_path = <schema>, pg_catalog, pg_temp`` and every name schema-qualified, so a
#   caller's temporary tables or functions never stand in for ours (holes 1-3);
# - the database builds the first submission from the row's own columns and computes its
#   agreement key itself (reviewer_agreement_key, a port of reviewer.review.protocol.
#   agreement_key), whatever the client sent (holes 4, 5); two Fixes agree only when their
#   gold is the same, whatever the rule (hole 9);
# - annotators' saves are audited by a trigger, with the database's clock and the row's
#   owner as actor; annotators insert no audit rows themselves (hole 10).
# ============================================================================================

def definer_statements(prefix: str, schema: str) -> list[str]:
    owner = role(prefix, DEFINER_ROLE)
    s = schema
    functions = ("reviewer_canonical_json(json)", "reviewer_agreement_key(json, json, text)",
                 "reviewer_first_submission()", "reviewer_annotation_guard()", "reviewer_after_submission()",
                 "reviewer_audit_annotation()", "reviewer_notify_review()", "reviewer_audit_stamp()",
                 "reviewer_lock_item(bigint)")
    out = [
        f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{owner}') "
        f"THEN CREATE ROLE {owner} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT; END IF; END $$",
        # a non-superuser running `team init` must be able to hand its functions over (and replace them later)
        f"DO $$ BEGIN IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) "
        f"THEN EXECUTE 'GRANT {owner} TO ' || quote_ident(current_user); END IF; END $$",
        f"GRANT USAGE ON SCHEMA {s} TO {owner}",
        f"GRANT SELECT ON {s}.annotation, {s}.item, {s}.dataset, {s}.item_review, {s}.adjudication, "
        f"{s}.assignment TO {owner}",
        f"GRANT UPDATE ON {s}.item TO {owner}",
        f"GRANT INSERT, UPDATE ON {s}.item_review TO {owner}",
        f"GRANT INSERT, DELETE ON {s}.adjudication TO {owner}",
        f"GRANT INSERT ON {s}.audit_log TO {owner}",
        f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA {s} TO {owner}",
    ]
    for table in _DEFINER_RLS_TABLES:
        out += [f"DROP POLICY IF EXISTS definer_{table} ON {s}.{table}",
                f"CREATE POLICY definer_{table} ON {s}.{table} FOR ALL TO {owner} USING (true) WITH CHECK (true)"]
    out += [_CANONICAL.format(s=s), _KEY.format(s=s), _FIRST.format(s=s), _GUARD.format(s=s), _AFTER.format(s=s),
            _AUDIT.format(s=s), _NOTIFY.format(s=s), _LOCK.format(s=s),
            _STAMP.format(s=s, roles=", ".join(f"'{role(prefix, n)}'" for n in ROLE_NAMES))]
    for f in functions:
        out += [f"ALTER FUNCTION {s}.{f} OWNER TO {owner}", f"REVOKE ALL ON FUNCTION {s}.{f} FROM PUBLIC"]
    everyone = ", ".join(role(prefix, n) for n in ROLE_NAMES)
    out.append(f"GRANT EXECUTE ON FUNCTION {s}.reviewer_audit_stamp() TO {everyone}")
    # every role: adjudicators and admins annotate the items assigned to them too
    out.append(f"GRANT EXECUTE ON FUNCTION {s}.reviewer_lock_item(bigint) TO {everyone}")
    triggers = (
        ("reviewer_annotation_guard", "BEFORE UPDATE", "annotation"),
        ("reviewer_first_submission", "BEFORE INSERT OR UPDATE", "annotation"),
        ("reviewer_after_submission", "AFTER INSERT OR UPDATE", "annotation"),
        ("reviewer_audit_annotation", "AFTER INSERT OR UPDATE", "annotation"),
        ("reviewer_notify_review", "AFTER INSERT OR UPDATE", "item_review"),
        ("reviewer_audit_stamp", "BEFORE INSERT", "audit_log"),
    )
    for name, when, table in triggers:
        out += [f"DROP TRIGGER IF EXISTS {name} ON {s}.{table}",
                f"CREATE TRIGGER {name} {when} ON {s}.{table} FOR EACH ROW EXECUTE FUNCTION {s}.{name}()"]
    # upgrade in place: keys stored by clients before this version are recomputed by the database
    # (the triggers that freeze them are off for this one statement, inside init's transaction)
    out += [
        f"ALTER TABLE {s}.annotation DISABLE TRIGGER USER",
        f"UPDATE {s}.annotation a SET first_key = {s}.reviewer_agreement_key(a.first_submission, d.meta, a.annotator) "
        f"FROM {s}.item i JOIN {s}.dataset d ON d.id = i.dataset_id "
        f"WHERE i.id = a.item_id AND a.first_submission IS NOT NULL",
        f"ALTER TABLE {s}.annotation ENABLE TRIGGER USER",
    ]
    return out


# A JSON value as canonical text: equal texts iff Python's json.loads gives equal values that
# json.dumps(sort_keys=True) writes the same way (object keys deduplicated, last one wins, and
# sorted; strings unescaped then re-escaped; integers exact; floats as doubles, always written
# with a '.', 'e' or 'Infinity' so that 1.0 and 1 stay different, as in Python).
_CANONICAL = r"""
CREATE OR REPLACE FUNCTION {s}.reviewer_canonical_json(j json) RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp SET extra_float_digits = 1 AS $$
DECLARE t text; out text;
BEGIN
  CASE json_typeof(j)
  WHEN 'object' THEN
    SELECT '{{' || coalesce(string_agg(to_jsonb(e.k)::text || ':' || {s}.reviewer_canonical_json(e.v), ','
                                       ORDER BY e.k COLLATE "C"), '') || '}}'
      INTO out
      FROM (SELECT DISTINCT ON (x.k COLLATE "C") x.k, x.v FROM json_each(j) WITH ORDINALITY AS x(k, v, n)
            ORDER BY x.k COLLATE "C", x.n DESC) e;
    RETURN out;
  WHEN 'array' THEN
    SELECT '[' || coalesce(string_agg({s}.reviewer_canonical_json(e.v), ',' ORDER BY e.n), '') || ']'
      INTO out FROM json_array_elements(j) WITH ORDINALITY AS e(v, n);
    RETURN out;
  WHEN 'string' THEN
    BEGIN
      RETURN to_jsonb(j #>> '{{}}')::text;
    EXCEPTION WHEN others THEN  -- \u0000 has no text form in PostgreSQL: keep the escaped text
      RETURN j::text;
    END;
  WHEN 'number' THEN
    t := btrim(j::text);
    IF t !~ '[.eE]' THEN
      RETURN t::numeric::text;
    END IF;
    BEGIN
      out := t::float8::text;
    EXCEPTION WHEN others THEN  -- beyond a double: Python reads Infinity or 0.0
      out := CASE WHEN abs(t::numeric) < 1 THEN '0.0' ELSE 'Infinity' END;
      IF left(t, 1) = '-' THEN out := '-' || out; END IF;
    END;
    IF out !~ '[.en]' THEN out := out || '.0'; END IF;
    RETURN out;
  ELSE
    RETURN btrim(j::text);  -- true, false, null (SQL NULL in, SQL NULL out)
  END CASE;
END $$
"""

# reviewer.review.protocol.agreement_key computed by the database: the rule comes from the
# dataset's meta (AgreementRule.from_meta), the submission is the row's first submission.
# Keys are equal iff the Python keys of the same submissions are equal (not the same digest).
_KEY = r"""
CREATE OR REPLACE FUNCTION {s}.reviewer_agreement_key(sub json, meta json, who text) RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = {s}, pg_catalog, pg_temp AS $$
DECLARE review json; fields json; setting json; rubric_on bool; auto bool; verdict json; rub json; body text;
BEGIN
  IF json_typeof(meta) = 'object' AND json_typeof(meta -> 'review') = 'object' THEN
    review := meta -> 'review';
  END IF;
  fields := review -> 'agreement';
  rubric_on := fields IS NULL OR json_typeof(fields) = 'null'
    OR (json_typeof(fields) = 'array' AND EXISTS (SELECT 1 FROM json_array_elements(fields) f
                                                  WHERE f::text = '"rubric"'))
    OR (json_typeof(fields) = 'string' AND position('rubric' IN fields #>> '{{}}') > 0);
  setting := review -> 'auto_settle';
  auto := CASE json_typeof(setting)  -- Python truthiness of review.get("auto_settle", True)
          WHEN 'boolean' THEN (setting #>> '{{}}')::boolean
          WHEN 'null' THEN false
          WHEN 'number' THEN (setting #>> '{{}}')::numeric <> 0
          WHEN 'string' THEN (setting #>> '{{}}') <> ''
          WHEN 'array' THEN json_array_length(setting) > 0
          WHEN 'object' THEN EXISTS (SELECT 1 FROM json_each(setting))
          ELSE true END;
  IF json_typeof(sub) = 'object' AND json_typeof(sub -> 'verdict') = 'string' THEN
    verdict := sub -> 'verdict';
  END IF;
  body := '{{"verdict":' || coalesce({s}.reviewer_canonical_json(verdict), 'null');
  IF rubric_on THEN
    IF json_typeof(sub) = 'object' AND json_typeof(sub -> 'rubric') = 'object' THEN
      SELECT json_object_agg(e.k, e.v) INTO rub
        FROM (SELECT DISTINCT ON (x.k COLLATE "C") x.k, x.v FROM json_each(sub -> 'rubric') WITH ORDINALITY
              AS x(k, v, n) ORDER BY x.k COLLATE "C", x.n DESC) e
       WHERE json_typeof(e.v) <> 'null';
    END IF;
    body := body || ',"rubric":' || coalesce({s}.reviewer_canonical_json(rub), '{{}}');
  END IF;
  IF verdict::text = '"fix"' THEN  -- always: two Fixes with different gold never agree (no single gold)
    body := body || ',"fix":' || coalesce({s}.reviewer_canonical_json(sub -> 'fixed_gold'), 'null');
  END IF;
  IF NOT auto THEN
    body := body || ',"annotator":' || to_jsonb(who)::text;
  END IF;
  RETURN encode(sha256(convert_to(body || '}}', 'UTF8')), 'hex');
END $$
"""

# The first submission and its key, built by the database from the row itself (the client's
# first_submission and first_key are ignored); the shape the app writes is checked.
_FIRST = r"""
CREATE OR REPLACE FUNCTION {s}.reviewer_first_submission() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {s}, pg_catalog, pg_temp AS $$
DECLARE meta json;
BEGIN
  IF NEW.verdict IS NOT NULL AND NEW.verdict NOT IN ('pass', 'fix', 'reject') THEN
    RAISE EXCEPTION 'unknown verdict %', NEW.verdict USING ERRCODE = 'check_violation';
  END IF;
  IF coalesce(json_typeof(NEW.rubric), 'null') NOT IN ('object', 'null') THEN
    RAISE EXCEPTION 'an annotation''s rubric is a JSON object' USING ERRCODE = 'check_violation';
  END IF;
  IF coalesce(json_typeof(NEW.error_tags), 'null') NOT IN ('array', 'null')
     OR (json_typeof(NEW.error_tags) = 'array'
         AND EXISTS (SELECT 1 FROM json_array_elements(NEW.error_tags) t WHERE json_typeof(t) <> 'string')) THEN
    RAISE EXCEPTION 'an annotation''s error tags are a JSON array of strings' USING ERRCODE = 'check_violation';
  END IF;
  IF TG_OP = 'UPDATE' AND OLD.first_submission IS NOT NULL THEN
    NEW.first_submission := OLD.first_submission;
    NEW.first_key := OLD.first_key;
    RETURN NEW;
  END IF;
  IF NEW.verdict IS NULL THEN  -- a draft: no submission yet
    NEW.first_submission := NULL;
    NEW.first_key := NULL;
    RETURN NEW;
  END IF;
  NEW.first_submission := json_build_object(
    'verdict', NEW.verdict, 'rubric', NEW.rubric, 'error_tags', NEW.error_tags, 'note', NEW.note,
    'fixed_gold', CASE WHEN NEW.verdict = 'fix' THEN NEW.fixed_gold END, 'patch', NEW.patch,
    'version', NEW.version);
  SELECT d.meta INTO meta FROM {s}.item i JOIN {s}.dataset d ON d.id = i.dataset_id WHERE i.id = NEW.item_id;
  NEW.first_key := {s}.reviewer_agreement_key(NEW.first_submission, meta, NEW.annotator);
  RETURN NEW;
END $$
"""
def _assigned_reads(ann: str, deciders: str, assigned: str) -> list[str]:
    """What an annotator reads of scores and blobs: only what belongs to their assigned items
    (guard results: guard_result_policies). A blob holds a tool response or source text, a score's output is an item's,
    a guard result quotes the item's gold and source: readable for every item, they would show
    an annotator the items not assigned to them.

    Each policy is an EXISTS probe over indexed columns per row read, so a page of items costs
    index look-ups, not scans (bench/team_rls_bench.py). A score carries its output's item
    (score.item_id, which only the database writes: reviewer.store.migrations.score_keys), so
    its probe is item's own assignment rule on that column: one look-up per score, and for a
    statement reading many scores (a run's, stored_results) PostgreSQL hashes the annotator's
    assignments once instead. A blob → item by context_hash / schema_hash → assignment."""
    stmts = [
        # the look-ups the blob policy makes (a blob is found by the items that point at it)
        "CREATE INDEX IF NOT EXISTS ix_item_context_hash ON item (context_hash)",
        "CREATE INDEX IF NOT EXISTS ix_item_schema_hash ON item (schema_hash)",
    ]
    # A blob is readable when an item the annotator may read points at it: item's row-level
    # security (assigned items only) applies inside the probe too, so it is one look-up plus
    # item's assignment probe, and the rules cannot drift apart. A score's item is its own
    # column: the assignment rule of item (and output) applied to it directly.
    probes = {
        "score": assigned.format(col="score.item_id"),
        "blob": "EXISTS (SELECT 1 FROM item i WHERE i.context_hash = blob.hash) "
                "OR EXISTS (SELECT 1 FROM item i WHERE i.schema_hash = blob.hash)",
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
CREATE OR REPLACE FUNCTION {s}.reviewer_annotation_guard() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {s}, pg_catalog, pg_temp AS $$
BEGIN
  IF OLD.first_key IS NOT NULL THEN
    NEW.first_key := OLD.first_key;
    NEW.first_submission := OLD.first_submission;
  END IF;
  NEW.annotator := OLD.annotator;
  NEW.item_id := OLD.item_id;
  IF EXISTS (SELECT 1 FROM {s}.item_review r WHERE r.item_id = NEW.item_id
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
CREATE OR REPLACE FUNCTION {s}.reviewer_after_submission() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {s}, pg_catalog, pg_temp AS $$
DECLARE
  cur text; n int; k int; fs json; rub json; names text; next_stage text;
  it record;
BEGIN
  IF NEW.first_key IS NULL OR (TG_OP = 'UPDATE' AND OLD.first_key IS NOT NULL) THEN
    RETURN NULL;
  END IF;
  SELECT gold, version INTO it FROM {s}.item WHERE id = NEW.item_id FOR UPDATE;
  SELECT stage INTO cur FROM {s}.item_review WHERE item_id = NEW.item_id;
  IF cur IS NOT NULL AND cur NOT IN ('not_annotated', 'one_review') THEN
    RETURN NULL;
  END IF;
  SELECT count(*), count(DISTINCT s.first_key), string_agg(s.annotator, ', ' ORDER BY s.id)
    INTO n, k, names
    FROM (SELECT id, annotator, first_key FROM {s}.annotation
          WHERE item_id = NEW.item_id AND first_key IS NOT NULL ORDER BY id LIMIT 2) s;
  IF n < 2 THEN
    next_stage := 'one_review';
  ELSIF k = 1 THEN
    next_stage := 'unanimous';
    SELECT first_submission INTO fs FROM {s}.annotation
      WHERE item_id = NEW.item_id AND first_key IS NOT NULL ORDER BY id LIMIT 1;
    SELECT s.first_submission -> 'rubric' INTO rub
      FROM (SELECT id, first_submission FROM {s}.annotation
            WHERE item_id = NEW.item_id AND first_key IS NOT NULL ORDER BY id LIMIT 2) s
      ORDER BY CASE s.first_submission -> 'rubric' ->> 'ambiguity'
               WHEN 'high' THEN 3 WHEN 'medium' THEN 2 WHEN 'low' THEN 1 ELSE 0 END DESC, s.id
      LIMIT 1;
    DELETE FROM {s}.adjudication WHERE item_id = NEW.item_id;
    INSERT INTO {s}.adjudication (item_id, adjudicator, verdict, final_gold, rubric, rationale, resolution,
                                  version, created_at, updated_at)
    VALUES (NEW.item_id, NULL, fs ->> 'verdict',
            CASE WHEN fs ->> 'verdict' = 'fix' THEN fs -> 'fixed_gold' ELSE it.gold END, rub,
            'unanimous: both annotators (' || names || ') agreed', 'auto', 1,
            now(), now());
    INSERT INTO {s}.audit_log (at, actor, entity, entity_id, action, before, after)
    VALUES (now(), 'auto', 'adjudication', NEW.item_id, 'unanimous', NULL,
            json_build_object('verdict', fs ->> 'verdict'));
    IF fs ->> 'verdict' = 'fix' AND (it.gold::jsonb IS DISTINCT FROM (fs -> 'fixed_gold')::jsonb) THEN
      UPDATE {s}.item SET gold = fs -> 'fixed_gold',
                      gold_edited = ((fs -> 'fixed_gold')::jsonb IS DISTINCT FROM coalesce(original_gold, gold)::jsonb),
                      version = version + 1
        WHERE id = NEW.item_id;
      INSERT INTO {s}.audit_log (at, actor, entity, entity_id, action, before, after)
      VALUES (now(), 'auto', 'item', NEW.item_id, 'edit_gold',
              json_build_object('gold', it.gold, 'version', it.version),
              json_build_object('gold', fs -> 'fixed_gold', 'version', it.version + 1, 'reason', 'unanimous fix'));
    END IF;
  ELSE
    next_stage := 'disputed';
  END IF;
  INSERT INTO {s}.item_review (item_id, stage, version, updated_at)
  VALUES (NEW.item_id, next_stage, 1, now())
  ON CONFLICT (item_id) DO UPDATE SET stage = EXCLUDED.stage, version = {s}.item_review.version + 1,
                                      updated_at = EXCLUDED.updated_at;
  RETURN NULL;
END $$
"""

# The audit entry of every annotation save in team mode (the core writes none there): the
# database's clock, the row's owner as actor (RLS made it current_user), "submit" for the first
# submission; an update that changes nothing leaves no entry.
_AUDIT = r"""
CREATE OR REPLACE FUNCTION {s}.reviewer_audit_annotation() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {s}, pg_catalog, pg_temp AS $$
DECLARE before json; after json;
BEGIN
  after := json_build_object('item_id', NEW.item_id, 'annotator', NEW.annotator, 'verdict', NEW.verdict,
                             'rubric', NEW.rubric, 'error_tags', NEW.error_tags, 'note', NEW.note,
                             'patch', NEW.patch, 'fixed_gold', NEW.fixed_gold, 'version', NEW.version);
  IF TG_OP = 'UPDATE' THEN
    before := json_build_object('item_id', OLD.item_id, 'annotator', OLD.annotator, 'verdict', OLD.verdict,
                                'rubric', OLD.rubric, 'error_tags', OLD.error_tags, 'note', OLD.note,
                                'patch', OLD.patch, 'fixed_gold', OLD.fixed_gold, 'version', OLD.version);
    IF before::text = after::text AND OLD.first_key IS NOT DISTINCT FROM NEW.first_key THEN
      RETURN NULL;
    END IF;
  END IF;
  INSERT INTO {s}.audit_log (at, actor, entity, entity_id, action, before, after)
  VALUES (now(), NEW.annotator, 'annotation', NEW.id,
          CASE WHEN NEW.first_key IS NOT NULL AND (TG_OP = 'INSERT' OR OLD.first_key IS NULL)
               THEN 'submit' ELSE 'annotate' END,
          before, after);
  RETURN NULL;
END $$
"""

# A team member's audit entry carries who they are and when, as the database knows it: the
# actor is the login (current_user), the time the database's. Entries of the definer functions
# ("auto") and of the schema's owner (a superuser running imports or `team init`) are kept as
# written. SECURITY INVOKER: it must see the caller as current_user.
_STAMP = r"""
CREATE OR REPLACE FUNCTION {s}.reviewer_audit_stamp() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER SET search_path = {s}, pg_catalog, pg_temp AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = current_user AND NOT r.rolsuper)
     AND EXISTS (SELECT 1 FROM pg_catalog.pg_roles g WHERE g.rolname IN ({roles})
                 AND pg_catalog.pg_has_role(current_user, g.oid, 'MEMBER')) THEN
    NEW.actor := current_user;
    NEW.at := pg_catalog.now();
  END IF;
  RETURN NEW;
END $$
"""

# Live updates: every stage change, dataset setting and assignment change is announced on channel
# "reviewer" (reviewer.review.live).
_NOTIFY = r"""
CREATE OR REPLACE FUNCTION {s}.reviewer_notify_review() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {s}, pg_catalog, pg_temp AS $$
BEGIN
  PERFORM pg_notify('reviewer', '');  -- no payload: listeners re-read what they may see
  RETURN NULL;
END $$
"""


# An annotator's save reads the item's gold (to make a Fix's patch and check the version seen) and
# must hold the item while it does, as outside team mode (reviewer.review.core._lock_item): else a
# gold edit committed between that read and the save is logged before the save, and the audit log
# (which decides the gold the annotators reviewed) says the annotator saw the edited gold.
# Annotators may not lock rows themselves (FOR UPDATE needs UPDATE on item), so the definer does,
# only for items assigned to the login (session_user: current_user is the definer here). FOR
# UPDATE, not FOR SHARE: the submission trigger takes FOR UPDATE later in the same transaction, and
# two annotators holding share locks would deadlock there. Settled items are not locked: no save
# can follow, and a hold would only stall (or make deadlock victims of) the deciders' writes.
# Waiters give up after reviewer.review.core.ITEM_LOCK_WAIT_S, so a hold from an idle psql session
# stalls no one for long. Returns whether the item was locked.
_LOCK = r"""
CREATE OR REPLACE FUNCTION {s}.reviewer_lock_item(target bigint) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {s}, pg_catalog, pg_temp AS $$
BEGIN
  PERFORM 1 FROM {s}.item i
    WHERE i.id = target
      AND EXISTS (SELECT 1 FROM {s}.assignment a WHERE a.item_id = target AND a.annotator = session_user)
      AND NOT EXISTS (SELECT 1 FROM {s}.item_review r WHERE r.item_id = target
                      AND r.stage IN ('unanimous', 'adjudicated'))
    FOR UPDATE OF i;
  RETURN FOUND;
END $$
"""
