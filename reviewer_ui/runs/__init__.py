"""The "Runs & scores" dock: scoring and model reruns started from the app,
their progress, results per category with a chart, run comparison and the
verdicts that flip when gold is fixed. The main window only calls
``ui.runs.dock.install(window)``."""
