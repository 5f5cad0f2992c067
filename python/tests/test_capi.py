"""libkosan_host.so's C API called directly: every misuse ends as a message.

These are the calls a C program (or a careless ctypes user) can make; none
may crash the process.
"""

import array
import ctypes
import json
import shutil
import subprocess

import pytest

import kosan
from kosan import _library
from kosan._library import take_string


@pytest.fixture(scope="module")
def lib():
    return _library.load()


def error_box():
    return ctypes.c_void_p()


def test_version(lib):
    assert lib.kosan_capi_version() == 3


def test_checks_are_the_tables(lib):
    # KOSAN_CHECKS of abi.h, variants at their check's place.
    checks = json.loads(take_string(lib.kosan_checks_json()))
    assert [c["name"] for c in checks] == ["oob", "precision", "order", "order-ops", "race"]
    by_name = {c["name"]: c for c in checks}
    assert not by_name["order-ops"]["runtime"]
    assert by_name["order-ops"]["bits"] == by_name["order"]["bits"] | 8
    assert [c["name"] for c in checks if c["all"]] == ["oob", "precision", "order"]
    assert kosan.check_names() == ["oob", "precision", "order", "race"]


def test_open_with_null_path(lib):
    error = error_box()
    assert not lib.kosan_trace_open(None, ctypes.byref(error))
    assert "no path" in take_string(error)
    # A null error pointer is allowed too.
    assert not lib.kosan_trace_open(b"/nonexistent/trace", None)


def test_null_trace_everywhere(lib):
    assert lib.kosan_trace_header_json(None) is None
    assert lib.kosan_trace_json(None) is None
    assert lib.kosan_trace_launch_count(None) == 0
    assert lib.kosan_trace_launch_json(None, 0) is None
    assert lib.kosan_trace_oob_count(None) == 0
    assert lib.kosan_trace_oob_json(None, 0) is None
    assert lib.kosan_trace_snapshot_count(None) == 0
    assert lib.kosan_trace_snapshot_json(None, 0) is None
    assert lib.kosan_trace_snapshot_bytes(None, 0) == 0
    error = error_box()
    assert lib.kosan_trace_snapshot_read(None, 0, None, 0, ctypes.byref(error)) == -1
    assert "no trace" in take_string(error)
    lib.kosan_trace_close(None)
    lib.kosan_string_free(None)


def test_indexes_out_of_range(lib, reference):
    path = reference({"out": array.array("f", [1.0, 2.0])})
    handle = lib.kosan_trace_open(str(path).encode(), None)
    assert handle
    try:
        assert lib.kosan_trace_launch_json(handle, 1) is None
        assert lib.kosan_trace_oob_json(handle, 0) is None
        assert lib.kosan_trace_snapshot_json(handle, 1) is None
        assert lib.kosan_trace_snapshot_bytes(handle, 1) == 0
        error = error_box()
        buffer = ctypes.create_string_buffer(8)
        assert lib.kosan_trace_snapshot_read(handle, 5, buffer, 8, ctypes.byref(error)) == -1
        assert "no snapshot 5" in take_string(error)
        # Too small a buffer, and none at all.
        assert lib.kosan_trace_snapshot_read(handle, 0, buffer, 4, ctypes.byref(error)) == -1
        assert "room for 4" in take_string(error)
        assert lib.kosan_trace_snapshot_read(handle, 0, None, 8, ctypes.byref(error)) == -1
        assert "no output buffer" in take_string(error)
        assert lib.kosan_trace_snapshot_read(handle, 0, buffer, 8, None) == 0
        assert array.array("f", buffer.raw) == array.array("f", [1.0, 2.0])
    finally:
        lib.kosan_trace_close(handle)


def diff(lib, ref, cand, options=None, fmt=b"json"):
    verdict = ctypes.c_int(-1)
    text = take_string(lib.kosan_diff(ref, cand, options, fmt, ctypes.byref(verdict)))
    return verdict.value, text


@pytest.mark.parametrize("options,message", [
    (b"{", "not a JSON object"),
    (b"[1, 2]", "not a JSON object"),
    (b'{"atoll": 1}', "unknown option 'atoll'"),
    (b'{"rtol": "big"}', "'rtol' must be a non-negative number"),
    (b'{"tolerances": {"f32": {"ulp": 1}}}', "is not a tolerance"),
    (b'{"launches": [[1]]}', "pairs"),
])
def test_diff_with_bad_options(lib, reference, options, message):
    path = str(reference({"out": array.array("f", [1.0])})).encode()
    verdict, text = diff(lib, path, path, options)
    assert verdict == 2
    assert message in json.dumps(json.loads(text))


def test_diff_with_null_arguments(lib, reference):
    path = str(reference({"out": array.array("f", [1.0])})).encode()
    verdict, text = diff(lib, None, path)
    assert verdict == 2 and "no reference trace" in text
    verdict, text = diff(lib, path, None)
    assert verdict == 2 and "no candidate trace" in text
    verdict, text = diff(lib, path, path, fmt=b"html")
    assert verdict == 2 and "unknown format 'html'" in text
    json.loads(text)  # still JSON, the one shape a caller parses
    # NULL format: JSON; NULL verdict pointer: allowed.
    assert json.loads(take_string(lib.kosan_diff(path, path, None, None, None)))


def test_write_reference_with_null_arguments(lib, tmp_path):
    error = error_box()
    assert lib.kosan_write_reference(None, None, 0, None, None, None, None,
                                     ctypes.byref(error)) == -1
    assert "no path" in take_string(error)
    target = str(tmp_path / "r.kosan").encode()
    assert lib.kosan_write_reference(target, None, 1, None, None, None, None,
                                     ctypes.byref(error)) == -1
    assert "must not be null" in take_string(error)
    names = (ctypes.c_char_p * 1)(None)
    dtypes = (ctypes.c_char_p * 1)(b"f32")
    data = (ctypes.c_void_p * 1)(None)
    sizes = (ctypes.c_uint64 * 1)(4)
    assert lib.kosan_write_reference(target, None, 1, names, dtypes, data, sizes,
                                     ctypes.byref(error)) == -1
    assert "has no name" in take_string(error)
    names[0] = b"x"
    assert lib.kosan_write_reference(target, None, 1, names, dtypes, data, sizes,
                                     ctypes.byref(error)) == -1
    assert "has no data" in take_string(error)
    # No outputs at all is a valid (empty) reference.
    assert lib.kosan_write_reference(target, None, 0, None, None, None, None, None) == 0


def test_only_the_c_api_is_exported():
    nm = shutil.which("nm")
    if not nm:
        pytest.skip("nm (binutils) is not installed")
    path = _library.load()._name
    out = subprocess.run([nm, "-D", "--defined-only", path], capture_output=True,
                         text=True, check=True).stdout
    names = [line.split()[-1] for line in out.splitlines() if line.strip()]
    assert "kosan_diff" in names
    assert [n for n in names if not n.startswith("kosan_")] == []
