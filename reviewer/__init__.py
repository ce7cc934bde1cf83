"""reviewer: curate gold sets for JSON and tool-use LLM benchmarks.

This package is the Qt-free core: the store, importers and exporters, scoring,
agreement statistics, jobs and the CLI. The desktop front end lives in ``ui``
and is the only place that imports Qt (``tests/test_qt_free.py`` enforces it).
"""

__version__ = "0.1.0"
