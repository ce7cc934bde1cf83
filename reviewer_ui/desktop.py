"""The desktop entry and icon for the current user (Linux, freedesktop.org).

Qt-free on purpose: ``reviewer --install-desktop-entry`` runs without loading Qt.

Files written (``$XDG_DATA_HOME`` defaults to ``~/.local/share``):
- ``applications/reviewer.desktop``: launches the ``reviewer`` that is running now
  (its absolute path, so a pipx or venv install works from the menu without PATH);
- ``icons/hicolor/scalable/apps/reviewer.svg`` and ``icons/hicolor/256x256/apps/reviewer.png``.
"""

from __future__ import annotations

import os
import shutil
import sys
from importlib.resources import files
from pathlib import Path

APP_ID = "reviewer"


def icon_file(kind: str = "svg") -> Path:
    """The shipped application icon (``svg`` or ``png``, 256 px)."""
    name = "reviewer.svg" if kind == "svg" else "reviewer-256.png"
    return Path(str(files("reviewer_ui") / "resources" / name))


def data_home(env: dict[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    value = env.get("XDG_DATA_HOME", "")
    # The spec: a relative or empty value is invalid and the default applies.
    return Path(value) if value and os.path.isabs(value) else Path.home() / ".local" / "share"


def launcher() -> list[str]:
    """The command that starts this installation of reviewer."""
    script = shutil.which("reviewer", path=str(Path(sys.executable).parent))
    if script:
        return [script]
    return [sys.executable, "-m", "reviewer.cli"]


def _exec_arg(arg: str) -> str:
    """One argument of an Exec line, quoted the way the Desktop Entry spec wants
    (double quotes, backslash before " ` $ \\; a literal % doubled)."""
    arg = arg.replace("%", "%%")
    if arg and not any(c in arg for c in ' \t\n"\'\\><~|&;$*?#()`='):
        return arg
    return '"' + "".join("\\" + c if c in '"`$\\' else c for c in arg) + '"'


def desktop_entry(command: list[str]) -> str:
    exec_line = " ".join(_exec_arg(part) for part in command)
    return "\n".join([
        "[Desktop Entry]",
        "Type=Application",
        "Version=1.5",
        "Name=reviewer",
        "GenericName=Benchmark gold-set reviewer",
        "Comment=Curate gold sets for JSON and tool-use LLM benchmarks",
        f"Exec={exec_line} gui",
        f"Icon={APP_ID}",
        "Terminal=false",
        "Categories=Development;Science;",
        "StartupWMClass=reviewer",
        "",
    ])


def install(env: dict[str, str] | None = None, command: list[str] | None = None) -> list[Path]:
    """Write the desktop entry and the icons for the current user; return the files
    written. Existing files of ours are replaced (a reinstall points at the new copy)."""
    home = data_home(env)
    written = []
    targets = [
        (icon_file("svg"), home / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"),
        (icon_file("png"), home / "icons" / "hicolor" / "256x256" / "apps" / f"{APP_ID}.png"),
    ]
    for source, target in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        written.append(target)
    entry = home / "applications" / f"{APP_ID}.desktop"
    entry.parent.mkdir(parents=True, exist_ok=True)
    tmp = entry.with_suffix(".desktop.tmp")
    tmp.write_text(desktop_entry(command or launcher()), encoding="utf-8")
    tmp.chmod(0o755)
    os.replace(tmp, entry)  # never a half-written entry in the menu
    written.append(entry)
    return written
