"""The failure modes of the public API that the other test files do not
reach, as docs/python.md's table lists them."""

import pytest

import kosan
import kosan.torch


def test_kosan_nvcc_not_found_names_the_variable(monkeypatch, tmp_path):
    monkeypatch.delenv("KOSAN_NVCC", raising=False)
    monkeypatch.setenv("KOSAN_BUILD_DIR", str(tmp_path / "no-build"))
    with pytest.raises(kosan.KosanError, match="kosan-nvcc not found: set KOSAN_NVCC"):
        kosan.torch.kosan_nvcc()


def test_kosan_nvcc_explicit_wins(monkeypatch):
    monkeypatch.setenv("KOSAN_NVCC", "/opt/kosan/bin/kosan-nvcc")
    assert kosan.torch.kosan_nvcc() == "/opt/kosan/bin/kosan-nvcc"


def test_an_ambiguous_snapshot_name_asks_for_the_launch(reference):
    trace = kosan.open_trace(reference({"x": (bytes(4), "f32")}))
    name = trace.snapshots[0]["name"]
    # The same output twice, as two launches of one kernel record it.
    trace.snapshots.append(dict(trace.snapshots[0], launch=trace.snapshots[0]["launch"] + 1))
    with pytest.raises(KeyError, match=f"2 snapshots are named '{name}'.*pass launch="):
        trace.find_snapshot(name)
    assert trace.find_snapshot(name, launch=trace.snapshots[0]["launch"]) == 0


def test_every_error_is_a_kosan_error():
    for error in (kosan.TraceError, kosan.LibraryNotFound, kosan.RuntimeNotFound,
                  kosan.RegistrationError):
        assert issubclass(error, kosan.KosanError)
