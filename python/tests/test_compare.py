"""kosan.compare and kosan.compare_report: verdicts, tolerances, trouble, formats."""

import array
import json
import xml.etree.ElementTree as ET

import pytest

import kosan


def f32(*values):
    return array.array("f", values)


@pytest.fixture
def pair(reference):
    """(reference, candidate) traces whose outputs differ by `delta` in one element."""

    def make(delta, dtype="f", kernel="k"):
        ref = reference({"out": array.array(dtype, [1.0, 2.0, 3.0, 4.0])}, kernel=kernel)
        cand = reference({"out": array.array(dtype, [1.0, 2.0, 3.0 + delta, 4.0])},
                         kernel=kernel)
        return ref, cand

    return make


def test_same_outputs_are_equivalent(pair):
    ref, cand = pair(0.0)
    result = kosan.compare(ref, cand)
    assert result["verdict"] == "equivalent"
    assert result["exit_code"] == 0


def test_different_outputs(pair):
    ref, cand = pair(0.5)
    result = kosan.compare(ref, cand)
    assert result["verdict"] == "different"
    assert result["exit_code"] == 1
    # The JSON names the output that differs.
    assert "out" in json.dumps(result)


def test_trace_objects_are_accepted(pair):
    ref, cand = pair(0.5)
    assert kosan.compare(kosan.open_trace(ref), kosan.open_trace(cand))["exit_code"] == 1


def test_tolerances(pair):
    ref, cand = pair(3e-3)  # 1e-3 relative: over f32's default 1e-4
    assert kosan.compare(ref, cand)["verdict"] == "different"
    assert kosan.compare(ref, cand, rtol=1e-2)["verdict"] == "equivalent"
    assert kosan.compare(ref, cand, atol=1e-2)["verdict"] == "equivalent"
    assert kosan.compare(ref, cand, tolerances={"f32": (0, 1e-2)})["verdict"] == "equivalent"
    assert kosan.compare(ref, cand,
                         tolerances={"float32": {"atol": 1e-2}})["verdict"] == "equivalent"
    # A tolerance for another dtype leaves f32's alone.
    assert kosan.compare(ref, cand, tolerances={"f16": (1, 1)})["verdict"] == "different"


def test_explicit_launch_pairs(reference):
    ref = reference({"out": f32(1, 2)}, kernel="torch_reference")
    cand = reference({"out": f32(1, 2)}, kernel="my_kernel(float*)")
    assert kosan.compare(ref, cand, launches=[(1, 1)])["verdict"] == "equivalent"


def test_missing_candidate_is_trouble(reference, tmp_path):
    ref = reference({"out": f32(1)})
    result = kosan.compare(ref, tmp_path / "missing.kosan")
    assert result["verdict"] == "trouble"
    assert result["exit_code"] == 2
    assert "missing.kosan" in json.dumps(result)


def test_truncated_candidate_is_trouble(reference):
    ref = reference({"out": f32(*range(100))})
    cand = reference({"out": f32(*range(100))})
    data = cand.read_bytes()
    cand.write_bytes(data[: len(data) // 2])
    result = kosan.compare(ref, cand)
    assert result["verdict"] == "trouble"
    assert result["exit_code"] == 2


@pytest.mark.parametrize("kwargs,message", [
    ({"atol": -1}, "atol"),
    ({"tolerances": {"f33": (0, 0)}}, "unknown dtype 'f33'"),
    ({"launches": [(1, -1)]}, "launches"),
])
def test_bad_options_are_trouble_with_a_message(pair, kwargs, message):
    ref, cand = pair(0.0)
    result = kosan.compare(ref, cand, **kwargs)
    assert result["verdict"] == "trouble"
    assert message in json.dumps(result)


def test_text_report(pair):
    ref, cand = pair(0.5)
    text = kosan.compare_report(ref, cand)
    assert "out" in text
    assert text == kosan.compare_report(ref, cand, format="text")


def test_junit_report_is_xml_with_a_failure(pair):
    ref, cand = pair(0.5)
    root = ET.fromstring(kosan.compare_report(ref, cand, format="junit"))
    assert root.tag in ("testsuites", "testsuite")
    assert root.iter("failure").__next__() is not None


def test_unknown_report_format(pair):
    ref, cand = pair(0.0)
    with pytest.raises(ValueError, match="unknown format 'html'"):
        kosan.compare_report(ref, cand, format="html")


@pytest.mark.parametrize("bad", [
    {"atol": "x"},
    {"rtol": object()},
    {"tolerances": {"f16": 3}},
    {"tolerances": {"f16": {"atol": "wide"}}},
    {"launches": [1]},
    {"launches": [("a", 1)]},
])
def test_bad_options_are_a_trouble_verdict(bad, tmp_path):
    # docs/python.md: trouble is a verdict, not an exception.
    result = kosan.compare(tmp_path / "a.kosan", tmp_path / "b.kosan", **bad)
    assert result["verdict"] == "trouble"
    assert result["exit_code"] == 2
    assert result["error"].startswith("bad options: ")
    assert "TROUBLE" in result["summary"]
