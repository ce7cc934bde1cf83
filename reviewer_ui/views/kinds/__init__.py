"""One item layout per kind (reviewer.kinds.ItemKind); ``layout_for`` picks it."""

from __future__ import annotations

from reviewer.kinds import ItemKind
from reviewer_ui.views.kinds.base import GenericLayout, KindLayout
from reviewer_ui.views.kinds.call_chain import CallChainLayout
from reviewer_ui.views.kinds.extraction import ExtractionLayout
from reviewer_ui.views.kinds.function_call import FunctionCallLayout
from reviewer_ui.views.kinds.schema_gen import SchemaGenLayout
from reviewer_ui.views.kinds.tool_qa import ToolQaLayout
from reviewer_ui.views.kinds.tool_select import ToolSelectLayout

LAYOUTS: dict[str, type[KindLayout]] = {
    ItemKind.TOOL_QA: ToolQaLayout,
    ItemKind.EXTRACTION: ExtractionLayout,
    ItemKind.CALL_CHAIN: CallChainLayout,
    ItemKind.SCHEMA_GEN: SchemaGenLayout,
    ItemKind.TOOL_SELECT: ToolSelectLayout,
    ItemKind.FUNCTION_CALL: FunctionCallLayout,
}


def layout_class(kind: str) -> type[KindLayout]:
    return LAYOUTS.get(kind, GenericLayout)
