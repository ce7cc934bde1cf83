"""The audit-hook sandbox that issue 11 replaced, kept only so the bench can print its speed beside the
bubblewrap runner (it is not a security boundary and is never used by the app)."""
