"""The Runs dock in the main window: scoring, reruns against the loopback
server (progress, cancel, resume, key handling), comparison and re-scoring
after gold edits. Every wait is on a condition, never a fixed sleep."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from sqlalchemy import select

from reviewer.review import annotate, resolution
from reviewer.store.models import Run
from reviewer.testing.openai_server import OpenAIServer, Reply
from tests.ui.runs.conftest import open_dataset
from reviewer_ui.models.item_table import COL
from reviewer_ui.runs.compare import DIFF_COL

TOOLSEL = "sample-tool-selection"
run_t = Run.__table__


def nlt_answer(body: dict) -> Reply:
    """Answer the NLT prompt with every tool NO (a cautious model)."""
    prompt = "\n".join(m.get("content") or "" for m in body["messages"])
    return Reply(text="Thinking: nothing needed.\nAssessment finished.\n" if "Assessment finished" in prompt else "ok")


def score_from_panel(qtbot, panel, mode: str = "faithful", run_names: list[str] | None = None):
    wanted = [r.id for r in panel.runs if run_names is None or r.name in run_names]
    panel.select_runs(wanted)
    panel.mode_box.setCurrentText(mode)
    with qtbot.waitSignal(panel.scores_changed, timeout=10000):
        qtbot.mouseClick(panel.score_button, Qt.MouseButton.LeftButton)
    return wanted


def table_rows(table) -> list[list[str]]:
    return [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]


def test_scoring_fills_results_chart_and_the_item_tables_score_column(qtbot, runs_window):
    panel = open_dataset(qtbot, runs_window, TOOLSEL)
    assert [table_rows(panel.runs_table)[i][-1] for i in range(2)] == ["—", "—"]  # nothing scored yet
    shown_run = runs_window.current_run_id()
    score_col = COL["Score"]
    assert runs_window.model.data(runs_window.model.index(0, score_col)) == "—"

    score_from_panel(qtbot, panel, "faithful")

    rows = table_rows(panel.results.table)
    runs = {r[0] for r in rows}
    assert runs == {"careful-nlt", "hasty-nlt"}
    overall = {r[0]: r for r in rows if r[1] == "(all)"}
    assert overall["careful-nlt"][2] == "32" and overall["careful-nlt"][4].endswith("%")
    assert panel.results.chart.groups[0] == "(all)" and set(panel.results.chart.series) == runs
    # the scorer's own summary (tool selection: accuracy over trials) is in the tree
    tree = panel.results.tree.topLevelItem(0)
    keys = {tree.child(i).text(0) for i in range(tree.childCount())}
    assert {"accuracy", "trials"} <= keys
    # the Scored column and the item table's Score column follow
    qtbot.waitUntil(lambda: table_rows(panel.runs_table)[0][-1] == "faithful", timeout=5000)
    assert shown_run is not None
    qtbot.waitUntil(lambda: runs_window.model.data(runs_window.model.index(0, score_col)) in ("0", "1"), timeout=5000)
    # fixed mode is scored separately; switching the results' mode shows no faithful rows then
    score_from_panel(qtbot, panel, "fixed", ["hasty-nlt"])
    assert panel.results.mode() == "fixed"
    assert {r[0] for r in table_rows(panel.results.table)} == {"hasty-nlt"}


def test_stored_scores_are_shown_when_the_dataset_is_opened(qtbot, runs_window, samples_store):
    from reviewer.scoring.job import score_run

    run = samples_store.run("sample-extraction", "demo-alpha-7b")
    score_run(samples_store, run.id, "faithful")
    panel = open_dataset(qtbot, runs_window, "sample-extraction")
    qtbot.waitUntil(lambda: panel.results.table.rowCount() > 0, timeout=5000)
    assert {r[0] for r in table_rows(panel.results.table)} == {"demo-alpha-7b"}


def _fill_dialog(dialog, server, run_name: str, **fields):
    dialog.run_name.setCurrentText(run_name)
    dialog.base_url.setText(server.base_url)
    dialog.model.setText("loopback-model")
    dialog.key_source.setCurrentIndex(dialog.key_source.findData(fields.get("key_source", "none")))
    dialog.key_name.setText(fields.get("key_name", ""))
    dialog.session_key.setText(fields.get("session_key", ""))
    dialog.concurrency.setValue(fields.get("concurrency", 2))
    dialog.retries.setValue(0)
    dialog.cache.setChecked(False)
    dialog.set_scope(fields.get("scope", "all"))


def test_rerun_shows_progress_cancels_midway_and_resumes(qtbot, runs_window, samples_store):
    panel = open_dataset(qtbot, runs_window, TOOLSEL)
    with OpenAIServer(responder=nlt_answer, latency=0.15) as server:
        dialog = panel.open_rerun_dialog()
        _fill_dialog(dialog, server, "loop")
        dialog.accept()
        # progress: a bar over the 32 planned calls, with done/total in words
        qtbot.waitUntil(lambda: panel.progress.bar.maximum() == 32 and panel.progress.bar.value() >= 4, timeout=10000)
        assert panel.progress.isVisible() and "/ 32" in panel.progress.label.text()
        assert panel.cancel_button.isEnabled() and not panel.score_button.isEnabled()
        job = runs_window.runner.job("runs:work")
        with qtbot.waitSignal(job.cancelled, timeout=5000):
            qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
        assert "cancelled" in panel.status.text()
        kept = samples_store.run(TOOLSEL, "loop").outputs
        assert 4 <= kept < 32  # what arrived before the cancel is kept
        sent = server.request_count
        qtbot.waitUntil(lambda: not panel.progress.isVisible() and panel.rerun_button.isEnabled(), timeout=5000)

        # resume: the same run name sends only what is missing
        dialog = panel.open_rerun_dialog()
        dialog.run_name.setCurrentText("loop")  # fills the stored settings of the run
        assert dialog.base_url.text() == server.base_url and dialog.model.text() == "loopback-model"
        dialog.concurrency.setValue(8)
        with qtbot.waitSignal(panel.runs_changed, timeout=20000):
            dialog.accept()
        outcome = panel.last_outcome
        assert outcome.report.planned == 32 - kept and outcome.report.summary.ok == 32 - kept
        assert server.request_count - sent <= 32 - kept + 8  # calls cut off by the cancel may have reached the server
    assert samples_store.run(TOOLSEL, "loop").outputs == 32
    assert panel.report.isVisible()
    assert f"{32 - kept} calls planned" in panel.report.toPlainText()
    # the window's run picker learned about the new run
    qtbot.waitUntil(lambda: any(r.name == "loop" for r in runs_window.runs), timeout=5000)
    # "Score now" scores the run just made
    assert panel.score_now.isVisible()
    with qtbot.waitSignal(panel.scores_changed, timeout=10000):
        qtbot.mouseClick(panel.score_now, Qt.MouseButton.LeftButton)
    assert "loop" in {r[0] for r in table_rows(panel.results.table)}


def test_rerun_reports_adaptations_and_errors(qtbot, runs_window, samples_store):
    panel = open_dataset(qtbot, runs_window, "sample-function-calls")
    with OpenAIServer(responder=lambda body: Reply(text="no call"), reject={"tool_choice"}) as server:
        server.script(Reply.server_error())  # the first call fails (retries 0): an error output
        dialog = panel.open_rerun_dialog()
        _fill_dialog(dialog, server, "fc", concurrency=1)
        dialog.option_widgets["tool_choice"].setCurrentText('"required"')
        with qtbot.waitSignal(panel.runs_changed, timeout=20000):
            dialog.accept()
    text = panel.report.toPlainText()
    assert "Endpoint adaptation" in text and "tool_choice" in text
    assert "1 output of this run failed" in text
    assert samples_store.run("sample-function-calls", "fc").errors == 1


def test_the_api_key_is_never_stored(qtbot, runs_window, samples_store, settings, tmp_path, monkeypatch):
    secret = "sk-never-store-4d2c91ab"
    monkeypatch.delenv("RUNS_TEST_KEY", raising=False)
    panel = open_dataset(qtbot, runs_window, "sample-schema-generation")
    with OpenAIServer(responder=lambda body: Reply(text='{"a": 1}')) as server:
        base_url = server.base_url
        dialog = panel.open_rerun_dialog()
        _fill_dialog(dialog, server, "keyed", key_source="env", key_name="RUNS_TEST_KEY", session_key=secret)
        with qtbot.waitSignal(panel.runs_changed, timeout=20000):
            dialog.accept()
        assert server.chat_requests() and all(
            r.headers.get("authorization") == f"Bearer {secret}" for r in server.chat_requests())
    assert dialog.session_key.text() == ""
    runs_window.save_settings()
    settings.sync()
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".ini" for p in files) and any(p.name == "db.sqlite3" for p in files)
    for path in files:
        assert secret.encode() not in path.read_bytes(), path
    # what is stored is where the key is, by name
    assert "RUNS_TEST_KEY" in (tmp_path / "settings.ini").read_text()
    with samples_store.engine.connect() as conn:
        config = conn.execute(select(run_t.c.config).where(run_t.c.name == "keyed")).scalar_one()
    assert config["api_key_env"] == "RUNS_TEST_KEY" and secret not in json.dumps(config)
    # the next dialog remembers the settings, but never the key
    again = panel.open_rerun_dialog()
    assert again.key_name.text() == "RUNS_TEST_KEY" and again.session_key.text() == ""
    assert again.base_url.text() == base_url
    again.reject()


def test_compare_view_sorted_by_difference_and_double_click_shows_the_item(qtbot, runs_window):
    panel = open_dataset(qtbot, runs_window, TOOLSEL)
    score_from_panel(qtbot, panel, "faithful")
    view = panel.compare
    view.choose(panel.runs[0].id, panel.runs[1].id, "faithful")
    with qtbot.waitSignal(runs_window.runner.started, timeout=2000):
        qtbot.mouseClick(view.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.table.rowCount() == 32, timeout=5000)
    def diffs():
        return [view.table.item(r, DIFF_COL).key for r in range(view.table.rowCount())]
    first = diffs()
    assert first == sorted(first, reverse=True) and first[0] > 0 and first[-1] == 0  # largest first, as given
    view.table.sortItems(DIFF_COL, Qt.SortOrder.AscendingOrder)
    assert diffs() == sorted(first)
    view.table.sortItems(DIFF_COL, Qt.SortOrder.DescendingOrder)
    assert diffs() == first
    item_id = view.item_id_at(0)
    record = view.table.item(0, 0).text()
    view.table.cellDoubleClicked.emit(0, 1)
    qtbot.waitUntil(lambda: runs_window.item_view.bundle is not None
                    and runs_window.item_view.bundle.detail.id == item_id, timeout=5000)
    assert runs_window.model.item_id(runs_window.current_row()) == item_id
    assert runs_window.item_view.bundle.detail.record_id == record


def test_a_gold_fix_rescores_and_lists_the_flipped_verdicts(qtbot, runs_window, samples_store):
    panel = open_dataset(qtbot, runs_window, TOOLSEL)
    score_from_panel(qtbot, panel, "faithful", ["careful-nlt"])

    def overall():
        return next((r for r in table_rows(panel.results.table) if r[0] == "careful-nlt" and r[1] == "(all)"), None)

    qtbot.waitUntil(lambda: overall() is not None, timeout=5000)
    n, rate_before = int(overall()[2]), overall()[4]
    passes = round(float(rate_before.rstrip("%")) / 100 * n)
    run = samples_store.run(TOOLSEL, "careful-nlt")
    scores = samples_store.run_scores(run.id)
    item_id = next(i for i, v in scores.items() if v == 1.0)
    detail = samples_store.item(item_id)
    annotate.set_role(samples_store, "ada", "adjudicator")
    view = resolution.adjudicate(samples_store, item_id, "ada", "fix", ["No Such Tool"], "gold was wrong")
    runs_window.review.adjudication.settled.emit(view)  # as the adjudication panel does after settling
    qtbot.waitUntil(lambda: panel.flips.table.rowCount() == 1, timeout=10000)
    assert table_rows(panel.flips.table)[0] == [detail.record_id, "careful-nlt", "0", "faithful", "pass → fail"]
    assert panel.tabs.currentWidget() is panel.flips
    assert samples_store.run_scores(run.id)[item_id] == 0.0
    # the results follow the new score: one pass fewer, as read from this run's own table
    expected = f"{(passes - 1) / n:.1%}"
    qtbot.waitUntil(lambda: overall()[4] == expected, timeout=5000)
    assert overall()[2] == str(n)


def test_two_agreeing_fixes_rescore_through_the_annotation_panels_signal(qtbot, runs_window, samples_store):
    from reviewer.review.rubric import Draft

    panel = open_dataset(qtbot, runs_window, TOOLSEL)
    score_from_panel(qtbot, panel, "faithful", ["hasty-nlt"])
    run = samples_store.run(TOOLSEL, "hasty-nlt")
    item_id = next(i for i, v in samples_store.run_scores(run.id).items() if v == 1.0)
    fix = Draft("fix", ambiguity="low", difficulty="medium", note="gold misses a tool", fixed_gold=["Made Up"])
    annotate.save_annotation(samples_store, item_id, "alice", fix, None)
    view = annotate.save_annotation(samples_store, item_id, "bob", fix, None)  # both agree: gold changes
    assert samples_store.item(item_id).gold == ["Made Up"]
    runs_window.review.annotation.saved.emit(view)  # as the annotation panel does after saving
    qtbot.waitUntil(lambda: panel.flips.table.rowCount() == 1, timeout=10000)
    assert table_rows(panel.flips.table)[0][1:] == ["hasty-nlt", "0", "faithful", "pass → fail"]
    assert "1 verdict changed" in panel.flips.status.text()


def test_a_second_start_while_busy_is_refused_not_a_cancel(qtbot, runs_window, samples_store):
    panel = open_dataset(qtbot, runs_window, TOOLSEL)
    with OpenAIServer(responder=nlt_answer, latency=0.2) as server:
        dialog = panel.open_rerun_dialog()
        _fill_dialog(dialog, server, "slow", concurrency=1)
        dialog.accept()
        qtbot.waitUntil(lambda: panel.progress.bar.value() >= 1, timeout=10000)
        job = runs_window.runner.job("runs:work")
        panel.score_selected("faithful")  # e.g. from the Runs menu while the rerun runs
        assert runs_window.runner.job("runs:work") is job and job.running
        assert "still running" in panel.status.text()
        with qtbot.waitSignal(job.cancelled, timeout=5000):
            panel.cancel()
