"""``reviewer show`` never lets item text act on the terminal (unless ``--raw``).

Item text comes from benchmark files anyone can write: an ESC sequence could
recolour or clear the screen, an OSC sequence retitle the window, a C1 CSI act
like ESC [, and a right-to-left override make a line read backwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from reviewer.samples import DATA_DIR

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ("plain \x1b[31mred\x1b[0m \x1b]0;pwned title\x07 \x9b2J c1-csi "
           "\u202etxt.exe\u202c bell\x07 del\x7f end")
DANGEROUS = ["\x1b", "\x07", "\x9b", "\u202e", "\u202c", "\x7f"]


def cli(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "reviewer.cli", "--db", str(tmp / "db.sqlite3"), *args],
                          env=env, capture_output=True, timeout=120)


def test_show_escapes_control_characters_and_raw_keeps_them(tmp_path):
    first = json.loads((DATA_DIR / "toolselect/appendix_a.jsonl").read_text().splitlines()[0])
    first["message"] = HOSTILE
    src = tmp_path / "hostile.jsonl"
    src.write_text(json.dumps(first) + "\n")
    assert cli(tmp_path, "import", "dataset", str(src), "--format", "toolselect", "--name", "h").returncode == 0

    shown = cli(tmp_path, "show", "h", first["id"])
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout.decode()
    assert "red" in out and "pwned title" in out  # the text is shown...
    assert not [c for c in DANGEROUS if c in out], out  # ...and nothing in it acts on the terminal
    assert "\\x1b[31mred" in out and "\\u202etxt.exe" in out and "\\x9b2J" in out

    raw = cli(tmp_path, "show", "h", first["id"], "--raw")
    assert raw.returncode == 0 and HOSTILE in raw.stdout.decode()

    as_json = cli(tmp_path, "show", "h", first["id"], "--json")
    text = as_json.stdout.decode()
    assert not [c for c in DANGEROUS if c in text]
    assert json.loads(text)["question"] == HOSTILE  # escaped as JSON, so it round-trips exactly
