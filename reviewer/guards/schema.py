"""Schema validator (paper 001, Appendix D): the gold parses and matches its item's JSON Schema.

Folds in the check the release rule runs (reviewer.review.release): the schema's
declared draft (the latest when none), formats not asserted, every failure named by
its JSON path; a schema that cannot be used is described by the scorers' shared
check (reviewer.scoring.schema_check).
Applies to items whose schema describes the gold (text-to-JSON extraction); a tool
response's schema (tool QA) describes the response, not the answer.
"""

from __future__ import annotations

import json

import jsonschema

from reviewer.errors import json_path
from reviewer.guards.base import FAIL, PASS, GuardItem, GuardResult
from reviewer.guards.settings import Settings
from reviewer.scoring import schema_check

MAX_ERRORS = 5


class SchemaGuard:
    name = "schema"
    label = "Schema"
    version = 1

    def applies(self, item: GuardItem, settings: Settings) -> bool:
        return item.kind == "extraction" and bool(item.schema)

    def inputs(self, item: GuardItem, settings: Settings):
        return [item.gold, item.schema]

    def check(self, item: GuardItem, settings: Settings) -> GuardResult:
        # As the release rule did: validate without first checking the schema against its
        # metaschema (that costs ~40 ms per distinct schema, and every DeepJSONEval item has
        # its own); only when validation breaks is the schema itself examined, to say why.
        try:
            schema = json.loads(item.schema)
            v = jsonschema.validators.validator_for(schema)(schema)
            errors = sorted(v.iter_errors(item.gold), key=lambda e: [str(p) for p in e.absolute_path])
        except Exception:  # noqa: BLE001  (a broken schema can fail in many ways; schema_check names it)
            failure = schema_check.validator(item.schema)
            message = failure.describe() if isinstance(failure, schema_check.SchemaFailure) else \
                "the schema cannot be used for validation"
            return GuardResult(self.name, FAIL, message, {"errors": [{"path": "$", "message": message}]})
        if not errors:
            return GuardResult(self.name, PASS, "the gold matches its schema")
        shown = [{"path": json_path(e.absolute_path), "message": e.message[:300]} for e in errors[:MAX_ERRORS]]
        first = shown[0]
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        return GuardResult(self.name, FAIL, f"schema: {first['path']}: {first['message'][:120]}{more}",
                           {"errors": shown, "count": len(errors)})
