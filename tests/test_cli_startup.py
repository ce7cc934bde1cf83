"""What the quick commands load, the read-only catalog behind `reviewer list`, the
desktop entry and `reviewer --version` (issues 14 and 17)."""

from __future__ import annotations

import configparser
import os
import subprocess
import sys
import textwrap

from reviewer import __version__
from reviewer.samples import SAMPLES, ensure_samples
from reviewer.store import Store
from reviewer.store.catalog import SCHEMA_VERSION, Catalog


def _run(code: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **env})


def test_catalog_is_written_for_the_current_schema():
    from reviewer.store.migrations import MIGRATIONS

    assert SCHEMA_VERSION == MIGRATIONS[-1].version, (
        "a migration was added: check reviewer.store.catalog's queries against it, then bump SCHEMA_VERSION")


def test_catalog_answers_what_the_store_answers(tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    ensure_samples(store)
    catalog = Catalog.open(store.url)
    assert catalog is not None
    assert catalog.datasets() == store.datasets()
    for sample in SAMPLES:
        assert catalog.runs(sample.name) == store.runs(sample.name)
    catalog.close()
    store.close()


def test_catalog_steps_aside_where_it_cannot_be_sure(tmp_path):
    missing = tmp_path / "nothing-here.sqlite3"
    assert Catalog.open(f"sqlite:///{missing}") is None and not missing.exists()  # never creates a file
    stranger = tmp_path / "other.sqlite3"
    stranger.write_bytes(b"not a database at all")
    assert Catalog.open(f"sqlite:///{stranger}") is None
    assert Catalog.open("postgresql+psycopg://u@127.0.0.1/test") is None


def test_list_answers_without_sqlalchemy_sqlmodel_or_qt(tmp_path):
    db = tmp_path / "db.sqlite3"
    store = Store(db)
    ensure_samples(store)
    store.close()
    proc = _run(f"""
        import sys
        from reviewer.cli import main
        assert main(["list", "--db", {str(db)!r}]) == 0
        assert main(["list", "sample-tool-qa", "--db", {str(db)!r}]) == 0
        heavy = sorted({{m.split(".")[0] for m in sys.modules}} & {{"sqlalchemy", "sqlmodel", "pydantic", "PySide6",
                        "openai", "numpy", "jsonschema", "pygments", "openpyxl"}})
        print("HEAVY:", heavy)
    """)
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY: []" in proc.stdout, proc.stdout
    assert "sample-tool-selection     tool_select    toolselect  32     2" in proc.stdout
    assert "alpha-7b direct  demo/alpha-7b  direct_prompting  6        0" in proc.stdout


def test_list_on_a_new_database_still_creates_it_through_the_store(tmp_path):
    db = tmp_path / "fresh" / "db.sqlite3"
    proc = subprocess.run([sys.executable, "-m", "reviewer.cli", "list", "--db", str(db)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "no datasets yet" in proc.stdout and db.is_file()
    unknown = subprocess.run([sys.executable, "-m", "reviewer.cli", "list", "nope", "--db", str(db)],
                             capture_output=True, text=True, timeout=120)
    assert unknown.returncode == 1 and "no dataset 'nope'" in unknown.stderr


def test_version_answers():
    proc = subprocess.run([sys.executable, "-m", "reviewer.cli", "--version"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == f"reviewer {__version__}"


def test_install_desktop_entry_writes_entry_and_icons_for_the_user(tmp_path):
    home = tmp_path / "xdg"
    proc = subprocess.run([sys.executable, "-m", "reviewer.cli", "--install-desktop-entry"], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "XDG_DATA_HOME": str(home)})
    assert proc.returncode == 0, proc.stderr
    entry = home / "applications" / "reviewer.desktop"
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str
    parser.read(entry)
    section = parser["Desktop Entry"]
    assert section["Type"] == "Application" and section["Icon"] == "reviewer" and section["Name"] == "reviewer"
    program = section["Exec"].split(" ")[0].strip('"')
    assert os.access(program, os.X_OK) and section["Exec"].endswith(" gui")
    svg = home / "icons" / "hicolor" / "scalable" / "apps" / "reviewer.svg"
    png = home / "icons" / "hicolor" / "256x256" / "apps" / "reviewer.png"
    assert svg.read_text().lstrip().startswith("<svg")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert str(entry) in proc.stdout
    # Installing again replaces, never duplicates or half-writes.
    again = subprocess.run([sys.executable, "-m", "reviewer.cli", "--install-desktop-entry"], capture_output=True,
                           text=True, timeout=60, env={**os.environ, "XDG_DATA_HOME": str(home)})
    assert again.returncode == 0
    assert sorted(p.name for p in entry.parent.iterdir()) == ["reviewer.desktop"]


def test_desktop_entry_quotes_paths_the_way_the_spec_wants():
    from reviewer_ui.desktop import desktop_entry

    text = desktop_entry(["/home/a b/.local/bin/reviewer"])
    assert 'Exec="/home/a b/.local/bin/reviewer" gui' in text


def test_desktop_module_loads_no_qt():
    proc = _run("""
        import sys
        import reviewer_ui.desktop
        print("QT:", sorted(m for m in sys.modules if m.startswith(("PySide6", "shiboken6"))))
    """)
    assert "QT: []" in proc.stdout, proc.stdout + proc.stderr
