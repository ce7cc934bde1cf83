"""Run untrusted Python (model-written code, gold programs) isolated by bubblewrap.

Public API (everything else is private)::

    from reviewer.sandbox import Limits, SandboxResult, run_python, run_many, availability

    res = run_python(code, entry="answer", args_json=[tool_response], limits=Limits(cpu_seconds=5))
    res.status      # "ok" | "error" | "timeout" | "killed" | "limit" | "not_run"
    res.ok          # status == "ok"
    res.value       # the function's return value (JSON round-trip; repr when JSON cannot carry it)
    res.limit       # which limit was hit: cpu_time, wall_time, address_space, file_size,
                    # open_files, output_size, processes, disk (None otherwise)
    res.error       # one-line reason first, then the traceback tail (None when ok)
    res.isolation   # the parent's record of the isolation used (empty when not run)

``run_python(code, entry=None, args_json=None, limits=None)`` runs one program in
a fresh sandbox: with ``entry`` it calls that function with ``args_json`` (a list
is spread as positional arguments), without it the value is the global
``result``. ``run_many(jobs, limits=None, workers=None)`` runs ``(code, entry,
args_json)`` jobs, each in its own sandbox, and returns results in job order.
Neither ever raises for what a program does.

``availability()`` says whether sandboxed code can run here (``.available``,
``.reason``, ``.how_to_enable``, ``.message``). There is no weaker fallback: when
bubblewrap cannot start a sandbox, programs are not run and come back with
status "not_run" and that message.

How the sandbox is built: ``engine`` (bubblewrap options), ``seccomp`` (the
syscall filter, each rule explained), ``_boot`` (the stdlib-only code that starts
the program inside), ``runner`` (the parent's side: input, output caps, limits,
the verdict).
"""

from reviewer.sandbox.engine import Availability, availability
from reviewer.sandbox.runner import LIMIT_NAMES, Limits, SandboxResult, Status, run_many, run_python

__all__ = ["Availability", "LIMIT_NAMES", "Limits", "SandboxResult", "Status", "availability", "run_many",
           "run_python"]
