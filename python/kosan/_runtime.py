"""Registering device tensors with the kosan runtime (include/kosan/kosan.h).

The runtime is libkosan_rt.so. Instrumented programs and extension modules
do not link it: the loader each of their objects carries opens it, with
RTLD_GLOBAL, when the program starts, so that every kosan-built library of
a process shares one runtime. Python finds it there (the process's global
symbols) or opens it itself; extensions loaded later then share that one
(dlopen of one file returns one library).
"""

from __future__ import annotations

import contextlib
import ctypes
import os

from . import _dtypes
from ._library import KosanError

_REGISTER = "kosan_register_buffer"
_REGISTER_TENSOR = "kosan_register_tensor"
_UNREGISTER = "kosan_unregister_buffer"


class RuntimeNotFound(KosanError):
    """No kosan runtime is linked where kosan looked."""


class RegistrationError(KosanError):
    """The runtime refused a registration (an overlap) or an unregistration."""


_default_runtime: ctypes.CDLL | None = None


def _declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    register = getattr(lib, _REGISTER)
    register.restype = ctypes.c_int
    register.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    unregister = getattr(lib, _UNREGISTER)
    unregister.restype = ctypes.c_int
    unregister.argtypes = [ctypes.c_void_p]
    # Runtimes that snapshot outputs also take the dtype and shape.
    if hasattr(lib, _REGISTER_TENSOR):
        tensor = getattr(lib, _REGISTER_TENSOR)
        tensor.restype = ctypes.c_int
        tensor.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p,
                           ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_longlong)]
    return lib


def _has_runtime(lib) -> bool:
    try:
        getattr(lib, _REGISTER)
        getattr(lib, _UNREGISTER)
    except AttributeError:
        return False
    return True


def _runtime_paths() -> list[str]:
    """Where libkosan_rt.so is looked for when no library is named."""
    for variable in ("KOSAN_RUNTIME", "KOSAN_RUNTIME_LIB"):
        value = os.environ.get(variable)
        if value:
            return [value]  # an explicit choice is the only place looked at
    paths = []
    from ._library import candidate_paths
    for host in candidate_paths():
        paths.append(str(host.with_name(RUNTIME_NAME)))
    return paths


RUNTIME_NAME = "libkosan_rt.so"


def _global_runtime():
    lib = ctypes.CDLL(None)
    return lib if _has_runtime(lib) else None


def find_runtime(runtime=None) -> ctypes.CDLL:
    """The library whose kosan_register_buffer to call.

    runtime: a path to an instrumented program, extension module (.so) or
    libkosan_rt.so itself (loading an already loaded library returns that
    same instance), or a ctypes library handle. None: the runtime already in
    the process (loaded by a kosan-built extension), else libkosan_rt.so at
    KOSAN_RUNTIME (or KOSAN_RUNTIME_LIB), else beside the host library of
    this package.
    """
    global _default_runtime
    if runtime is not None:
        if isinstance(runtime, (str, bytes, os.PathLike)):
            path = os.fspath(runtime)
            try:
                lib = ctypes.CDLL(path)
            except OSError as error:
                raise RuntimeNotFound(f"cannot load {path!r} to find the kosan runtime: "
                                      f"{error}") from None
            where = repr(path)
        else:
            lib, where = runtime, repr(runtime)
        if _has_runtime(lib):
            return _declare(lib)
        # A kosan-built library keeps its loader to itself; loading it
        # loaded the runtime into the process's global scope.
        shared = _global_runtime()
        if shared is not None:
            return _declare(shared)
        raise RuntimeNotFound(
            f"{where} neither is nor loaded the kosan runtime ({_REGISTER} is not "
            "defined there or in the process): pass an extension module or program built "
            "with kosan-clang++ or kosan-nvcc, or libkosan_rt.so")
    if _default_runtime is not None:
        return _default_runtime
    shared = _global_runtime()
    if shared is not None:
        _default_runtime = _declare(shared)
        return _default_runtime
    tried = ["the process's global symbols"]
    for candidate in _runtime_paths():
        try:
            lib = ctypes.CDLL(candidate)
        except OSError as error:
            tried.append(f"{candidate} ({error})")
            continue
        if _has_runtime(lib):
            _default_runtime = _declare(lib)
            return _default_runtime
        tried.append(f"{candidate} (no {_REGISTER} there)")
    raise RuntimeNotFound(
        f"no kosan runtime found (looked in {'; '.join(tried)}): set KOSAN_RUNTIME to "
        "<kosan>/lib/libkosan_rt.so, or pass runtime= a kosan-built extension module")


def _describe(t_or_ptr, nbytes, dtype, shape):
    """(pointer, bytes, kosan dtype or None, shape or None) of what to register."""
    if isinstance(t_or_ptr, int):
        if nbytes is None:
            raise TypeError("registering a raw pointer needs nbytes=")
        pointer, size = t_or_ptr, int(nbytes)
    elif hasattr(t_or_ptr, "data_ptr"):
        pointer = int(t_or_ptr.data_ptr())
        size = int(t_or_ptr.numel() * t_or_ptr.element_size() if nbytes is None else nbytes)
        if dtype is None and hasattr(t_or_ptr, "dtype"):
            try:
                dtype = _dtypes.dtype_name(t_or_ptr.dtype)
            except TypeError:
                dtype = None  # a dtype kosan has no name for: registered untyped
        if shape is None and hasattr(t_or_ptr, "shape"):
            shape = tuple(t_or_ptr.shape)
    else:
        raise TypeError(f"cannot register a {type(t_or_ptr).__name__}: pass a torch tensor "
                        "or an int device pointer and nbytes=")
    if dtype is not None:
        dtype = _dtypes.dtype_name(dtype)
    return pointer, size, dtype, (None if shape is None else [int(d) for d in shape])


def register_tensor(t_or_ptr, nbytes: int | None = None, name: str | None = None,
                    runtime=None, *, dtype=None, shape=None) -> int:
    """Declares a device tensor a buffer of its own for the out-of-bounds check.

    t_or_ptr: a torch tensor (its data_ptr() and numel() * element_size()
    bytes, its dtype and shape) or an int device pointer with nbytes (and,
    if known, dtype and shape). Kernel arguments pointing into it are then
    checked against its bounds, not those of the caching allocator's slab it
    was carved from, and output snapshots of it carry its name, dtype and
    shape. Returns the pointer registered.
    """
    pointer, size, dtype, shape = _describe(t_or_ptr, nbytes, dtype, shape)
    lib = find_runtime(runtime)
    label = (name if name is not None else "").encode()
    if hasattr(lib, _REGISTER_TENSOR) and (dtype is not None or shape is not None):
        extents = (ctypes.c_longlong * max(len(shape or []), 1))(*(shape or []))
        rc = lib.kosan_register_tensor(pointer, size, label,
                                       dtype.encode() if dtype else None,
                                       len(shape or []), extents if shape else None)
    else:
        rc = lib.kosan_register_buffer(pointer, size, label)
    if rc != 0:
        raise RegistrationError(
            f"the kosan runtime refused to register {size} bytes at {pointer:#x}"
            f"{f' ({name!r})' if name else ''}: the range partially overlaps a "
            "registered buffer")
    return pointer


def unregister_tensor(t_or_ptr, runtime=None) -> None:
    """Forgets a buffer registered with register_tensor."""
    pointer = t_or_ptr if isinstance(t_or_ptr, int) else _describe(t_or_ptr, 0, None, ())[0]
    lib = find_runtime(runtime)
    if lib.kosan_unregister_buffer(pointer) != 0:
        raise RegistrationError(f"no buffer is registered at {pointer:#x}")


@contextlib.contextmanager
def registered(t_or_ptr, nbytes: int | None = None, name: str | None = None,
               runtime=None, *, dtype=None, shape=None):
    """register_tensor for the duration of a with block."""
    pointer = register_tensor(t_or_ptr, nbytes=nbytes, name=name, runtime=runtime,
                              dtype=dtype, shape=shape)
    try:
        yield pointer
    finally:
        unregister_tensor(pointer, runtime=runtime)
