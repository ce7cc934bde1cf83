"""Dual-annotator review: annotate (blind), settle (auto or adjudicated), release Gold."""
