"""Where the package finds libkosan_host.so."""

import pathlib

import pytest

from conftest import TESTS, run_python
from kosan import _library

CHECKOUT = TESTS.parent.parent


def test_checkout_build_tree_is_searched(monkeypatch):
    if _library._repo_root() is None:
        pytest.skip("kosan is imported from an installation, not from a checkout")
    monkeypatch.delenv("KOSAN_HOST_LIB", raising=False)
    monkeypatch.delenv("KOSAN_BUILD_DIR", raising=False)
    paths = _library.candidate_paths()
    assert paths[0].parent.name == "kosan"  # beside the package: an installed wheel
    assert CHECKOUT / "build" / "lib" / "libkosan_host.so" in paths
    monkeypatch.setenv("KOSAN_BUILD_DIR", "build-other")
    assert CHECKOUT / "build-other" / "lib" / "libkosan_host.so" in _library.candidate_paths()


def test_explicit_library_is_the_only_candidate(monkeypatch, tmp_path):
    monkeypatch.setenv("KOSAN_HOST_LIB", str(tmp_path / "lib.so"))
    assert _library.candidate_paths() == [pathlib.Path(tmp_path / "lib.so")]


def test_missing_library_is_reported_on_first_use(tmp_path):
    code = (
        "import kosan\n"  # importing needs no library
        "try:\n"
        f"    kosan.open_trace({str(tmp_path / 't.kosan')!r})\n"
        "except kosan.LibraryNotFound as e:\n"
        "    print(e)\n"
    )
    done = run_python(code, env={"KOSAN_HOST_LIB": str(tmp_path / "nowhere.so")})
    assert done.returncode == 0, done.stderr
    assert "nowhere.so (no such file)" in done.stdout
    assert "KOSAN_HOST_LIB" in done.stdout
