"""Light and dark themes: the Qt palette, a small style sheet (reviewer_ui/*.qss) and the
colours the painted viewers use for JSON tokens and diff/validation roles.

Viewers read ``colors()`` when they paint, and ``changed`` tells them to repaint.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase, QPalette
from PySide6.QtWidgets import QApplication

HERE = Path(__file__).resolve().parent

LIGHT = {
    "window": "#f5f5f7", "base": "#ffffff", "alt": "#f0f2f5", "text": "#1d1f23", "muted": "#6a6f7a",
    "button": "#e9ebef", "highlight": "#2f6fde", "highlight_text": "#ffffff", "border": "#c9cdd4",
    "link": "#1f5fbf", "tooltip": "#ffffe8",
    # 3D shades (Fusion's own light ones): frames, and a disabled choice button's text (palette(mid))
    "light": "#ffffff", "midlight": "#cacaca", "mid": "#b8b8b8", "dark": "#9f9f9f", "shadow": "#767676",
    # JSON / code tokens
    "key": "#7a3e9d", "string": "#1a7f37", "number": "#b35900", "keyword": "#0550ae", "punct": "#57606a",
    "comment": "#6e7781", "name": "#8250df", "error": "#cf222e",
    # line and span roles
    "added": "#dafbe1", "removed": "#ffebe9", "changed": "#fff5c2", "filler": "#eceef1",
    "error_bg": "#ffd7d5", "current": "#cfe2ff", "span_added": "#a6f0b6", "span_removed": "#ffb8b0",
    "span_changed": "#ffe27a", "support": "#fff0a8", "gutter": "#8c929c", "gutter_bg": "#f3f4f6",
    "selection": "#b6d3ff", "moved": "#ece4ff", "collapsed": "#e4e7eb", "ok": "#1a7f37", "bad": "#cf222e", "unk": "#9a6700",
}

DARK = {
    "window": "#1f2126", "base": "#16181c", "alt": "#1c1f24", "text": "#e3e6eb", "muted": "#9aa0aa",
    "button": "#2c2f36", "highlight": "#3d7be0", "highlight_text": "#ffffff", "border": "#3a3e46",
    "link": "#79b0ff", "tooltip": "#2c2f36",
    # Dark shades: with the light ones a disabled Pass/Fix/Reject (palette(mid) text) looked enabled.
    "light": "#4a4f58", "midlight": "#3a3e46", "mid": "#5f6570", "dark": "#131518", "shadow": "#0b0c0e",
    "key": "#d2a8ff", "string": "#7ee787", "number": "#ffa657", "keyword": "#79c0ff", "punct": "#aab2bd",
    "comment": "#8b949e", "name": "#d2a8ff", "error": "#ff7b72",
    "added": "#12361f", "removed": "#42181b", "changed": "#3b3214", "filler": "#25282e",
    "error_bg": "#5a1e1e", "current": "#1d3a66", "span_added": "#1f6f3a", "span_removed": "#8a2a2a",
    "span_changed": "#7a6418", "support": "#5a4a10", "gutter": "#6e7681", "gutter_bg": "#1a1c20",
    "selection": "#264f78", "moved": "#2d2545", "collapsed": "#2a2d33", "ok": "#56d364", "bad": "#ff7b72", "unk": "#e3b341",
}

THEMES = {"light": LIGHT, "dark": DARK}


class _ThemeState(QObject):
    changed = Signal(str)

    def __init__(self):
        super().__init__()
        self.name = "light"
        self.qcolors: dict[str, QColor] = {k: QColor(v) for k, v in LIGHT.items()}


_state: _ThemeState | None = None


def state() -> _ThemeState:
    global _state
    if _state is None:
        _state = _ThemeState()
    return _state


def colors() -> dict[str, QColor]:
    """The current theme's colours by role (QColor objects, cached)."""
    return state().qcolors


def current() -> str:
    return state().name


def monospace_font(size: int | None = None) -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setStyleHint(QFont.StyleHint.Monospace)
    if size:
        font.setPointSize(size)
    return font


def apply(app: QApplication, name: str) -> None:
    """Switch the whole app to the ``light`` or ``dark`` theme."""
    name = name if name in THEMES else "light"
    c = THEMES[name]
    app.setStyle("Fusion")
    pal = QPalette()
    roles = {
        QPalette.ColorRole.Window: "window", QPalette.ColorRole.WindowText: "text", QPalette.ColorRole.Base: "base",
        QPalette.ColorRole.AlternateBase: "alt", QPalette.ColorRole.Text: "text", QPalette.ColorRole.Button: "button",
        QPalette.ColorRole.ButtonText: "text", QPalette.ColorRole.Highlight: "highlight",
        QPalette.ColorRole.HighlightedText: "highlight_text", QPalette.ColorRole.ToolTipBase: "tooltip",
        QPalette.ColorRole.ToolTipText: "text", QPalette.ColorRole.Link: "link",
        QPalette.ColorRole.PlaceholderText: "muted",
        QPalette.ColorRole.Light: "light", QPalette.ColorRole.Midlight: "midlight", QPalette.ColorRole.Mid: "mid",
        QPalette.ColorRole.Dark: "dark", QPalette.ColorRole.Shadow: "shadow",
    }
    for role, key in roles.items():
        pal.setColor(role, QColor(c[key]))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor(c["muted"]))
    app.setPalette(pal)
    qss = (HERE / f"{name}.qss").read_text(encoding="utf-8")
    app.setStyleSheet(qss)
    st = state()
    st.name = name
    st.qcolors = {k: QColor(v) for k, v in c.items()}
    st.changed.emit(name)
