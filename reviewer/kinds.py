"""The kinds of benchmark item reviewer understands (see shared/FORMATS.md).

The kind decides which scorer, which item layout and which gold editor apply.
"""

from enum import StrEnum


class ItemKind(StrEnum):
    TOOL_QA = "tool_qa"  # tool response + question + answer (paper 000)
    EXTRACTION = "extraction"  # text -> nested JSON (paper 001, DeepJSONEval)
    CALL_CHAIN = "call_chain"  # nested tool-call chains (paper 004, NesTools)
    SCHEMA_GEN = "schema_gen"  # schema-constrained generation (paper 003)
    FUNCTION_CALL = "function_call"  # BFCL v3 function calling with possible answers
    TOOL_SELECT = "tool_select"  # tool selection, NLT YES/NO (paper 002)


def difficulty_from_depth(depth: int | None) -> str | None:
    """DeepJSONEval's difficulty rule: depth 3-4 is Medium, 5-7 is Hard."""
    if depth is None:
        return None
    return "Hard" if depth >= 5 else "Medium"
