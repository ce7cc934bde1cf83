"""One item layout per kind (reviewer.kinds.ItemKind); ``layout_for`` picks it."""

from __future__ import annotations

from reviewer.kinds import ItemKind
from ui.views.kinds.base import GenericLayout, KindLayout
from ui.views.kinds.call_chain import CallChainLayout
from ui.views.kinds.extraction import ExtractionLayout
from ui.views.kinds.function_call import FunctionCallLayout
from ui.views.kinds.schema_gen import SchemaGenLayout
from ui.views.kinds.tool_qa import ToolQaLayout
from ui.views.kinds.tool_select import ToolSelectLayout

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
