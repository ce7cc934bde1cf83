"""Developer scripts: screenshots, latency probes and demo data. Not shipped in the wheel;
run them from the repository root, e.g. ``python -m tools.screenshots OUT_DIR``."""
