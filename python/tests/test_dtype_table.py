"""The package's element types are abi.h's (KOSAN_DTYPES, the one list the
pass, the trace and the runtime derive from): the same names, and elements
of the same size."""

import re
import struct

import pytest

from kosan._dtypes import KOSAN_DTYPES
from kosan._library import _repo_root


def abi_dtypes():
    root = _repo_root()
    if root is None:
        pytest.skip("not a source checkout: include/kosan/abi.h is not at hand")
    text = (root / "include" / "kosan" / "abi.h").read_text()
    rows = re.findall(r'X\((\w+), (\w+), "(\w+)", (\d+), ([01])\)', text)
    assert rows, "KOSAN_DTYPES not found in abi.h"
    return {name: int(size) for _, _, name, size, _ in rows}


def test_same_names_as_abi_h():
    assert set(KOSAN_DTYPES) == set(abi_dtypes())


def test_same_element_sizes_as_abi_h():
    for name, size in abi_dtypes().items():
        if name == "bytes":
            continue  # raw bytes: one at a time
        assert struct.calcsize(KOSAN_DTYPES[name][1]) == size, name
