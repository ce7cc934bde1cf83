"""The call graph fills its view: fitted when shown and resized (within readable
zoom limits), Ctrl+wheel zoom sticks until a double-click fits it again."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from reviewer_ui.callchain import align_calls
from reviewer_ui.widgets.call_graph import MAX_FIT, MIN_FIT, CallGraphView

WEATHER = [{"api_name": "get_weather", "parameters": {"city": "Lisbon", "unit": "celsius"}}]
CHAIN = [  # three calls, each consuming the previous one's response: three columns
    {"api_name": "find_flight", "parameters": {"origin": "LIS", "to": "OPO"}, "responses": ["API_call_0"]},
    {"api_name": "book_flight", "parameters": {"flight": "API_call_0"}, "responses": ["API_call_1"]},
    {"api_name": "send_receipt", "parameters": {"booking": "API_call_1"}, "responses": ["API_call_2"]},
]


@pytest.fixture
def graph(qtbot):
    view = CallGraphView()
    qtbot.addWidget(view)
    view.resize(500, 600)
    view.show()
    qtbot.waitExposed(view)
    return view


def _scale(graph) -> float:
    return graph.transform().m11()


def _on_screen(graph):
    """The drawn graph's rectangle in viewport pixels."""
    return graph.mapFromScene(graph.scene().itemsBoundingRect()).boundingRect()


def test_a_one_call_graph_is_enlarged_to_fill_the_view_and_stays_whole(graph):
    graph.show_chain(align_calls(WEATHER, WEATHER), "gold")
    assert _scale(graph) > 1.3, "one call in a 500 px view is drawn larger than 100%"
    shown, view = _on_screen(graph), graph.viewport().rect()
    assert view.contains(shown), "the whole graph is visible"
    assert shown.width() > 0.8 * view.width() or _scale(graph) == MAX_FIT


def test_a_wide_graph_shrinks_with_the_view_but_not_below_the_readable_minimum(qtbot, graph):
    graph.resize(750, 600)
    qtbot.waitUntil(lambda: graph.viewport().width() > 700, timeout=3000)
    graph.show_chain(align_calls(CHAIN, CHAIN), "gold")
    assert len(graph.edge_items) == 2
    wide = _scale(graph)
    assert MIN_FIT < wide < 1.0, "three columns do not fit 750 px at 100%"
    assert graph.viewport().rect().contains(_on_screen(graph))
    graph.resize(1400, 600)
    qtbot.waitUntil(lambda: _scale(graph) > wide, timeout=3000)
    graph.resize(260, 200)  # still wider than tall: three columns cannot fit 260 px
    qtbot.waitUntil(lambda: _scale(graph) == MIN_FIT, timeout=3000)  # then it scrolls


def test_a_graph_drawn_while_hidden_is_fitted_when_shown(qtbot, graph):
    graph.hide()
    graph.resize(900, 700)
    graph.show_chain(align_calls(WEATHER, WEATHER), "gold")
    graph.show()
    qtbot.waitExposed(graph)
    assert _scale(graph) == pytest.approx(graph.fit_scale()) and _scale(graph) > 1.3


def test_ctrl_wheel_zoom_sticks_until_a_double_click_fits_again(qtbot, graph):
    graph.show_chain(align_calls(CHAIN, CHAIN), "gold")
    fitted = _scale(graph)
    centre = graph.viewport().rect().center()
    wheel = QWheelEvent(QPointF(centre), QPointF(graph.viewport().mapToGlobal(centre)), QPoint(0, 0),
                        QPoint(0, 120), Qt.MouseButton.NoButton, Qt.KeyboardModifier.ControlModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(graph.viewport(), wheel)
    assert _scale(graph) == pytest.approx(fitted * 1.15)
    graph.resize(800, 600)
    qtbot.waitUntil(lambda: graph.viewport().width() > 700, timeout=3000)
    assert _scale(graph) == pytest.approx(fitted * 1.15), "a resize keeps the user's zoom"
    qtbot.mouseDClick(graph.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert _scale(graph) == pytest.approx(graph.fit_scale()) and _scale(graph) > fitted


def test_a_tall_view_stacks_the_layers_and_no_edge_crosses_a_box(qtbot, graph):
    graph.resize(260, 700)  # the pane beside the review dock: tall and narrow
    qtbot.waitUntil(lambda: graph.viewport().height() > 600, timeout=3000)
    graph.show_chain(align_calls(CHAIN, CHAIN), "gold")
    assert graph.vertical
    tops = [b.top() for b in graph.boxes]
    assert tops == sorted(tops) and len(set(b.left() for b in graph.boxes)) == 1  # one above the other
    assert _scale(graph) >= 0.8, "readable at the zoom that fits it"
    from PySide6.QtGui import QPainterPathStroker

    stroker = QPainterPathStroker()
    stroker.setWidth(1.0)
    for edge in graph.edge_items:
        line = stroker.createStroke(edge.path())  # the drawn line, not the area it encloses
        for box in graph.boxes:
            assert not line.intersects(box.adjusted(2, 2, -2, -2)), "an edge runs across a box"
    graph.resize(900, 400)  # wide again: columns
    qtbot.waitUntil(lambda: not graph.vertical, timeout=3000)
