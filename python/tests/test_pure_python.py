"""kosan without numpy and torch: importable, and every function works."""

import textwrap

from conftest import run_python

# Makes `import numpy` and `import torch` fail as if they were not installed.
BLOCK = textwrap.dedent("""
    import sys
    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("numpy", "torch"):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    sys.meta_path.insert(0, Block())
""")


def test_import_and_use_without_numpy_or_torch(tmp_path):
    code = BLOCK + textwrap.dedent(f"""
        import array, struct, sys
        import kosan
        ref, cand = {str(tmp_path / "ref.kosan")!r}, {str(tmp_path / "cand.kosan")!r}
        halves = struct.pack("<3e", 0.5, -2.0, 65504.0)
        def outputs(last):
            return {{
                "out": array.array("f", [1.0, 2.0, last]),
                "half": (halves, "f16"),
                "bf16": (struct.pack("<2H", 0x3F80, 0xC000), "bf16"),
                "flags": (bytes([1, 0]), "bool"),
            }}
        kosan.write_reference(ref, outputs(3.0))
        kosan.write_reference(cand, outputs(3.5))
        trace = kosan.open_trace(ref)
        assert trace.snapshot_array("out") == [1.0, 2.0, 3.0]
        assert trace.snapshot_array("half") == [0.5, -2.0, 65504.0]
        assert trace.snapshot_array("bf16") == [0x3F80, 0xC000]
        assert trace.snapshot_array("flags") == [True, False]
        assert trace.snapshot_bytes("half") == halves
        assert kosan.compare(ref, ref)["verdict"] == "equivalent"
        assert kosan.compare(ref, cand)["verdict"] == "different"
        assert "numpy" not in sys.modules and "torch" not in sys.modules
        print("ok")
    """)
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ok\n"


def test_numpy_is_really_blocked():
    done = run_python(BLOCK + "import numpy")
    assert done.returncode != 0
    assert "No module named 'numpy'" in done.stderr
