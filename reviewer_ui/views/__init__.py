"""Composite views: the item view and its per-kind layouts, the diff view, the filter bar."""
