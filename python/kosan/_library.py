"""Finding and loading libkosan_host.so, the C API of include/kosan/capi.h."""

from __future__ import annotations

import ctypes
import os
import pathlib
import threading

LIBRARY_NAME = "libkosan_host.so"
# KOSAN_CAPI_VERSION of the header these prototypes follow.
CAPI_VERSION = 3


class KosanError(Exception):
    """Base class of the errors this package raises."""


class LibraryNotFound(KosanError):
    """libkosan_host.so could not be found or loaded."""


_lock = threading.Lock()
_library: ctypes.CDLL | None = None


def _repo_root() -> pathlib.Path | None:
    """The kosan checkout this package is imported from, if it is one."""
    root = pathlib.Path(__file__).resolve().parent.parent.parent
    if (root / "include" / "kosan" / "capi.h").is_file():
        return root
    return None


def candidate_paths() -> list[pathlib.Path]:
    """Where the library is looked for, in order.

    KOSAN_HOST_LIB, when set, is the only place looked at. Otherwise: beside
    this file (an installed wheel), then the build tree of the checkout this
    package is imported from (KOSAN_BUILD_DIR, default build/).
    """
    explicit = os.environ.get("KOSAN_HOST_LIB")
    if explicit:
        return [pathlib.Path(explicit)]
    paths = [pathlib.Path(__file__).resolve().parent / LIBRARY_NAME]
    root = _repo_root()
    if root is not None:
        build = pathlib.Path(os.environ.get("KOSAN_BUILD_DIR") or "build")
        if not build.is_absolute():
            build = root / build
        paths.append(build / "lib" / LIBRARY_NAME)
    return paths


def _declare(lib: ctypes.CDLL) -> None:
    c = ctypes
    # Strings the library allocates come back as void pointers, so that they
    # can be handed to kosan_string_free after they are copied.
    string = c.c_void_p
    string_out = c.POINTER(c.c_void_p)
    trace = c.c_void_p
    signatures = {
        "kosan_capi_version": (c.c_int, []),
        "kosan_checks_json": (string, []),
        "kosan_trace_open": (trace, [c.c_char_p, string_out]),
        "kosan_trace_close": (None, [trace]),
        "kosan_trace_header_json": (string, [trace]),
        "kosan_trace_json": (string, [trace]),
        "kosan_trace_launch_count": (c.c_size_t, [trace]),
        "kosan_trace_launch_json": (string, [trace, c.c_size_t]),
        "kosan_trace_oob_count": (c.c_size_t, [trace]),
        "kosan_trace_oob_json": (string, [trace, c.c_size_t]),
        "kosan_trace_order_atomics_count": (c.c_size_t, [trace]),
        "kosan_trace_order_atomics_json": (string, [trace, c.c_size_t]),
        "kosan_trace_order_summary_count": (c.c_size_t, [trace]),
        "kosan_trace_order_summary_json": (string, [trace, c.c_size_t]),
        "kosan_trace_snapshot_count": (c.c_size_t, [trace]),
        "kosan_trace_snapshot_json": (string, [trace, c.c_size_t]),
        "kosan_trace_snapshot_bytes": (c.c_uint64, [trace, c.c_size_t]),
        "kosan_trace_snapshot_read": (
            c.c_int, [trace, c.c_size_t, c.c_void_p, c.c_uint64, string_out]),
        "kosan_diff": (
            string, [c.c_char_p, c.c_char_p, c.c_char_p, c.c_char_p, c.POINTER(c.c_int)]),
        "kosan_write_reference": (
            c.c_int,
            [c.c_char_p, c.c_char_p, c.c_size_t, c.POINTER(c.c_char_p),
             c.POINTER(c.c_char_p), c.POINTER(c.c_void_p), c.POINTER(c.c_uint64),
             string_out]),
        "kosan_string_free": (None, [c.c_void_p]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes


def load() -> ctypes.CDLL:
    """The loaded library; raises LibraryNotFound with every place tried."""
    global _library
    with _lock:
        if _library is not None:
            return _library
        tried = []
        for path in candidate_paths():
            if not path.is_file():
                tried.append(f"{path} (no such file)")
                continue
            try:
                lib = ctypes.CDLL(str(path))
                version = lib.kosan_capi_version()
            except (OSError, AttributeError) as error:
                tried.append(f"{path} ({error})")
                continue
            if version != CAPI_VERSION:
                tried.append(f"{path} (C API version {version}; this package needs "
                             f"{CAPI_VERSION})")
                continue
            _declare(lib)
            _library = lib
            return lib
        raise LibraryNotFound(
            "cannot load the kosan host library; tried: " + "; ".join(tried) +
            ". Install the package with pip (it builds the library), build the "
            "target kosan_host_shared in the checkout, or set KOSAN_HOST_LIB to "
            "the path of libkosan_host.so")


def take_string(pointer) -> str | None:
    """Copies a string the library returned and frees it."""
    address = pointer.value if isinstance(pointer, ctypes.c_void_p) else pointer
    if not address:
        return None
    try:
        return ctypes.string_at(address).decode("utf-8", "replace")
    finally:
        load().kosan_string_free(address)
