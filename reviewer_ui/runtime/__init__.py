"""The GUI's threads, helper process and memory: the job runner (jobs), the parse
helper process (parsepool), the GIL hand-off policy (threadpolicy), garbage
collection while idle (gcpolicy) and taking big structures apart off the GUI
thread (disposal)."""
