"""Qt's QAbstractItemModelTester, kept alive for a whole test and made to fail it.

The tester checks a model only while it exists: created without a kept reference it
is destroyed at once and checks nothing. In Fatal mode a failure aborts the whole
test process. Here it runs in Warning mode, its reports (category ``qt.modeltest``)
are collected, and the block fails with them at the end.
"""

from __future__ import annotations

from contextlib import contextmanager

import shiboken6
from PySide6.QtCore import qInstallMessageHandler
from PySide6.QtTest import QAbstractItemModelTester


@contextmanager
def model_tester(model):
    reports: list[str] = []

    def collect(mode, context, message):
        if (context.category or "") == "qt.modeltest" or message.startswith("FAIL!"):
            reports.append(message)
        elif previous is not None:
            previous(mode, context, message)

    previous = qInstallMessageHandler(collect)
    tester = QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Warning)
    try:
        yield tester
        assert shiboken6.isValid(tester), "the model tester was destroyed before the checks ran"
    finally:
        qInstallMessageHandler(previous)
    assert reports == [], "QAbstractItemModelTester:\n" + "\n".join(reports[:20])
