"""A progress line for one job: bar with done/total, rate and time left."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QVBoxLayout, QWidget

from reviewer.jobs import Progress
from reviewer.rerun.engine import UNREACHABLE_PREFIX


def describe(p: Progress, unit: str = "") -> str:
    """``"120 / 400 outputs · 35.2/s · about 8 s left"`` (parts unknown yet are left out)."""
    parts = [f"{p.done:,} / {p.total:,}{' ' + unit if unit else ''}" if p.total is not None else f"{p.done:,}"]
    if p.rate is not None:
        parts.append(f"{p.rate:.1f}/s")
    if p.eta is not None and p.total is not None and p.done < p.total:
        parts.append(f"about {_duration(p.eta)} left")
    return " · ".join(parts)


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class ProgressLine(QWidget):
    """Hidden until ``show_progress``; ``finish`` hides it again."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.bar = QProgressBar()
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(14)
        self.label = QLabel("")
        self.label.setObjectName("muted")
        self.label.setWordWrap(True)
        # What the job says in words (e.g. "cannot reach http://…: Connection refused"), under the bar.
        self.note = QLabel("")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #c0392b")
        self.note.setVisible(False)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.bar, 1)
        row.addWidget(self.label)
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.addLayout(row)
        col.addWidget(self.note)
        self.setVisible(False)

    def start(self, what: str) -> None:
        self.bar.setRange(0, 0)  # busy until the first report
        self.label.setText(what)
        self.note.setVisible(False)
        self.setVisible(True)

    def show_progress(self, p: Progress, what: str = "") -> None:
        if p.total:
            self.bar.setRange(0, p.total)
            self.bar.setValue(min(p.done, p.total))
        else:
            self.bar.setRange(0, 0)
        text = describe(p)
        self.label.setText(f"{what}: {text}" if what else text)
        if p.message.startswith(UNREACHABLE_PREFIX):  # the endpoint's error, as soon as an attempt fails
            self.note.setText(p.message)
            self.note.setVisible(True)
        self.setVisible(True)

    def finish(self) -> None:
        self.setVisible(False)
