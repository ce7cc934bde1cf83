"""The agreement panel shows what the core computes, live, and exports it."""

from __future__ import annotations

import json
from html import escape

from reviewer.agreement.document import fmt_estimate
from reviewer.agreement.report import build_report
from reviewer.review.annotate import save_annotation
from reviewer.review.ratings import ratings_for
from reviewer.review.rubric import Draft
from tests.ui.agreement.conftest import BAD, annotate_skewed, annotate_unanimous, rate, rows_of


def table_cells(table) -> dict[tuple[str, str], object]:
    """(row label, column header) -> the QTableWidgetItem."""
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    return {(table.item(r, 0).text(), headers[c]): table.item(r, c)
            for r in range(table.rowCount()) for c in range(table.columnCount())}


def core_report(store, dataset: str, resamples: int = 200):
    ratings, perspectives = ratings_for(store, [store.dataset(dataset).id])
    return build_report(ratings, bootstrap=resamples, seed=0, perspectives=perspectives or None)


def test_panel_shows_the_core_figures_and_the_skew_warning(make_panel, store):
    annotate_skewed(store)
    panel = make_panel("sample-tool-selection")
    expected = core_report(store, "sample-tool-selection")
    cells = table_cells(panel.coef_table)
    verdict = expected.overall["verdict"]
    for coef, header in (("percent_agreement", "percent agreement"), ("cohen_kappa", "Cohen's kappa"),
                         ("gwet_ac1", "Gwet's AC1"), ("pabak", "PABAK")):
        assert cells[("verdict", header)].text() == fmt_estimate(verdict[coef])
    assert cells[("verdict", "items")].text() == "32"
    # raw agreement 30/32 and a kappa near zero: the warning names AC1 and PABAK and is visible
    assert verdict["percent_agreement"].value == 30 / 32 and verdict["cohen_kappa"].value < 0.1
    assert panel.warnings.isVisible()
    assert "AC1" in panel.warnings.text() and "PABAK" in panel.warnings.text()
    assert "32 items, 64 ratings by 2 annotators" in panel.status.text()


def test_breakdown_by_category_and_pairs_match_the_core(make_panel, store):
    annotate_skewed(store)
    panel = make_panel(None)  # all datasets: the dataset breakdown has one row per annotated dataset
    ratings, perspectives = ratings_for(store, [d.id for d in store.datasets()])
    expected = build_report(ratings, bootstrap=200, seed=0, perspectives=perspectives or None)
    labels = [panel.breakdown_box.itemText(i) for i in range(panel.breakdown_box.count())]
    assert labels[0] == "Overall" and "By dataset" in labels and "By annotator pair" in labels
    panel.breakdown_box.setCurrentIndex(labels.index("By annotator pair"))
    cells = table_cells(panel.coef_table)
    pair = expected.by_pair["alice vs bob"].stats["verdict"]
    assert cells[("alice vs bob", "Gwet's AC1")].text() == fmt_estimate(pair["gwet_ac1"])
    assert panel.coef_chart.charts and "<svg" in panel.coef_chart.charts[0].svg
    # the chart follows the breakdown: it is the forest plot of the pairs
    assert "annotator pair" in panel.coef_chart.charts[0].svg


def test_undefined_coefficients_read_undefined_with_the_reason(make_panel, store):
    annotate_unanimous(store)
    panel = make_panel("sample-function-calls")
    cells = table_cells(panel.coef_table)
    kappa = cells[("verdict", "Cohen's kappa")]
    assert kappa.text() == "undefined"
    expected = core_report(store, "sample-function-calls").overall["verdict"]["cohen_kappa"]
    assert expected.value is None and kappa.toolTip() == expected.reason
    assert cells[("verdict", "percent agreement")].text().startswith("1.000")
    shown = [panel.coef_table.item(r, c).text() for r in range(panel.coef_table.rowCount())
             for c in range(panel.coef_table.columnCount())]
    assert not any("nan" in t.lower() for t in shown)
    assert not panel.warnings.isVisible()


def test_a_new_annotation_refreshes_the_panel(qtbot, make_panel, store):
    _, rows = rows_of(store, "sample-function-calls")
    rate(store, rows[0].id, "alice", "pass")
    rate(store, rows[0].id, "bob", "pass")
    panel = make_panel("sample-function-calls")
    assert panel.result.report.n_ratings == 2
    rate(store, rows[1].id, "alice", "pass")
    rate(store, rows[1].id, "bob", "reject")
    with qtbot.waitSignal(panel.updated, timeout=30_000):
        panel.schedule_refresh()
    assert panel.result.report.n_ratings == 4
    assert "2 items, 4 ratings" in panel.status.text()
    assert table_cells(panel.coef_table)[("verdict", "percent agreement")].text().startswith("0.500")


def test_charts_render_and_the_tabs_hold_the_report_sections(make_panel, store):
    annotate_skewed(store)
    panel = make_panel("sample-tool-selection")
    for page in (panel.verdict_page, panel.ambiguity_page, panel.tags_page):
        assert page.charts, page
        for chart in page.charts:
            assert chart.renderer.isValid() and not chart.natural_size().isEmpty()
    # verdict distribution and the alice/bob confusion matrix (2 rejects by bob where alice passed)
    titles = [c.toolTip() for c in panel.verdict_page.charts]
    assert any(t.startswith("Verdicts distribution") for t in titles)
    assert any("alice vs bob" in t for t in titles)
    # the most frequent error tag is listed with its counts
    assert "tool_selection" in panel.tags_page.page.findChildren(type(panel.status))[0].text()


def test_clicking_a_disagreement_asks_to_show_its_item(qtbot, make_panel, store):
    rows = annotate_skewed(store)
    panel = make_panel("sample-tool-selection")
    table = panel.disagreement_table
    assert table.rowCount() == 2
    first = table.item(0, 0).text()
    assert first == f"sample-tool-selection/{rows[3].record_id}"
    with qtbot.waitSignal(panel.navigate, timeout=2000) as signal:
        table.cellClicked.emit(0, 2)
    assert signal.args == [rows[3].id]


def test_export_writes_html_with_charts_and_the_other_formats(qtbot, make_panel, store, tmp_path):
    annotate_skewed(store)
    panel = make_panel("sample-tool-selection")
    out = tmp_path / "report.html"
    with qtbot.waitSignal(panel.exported, timeout=30_000):
        panel.export(out)
    html = out.read_text(encoding="utf-8")
    assert html.count("<svg") >= 3 and "Gwet" in html
    for suffix in (".md", ".csv", ".json"):
        with qtbot.waitSignal(panel.exported, timeout=30_000):
            panel.export(tmp_path / f"report{suffix}")
        assert (tmp_path / f"report{suffix}").read_text(encoding="utf-8").strip()


def test_no_annotations_says_so(make_panel, store):
    panel = make_panel("sample-extraction")
    assert panel.result.report is None
    assert "No annotations yet" in panel.status.text()
    assert not panel.export_button.isEnabled()


def test_many_skew_warnings_are_summarised_with_details_on_demand(make_panel, store):
    annotate_skewed(store)
    panel = make_panel("sample-tool-selection")
    warnings = panel.result.report.warnings
    assert len(warnings) >= 2  # the verdict and the tag bob alone used are both skewed
    short = panel.warnings.text()
    assert f"Skewed prevalence in {len(warnings)} variables" in short
    assert escape(warnings[0]) in short and escape(warnings[1]) not in short  # the first in full, the rest by name
    assert escape(warnings[1].split(": raw agreement")[0]) in short.split("Also:")[1] and "Details" in short
    panel.warnings.linkActivated.emit("#toggle")
    full = panel.warnings.text()
    assert all(escape(w) in full for w in warnings)  # every message in full


def test_fix_pairs_list_different_golds_first(make_panel, store):
    _, rows = rows_of(store, "sample-extraction")
    gold = store.item(rows[0].id).gold
    key = next(iter(gold))
    for i, row in enumerate(rows[:2]):
        gold = store.item(row.id).gold
        same = {**gold, key: "agreed"}
        other = {**gold, key: "something else"}
        for who, fix in (("alice", same), ("bob", same if i == 0 else other)):
            save_annotation(store, row.id, who, Draft("fix", dict(BAD), "low", None, [], "", fix), None)
    panel = make_panel("sample-extraction")
    html = panel.fixes_text.toPlainText()
    assert "2 items were fixed by two or more annotators" in html
    first, second = f"sample-extraction/{rows[1].record_id}", f"sample-extraction/{rows[0].record_id}"
    assert html.index(first) < html.index(second)  # the pair with different golds leads
    assert "identical in 50.0% of pairs" in html


def test_scope_switch_to_all_datasets_recomputes(qtbot, make_panel, store):
    annotate_skewed(store)
    annotate_unanimous(store)
    panel = make_panel("sample-function-calls")
    assert panel.result.report.n_items == 6
    with qtbot.waitSignal(panel.updated, timeout=30_000):
        panel.set_scope("all")
    assert panel.result.report.n_items == 38 and panel.result.scope == "all datasets (6)"


def test_disagreements_list_verdict_then_rubric_then_fix_content_with_paths(qtbot, make_panel, store):
    from reviewer.review.annotate import save_annotation
    from reviewer.review.rubric import Draft
    from tests.ui.agreement.conftest import GOOD, rows_of

    _, rows = rows_of(store, "sample-tool-selection")
    gold = store.item(rows[0].id).gold

    def fixed(row, change):
        value = json.loads(json.dumps(store.item(row.id).gold))
        return change(value)

    def as_fix(who, row, value, ambiguity="low"):
        save_annotation(store, row.id, who, Draft("fix", dict(GOOD), ambiguity, None, [], "", value), None)

    # rows[0]: both Fix with different gold (fix content); rows[1]: pass vs reject (verdict);
    # rows[2]: both pass, ambiguity low vs medium (rubric); rows[3]: both agree (not listed)
    assert isinstance(gold, (list, dict))
    change_a = (lambda v: v + ["Calendar"]) if isinstance(gold, list) else (lambda v: {**v, "x": 1})
    change_b = (lambda v: v + ["Weather"]) if isinstance(gold, list) else (lambda v: {**v, "x": 2})
    fix_a, fix_b = fixed(rows[0], change_a), fixed(rows[0], change_b)
    as_fix("alice", rows[0], fix_a)
    as_fix("bob", rows[0], fix_b)
    rate(store, rows[1].id, "alice", "pass")
    rate(store, rows[1].id, "bob", "reject")
    rate(store, rows[2].id, "alice", "pass")
    rate(store, rows[2].id, "bob", "pass", ambiguity="medium")
    rate(store, rows[3].id, "alice", "pass")
    rate(store, rows[3].id, "bob", "pass")
    panel = make_panel("sample-tool-selection")
    table = panel.disagreement_table
    listed = [(table.item(r, 0).text(), table.item(r, 1).text()) for r in range(table.rowCount())]
    name = "sample-tool-selection"
    assert listed == [(f"{name}/{rows[1].record_id}", "verdict"), (f"{name}/{rows[2].record_id}", "rubric"),
                      (f"{name}/{rows[0].record_id}", "fix content")]
    details = table.item(2, 3).text()
    from reviewer.review.disputes import fix_paths

    paths = fix_paths(fix_a, fix_b)
    assert paths and all(p.startswith("/") for p in paths)
    assert details == "the two fixes give different gold at " + ", ".join(paths)
    with qtbot.waitSignal(panel.navigate, timeout=2000) as signal:  # a click opens the fix-content item
        table.cellClicked.emit(2, 0)
    assert signal.args == [rows[0].id]
