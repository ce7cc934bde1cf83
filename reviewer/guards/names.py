"""The guards' names and labels, importable without loading any guard (the CLI's parser uses them)."""

GUARD_NAMES = ("schema", "constraints", "grounding", "length", "gold_program", "leakage")
LABELS = {"schema": "Schema", "constraints": "Constraints", "grounding": "Grounding", "length": "Length",
          "gold_program": "Gold program", "leakage": "Leakage"}
