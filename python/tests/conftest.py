"""Fixtures of the kosan package's tests.

The package is imported from this checkout (pytest's pythonpath, set in
pyproject.toml); libkosan_host.so is found as the package finds it
(KOSAN_HOST_LIB, the package folder, the checkout's build/lib).
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import kosan

TESTS = pathlib.Path(__file__).resolve().parent

# A run of `./scale 1000` in which one store wrote past a 4000-byte buffer
# (docs/trace-format.md), plus a second launch with no errors.
HEADER = {
    "type": "header", "format": "kosan-trace", "version": 1, "kosan_version": "0.1.0",
    "pid": 4242, "argv": ["./scale", "1000"], "start_time": "2024-05-01T12:00:00Z",
    "options": {"halt_on_error": "0", "trace": "scale.%p.trace"},
    "gpu_name": "NVIDIA H200", "gpu_arch": "sm_90", "driver_version": 12040,
    "runtime_version": 12040,
}
RECORDS = [
    HEADER,
    {"type": "module", "id": 1, "source": "examples/scale.cu",
     "compiler": "Debian clang version 19.1.7", "fp_mode": "fp-contract=fast", "sites": 3},
    {"type": "launch", "id": 1, "kernel": "scale(float*, float const*, int)",
     "mangled": "_Z5scalePfPKfi", "module": 1, "grid": [4, 1, 1], "block": [256, 1, 1],
     "shared_bytes": 0, "stream": "0x0", "instrumented": True},
    {"type": "oob", "launch": 1, "kind": "global-buffer-overflow", "access": "WRITE",
     "size": 4, "count": 32,
     "site": {"file": "examples/scale.cu", "line": 12, "column": 9,
              "function": "scale(float*, float const*, int)", "inlined_at": ""},
     "site_id": 2, "block": [3, 0, 0], "thread": [255, 0, 0], "address": "0x7f0000000fa8",
     "buffer_name": "y", "buffer_begin": "0x7f0000000000", "buffer_end": "0x7f0000000fa0",
     "pitch": 0, "row_bytes": 0, "allocated_at": "examples/scale.cu:30", "space": "global"},
    {"type": "launch", "id": 2, "kernel": "scale(float*, float const*, int)",
     "mangled": "_Z5scalePfPKfi", "module": 1, "grid": [4, 1, 1], "block": [256, 1, 1],
     "shared_bytes": 0, "stream": "0x0", "instrumented": True},
    {"type": "end", "launches": 2, "errors": 32, "reports": 1, "dropped": 0,
     "unresolved_accesses": 0},
]


@pytest.fixture
def scale_trace(tmp_path):
    """A trace as the runtime writes it, with launches and an oob record."""
    path = tmp_path / "scale.trace"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    return path


@pytest.fixture
def reference(tmp_path):
    """Writes a reference trace with kosan.write_reference; returns its path."""
    counter = iter(range(1000))

    def write(outputs, kernel="reference", name=None):
        path = tmp_path / (name or f"ref{next(counter)}.kosan")
        kosan.write_reference(path, outputs, kernel=kernel)
        return path

    return write


def _build_fake_runtime(out, *defines):
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        pytest.skip("no C compiler to build the stand-in runtime (set CC)")
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", *defines, "-o", str(out),
                    str(TESTS / "fake_runtime.c")], check=True)
    return out


@pytest.fixture(scope="session")
def fake_runtime(tmp_path_factory):
    """Path of a shared library exporting the runtime's registration functions."""
    return _build_fake_runtime(tmp_path_factory.mktemp("rt") / "libfake_kosan_rt.so")


@pytest.fixture(scope="session")
def fake_untyped_runtime(tmp_path_factory):
    """The same without kosan_register_tensor."""
    return _build_fake_runtime(tmp_path_factory.mktemp("rt") / "libfake_kosan_rt_untyped.so",
                               "-DKOSAN_FAKE_UNTYPED")


def run_python(code: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """Runs code in a fresh interpreter that imports kosan from this checkout."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = os.pathsep.join(
        [str(TESTS.parent)] + [p for p in [full_env.get("PYTHONPATH")] if p])
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full_env, timeout=120)
