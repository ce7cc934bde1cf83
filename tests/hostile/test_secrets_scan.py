"""The API key never lands on disk, even when the endpoint echoes it back.

A loopback server (reviewer.testing.openai_server with ``echo_key=True``) puts the
bearer token it received into completions, tool-call arguments and error bodies,
as is, URL-encoded, JSON-escaped and base64-encoded. The real CLI reruns a
dataset against it twice (the second time from the cache), exports the dataset
both ways, and every file written under the test's folder (database and WAL,
cache directory, exports, the CLI's captured output as its log) is scanned for
every spelling of the key.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import re
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

from reviewer.samples import DATA_DIR
from reviewer.rerun.secrets import scrub
from reviewer.testing.openai_server import OpenAIServer, Reply

ROOT = Path(__file__).resolve().parents[2]
# Characters that change under every encoding: '/', '+', '=' (base64, URL), '"' and '\\' (JSON), space, '&'.
KEY = 'sk-Echo/+=&?"\\ key:42~' + os.urandom(6).hex()
ALL_TOKENS = "raw <<KEY>> url <<KEY_URL>> plus <<KEY_URL_PLUS>> json <<KEY_JSON>> b64 <<KEY_B64>> basic <<BASIC_B64>>"


def spellings(key: str) -> dict[str, bytes]:
    """Every form of the key the scan looks for, as bytes on disk."""
    forms = {
        "raw": key,
        "url": urllib.parse.quote(key, safe=""),
        "url-lower-hex": re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), urllib.parse.quote(key, safe="")),
        "url-plus": urllib.parse.quote_plus(key, safe=""),
        "json": json.dumps(key)[1:-1],
        "json-twice": json.dumps(json.dumps(key)[1:-1])[1:-1],
        "base64": base64.b64encode(key.encode()).decode(),
        "base64-urlsafe": base64.urlsafe_b64encode(key.encode()).decode(),
        "basic-base64": base64.b64encode(f"user:{key}".encode()).decode(),
    }
    # The key's middle in base64 whatever precedes it (a 10-character core at each alignment).
    for k in range(3):
        enc = base64.b64encode(b"\0" * k + key.encode()).decode()
        forms[f"base64-core-{k}"] = enc[4:14]
    return {name: form.encode() for name, form in forms.items()}


def responder():
    turns = itertools.cycle([
        Reply(text=f"the key you sent: {ALL_TOKENS}"),
        Reply(text=None, tool_calls=[{"name": "echo", "arguments": {"seen": ALL_TOKENS}}]),
        Reply(text=None, status=400, error=f"bad request from {ALL_TOKENS}"),
        Reply(text=None, status=503, error=f"overloaded for {ALL_TOKENS}"),
        Reply(text=None, status=401, error=f"invalid api key <<KEY_URL>>"),
    ])
    return lambda body: next(turns)


def cli(tmp: Path, *args: str, log: Path, db: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ECHO_TEST_KEY": KEY, "XDG_CACHE_HOME": str(tmp / "cache"),
           "XDG_DATA_HOME": str(tmp / "data")}
    proc = subprocess.run([sys.executable, "-m", "reviewer.cli", "--db", db or str(tmp / "db.sqlite3"), *args],
                          env=env, capture_output=True, timeout=300)
    with log.open("ab") as fh:  # the CLI's whole output is kept as its log, and scanned
        fh.write(proc.stdout + proc.stderr)
    return proc


def test_an_echoing_server_leaves_no_form_of_the_key_in_any_file(tmp_path):
    echo_rerun_and_scan(tmp_path, None)


@pytest.mark.postgres
def test_the_same_on_postgresql_scanning_every_row(tmp_path, pg_url):
    """On PostgreSQL the database is no file here: every row of every table is dumped
    as text into the scanned folder."""
    echo_rerun_and_scan(tmp_path, pg_url)


def _dump_rows(url: str, out: Path) -> None:
    import psycopg

    with psycopg.connect(url) as conn:
        tables = [r[0] for r in conn.execute(
            "select table_name from information_schema.tables where table_schema = current_schema()")]
        with out.open("w", encoding="utf-8") as fh:
            for t in tables:
                for row in conn.execute(f'select row_to_json(x)::text from "{t}" x'):
                    fh.write(f"{t}\t{row[0]}\n")


def echo_rerun_and_scan(tmp_path: Path, pg: str | None) -> None:
    from functools import partial

    run_cli = partial(cli, db=pg)
    log = tmp_path / "logs" / "cli.log"
    log.parent.mkdir()
    assert run_cli(tmp_path, "import", "dataset", str(DATA_DIR / "toolselect/appendix_a.jsonl"),
               "--format", "toolselect", "--name", "echo", log=log).returncode == 0
    with OpenAIServer(responder(), echo_key=True) as server:
        for _ in range(2):  # the second pass answers the successes from the cache
            run_cli(tmp_path, "run", "echo", "--base-url", server.base_url, "--model", "m", "--name", "echoed",
                "--api-key-env", "ECHO_TEST_KEY", "--retries", "0", "--concurrency", "2", log=log)
        sent = server.chat_requests()
    # The key really travelled, and really came back in every form.
    assert sent and all(r.headers.get("authorization") == f"Bearer {KEY}" for r in sent)
    assert run_cli(tmp_path, "export", "echo", str(tmp_path / "exports" / "source"), log=log).returncode == 0
    assert run_cli(tmp_path, "export", "echo", str(tmp_path / "exports" / "items.jsonl"), "--as", "jsonl",
               log=log).returncode == 0
    assert run_cli(tmp_path, "show", "echo", _first_record_id(), "--json", log=log).returncode == 0

    if pg:
        import psycopg

        connect = partial(psycopg.connect, pg)
        _dump_rows(pg, tmp_path / "pg-rows.txt")
    else:
        import sqlite3

        connect = partial(sqlite3.connect, tmp_path / "db.sqlite3")
    with connect() as conn:
        texts = [t for (t,) in conn.execute("select text from output where text is not null")]
        errors = [e for (e,) in conn.execute("select error from output where error is not null")]
        calls = [str(x) for (x,) in conn.execute("select extra from output") if x and "echo" in str(x)]
    assert texts and all("***" in t for t in texts), texts[:3]  # echoed, and stored scrubbed
    assert errors and all("***" in e for e in errors), errors[:3]
    assert calls and all("***" in c for c in calls)
    assert any(p.is_file() for p in (tmp_path / "cache").rglob("*")), "the rerun cache was not written"

    forms = spellings(KEY)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    hits = [(str(p.relative_to(tmp_path)), name) for p in files for name, form in forms.items()
            if form in p.read_bytes()]
    print(f"secrets scan: {len(files)} files, {len(forms)} forms, {len(hits)} hits")
    assert len(files) >= 5  # database (file, or every row dumped), cache, two exports, the log
    if pg:
        assert "***" in (tmp_path / "pg-rows.txt").read_text()  # the dump holds the scrubbed outputs
    assert hits == []


def _first_record_id() -> str:
    with (DATA_DIR / "toolselect/appendix_a.jsonl").open() as fh:
        rec = json.loads(fh.readline())
    for key in ("id", "record_id", "uid"):
        if key in rec:
            return str(rec[key])
    raise AssertionError(f"no id field in {sorted(rec)}")


def test_scrub_removes_every_spelling_inside_longer_text():
    forms = spellings(KEY)
    for name, form in forms.items():
        if name.startswith("base64-core"):
            continue  # fragments for the file scan; whole encodings in context are checked below
        text = f"before {form.decode()} after"
        assert form.decode() not in scrub(text, KEY), name
    for prefix in ("", "u", "us", "user:", "Bearer "):  # every base64 alignment inside a longer value
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = "token " + encode(f"{prefix}{KEY}!".encode()).decode() + " end"
            cleaned = scrub(text, KEY)
            assert not any(f in cleaned.encode() for n, f in forms.items() if n.startswith("base64")), (prefix, cleaned)
