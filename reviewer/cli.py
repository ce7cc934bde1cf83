"""The ``reviewer`` command.

With no arguments it opens the desktop app; its subcommands do the batch work
without Qt (a test proves the CLI never loads PySide6).

Exit codes: 0 success, 1 a problem with the input or the database (the message
says which file, line or record), 2 a usage error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from pathlib import Path

from reviewer import __version__
from reviewer.errors import ReviewerError
from reviewer.jobs import Cancelled, JobContext, Progress

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_PIPE_CLOSED = 141  # 128 + SIGPIPE, as `seq 9999 | head -1` ends seq


def _terminal_progress(stream=sys.stderr):
    """A progress callback that redraws one line on a terminal and stays quiet otherwise."""
    if not stream.isatty():
        return None

    def show(p: Progress) -> None:
        total = f"/{p.total}" if p.total else ""
        rate = f" {p.rate:.0f}/s" if p.rate else ""
        eta = f" eta {p.eta:.0f}s" if p.eta is not None else ""
        stream.write(f"\r{p.done}{total}{rate}{eta} {p.message[:60]:<60}")
        stream.flush()

    return show


def _store(args):
    from reviewer.store import Store

    return Store(args.db)


def cmd_import_dataset(args) -> int:
    store = _store(args)
    options, fmt_name = {}, args.format
    if args.api_ids:
        from reviewer.formats.registry import find_dataset_format

        fmt = find_dataset_format(Path(args.path), args.format)
        if fmt.name != "nestools":
            print(f"reviewer import dataset: error: --api-ids is for NesTools datasets; {args.path} reads as "
                  f"{fmt.label}", file=sys.stderr)
            return EXIT_USAGE
        options["api_ids"], fmt_name = Path(args.api_ids), fmt.name  # detected once, not again by the store
    summary = store.import_dataset(args.path, format=fmt_name, name=args.name,
                                   ctx=JobContext(_terminal_progress()), actor=args.actor, options=options)
    print(summary.describe())
    _gold_programs_after_import(store, summary.dataset_id)
    return EXIT_OK


def cmd_import_run(args) -> int:
    store = _store(args)
    done = store.import_runs(args.dataset, args.path, format=args.format, name=args.name,
                             ctx=JobContext(_terminal_progress()), actor=args.actor)
    print("\n".join(done.describe()))
    return EXIT_OK


def _table(rows: list[list], headers: list[str]) -> str:
    cells = [[str(c) if c is not None else "" for c in row] for row in [headers, *rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _catalog(args):
    """The quick read-only view of a SQLite store (reviewer.store.catalog), else the Store."""
    from reviewer.store.catalog import Catalog
    from reviewer.store.db import resolve_url

    return Catalog.open(resolve_url(args.db)) or _store(args)


def cmd_list(args) -> int:
    if args.items or args.text:
        if args.dataset is None:
            print("reviewer list: error: --items and --text list the items of one dataset: name it "
                  "(reviewer list DATASET --items)", file=sys.stderr)
            return EXIT_USAGE
        return _list_items(args)
    store = _catalog(args)
    if args.dataset is None:
        datasets = store.datasets()
        if not datasets:
            print("no datasets yet; add one with: reviewer import dataset PATH")
            return EXIT_OK
        print(_table([[d.name, d.kind, d.format, d.items, d.runs] for d in datasets],
                     ["dataset", "kind", "format", "items", "runs"]))
        return EXIT_OK
    runs = store.runs(args.dataset)
    ds = store.dataset(args.dataset)
    print(f"{ds.name}: {ds.items} items of kind {ds.kind} ({ds.format}, from {ds.source})")
    if runs:
        print(_table([[r.name, r.model, r.setup, r.outputs, r.errors] for r in runs],
                     ["run", "model", "setup", "outputs", "errors"]))
    else:
        print(f"no runs yet; add one with: reviewer import run {shlex.quote(ds.name)} PATH")
    print(f"its items: reviewer list {shlex.quote(ds.name)} --items")
    return EXIT_OK


QUESTION_WIDTH = 60  # characters of each item's question in ``list --items``


def _list_items(args) -> int:
    """The items of one dataset in dataset order (``--text``: those whose id or question holds
    it), with the record id ``reviewer show`` takes; ``--limit`` rows, 0 for all."""
    from reviewer.store.queries import ItemQuery

    store = _store(args)
    ds = store.dataset(args.dataset)
    query = ItemQuery(dataset_id=ds.id, text=args.text or "")
    total = store.count_items(query)
    rows = store.item_page(query, 0, args.limit if args.limit > 0 else total)
    if not rows:
        print(f"no items of {ds.name} hold {args.text!r}" if args.text else f"{ds.name} holds no items")
        return EXIT_OK
    table = []
    for r in rows:
        question = " ".join((r.question or "").split())
        if len(question) > QUESTION_WIDTH:
            question = question[: QUESTION_WIDTH - 1] + "…"
        table.append([terminal_safe(r.record_id), r.category or "", r.difficulty or "",
                      "" if r.depth is None else r.depth, "edited" if r.edited else "", terminal_safe(question)])
    headers = ["item", "category", "difficulty", "depth", "gold", "question"]
    keep = [i for i, h in enumerate(headers) if h in ("item", "question") or any(row[i] != "" for row in table)]
    print(_table([[row[i] for i in keep] for row in table], [headers[i] for i in keep]))
    if len(rows) < total:
        print(f"{len(rows)} of {total} items shown; --limit 0 shows all")
    return EXIT_OK


# Characters that would act on a terminal instead of being shown: C0 controls but
# newline and tab (ESC starts colour, cursor and OSC title sequences), DEL, C1 controls
# (0x9b is a one-byte CSI), and the bidirectional overrides and isolates that make
# text read in another order than it is stored.
_UNSAFE_FOR_TERMINAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on written as a visible escape (``\\x1b``, ``\\u202e``)."""
    return _UNSAFE_FOR_TERMINAL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                                    else f"\\u{ord(m.group()):04x}", text)


def _json_safe(text: str) -> str:
    """JSON text with the characters ``terminal_safe`` escapes written as JSON ``\\uXXXX`` escapes."""
    return _UNSAFE_FOR_TERMINAL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def cmd_show(args) -> int:
    """Print one item. Text from the dataset is escaped for the terminal unless ``--raw``."""
    out = _print if args.raw else (lambda text="": _print(terminal_safe(text)))
    return _show(args, out)


def _print(text: str = "") -> None:
    print(text)


def _show(args, print) -> int:  # noqa: A002 - the local print is the escaping one
    store = _store(args)
    item = store.find_item(args.dataset, args.item)
    outputs = store.outputs(item.id)
    if args.json:
        doc = {
            "record_id": item.record_id, "kind": item.kind, "question": item.question, "gold": item.gold,
            "original_gold": item.original_gold, "category": item.category, "difficulty": item.difficulty,
            "depth": item.depth, "domain": item.domain, "payload": item.payload,
            "source": {"file": item.source_file, "line": item.source_line},
            "outputs": [{"run": o.run, "replication": o.replication, "status": o.status, "text": o.text,
                         "prediction": o.prediction} for o in outputs],
        }
        text = json.dumps(doc, ensure_ascii=False, indent=2)
        _print(text if args.raw else _json_safe(text))
        return EXIT_OK
    meta = ", ".join(f"{k} {v}" for k, v in [("category", item.category), ("difficulty", item.difficulty),
                                              ("depth", item.depth), ("domain", item.domain)] if v is not None)
    print(f"{item.dataset} / {item.record_id}  [{item.kind}] {meta}")
    if item.source_file:
        print(f"source: {item.source_file}" + (f", line {item.source_line}" if item.source_line else ""))
    if item.question:
        print(f"\nquestion:\n  {item.question}")
    edited = " (edited)" if item.gold_edited else ""
    print(f"\ngold{edited}:\n{_indent(item.gold)}")
    for o in outputs:
        shown = o.prediction if o.prediction is not None else o.text
        print(f"\nrun {o.run}" + (f" #{o.replication}" if o.replication else "") + f" [{o.status}]:\n{_indent(shown)}")
    return EXIT_OK


def _indent(value, width: int = 2000) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)
    if len(text) > width:
        text = text[:width] + f"\n… ({len(text) - width} more characters; use --json for everything)"
    return "\n".join("  " + line for line in text.splitlines())


def cmd_export(args) -> int:
    store = _store(args)
    out = Path(args.out)
    if args.as_ == "jsonl" and args.gold_only:
        # The released Gold (paper 001's rule, as the Release tab counts it), not every settled
        # item: a Reject, a High or unrated ambiguity or a failed check is withheld, by reason.
        done = store.export_released_gold(args.dataset, out, ctx=JobContext(_terminal_progress()))
        print(f"wrote {done.written} released Gold {'item' if done.written == 1 else 'items'} to {out}")
        if done.withheld:
            print(f"withheld {done.withheld} {'item' if done.withheld == 1 else 'items'}:")
            for reason, count in done.reasons.items():
                print(f"  {count:>6}  {reason}")
    elif args.as_ == "jsonl":
        n = store.export_jsonl(args.dataset, out, ctx=JobContext(_terminal_progress()))
        print(f"wrote {n} {'item' if n == 1 else 'items'} to {out}")
    else:
        files = store.export_dataset(args.dataset, out, ctx=JobContext(_terminal_progress()))
        print(f"wrote {len(files)} {'file' if len(files) == 1 else 'files'} under {out}:")
        for f in files:
            print(f"  {f}")
    return EXIT_OK


def cmd_score(args) -> int:
    from reviewer.scoring.job import score_run

    store = _store(args)
    runs = [store.run(args.dataset, args.run)] if args.run else store.runs(args.dataset)
    if not runs:
        print(f"dataset {args.dataset!r} has no runs to score")
        return EXIT_OK
    modes = ["faithful", "fixed"] if args.mode == "both" else [args.mode]
    judge = None
    if args.judge_model:
        from reviewer.rerun.config import RunConfig

        judge = RunConfig(base_url=args.judge_base_url or "", model=args.judge_model,
                          api_key_env=args.judge_api_key_env, max_tokens=16, cache=False)
    results = [score_run(store, r.id, mode, JobContext(_terminal_progress()), judge=judge)
               for r in runs for mode in modes]
    if args.json:
        print(json.dumps([vars(r) for r in results], ensure_ascii=False, indent=2, default=str))
        return EXIT_OK
    categories = sorted({c for r in results for c in r.by_category}, key=lambda c: (c != "(all)", c))
    rows = []
    for r in results:
        for c in categories:
            cell = r.by_category.get(c)
            if cell:
                rows.append([r.run, r.mode, c, cell["n"], _fmt(cell["mean"]), _fmt(cell["pass_rate"])])
    print(_table(rows, ["run", "mode", "category", "n", "mean score", "pass rate"]))
    for r in results:  # a scorer's own aggregates in words (summary["report_lines"]), when it gives them
        if r.summary.get("report_lines"):
            print(f"\n{r.run} ({r.mode}), the benchmark's own aggregates:")
            print("\n".join("  " + line for line in r.summary["report_lines"]))
    if any(r.scorer == "tooljson" for r in results):
        from reviewer.sandbox import availability

        if not availability().available:
            print(f"\nwarning: code-generation outputs were {availability().message}")
    flagged = {f["record_id"]: f for r in results for f in r.summary.get("gold_fails_schema", [])}
    if flagged:
        print(f"\nwarning: {len(flagged)} gold objects fail their own schema, so no answer can score on them:")
        for f in list(flagged.values())[:20]:
            print(f"  {f['record_id']}: {f['path']}: {f['message'][:100]}")
    return EXIT_OK


def _fmt(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def cmd_compare(args) -> int:
    from reviewer.scoring.job import compare_runs, scored_overlap

    store = _store(args)
    a, b = store.run(args.dataset, args.run_a), store.run(args.dataset, args.run_b)
    rows = compare_runs(store, a.id, b.id, args.mode)
    if not rows:
        print(_nothing_to_compare(store, args, a, b))
        return EXIT_OK
    shown = rows[: args.limit] if args.limit and args.limit > 0 else rows
    # Category and depth where the dataset has them (NesTools items have a depth, no category).
    described = [key for key in ("category", "depth") if any(r[key] not in (None, "") for r in rows)]
    print(_table([[r["record_id"], *(r[key] for key in described), _fmt(r["a"]), _fmt(r["b"]), _fmt(r["difference"])]
                  for r in shown], ["item", *described, a.name, b.name, "difference"]))
    n_a, n_b, both = scored_overlap(store, a.id, b.id, args.mode)
    notes = []
    if len(shown) < len(rows):
        notes.append(f"{len(shown)} of {len(rows)} items shown (largest difference first); --limit 0 shows all")
    if both < max(n_a, n_b):
        notes.append(f"compared: the {both} items scored in both runs ({a.name!r} has scores for {n_a} items, "
                     f"{b.name!r} for {n_b})")
    if notes:
        print("\n" + "\n".join(notes))
    return EXIT_OK


def _nothing_to_compare(store, args, a, b) -> str:
    """Why no row: which run has no scores (and the command that scores it), or that they share no item."""
    import shlex

    from reviewer.scoring.job import scored_overlap

    n_a, n_b, _ = scored_overlap(store, a.id, b.id, args.mode)
    unscored = [r.name for r, n in ((a, n_a), (b, n_b)) if n == 0]
    mode = f" ({args.mode} mode)"
    if len(unscored) == 2:
        return (f"neither run has scores{mode}; score them first with: "
                f"reviewer score {shlex.quote(str(args.dataset))} --mode {args.mode}")
    if unscored:
        return (f"run {unscored[0]!r} has no scores{mode}; score it first with: "
                f"reviewer score {shlex.quote(str(args.dataset))} --run {shlex.quote(unscored[0])} --mode {args.mode}")
    return (f"no item has scores in both runs{mode}: {a.name!r} has scores for {n_a} items, {b.name!r} for {n_b}, "
            "and they share none")


def cmd_agree(args) -> int:
    from reviewer.agreement.render import render_csv, render_json, render_markdown, render_text, write_report
    from reviewer.agreement.report import build_report
    from reviewer.review.ratings import ratings_for

    store = _store(args)
    datasets = [store.dataset(d) for d in args.dataset] if args.dataset else store.datasets()
    ratings, perspectives = ratings_for(store, [d.id for d in datasets], getattr(args, "submissions", "first"))
    if not ratings:
        names = ", ".join(d.name for d in datasets)
        if args.output:  # asked for a file: say that none was written, and fail so a script notices
            raise ReviewerError(f"no annotations yet in {names}: nothing to report, {args.output} was not written")
        print(f"no annotations yet in {names}")
        return EXIT_OK
    report = build_report(ratings, bootstrap=args.bootstrap, seed=args.seed, ctx=JobContext(_terminal_progress()),
                          perspectives=perspectives or None)
    if args.output:
        print(f"wrote {write_report(report, args.output)}")
        return EXIT_OK
    render = {"text": render_text, "markdown": render_markdown, "csv": render_csv, "json": render_json}[args.format]
    print(render(report))
    return EXIT_OK


def cmd_run(args) -> int:
    from reviewer.rerun.config import RunConfig
    from reviewer.rerun.job import rerun
    from reviewer.store import ItemQuery

    store = _store(args)
    ds = store.dataset(args.dataset)
    options = {}
    for pair in args.option or []:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ReviewerError(f"--option {pair!r}: expected KEY=VALUE")
        try:
            options[key] = json.loads(value)
        except ValueError:
            options[key] = value
    config = RunConfig(
        base_url=args.base_url, model=args.model, api_key_env=args.api_key_env, keyring_service=args.keyring,
        temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed, concurrency=args.concurrency,
        timeout=args.timeout, retries=args.retries, replications=args.replications, strategy=args.strategy,
        strategy_options=options, cache=not args.no_cache,
    )
    item_ids = None
    if args.items or args.edited_only:
        query = ItemQuery(dataset_id=ds.id, edited=True if args.edited_only else None)
        rows = store.item_page(query, 0, store.count_items(query))
        wanted = set(args.items.split(",")) if args.items else None
        item_ids = [r.id for r in rows if wanted is None or r.record_id in wanted]
    name = args.name or f"{args.model} {args.strategy}"
    report = rerun(store, ds.id, name, config, JobContext(_terminal_progress()), item_ids=item_ids,
                   retry_errors_only=args.retry_errors)
    s = report.summary
    print(f"\nrun {report.run!r}: {report.planned} calls planned, {s.ok} ok, {s.errors} errors, "
          f"{s.cached} from cache, {s.retries} retries")
    for note in s.adaptations:
        print(f"  endpoint adaptation: {note}")
    if args.score:
        from reviewer.scoring.job import score_run

        result = score_run(store, report.run_id, "faithful", JobContext(_terminal_progress()))
        overall = result.by_category.get("(all)", {})
        print(f"scored {result.scored} outputs: mean {_fmt(overall.get('mean'))}, pass rate {_fmt(overall.get('pass_rate'))}")
    return EXIT_OK if s.errors == 0 else EXIT_ERROR


def cmd_formats(args) -> int:
    from reviewer.formats.registry import dataset_formats, run_formats

    print(_table([[f.name, f.kind, f.label] for f in dataset_formats().values()], ["dataset format", "kind", "label"]))
    print()
    print(_table([[f.name, f.dataset_format, f.label] for f in run_formats().values()],
                 ["prediction format", "for", "label"]))
    return EXIT_OK


def cmd_install_desktop_entry(args) -> int:
    from reviewer_ui.desktop import install  # Qt-free: writes files only

    try:
        written = install()
    except OSError as exc:
        raise ReviewerError(f"could not install the desktop entry: {exc}") from exc
    print("installed for this user:")
    for path in written:
        print(f"  {path}")
    return EXIT_OK


def cmd_gui(args) -> int:
    from reviewer_ui.app import main as gui_main  # the only place the CLI reaches into Qt

    return gui_main(db=args.db)


# -- quality guards (reviewer.guards): `reviewer check` and `reviewer override` ---------------


def cmd_check(args) -> int:
    from reviewer.guards import LABELS, item_guards, run_checks, settings as guard_settings

    store = _store(args)
    ds = store.dataset(args.dataset)
    changes = {}
    if args.rule is not None:
        changes["rules"] = [r for r in args.rule if r.strip()]
    if args.min_words is not None:
        changes["min_words"] = args.min_words
    if args.corpus is not None:
        changes["corpus_dir"] = str(Path(args.corpus).expanduser().resolve()) if args.corpus else None
    if changes:
        guard_settings.update(store, ds.id, actor=args.actor, **changes)
    summary = run_checks(store, ds.id, JobContext(_terminal_progress()), guards=args.guard or None, force=args.force)
    if args.json:
        print(json.dumps(vars(summary), ensure_ascii=False, indent=2, default=str))
        return EXIT_OK
    statuses = ["pass", "fail", "skip", "error"]
    rows = [[LABELS.get(g, g), *[c.get(s, 0) for s in statuses]] for g, c in summary.counts.items()]
    print(f"{ds.name}: {summary.items} items; {summary.recomputed} results computed, "
          f"{summary.unchanged} unchanged, in {summary.seconds:.1f} s")
    print(_table(rows, ["guard", *statuses]))
    for note in summary.notes:
        print(f"note: {note}")
    if args.show:
        shown = item_guards(store, ds.id)
        for guard in summary.counts:
            failed = [(i, ig.results[guard]) for i, ig in shown.items()
                      if guard in ig.results and ig.results[guard].status in ("fail", "error")]
            if failed:
                print(f"\n{LABELS.get(guard, guard)}: {len(failed)} flagged, first {min(args.show, len(failed))}:")
                for item_id, r in failed[: args.show]:
                    print(f"  {shown[item_id].record_id}: {r.summary[:160]}")
    return EXIT_OK


def _gold_programs_after_import(store, dataset_id: int) -> None:
    """Items that carry their gold program have it re-run on import (issue 15)."""
    from reviewer.guards import after_import

    checked = after_import(store, dataset_id, JobContext(_terminal_progress()))
    if checked is not None:
        c = checked.counts.get("gold_program", {})
        print(f"gold programs re-run: {c.get('pass', 0)} agree with the gold, {c.get('fail', 0)} drifted, "
              f"{c.get('error', 0)} failed to run")


def cmd_override(args) -> int:
    from reviewer.guards import add_override

    store = _store(args)
    item = store.find_item(args.dataset, args.item)
    o = add_override(store, item.id, args.guard, args.by, args.reason)
    print(f"{item.record_id}: guard {o.guard} overridden by {o.adjudicator}: {o.reason}")
    return EXIT_OK


def add_guard_commands(sub, common) -> None:
    from reviewer.guards.names import GUARD_NAMES

    p = sub.add_parser("check", parents=[common], help="run the quality guards over a dataset and count the flags")
    p.add_argument("dataset", help="dataset name or id")
    p.add_argument("--guard", action="append", choices=GUARD_NAMES, help="only this guard (repeatable)")
    p.add_argument("--force", action="store_true", help="recompute results whose inputs did not change")
    p.add_argument("--rule", action="append", metavar="RULE",
                   help="set the dataset's constraint rules, e.g. '$.start_date <= $.end_date' (repeatable; "
                        "--rule '' clears them)")
    p.add_argument("--min-words", type=int, help="set the length guard's threshold (0 turns it off)")
    p.add_argument("--corpus", help="set the leakage audit's corpus folder (.txt/.md/.jsonl/.parquet; '' clears)")
    p.add_argument("--show", type=int, default=5, help="flagged items listed per guard (0: none)")
    p.add_argument("--actor", default="check", help="who changes the settings, for the audit log")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("override", parents=[common], help="release an item despite a failed guard (adjudicator)")
    p.add_argument("dataset", help="dataset name or id")
    p.add_argument("item", help="the item's record id")
    p.add_argument("guard", choices=GUARD_NAMES)
    p.add_argument("--by", required=True, help="the adjudicator's name")
    p.add_argument("--reason", required=True, help="why the flag does not hold (kept in the provenance)")
    p.set_defaults(func=cmd_override)


def build_parser() -> argparse.ArgumentParser:
    db_help = ("database: a SQLite file path or a postgresql:// URL "
               "(default: $REVIEWER_DB, else a file in your user data directory)")
    # --db is accepted before and after the command; SUPPRESS keeps a subcommand's
    # absent --db from overwriting one given before it.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", default=argparse.SUPPRESS, help=db_help)
    parser = argparse.ArgumentParser(
        prog="reviewer",
        description="Curate gold sets for JSON and tool-use LLM benchmarks. With no command, opens the app.",
    )
    parser.add_argument("--db", default=None, help=db_help)
    parser.add_argument("--version", action="version", version=f"reviewer {__version__}")
    parser.add_argument("--install-desktop-entry", action="store_true",
                        help="add reviewer to your desktop's application menu (Linux: a .desktop file "
                             "and the icon under $XDG_DATA_HOME), then exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("gui", parents=[common], help="open the desktop app (the default)")
    p.set_defaults(func=cmd_gui)

    p = sub.add_parser("import", help="import a dataset or a run of model outputs")
    isub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    d = isub.add_parser("dataset", parents=[common], help="import benchmark items from a file or folder")
    d.add_argument("path", help="the dataset file or folder")
    d.add_argument("--format", help="dataset format (default: detected; see `reviewer formats`)")
    d.add_argument("--name", help="dataset name (default: from the file name)")
    d.add_argument("--api-ids", metavar="PATH",
                   help="NesTools: the test_api_ids.jsonl file, when it is not beside the data file")
    d.add_argument("--actor", default="import", help="who is importing, for the audit log")
    d.set_defaults(func=cmd_import_dataset)
    r = isub.add_parser("run", parents=[common],
                        help="import model outputs (a prediction file, or a folder of them) as a run")
    r.add_argument("dataset", help="the dataset the outputs answer (name or id)")
    r.add_argument("path", help="the prediction file, or a folder: its files are imported in one go, each "
                                "into the run its name gives (toolJSON: one run per model and setup)")
    r.add_argument("--format", help="prediction format (default: detected)")
    r.add_argument("--name", help="run name (default: from the file; for a folder, every file goes into this run)")
    r.add_argument("--actor", default="import", help="who is importing, for the audit log")
    r.set_defaults(func=cmd_import_run)

    p = sub.add_parser("list", parents=[common], help="list datasets, or the runs (or items) of one dataset")
    p.add_argument("dataset", nargs="?", help="a dataset name or id")
    p.add_argument("--items", action="store_true", help="list the dataset's items (their ids are what show takes)")
    p.add_argument("--text", help="only items whose id or question holds this text (implies --items)")
    p.add_argument("--limit", type=int, default=50, help="items to show (0: all)")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", parents=[common], help="show one item with its gold and outputs")
    p.add_argument("dataset", help="dataset name or id")
    p.add_argument("item", help="the item's record id")
    p.add_argument("--json", action="store_true", help="print everything as JSON")
    p.add_argument("--raw", action="store_true",
                   help="print the item's text as stored, control characters included (default: escaped)")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("export", parents=[common], help="export a dataset in its source format or as JSONL")
    p.add_argument("dataset", help="dataset name or id")
    p.add_argument("out", help="output folder (source format) or file (jsonl)")
    p.add_argument("--as", dest="as_", choices=["source", "jsonl"], default="source",
                   help="source: the benchmark's own files (default); jsonl: one item a line with provenance")
    p.add_argument("--gold-only", action="store_true",
                   help="jsonl: only the released Gold (settled Pass or Fix, checks passed, ambiguity Low or "
                        "Medium); the withheld items are counted by reason")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("score", parents=[common], help="score runs with the benchmark's official metrics")
    p.add_argument("dataset", help="dataset name or id")
    p.add_argument("--run", help="one run (default: every run of the dataset)")
    p.add_argument("--mode", choices=["faithful", "fixed", "both"], default="faithful",
                   help="faithful: the official scorer, quirks included; fixed: quirks corrected")
    p.add_argument("--json", action="store_true", help="print the scorers' full summaries as JSON")
    p.add_argument("--judge-model", help="also ask this model as LLM judge (tool-response QA, paper 000 Fig. 24)")
    p.add_argument("--judge-base-url", help="the judge's OpenAI-compatible endpoint")
    p.add_argument("--judge-api-key-env", help="environment variable holding the judge's API key")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("compare", parents=[common], help="two scored runs side by side, largest difference first")
    p.add_argument("dataset", help="dataset name or id")
    p.add_argument("run_a")
    p.add_argument("run_b")
    p.add_argument("--mode", choices=["faithful", "fixed"], default="faithful")
    p.add_argument("--limit", type=int, default=30, help="rows to show (0: all)")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("agree", parents=[common], help="agreement statistics and the curation report")
    p.add_argument("dataset", nargs="*", help="dataset names or ids (default: all)")
    p.add_argument("--format", choices=["text", "markdown", "csv", "json"], default="text")
    p.add_argument("--output", help="write a report file instead (.html with charts, .md, .csv, .json, .txt)")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the 95%% intervals (0: none)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (same seed, same intervals)")
    p.set_defaults(func=cmd_agree)

    p = sub.add_parser("run", parents=[common], help="rerun a model on a dataset (OpenAI-compatible endpoint)")
    p.add_argument("dataset", help="dataset name or id")
    p.add_argument("--base-url", required=True, help="the endpoint, e.g. http://127.0.0.1:8080/v1")
    p.add_argument("--model", required=True)
    p.add_argument("--name", help="run name (default: MODEL STRATEGY); an existing run is continued")
    p.add_argument("--api-key-env", help="name of the environment variable holding the API key (never the key)")
    p.add_argument("--keyring", help="system keyring service holding the API key")
    p.add_argument("--strategy", default="default", help="prompt strategy of the item kind (see the docs)")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="strategy option (repeatable)")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--max-tokens", type=int, default=1000)
    p.add_argument("--seed", type=int)
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--timeout", type=float, default=120.0, help="seconds for one request")
    p.add_argument("--retries", type=int, default=3)
    p.add_argument("--replications", type=int, default=1)
    p.add_argument("--no-cache", action="store_true", help="send every request even if an identical one was answered")
    p.add_argument("--items", help="comma-separated record ids (default: all)")
    p.add_argument("--edited-only", action="store_true", help="only items whose gold was fixed")
    p.add_argument("--retry-errors", action="store_true", help="only retry the calls that failed before")
    p.add_argument("--score", action="store_true", help="score the run when it is done")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("formats", parents=[common], help="list the dataset and prediction formats")
    p.set_defaults(func=cmd_formats)

    # review protocol and team mode (reviewer.team)
    from reviewer.team.cli import add_parser as add_team_parser

    add_team_parser(sub, common)
    p = sub.choices["agree"]
    p.add_argument("--submissions", choices=["first", "latest"], default="first",
                   help="rate each annotator's first submitted version (default; independent) or the latest")

    # quality guards (reviewer.guards)
    add_guard_commands(sub, common)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.install_desktop_entry:
        args.func = cmd_install_desktop_entry
    elif args.command is None:
        args.func = cmd_gui
    try:
        code = args.func(args)
        sys.stdout.flush()  # inside the try: a reader that left shows up here, not at exit
        return code
    except BrokenPipeError:
        return _pipe_closed()
    except ReviewerError as exc:
        print(f"reviewer: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except (KeyboardInterrupt, Cancelled):
        print("reviewer: interrupted; nothing half-written was kept", file=sys.stderr)
        return EXIT_INTERRUPTED


def _pipe_closed() -> int:
    """The reader of our output went away (``reviewer list | head``): stop quietly, as Unix
    tools do. What was done before (an export's files) stays done. Standard output is pointed
    at /dev/null so the interpreter's last flush at exit cannot raise again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file behind stdout: nothing to flush later
        pass
    return EXIT_PIPE_CLOSED


if __name__ == "__main__":
    sys.exit(main())
