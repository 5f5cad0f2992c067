"""Comparing traces (kosan.compare) and writing references (kosan.write_reference)."""

from __future__ import annotations

import ctypes
import json
import os

from . import _dtypes
from ._library import load, take_string
from ._trace import Trace, TraceError

VERDICTS = {0: "equivalent", 1: "different", 2: "trouble"}
FORMATS = ("json", "text", "sarif", "junit")


def _path(trace) -> bytes:
    if isinstance(trace, Trace):
        return os.fsencode(trace.path)
    return os.fsencode(os.fspath(trace))


def _tolerance(value) -> dict:
    if isinstance(value, dict):
        return {key: float(v) for key, v in value.items()}
    atol, rtol = value
    return {"atol": float(atol), "rtol": float(rtol)}


def _options(atol, rtol, tolerances, launches) -> dict:
    options = {}
    if atol is not None:
        options["atol"] = float(atol)
    if rtol is not None:
        options["rtol"] = float(rtol)
    if tolerances:
        options["tolerances"] = {
            _dtypes.dtype_name(dtype): _tolerance(value) for dtype, value in tolerances.items()}
    if launches:
        options["launches"] = [[int(ref), int(cand)] for ref, cand in launches]
    return options


def _diff(ref, cand, options: dict, format: str) -> tuple[str, int]:
    lib = load()
    verdict = ctypes.c_int(2)
    text = take_string(lib.kosan_diff(
        _path(ref), _path(cand), json.dumps(options).encode() if options else None,
        format.encode(), ctypes.byref(verdict)))
    if text is None:
        raise TraceError("the comparison produced no result")
    return text, verdict.value


def compare(ref, cand, atol=None, rtol=None, tolerances=None, launches=None) -> dict:
    """Compares a candidate trace against a reference trace.

    ref, cand: paths or Trace objects. atol, rtol: tolerances for every dtype
    (|cand - ref| <= atol + rtol * |ref|); tolerances: per dtype, such as
    {"f16": {"atol": 1e-2, "rtol": 1e-2}} or {"bf16": (1e-2, 1e-2)}; launches:
    explicit (reference launch id, candidate launch id) pairs.

    Returns kosan-diff's JSON result as a dict, with "verdict" ("equivalent",
    "different" or "trouble") and "exit_code" (0, 1, 2). Trouble (a missing
    or broken trace, bad options) is a verdict, not an exception; its message
    is in "error".
    """
    try:
        options = _options(atol, rtol, tolerances, launches)
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        # Bad options are trouble too, said as kosan-diff says it.
        message = f"bad options: {error}"
        return {"format": "kosan-diff", "version": 1, "verdict": "trouble",
                "exit_status": 2, "exit_code": 2, "error": message,
                "summary": f"kosan-diff: TROUBLE: {message}"}
    text, verdict = _diff(ref, cand, options, "json")
    result = json.loads(text)
    result["verdict"] = VERDICTS.get(verdict, "trouble")
    result["exit_code"] = verdict
    return result


def compare_report(ref, cand, atol=None, rtol=None, tolerances=None, launches=None,
                   format: str = "text") -> str:
    """The comparison as a report: "text", "sarif" (SARIF 2.1.0), "junit" or "json"."""
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r} (known: {', '.join(FORMATS)})")
    return _diff(ref, cand, _options(atol, rtol, tolerances, launches), format)[0]


def write_reference(path, outputs, kernel: str = "reference") -> None:
    """Writes a trace holding one launch whose outputs are `outputs`.

    outputs: a dict (or a sequence of pairs) name -> value, where a value is a
    numpy array, a torch tensor (copied to the CPU), (bytes, dtype), or a
    buffer such as array.array. The trace can then be compared with a
    candidate kernel's trace: kosan.compare(path, candidate, launches=[(1, id)]).
    """
    items = list(outputs.items() if hasattr(outputs, "items") else outputs)
    names, dtypes, blobs = [], [], []
    for name, value in items:
        dtype, data = _dtypes.to_bytes(value)
        names.append(str(name).encode())
        dtypes.append(dtype.encode())
        blobs.append(data)
    n = len(items)
    c_names = (ctypes.c_char_p * max(n, 1))(*names)
    c_dtypes = (ctypes.c_char_p * max(n, 1))(*dtypes)
    # c_char_p points into each bytes object: no copy, alive until we return.
    c_data = (ctypes.c_void_p * max(n, 1))(
        *[ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p) for b in blobs])
    c_bytes = (ctypes.c_uint64 * max(n, 1))(*[len(b) for b in blobs])
    error = ctypes.c_void_p()
    rc = load().kosan_write_reference(
        os.fsencode(os.fspath(path)), str(kernel).encode(), n, c_names, c_dtypes, c_data,
        c_bytes, ctypes.byref(error))
    message = take_string(error)
    if rc != 0:
        raise TraceError(message or f"cannot write {path}")
