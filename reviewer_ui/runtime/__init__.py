"""The GUI's threads, helper process and memory: the job runner (jobs), the parse
helper process (parsepool), garbage collection while idle (gcpolicy) and taking
big structures apart in the helper (disposal)."""
