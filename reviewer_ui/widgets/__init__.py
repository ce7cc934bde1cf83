"""Reusable widgets: the fast line viewer, the lazy JSON tree, the call graph."""
