"""Test doubles and real-server helpers for reruns, and synthetic reviews for the agreement
statistics (used by tests/ and bench/, never by the app)."""
