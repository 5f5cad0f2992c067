"""kosan for Python harnesses: read traces, compare a candidate kernel's run
against a reference, write references computed in Python, and register
tensors with the runtime of an instrumented extension module.

Pure Python on top of libkosan_host.so (include/kosan/capi.h); numpy and
torch are used when present and never required. See docs/python.md.
"""

from ._library import KosanError, LibraryNotFound
from ._checks import check_names, checks
from ._trace import Trace, TraceError, open_trace
from ._compare import compare, compare_report, write_reference
from ._runtime import (RegistrationError, RuntimeNotFound, find_runtime, register_tensor,
                       registered, unregister_tensor)

__all__ = [
    "KosanError", "LibraryNotFound", "TraceError", "RuntimeNotFound", "RegistrationError",
    "Trace", "open_trace", "compare", "compare_report", "write_reference",
    "find_runtime", "register_tensor", "unregister_tensor", "registered",
    "checks", "check_names",
]


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("kosan")
    except Exception:  # a source checkout: not installed
        return "0+source"


__version__ = _version()
