"""Reading traces: kosan.open_trace and kosan.Trace."""

from __future__ import annotations

import ctypes
import json
import os

from . import _dtypes
from ._library import KosanError, load, take_string


class TraceError(KosanError):
    """A trace that cannot be read or written.

    The message is one line naming the file (and the line of the trace where
    one is at fault), as kosan-report prints it: a damaged or truncated
    trace, sizes it claims that the file cannot hold, a snapshot too large
    for this process's memory.
    """


def _records(lib, handle, count_function, json_function) -> list[dict]:
    records = []
    for i in range(count_function(handle)):
        text = take_string(json_function(handle, i))
        if text is None:
            raise TraceError(f"record {i} could not be read")
        records.append(json.loads(text))
    return records


class Trace:
    """A trace opened by open_trace.

    header, launches, oob, snapshots, order_atomics and order_summaries are
    the records of docs/trace-format.md as dicts (order_atomics with its
    parts joined and without the landing orders); the contents of a
    snapshot are read only when asked for (snapshot_bytes, snapshot_array).
    """

    def __init__(self, path, *, allow_truncated: bool = False):
        lib = load()
        self.path = os.path.abspath(os.fspath(path))
        error = ctypes.c_void_p()
        handle = lib.kosan_trace_open(os.fsencode(self.path), ctypes.byref(error))
        message = take_string(error)
        if not handle:
            raise TraceError(message or f"cannot open {self.path}")
        self._handle = handle
        if message and not allow_truncated:
            self.close()
            raise TraceError(message)
        #: None, or why the trace is incomplete (allow_truncated=True only).
        self.truncated: str | None = message
        header = take_string(lib.kosan_trace_header_json(handle))
        self.header: dict = json.loads(header) if header else {}
        self.launches: list[dict] = _records(
            lib, handle, lib.kosan_trace_launch_count, lib.kosan_trace_launch_json)
        self.oob: list[dict] = _records(
            lib, handle, lib.kosan_trace_oob_count, lib.kosan_trace_oob_json)
        self.snapshots: list[dict] = _records(
            lib, handle, lib.kosan_trace_snapshot_count, lib.kosan_trace_snapshot_json)
        self.order_atomics: list[dict] = _records(
            lib, handle, lib.kosan_trace_order_atomics_count, lib.kosan_trace_order_atomics_json)
        self.order_summaries: list[dict] = _records(
            lib, handle, lib.kosan_trace_order_summary_count, lib.kosan_trace_order_summary_json)

    # Closing ------------------------------------------------------------

    def close(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            load().kosan_trace_close(handle)

    def __enter__(self) -> "Trace":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return (f"<kosan.Trace {self.path!r}: {len(self.launches)} launches, "
                f"{len(self.oob)} oob, {len(self.snapshots)} snapshots>")

    # Records ------------------------------------------------------------

    def to_dict(self) -> dict:
        """The whole trace as `kosan-report --format json` prints it."""
        text = take_string(load().kosan_trace_json(self._open_handle()))
        if text is None:
            raise TraceError(f"{self.path} could not be converted to JSON")
        return json.loads(text)

    def find_snapshot(self, name: str, launch: int | None = None) -> int:
        """Index of the snapshot of output `name` (of launch id `launch`)."""
        found = [i for i, s in enumerate(self.snapshots)
                 if s.get("name") == name and (launch is None or s.get("launch") == launch)]
        if not found:
            where = f" of launch {launch}" if launch is not None else ""
            raise KeyError(f"no snapshot named {name!r}{where} in {self.path}")
        if len(found) > 1:
            raise KeyError(f"{len(found)} snapshots are named {name!r} in {self.path}; "
                           "pass launch= to pick one")
        return found[0]

    def _index(self, index) -> int:
        if isinstance(index, str):
            return self.find_snapshot(index)
        count = len(self.snapshots)
        i = int(index)
        if i < 0:
            i += count
        if not 0 <= i < count:
            raise IndexError(f"snapshot index {index} out of range ({count} snapshots "
                             f"in {self.path})")
        return i

    def _open_handle(self):
        if not self._handle:
            raise TraceError(f"{self.path} is closed")
        return self._handle

    def _read_into(self, i: int, address: int, capacity: int) -> None:
        error = ctypes.c_void_p()
        rc = load().kosan_trace_snapshot_read(self._open_handle(), i, address, capacity,
                                              ctypes.byref(error))
        message = take_string(error)
        if rc != 0:
            raise TraceError(message or f"snapshot {i} of {self.path} could not be read")

    def snapshot_bytes(self, index) -> bytes:
        """Contents of a snapshot (an index, or an output's name), as raw bytes."""
        i = self._index(index)
        size = load().kosan_trace_snapshot_bytes(self._open_handle(), i)
        try:
            buffer = ctypes.create_string_buffer(max(size, 1))
        except (MemoryError, OverflowError):
            raise TraceError(self._too_large(i, size)) from None
        self._read_into(i, ctypes.addressof(buffer), size)
        return buffer.raw[:size]

    def _too_large(self, i: int, size: int) -> str:
        record = self.snapshots[i]
        return (f"snapshot {record.get('name', i)!r} of launch {record.get('launch')} in "
                f"{self.path} holds {size} bytes, more than this process can allocate")

    def snapshot_array(self, index):
        """Contents of a snapshot, shaped as recorded.

        With numpy: an array of the snapshot's dtype (bf16 as uint16, fp8 as
        uint8: their raw bits). Without numpy: nested lists of Python numbers.
        """
        i = self._index(index)
        record = self.snapshots[i]
        dtype = record.get("dtype", "bytes")
        shape = [int(d) for d in record.get("shape") or []]
        np = _dtypes.numpy_module()
        if np is None:
            return _dtypes.decode_list(self.snapshot_bytes(i), dtype, shape)
        size = load().kosan_trace_snapshot_bytes(self._open_handle(), i)
        np_dtype = np.dtype(_dtypes.KOSAN_DTYPES.get(dtype, _dtypes.KOSAN_DTYPES["bytes"])[0])
        try:
            array = np.empty(size // np_dtype.itemsize, dtype=np_dtype)
        except (MemoryError, ValueError):
            raise TraceError(self._too_large(i, size)) from None
        # Read straight into the array: no second copy of the contents.
        self._read_into(i, array.ctypes.data, array.nbytes)
        if shape and int(np.prod(shape)) == array.size:
            array = array.reshape(shape)
        return array


def open_trace(path, *, allow_truncated: bool = False) -> Trace:
    """Opens a trace. Raises TraceError with the library's message.

    A trace cut short (the process died while writing it) raises too, unless
    allow_truncated=True: then what was complete is there and
    Trace.truncated says why the rest is missing.
    """
    return Trace(path, allow_truncated=allow_truncated)
