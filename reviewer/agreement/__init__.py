"""Agreement statistics of a dual-annotation review and the curation report.

Feed ``build_report`` a list of ``Rating`` records (see ``model``); render
the result with ``render_text``/``render_markdown``/``render_csv``/
``render_json``, or ``write_report(report, "report.html")`` (format from the
suffix). The coefficients live in ``coefficients`` and work on
``RatingTable`` code matrices for callers that need only one statistic.
"""

from reviewer.agreement.html_report import render_html
from reviewer.agreement.model import Rating, validate_ratings
from reviewer.agreement.render import render_csv, render_json, render_markdown, render_text, write_report
from reviewer.agreement.report import Report, build_report, report_to_dict

__all__ = [
    "Rating",
    "Report",
    "build_report",
    "render_csv",
    "render_html",
    "render_json",
    "render_markdown",
    "render_text",
    "report_to_dict",
    "validate_ratings",
    "write_report",
]
