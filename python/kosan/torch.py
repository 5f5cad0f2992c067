"""kosan for PyTorch harnesses, in one line::

    import kosan.torch; kosan.torch.enable()

After it, in this process:

- extensions that torch builds (``load_inline``, ``load``) are compiled by
  ``kosan-nvcc`` (``PYTORCH_NVCC``), so their kernels carry kosan's checks,
  and they are cached apart from builds made without kosan;
- every block PyTorch's CUDA caching allocator hands out is a buffer of its
  own for the out-of-bounds check, of exactly the size that was asked for:
  a kernel that writes past its output tensor is reported even though the
  bytes behind it belong to the same segment of the allocator (which is all
  the CUDA driver, and so compute-sanitizer, can see). A view is bounded by
  its storage.
- a kernel launched with a pointer into a tensor PyTorch has released is
  reported as a heap-use-after-free (until PyTorch hands the block out
  again; with ``quarantine=True`` whatever was allocated since), and with ``KOSAN_OPTIONS=uninit=1`` every fresh block is filled so
  that a kernel reading what nobody wrote is reported, and
  ``unwritten(t)`` counts what a kernel left unwritten.

How: PyTorch's caching allocator reports every allocation and free to the
trackers attached to it (``c10::cuda::CUDACachingAllocator::
attachAllocatorTraceTracker``), with the requested size. ``enable()`` builds
a small C++ extension (once; torch caches it) that attaches one, which
registers each block with the kosan runtime and forgets it when it is freed.
This keeps PyTorch's own allocator, so caching, expandable segments and CUDA
graphs behave as before, and kernels not built by kosan run as before; a
replacement allocator (``CUDAPluggableAllocator``) would have to be
installed before the first CUDA allocation, would change what is measured
and could not follow graph-private pools. See docs/python.md.

``enable(quarantine=True)`` (or ``KOSAN_TORCH_QUARANTINE=1``) makes that
trade for a use-after-free that does not depend on luck: kosan's runtime
becomes PyTorch's allocator (``CUDAPluggableAllocator``), each tensor a
cudaMalloc of its own, and a released tensor's memory waits in kosan's
quarantine (``quarantine_mb``, oldest out first) before the driver gets it
back, so a later allocation cannot take it over. It must run before the
process's first CUDA allocation, costs a cudaMalloc per tensor, and CUDA
graph capture is left to the default mode.
"""

from __future__ import annotations

import ctypes
import os
import pathlib
import threading

from ._library import KosanError, _repo_root
from ._runtime import find_runtime

__all__ = ["enable", "enabled", "flush", "kosan_nvcc", "unwritten"]

_lock = threading.Lock()
_state: dict | None = None

# The tracker: C++ against torch's own headers, built by torch.
_TRACKER_SOURCE = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include <cstdint>

namespace {
using AllocatedFn = int (*)(const void *, size_t, const char *, void *);
using FreedFn = int (*)(const void *, const char *);
AllocatedFn allocated = nullptr;
FreedFn freed = nullptr;
int64_t registered = 0, refused = 0;
}

// Called by the allocator under its own lock, for every event: only kosan's
// table is touched here (and, with uninit=1, a fill queued on the block's
// stream), never PyTorch. A block is freed for kosan when the program gives
// it up (FREE_REQUESTED): a kernel launched with it afterwards uses freed
// memory, even while the allocator waits for the block's streams.
static void track(const c10::cuda::CUDACachingAllocator::TraceEntry &te) {
  using Action = c10::cuda::CUDACachingAllocator::TraceEntry::Action;
  const void *ptr = reinterpret_cast<const void *>(te.addr_);
  if (te.action_ == Action::ALLOC) {
    void *stream = reinterpret_cast<void *>(te.stream_);
    if (allocated(ptr, te.size_, "", stream) == 0) ++registered; else ++refused;
  } else if (te.action_ == Action::FREE_REQUESTED) {
    freed(ptr, "PyTorch's caching allocator (the tensor was released)");
  }
}

void install(int64_t allocatedAddress, int64_t freedAddress) {
  allocated = reinterpret_cast<AllocatedFn>(allocatedAddress);
  freed = reinterpret_cast<FreedFn>(freedAddress);
  c10::cuda::CUDACachingAllocator::attachAllocatorTraceTracker(track);
}

std::vector<int64_t> counts() { return {registered, refused}; }
"""


def kosan_nvcc() -> str:
    """The kosan-nvcc to build extensions with: $KOSAN_NVCC, else the one of
    the checkout this package comes from (build/bin)."""
    explicit = os.environ.get("KOSAN_NVCC")
    if explicit:
        return explicit
    root = _repo_root()
    if root is not None:
        build = pathlib.Path(os.environ.get("KOSAN_BUILD_DIR") or "build")
        candidate = (build if build.is_absolute() else root / build) / "bin" / "kosan-nvcc"
        if candidate.is_file():
            return str(candidate)
    raise KosanError("kosan-nvcc not found: set KOSAN_NVCC to <kosan>/bin/kosan-nvcc")


def enabled() -> bool:
    return _state is not None


def _register_live_blocks(lib) -> int:
    """Blocks allocated before enable(): from the allocator's snapshot."""
    import torch
    count = 0
    for segment in torch.cuda.memory_snapshot():
        for block in segment.get("blocks", []):
            if block.get("state") != "active_allocated":
                continue
            size = block.get("requested_size") or block.get("size")
            if lib.kosan_register_buffer(block["address"], size, b"") == 0:
                count += 1
    return count


def _library_path(function) -> str:
    """The file of the shared library that defines a ctypes function."""
    class DlInfo(ctypes.Structure):
        _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                    ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]
    info = DlInfo()
    libc = ctypes.CDLL(None)
    libc.dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]
    if not libc.dladdr(ctypes.cast(function, ctypes.c_void_p), ctypes.byref(info)) or \
            not info.dli_fname:
        raise KosanError("cannot tell which file the kosan runtime was loaded from")
    return os.fsdecode(info.dli_fname)


def _install_allocator(runtime) -> str:
    """kosan's runtime as PyTorch's CUDA allocator (quarantine=True)."""
    import torch
    if not hasattr(runtime, "kosan_torch_malloc"):
        raise KosanError("enable(quarantine=True): this kosan runtime has no "
                         "kosan_torch_malloc (rebuild kosan)")
    path = _library_path(runtime.kosan_torch_malloc)
    allocator = torch.cuda.memory.CUDAPluggableAllocator(path, "kosan_torch_malloc",
                                                         "kosan_torch_free")
    try:
        torch.cuda.memory.change_current_allocator(allocator)
    except RuntimeError as error:
        raise KosanError("enable(quarantine=True) must run before the process's first CUDA "
                         f"allocation (torch: {error})") from None
    return path


def enable(*, build_extensions: bool = True, checks: str | None = None,
           verbose: bool = False, quarantine: bool | None = None) -> dict:
    """Turns kosan on for this process (idempotent); returns what it did.

    build_extensions: set PYTORCH_NVCC to kosan-nvcc (unless it is set) and
    keep kosan's extension builds apart from others (TORCH_EXTENSIONS_DIR,
    unless it is set), so that extensions torch builds from now on are
    instrumented.
    checks: the checks compiled into those extensions, as kosan-clang++'s
    --kosan-checks= takes them (``"oob,order"``); default: $KOSAN_CHECKS,
    else kosan-clang++'s default (oob). Builds with other checks are cached
    apart.
    quarantine: kosan's runtime becomes PyTorch's CUDA allocator, and a
    released tensor's memory waits in its quarantine before reuse (see the
    module's text); default: $KOSAN_TORCH_QUARANTINE (1 or 0), else False.
    """
    global _state
    with _lock:
        if _state is not None:
            return dict(_state)
        import torch
        from torch.utils.cpp_extension import load_inline

        state: dict = {}
        if checks is not None:
            os.environ["KOSAN_CHECKS"] = checks
        if build_extensions:
            if "PYTORCH_NVCC" not in os.environ:
                os.environ["PYTORCH_NVCC"] = kosan_nvcc()
            state["nvcc"] = os.environ["PYTORCH_NVCC"]
            state["checks"] = os.environ.get("KOSAN_CHECKS") or "oob"
            if "TORCH_EXTENSIONS_DIR" not in os.environ:
                # torch's build cache does not know KOSAN_CHECKS: one folder
                # per selection of checks.
                cache = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or
                                     pathlib.Path.home() / ".cache")
                folder = "torch_extensions"
                if state["checks"] != "oob":
                    folder += "-" + state["checks"].replace(",", "-")
                os.environ["TORCH_EXTENSIONS_DIR"] = str(cache / "kosan" / folder)
            state["extensions_dir"] = os.environ["TORCH_EXTENSIONS_DIR"]

        runtime = find_runtime()
        if quarantine is None:
            quarantine = os.environ.get("KOSAN_TORCH_QUARANTINE", "0") not in ("", "0")
        if quarantine:
            state["allocator"] = _install_allocator(runtime)
            torch.cuda.init()
            _state = state
            return dict(state)
        address = ctypes.cast(runtime.kosan_allocated, ctypes.c_void_p).value
        unaddress = ctypes.cast(runtime.kosan_freed, ctypes.c_void_p).value
        # The tracker is plain C++ for the host compiler, whatever nvcc is set.
        saved = os.environ.pop("PYTORCH_NVCC", None)
        try:
            tracker = load_inline(name="kosan_torch_tracker", cpp_sources=_TRACKER_SOURCE, functions=["install", "counts"],
                                  with_cuda=True, verbose=verbose)
        finally:
            if saved is not None:
                os.environ["PYTORCH_NVCC"] = saved
        # The caching allocator makes its per-device allocators when CUDA is
        # initialised, and attaching a tracker before that attaches it to
        # none: initialise first (the harness is about to anyway).
        was_initialized = torch.cuda.is_initialized()
        torch.cuda.init()
        tracker.install(address, unaddress)
        state["live_blocks_registered"] = (_register_live_blocks(runtime)
                                           if was_initialized else 0)
        state["tracker"] = tracker
        _state = state
        return dict(state)


def flush() -> int:
    """Reports what kernels did wrong so far, now (kosan reports at the CUDA
    synchronisations of kosan-built code, and at exit; torch's own
    synchronize is not one of them). Returns the number of errors reported
    by this process so far."""
    lib = find_runtime()
    lib.kosan_flush.restype = ctypes.c_ulong
    lib.kosan_flush.argtypes = []
    return int(lib.kosan_flush())


def unwritten(tensor) -> int:
    """How many elements of a CUDA tensor still hold the fill of a fresh
    allocation, i.e. were never written since it was allocated. Meaningful
    with ``KOSAN_OPTIONS=uninit=1`` (else nothing is filled and the answer is
    0); for a kernel's output made with ``torch.empty``, the elements the
    kernel left unwritten. Elements of 2, 4 or 8 bytes only."""
    import torch
    lib = find_runtime()
    lib.kosan_uninit_pattern.restype = ctypes.c_uint
    lib.kosan_uninit_pattern.argtypes = []
    word = int(lib.kosan_uninit_pattern())
    size = tensor.element_size()
    if size == 2:
        view, fill = torch.int16, word & 0xffff
    elif size == 4:
        view, fill = torch.int32, word
    elif size == 8:
        view, fill = torch.int64, word << 32 | word
    else:
        raise KosanError(f"unwritten(): {tensor.dtype} has {size}-byte elements; "
                         "only 2-, 4- and 8-byte elements are filled")
    bits = 8 * size
    if fill >= 1 << (bits - 1):  # the same bits as a signed integer
        fill -= 1 << bits
    flat = tensor.detach().contiguous().view(view)
    return int((flat == fill).sum().item())
