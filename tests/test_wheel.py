"""The package a team installs (issue 17): build the sdist and the wheel from a copy of the
source, install the wheel into a clean virtualenv in a temporary folder (no system site
packages, no PYTHONPATH, a fresh HOME), and run the installed copy: `reviewer --version`,
no top-level `ui` package, the CLI smoke test and the first-start journey test, which
proves the samples are imported (and scored) on a first start from site-packages.

Needs the package index or a warm pip cache for the wheel's dependencies (PySide6 and
the rest); without them the test fails and says so, it does not pass quietly.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from reviewer import __version__
from tests.conftest import ROOT

pytestmark = pytest.mark.wheel

NETWORK_HINTS = ("Could not find a version", "No matching distribution", "NewConnectionError",
                 "Temporary failure in name resolution", "Network is unreachable", "ConnectionError",
                 "Max retries exceeded", "ReadTimeoutError")


def _tail(text: str, lines: int = 25) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def _source_copy(dest: Path) -> Path:
    """The files a clone would have (tracked, plus new files not ignored), nothing built."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, timeout=60)
    if listed.returncode != 0:
        pytest.fail(f"cannot list the source files with git in {ROOT}: {listed.stderr.decode()[-500:]}")
    for name in filter(None, listed.stdout.decode().split("\0")):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


def clean_env(home: Path) -> dict[str, str]:
    """The environment of a person who installed the wheel: no source tree on the path."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "REVIEWER_DB", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"),
               XDG_CACHE_HOME=str(home / "cache"), QT_QPA_PLATFORM="offscreen", PYTHONNOUSERSITE="1")
    return env


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(wheel, sdist) built by the standard front end (`python -m build`: the sdist
    first, then the wheel from the unpacked sdist, as a downstream packager would)."""
    try:
        import build  # noqa: F401
    except ImportError:
        pytest.fail("the 'build' package is missing: install the test extra (pip install -e '.[test]')")
    work = tmp_path_factory.mktemp("wheel-build")
    src = _source_copy(work / "src")
    dist = work / "dist"
    proc = subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(src)],
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        output = proc.stdout + proc.stderr
        why = "no package index reachable for the build requirements (setuptools)" if any(
            h in output for h in NETWORK_HINTS) else "the build failed"
        pytest.fail(f"{why}:\n{_tail(output)}")
    wheels, sdists = list(dist.glob("*.whl")), list(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, list(dist.iterdir())
    return wheels[0], sdists[0]


@pytest.fixture(scope="module")
def installed(built, tmp_path_factory):
    """A clean virtualenv holding the wheel (plus pytest and pytest-qt to run the
    journey test in it); returns (venv, home, workdir) with workdir outside the repository."""
    wheel, _ = built
    base = tmp_path_factory.mktemp("wheel-install")
    venv = base / "venv"
    made = subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], capture_output=True, text=True,
                          timeout=300)
    assert made.returncode == 0, f"could not create a virtualenv:\n{_tail(made.stderr)}"
    home = base / "home"
    home.mkdir()
    env = clean_env(home)
    env.pop("XDG_CACHE_HOME")  # pip may use the machine's cache: the same wheels, no network
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel),
                           "pytest>=8", "pytest-qt>=4.4"], capture_output=True, text=True, env=env, timeout=1800,
                          cwd=base)
    if proc.returncode != 0:
        output = proc.stdout + proc.stderr
        if any(h in output for h in NETWORK_HINTS):
            pytest.fail("could not install the wheel's dependencies into a clean virtualenv: pip needs the "
                        f"package index or a warm pip cache (PySide6-Essentials, SQLModel, ...):\n{_tail(output)}")
        pytest.fail(f"pip could not install the wheel into a clean virtualenv:\n{_tail(output)}")
    work = base / "work"
    work.mkdir()
    return venv, home, work


def test_wheel_and_sdist_carry_the_runtime_files_under_our_own_names(built):
    wheel, sdist = built
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"reviewer", "reviewer_ui", f"reviewer-{__version__}.dist-info"}, top
    samples = [n for n in names if n.startswith("reviewer/samples/data/")]
    repo_samples = [p for p in (ROOT / "reviewer" / "samples" / "data").rglob("*") if p.is_file()]
    assert len(samples) == len(repo_samples) > 0
    for needed in ("reviewer_ui/light.qss", "reviewer_ui/dark.qss", "reviewer_ui/resources/reviewer.svg",
                   "reviewer_ui/resources/reviewer-256.png"):
        assert needed in names, needed
    assert not [n for n in names if n.startswith(("tests/", "tools/", "bench/"))]
    with tarfile.open(sdist) as t:
        members = t.getnames()
    assert any(m.endswith("reviewer/samples/data/deepjson/DeepJSONEval-sample.xlsx") for m in members)
    assert any(m.endswith("reviewer_ui/resources/reviewer.svg") for m in members)


def test_installed_reviewer_answers_and_installs_no_generic_ui_package(installed):
    venv, home, work = installed
    env = clean_env(home)
    version = subprocess.run([str(venv / "bin" / "reviewer"), "--version"], capture_output=True, text=True,
                             env=env, cwd=work, timeout=120)
    assert version.returncode == 0 and version.stdout.strip() == f"reviewer {__version__}", version.stderr
    probe = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import importlib.util, reviewer, reviewer_ui, reviewer.samples as s;"
         "print(importlib.util.find_spec('ui'), importlib.util.find_spec('tools'));"
         "print(reviewer.__file__); print(s.DATA_DIR.is_dir(), len(list(s.DATA_DIR.rglob('*.*'))))"],
        capture_output=True, text=True, env=env, cwd=work, timeout=120)
    assert probe.returncode == 0, probe.stderr
    no_ui, where, data = probe.stdout.splitlines()
    assert no_ui == "None None"  # no top-level ui (nor tools) package installed
    assert where.startswith(str(venv)), where  # the installed copy, not the source tree
    assert data.startswith("True ") and int(data.split()[1]) > 0
    assert not (Path(where).parents[1] / "ui").exists()


def test_installed_copy_passes_the_cli_smoke_test_and_the_first_start_journey(installed):
    venv, home, work = installed
    tests = work / "tests"
    for rel in ("__init__.py", "conftest.py", "test_cli.py", "ui/__init__.py", "ui/conftest.py", "ui/test_app.py"):
        (tests / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / "tests" / rel, tests / rel)
    # The tests themselves check which copy they run against.
    (tests / "test_installed_copy.py").write_text(
        "import reviewer, reviewer_ui, sys\n"
        "def test_runs_against_the_installed_copy():\n"
        f"    assert reviewer.__file__.startswith({str(venv)!r}), reviewer.__file__\n"
        f"    assert reviewer_ui.__file__.startswith({str(venv)!r}), reviewer_ui.__file__\n")
    (work / "pytest.ini").write_text("[pytest]\nmarkers =\n    postgres\n    refdata\n    slow\n    realmodel\n"
                                     "    wheel\n")
    proc = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/test_installed_copy.py",
         "tests/test_cli.py::test_import_list_show_export_round_trip",
         "tests/test_cli.py::test_help_everywhere",
         "tests/ui/test_app.py::test_first_start_window_is_usable_while_samples_land"],
        capture_output=True, text=True, env=clean_env(home), cwd=work, timeout=900)
    assert proc.returncode == 0, _tail(proc.stdout + proc.stderr, 60)
    assert "5 passed" in proc.stdout, proc.stdout
