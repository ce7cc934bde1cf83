"""Regression guard for the PySide6 build we pin (shared/NOTES.md).

PySide6 6.12.0 on Python 3.11 drops a reference to ``None`` on every Qt method
that returns nothing; after a few thousand calls the process aborts with
``Fatal Python error: none_dealloc``. We make ~20,000 such calls and check that
``sys.getrefcount(None)`` did not fall. Run in a child process so that a broken
build fails this test instead of killing the whole test session.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def test_void_qt_calls_do_not_leak_references_to_none():
    script = textwrap.dedent(
        """
        import sys
        from PySide6.QtCore import QObject
        from PySide6.QtGui import QTextCharFormat, QColor
        from PySide6.QtWidgets import QApplication
        app = QApplication([])
        fmt = QTextCharFormat()
        color = QColor("red")
        obj = QObject()
        before = sys.getrefcount(None)
        for i in range(10_000):
            fmt.setForeground(color)      # returns nothing
            obj.setObjectName("x")        # returns nothing
        after = sys.getrefcount(None)
        print("DELTA", after - before)
        """
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, f"Qt process died ({proc.returncode}): {proc.stderr[-2000:]}"
    delta = int(proc.stdout.split("DELTA")[1])
    # A correct build keeps the count (small positive noise is fine); the broken one loses ~20,000.
    assert delta > -100, f"sys.getrefcount(None) fell by {-delta} over 20,000 void Qt calls"
