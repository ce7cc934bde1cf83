"""The core never loads Qt: importing every module of ``reviewer`` and running the
CLI's batch commands leaves PySide6 out of ``sys.modules``."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def core_modules() -> list[str]:
    """Every module under reviewer/, from the files themselves (pkgutil's walk skips
    folders without an __init__.py, such as reviewer/scoring)."""
    import reviewer

    root = Path(reviewer.__file__).parent
    names = {".".join(("reviewer", *p.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
             for p in root.rglob("*.py")}
    return sorted(names - {"reviewer"})


def test_core_and_cli_never_import_pyside6(tmp_path):
    modules = core_modules()
    script = textwrap.dedent(
        f"""
        import importlib, sys
        failed = []
        for name in {modules!r}:
            try:
                importlib.import_module(name)
            except ImportError as exc:  # reported and asserted: a module not imported proves nothing
                failed.append((name, str(exc)))
        from reviewer.cli import main
        assert main(["list", "--db", {str(tmp_path / "db.sqlite3")!r}]) == 0
        assert main(["formats"]) == 0
        qt = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6", "PyQt5", "PyQt6"))
        print("QT:", qt)
        print("IMPORT-FAILURES:", failed)
        print("IMPORTED:", sum(1 for name in {modules!r} if name in sys.modules))
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "QT: []" in proc.stdout, proc.stdout
    assert "IMPORT-FAILURES: []" in proc.stdout, proc.stdout
    assert f"IMPORTED: {len(modules)}" in proc.stdout, proc.stdout
    assert "reviewer.scoring.job" in modules and len(modules) > 100  # the whole core, scoring included


def test_every_core_module_mentions_no_qt_binding():
    """A cheap static guard beside the runtime one: no Qt import statement under reviewer/."""
    from pathlib import Path

    import reviewer

    root = Path(reviewer.__file__).parent
    offenders = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        for line in p.read_text(encoding="utf-8").splitlines()
        if line.lstrip().startswith(("import PySide6", "from PySide6", "import shiboken6", "from shiboken6"))
    ]
    assert offenders == []
