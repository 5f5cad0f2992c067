"""kosan.open_trace: records as dicts, snapshot contents, reading errors."""

import array
import ctypes
import json
import os
import pathlib
import subprocess
import struct

import pytest

import kosan
from conftest import HEADER, RECORDS


def test_records_of_a_runtime_trace_are_dicts(scale_trace):
    trace = kosan.open_trace(scale_trace)
    assert trace.header["format"] == "kosan-trace"
    assert trace.header["gpu_name"] == "NVIDIA H200"
    assert trace.header["argv"] == ["./scale", "1000"]
    assert [launch["id"] for launch in trace.launches] == [1, 2]
    assert trace.launches[0]["kernel"] == "scale(float*, float const*, int)"
    assert trace.launches[0]["grid"] == [4, 1, 1]
    assert len(trace.oob) == 1
    event = trace.oob[0]
    assert event["kind"] == "global-buffer-overflow"
    assert event["site"]["line"] == 12
    assert event["buffer_name"] == "y"
    assert event["address"] == "0x7f0000000fa8"
    assert trace.snapshots == []
    assert trace.truncated is None


def test_to_dict_is_the_whole_trace(scale_trace):
    whole = kosan.open_trace(scale_trace).to_dict()
    assert whole["header"]["pid"] == HEADER["pid"]
    assert whole["modules"][0]["source"] == "examples/scale.cu"
    assert len(whole["launches"]) == 2
    assert whole["oob"][0]["count"] == 32
    assert whole["end"]["errors"] == 32


def test_reference_trace_has_one_launch_and_its_snapshots(reference):
    path = reference({"out": array.array("f", [1.0, 2.0, 3.0]),
                      "flags": (bytes([1, 0]), "bool")}, kernel="torch_reference")
    trace = kosan.open_trace(path)
    assert [launch["kernel"] for launch in trace.launches] == ["torch_reference"]
    assert [s["name"] for s in trace.snapshots] == ["out", "flags"]
    out = trace.snapshots[0]
    assert out["launch"] == 1
    assert out["dtype"] == "f32"
    assert out["count"] == 3
    assert trace.snapshots[1]["dtype"] == "bool"
    assert trace.to_dict()["snapshots"] == trace.snapshots


@pytest.mark.parametrize("fmt,dtype,values", [
    ("f", "f32", [1.5, -2.25, 3.0e-8]),
    ("d", "f64", [1.0 / 3, -1e300]),
    ("i", "i32", [-7, 2**31 - 1]),
    ("H", "u16", [0, 65535]),
    ("q", "i64", [-(2**63), 2**62]),
])
def test_snapshot_bytes_round_trip(reference, fmt, dtype, values):
    data = struct.pack(f"<{len(values)}{fmt}", *values)
    trace = kosan.open_trace(reference({"x": (data, dtype)}))
    assert trace.snapshots[0]["dtype"] == dtype
    assert trace.snapshot_bytes(0) == data
    assert trace.snapshot_bytes("x") == data


def test_large_snapshot_round_trips_through_several_chunks(reference):
    # Large enough for the writer to split it into several chunks.
    values = array.array("i", range(3_000_000))
    trace = kosan.open_trace(reference({"big": values}))
    assert trace.snapshots[0]["count"] == len(values)
    assert trace.snapshot_bytes(0) == values.tobytes()


def test_empty_output_round_trips(reference):
    trace = kosan.open_trace(reference({"none": (b"", "f32")}))
    assert trace.snapshots[0]["count"] == 0
    assert trace.snapshot_bytes(0) == b""


def test_snapshot_array_with_numpy(reference):
    np = pytest.importorskip("numpy", reason="numpy is not installed")
    outputs = {
        "f32": np.linspace(-1, 1, 7, dtype=np.float32),
        "f16": np.array([0.5, -2, 65504], dtype=np.float16),
        "i8": np.array([-128, 0, 127], dtype=np.int8),
        "bool": np.array([True, False, True]),
        "matrix": np.arange(12, dtype=np.float64).reshape(3, 4),
        "bf16": (np.array([0x3F80, 0xC000], dtype=np.uint16).tobytes(), "bfloat16"),
    }
    trace = kosan.open_trace(reference(outputs))
    for name in ("f32", "f16", "i8", "bool"):
        got = trace.snapshot_array(name)
        assert got.dtype == outputs[name].dtype, name
        np.testing.assert_array_equal(got, outputs[name])
    # No shape is recorded for a reference: the contents come back flat.
    np.testing.assert_array_equal(trace.snapshot_array("matrix"), np.arange(12.0))
    bf16 = trace.snapshot_array("bf16")
    assert bf16.dtype == np.uint16  # raw bits: numpy has no bfloat16
    assert bf16.tolist() == [0x3F80, 0xC000]


def test_snapshot_array_shape_from_the_record(reference):
    np = pytest.importorskip("numpy", reason="numpy is not installed")
    trace = kosan.open_trace(reference({"m": np.arange(6, dtype=np.int32)}))
    trace.snapshots[0]["shape"] = [2, 3]  # as a registered shape would be
    assert trace.snapshot_array(0).shape == (2, 3)


def test_bad_snapshot_index_and_name(reference):
    trace = kosan.open_trace(reference({"x": (bytes(4), "f32")}))
    assert trace.snapshot_bytes(-1) == bytes(4)
    with pytest.raises(IndexError, match="out of range"):
        trace.snapshot_bytes(1)
    with pytest.raises(KeyError, match="no snapshot named 'y'"):
        trace.snapshot_array("y")


def test_missing_file_raises_trace_error(tmp_path):
    with pytest.raises(kosan.TraceError, match="cannot open .*missing.kosan"):
        kosan.open_trace(tmp_path / "missing.kosan")


def test_foreign_file_raises_trace_error(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    with pytest.raises(kosan.TraceError, match="not a kosan trace"):
        kosan.open_trace(path)


def test_truncated_trace_raises_unless_allowed(scale_trace):
    text = scale_trace.read_text()
    scale_trace.write_text(text[: len(text) - 20])  # the end record cut mid-line
    with pytest.raises(kosan.TraceError, match="ends mid-record"):
        kosan.open_trace(scale_trace)
    trace = kosan.open_trace(scale_trace, allow_truncated=True)
    assert "ends mid-record" in trace.truncated
    assert len(trace.launches) == 2 and len(trace.oob) == 1


def test_corrupt_snapshot_contents_raise_trace_error(reference):
    path = reference({"x": array.array("f", [1.0] * 1000)})
    lines = path.read_bytes().split(b"\n")
    chunk = next(i for i, line in enumerate(lines) if b'"snapshot_chunk"' in line)
    # Damage the compressed data inside the chunk, keeping the line's JSON valid.
    line = lines[chunk]
    start = line.index(b'"data":"') + len(b'"data":"')
    lines[chunk] = line[:start] + b"AAAA" + line[start + 4:]
    path.write_bytes(b"\n".join(lines))
    trace = kosan.open_trace(path)
    with pytest.raises(kosan.TraceError, match=r":4: corrupt snapshot_chunk record"):
        trace.snapshot_bytes(0)


def _claiming_trace(tmp_path, name, record, chunk=None):
    """The scale trace with one more record (and chunk line) before its end."""
    lines = [json.dumps(r) for r in RECORDS[:-1]] + [json.dumps(record)]
    if chunk is not None:
        lines.append(json.dumps(chunk))
    lines.append(json.dumps(RECORDS[-1]))
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


# A 9-byte zstd frame that does not say its content size.
TINY_FRAME = "KLUv/QAAAQAA"


@pytest.mark.parametrize("name,record,chunk,message", [
    ("stores.trace",
     {"type": "order_stores", "launch": 1, "arg": 0, "name": "y", "dtype": "f32",
      "sites": [], "count": 2**60, "part": 0, "parts": 1, "bytes": 0,
      "encoding": "base64", "data": ""}, None,
     r"stores.trace:6: corrupt order_stores record: field 'count' says "
     r"1152921504606846976 elements of 16 bytes each, more than 2\^64 bytes"),
    ("ops.trace",
     {"type": "order_ops", "launch": 1, "params": [], "sites": [], "count": 2**59,
      "part": 0, "parts": 1, "bytes": 0, "encoding": "base64", "data": ""}, None,
     r"ops.trace:6: corrupt order_ops record: field 'count' says 576460752303423488"),
    ("part.trace",
     {"type": "order_stores", "launch": 1, "arg": 0, "name": "y", "dtype": "f32",
      "sites": [], "count": 2**28, "part": 0, "parts": 1, "bytes": 2**32,
      "encoding": "zstd+base64", "data": TINY_FRAME}, None,
     r"part.trace:6: corrupt order_stores record: field 'data' claims 4294967296 bytes, "
     r"more than a 9-byte zstd frame can hold"),
    ("snapshot.trace",
     {"type": "snapshot", "launch": 1, "arg": 0, "name": "y", "dtype": "f32",
      "count": 2**40, "shape": [], "address": "0x0", "read": False, "poisoned": False,
      "poison": "0x0", "pre_hash": "0x0", "post_hash": "0x0", "store_sites": [],
      "chunks": 1, "chunk_elements": 2**40},
     {"type": "snapshot_chunk", "launch": 1, "arg": 0, "index": 0, "first": 0,
      "count": 2**40, "bytes": 2**42, "encoding": "zstd+base64", "data": TINY_FRAME},
     r"snapshot.trace:7: corrupt snapshot_chunk record: chunk 1 of the snapshot record "
     r"on line 6 should hold 4398046511104 bytes"),
])
def test_impossible_size_claims_raise_trace_error(tmp_path, name, record, chunk, message):
    path = _claiming_trace(tmp_path, name, record, chunk)
    with pytest.raises(kosan.TraceError, match=message) as caught:
        kosan.open_trace(path)
    text = str(caught.value)
    assert "\n" not in text
    assert "vector::" not in text and "bad_alloc" not in text


def test_snapshot_too_large_for_memory_raises_trace_error(reference, monkeypatch):
    trace = kosan.open_trace(reference({"x": array.array("f", [1.0] * 4)}))

    def refuse(size):
        raise MemoryError

    monkeypatch.setattr(ctypes, "create_string_buffer", refuse)
    with pytest.raises(kosan.TraceError,
                       match=r"snapshot 'x' of launch 1 in .* holds 16 bytes, more than "
                             r"this process can allocate"):
        trace.snapshot_bytes(0)


def test_closed_trace(reference):
    with kosan.open_trace(reference({"x": (bytes(4), "f32")})) as trace:
        assert trace.snapshot_bytes(0) == bytes(4)
    with pytest.raises(kosan.TraceError, match="closed"):
        trace.snapshot_bytes(0)


def test_write_reference_errors(tmp_path):
    with pytest.raises(kosan.TraceError, match="unknown dtype 'complex64'"):
        kosan.write_reference(tmp_path / "a.kosan", {"x": (bytes(8), "complex64")})
    with pytest.raises(kosan.TraceError, match="not a multiple"):
        kosan.write_reference(tmp_path / "b.kosan", {"x": (bytes(6), "f32")})
    with pytest.raises(kosan.TraceError, match="cannot create"):
        kosan.write_reference(tmp_path / "no" / "such" / "dir.kosan", {"x": (bytes(4), "f32")})
    with pytest.raises(TypeError, match="numpy array, a torch tensor"):
        kosan.write_reference(tmp_path / "c.kosan", {"x": [1.0, 2.0]})
    # Nothing half-written is left behind by a refused call.
    assert not (tmp_path / "a.kosan").exists()


def test_write_reference_from_torch(reference):
    torch = pytest.importorskip("torch", reason="torch is not installed")
    t = torch.arange(6, dtype=torch.bfloat16).reshape(2, 3).t()  # not contiguous
    trace = kosan.open_trace(reference({"t": t}))
    assert trace.snapshots[0]["dtype"] == "bf16"
    assert trace.snapshot_bytes(0) == t.contiguous().view(torch.int16).numpy().tobytes()


def _make_trace():
    """kosan-make-trace of this checkout's build (test/tools), or skip."""
    root = pathlib.Path(__file__).resolve().parents[2]
    tool = root / os.environ.get("KOSAN_BUILD_DIR", "build") / "test" / "bin" / "kosan-make-trace"
    if not tool.exists():
        pytest.skip(f"{tool} is not built")
    return tool


@pytest.mark.parametrize("payload", [True, False])
def test_snapshots_read_from_the_payload_file_and_inline(tmp_path, payload):
    desc = {"snapshot_payload": payload, "launches": [{"kernel": "k(float*)", "snapshots": [
        {"arg": 0, "name": "y", "dtype": "f32", "count": 3000, "formula": "index*0.5",
         "chunk_elements": 1000}]}]}
    (tmp_path / "d.json").write_text(json.dumps(desc))
    path = tmp_path / "t.trace"
    subprocess.run([str(_make_trace()), str(tmp_path / "d.json"), str(path)], check=True)
    assert (tmp_path / "t.trace.bin").exists() == payload
    trace = kosan.open_trace(path)
    assert trace.snapshots[0].get("payload", "") == ("t.trace.bin" if payload else "")
    values = struct.unpack("3000f", trace.snapshot_bytes("y"))
    assert values[:3] == (0.0, 0.5, 1.0) and values[-1] == 1499.5
    if payload:
        trace.close()
        # The payload may span a file per worker thread (t.trace.bin.N).
        for payload_file in tmp_path.glob("t.trace.bin*"):
            payload_file.unlink()
        with pytest.raises(kosan.TraceError, match=r"cannot open .*t\.trace\.bin"):
            kosan.open_trace(path).snapshot_bytes("y")
