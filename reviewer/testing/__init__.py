"""Test doubles and real-server helpers for reruns (used by tests/ and bench/, never by the app)."""
