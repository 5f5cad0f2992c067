"""Element types: kosan's names (docs/trace-format.md), numpy's and torch's.

numpy and torch are optional: they are imported only when a value of theirs
is handed in, or (numpy) to return arrays.
"""

from __future__ import annotations

import ctypes
import struct
import sys

# kosan dtype -> (numpy dtype, memoryview/struct format). bf16 and fp8 have
# no numpy or struct type of their own: they come back as their raw bits.
KOSAN_DTYPES = {
    "f64": ("float64", "d"),
    "f32": ("float32", "f"),
    "f16": ("float16", "e"),
    "bf16": ("uint16", "H"),
    "f8e4m3": ("uint8", "B"),
    "f8e5m2": ("uint8", "B"),
    "i64": ("int64", "q"),
    "i32": ("int32", "i"),
    "i16": ("int16", "h"),
    "i8": ("int8", "b"),
    "u64": ("uint64", "Q"),
    "u32": ("uint32", "I"),
    "u16": ("uint16", "H"),
    "u8": ("uint8", "B"),
    "bool": ("bool", "?"),
    "bytes": ("uint8", "B"),
}

# numpy dtype names (and ml_dtypes' extension types) -> kosan dtype.
_NUMPY_TO_KOSAN = {
    "float64": "f64", "float32": "f32", "float16": "f16", "bfloat16": "bf16",
    "float8_e4m3fn": "f8e4m3", "float8_e5m2": "f8e5m2",
    "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8",
    "uint64": "u64", "uint32": "u32", "uint16": "u16", "uint8": "u8",
    "bool": "bool",
}

# torch.dtype names (str(torch.float32) == "torch.float32").
_TORCH_TO_KOSAN = dict(_NUMPY_TO_KOSAN)

# memoryview formats (array.array, ctypes arrays, bytes) -> kosan dtype.
_FORMAT_TO_KOSAN = {
    "d": "f64", "f": "f32", "e": "f16",
    "q": "i64", "i": "i32", "h": "i16", "b": "i8",
    "Q": "u64", "I": "u32", "H": "u16", "B": "u8", "c": "u8",
    "?": "bool",
}
for _code in "lL":
    _FORMAT_TO_KOSAN[_code] = ("i" if _code == "l" else "u") + str(8 * struct.calcsize(_code))


def numpy_module():
    """numpy if it can be imported, else None."""
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def _module_of(value) -> str:
    return type(value).__module__.split(".")[0]


def dtype_name(dtype) -> str:
    """A kosan dtype name for a kosan/numpy/torch dtype or its name."""
    if isinstance(dtype, str):
        name = dtype.removeprefix("torch.")
        return _TORCH_TO_KOSAN.get(name, name)
    module = _module_of(dtype)
    if module == "torch":
        name = str(dtype).removeprefix("torch.")
        if name in _TORCH_TO_KOSAN:
            return _TORCH_TO_KOSAN[name]
        raise TypeError(f"kosan has no dtype for {dtype}")
    np = numpy_module()
    if np is not None:
        try:
            name = np.dtype(dtype).name
        except TypeError:
            name = None
        if name in _NUMPY_TO_KOSAN:
            return _NUMPY_TO_KOSAN[name]
    raise TypeError(f"kosan has no dtype for {dtype!r}")


def _tensor_bytes(tensor) -> tuple[str, bytes]:
    dtype = dtype_name(tensor.dtype)
    t = tensor.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    t = t.contiguous()
    nbytes = t.numel() * t.element_size()
    # Straight from the tensor's memory: works for bf16 and fp8 too, and
    # without numpy.
    return dtype, ctypes.string_at(t.data_ptr(), nbytes) if nbytes else b""


def _buffer_bytes(value, dtype=None) -> tuple[str, bytes]:
    view = memoryview(value)
    if not view.c_contiguous:
        raise ValueError("the buffer is not contiguous")
    if dtype is None:
        fmt = view.format.lstrip("@=<")
        if fmt not in _FORMAT_TO_KOSAN:
            raise TypeError(f"kosan has no dtype for buffer format {view.format!r}; "
                            "pass (data, dtype)")
        dtype = _FORMAT_TO_KOSAN[fmt]
    return dtype, view.tobytes()


def to_bytes(value) -> tuple[str, bytes]:
    """(kosan dtype, contents) of an output handed to write_reference.

    Accepts a torch tensor (copied to the CPU), a numpy array, (data, dtype)
    with data any bytes-like object, or an object with the buffer protocol
    (array.array, memoryview) whose format names the element type.
    """
    if isinstance(value, tuple):
        if len(value) != 2:
            raise TypeError("an output given as a tuple must be (data, dtype)")
        data, dtype = value
        dtype = dtype_name(dtype)
        if _module_of(data) == "torch":
            return dtype, _tensor_bytes(data)[1]
        if _module_of(data) == "numpy":
            data = numpy_module().ascontiguousarray(data)
        return _buffer_bytes(data, dtype)
    module = _module_of(value)
    if module == "torch" and hasattr(value, "data_ptr"):
        return _tensor_bytes(value)
    if module == "numpy" and hasattr(value, "dtype"):
        np = numpy_module()
        array = np.ascontiguousarray(value)
        return dtype_name(array.dtype), array.tobytes()
    if isinstance(value, (bytes, bytearray)):
        return "bytes", bytes(value)
    try:
        memoryview(value)
    except TypeError:
        raise TypeError(
            f"cannot write an output of type {type(value).__name__}: pass a numpy "
            "array, a torch tensor, or (bytes, dtype)") from None
    return _buffer_bytes(value)


def _nest(flat: list, shape: list[int]) -> list:
    if len(shape) <= 1:
        return flat
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def decode_list(data: bytes, dtype: str, shape: list[int]) -> list:
    """Contents as (nested) Python lists: what snapshot_array returns without numpy."""
    fmt = KOSAN_DTYPES.get(dtype, KOSAN_DTYPES["bytes"])[1]
    size = struct.calcsize(fmt)
    count = len(data) // size
    if fmt == "e" or sys.byteorder != "little":
        flat = list(struct.unpack(f"<{count}{fmt}", data))
    else:
        flat = memoryview(data).cast(fmt).tolist()
    return _nest(flat, shape) if shape else flat
