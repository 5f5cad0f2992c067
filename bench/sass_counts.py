#!/usr/bin/env python3
"""SASS instruction counts of the instrumented kernels of bench/kernels.cu
for sm_90, from the PTX that bench/precision/build.sh leaves in its directory
(kernels.<check>.ptx): ptxas compiles it, cuobjdump lists the SASS, and per
clone the script counts all instructions and the classes that set the
precision check's cost on sm_90 (64-bit conversions F2F, issued at 16 per
clock and SM against 64 fp64 and 128 fp32 operations; fp64 arithmetic;
local-memory spill traffic), in the whole function and in its largest loop
(the range of its longest predicated backward branch: the tile loop of
matmul, the last loop of softmax, the grid-stride loop of saxpy). Several
directories (builds of different commits) are compared cell by cell,
"a / b" where they differ. Prints a markdown table.

usage: bench/sass_counts.py LABEL=DIR [LABEL=DIR ...] [--checks precision,oob+precision]
       [--cuobjdump PATH] [--arch sm_90]
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

KERNELS = ["saxpy", "matmul", "transpose", "reduce_sum", "histogram", "stencil", "softmax",
           "gather"]
CLASSES = [  # (column, opcode prefixes)
    ("F2F", ("F2F.F64", "F2F.F32")),
    ("DFMA/DADD/DMUL", ("DFMA", "DADD", "DMUL")),
    ("FFMA/FADD/FMUL", ("FFMA", "FADD", "FMUL")),
    ("LDL/STL", ("LDL", "STL")),
]
INSN = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)(.*)")


def functions(sass):
    """(mangled name, [(address, opcode, predicate + operands)]) per function."""
    name, body = None, []
    for line in sass.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            if name:
                yield name, body
            name, body = m.group(1), []
            continue
        m = INSN.match(line)
        if m and name:
            body.append((int(m.group(1), 16), m.group(3), (m.group(2) or "") + m.group(4)))
    if name:
        yield name, body


def counts(body):
    loops = []
    for addr, op, rest in body:
        # A loop's latch is a predicated backward branch; unpredicated ones
        # jump back from the divergent paths of warp-level code.
        if op == "BRA" and rest.startswith("@"):
            t = re.search(r"0x([0-9a-f]+)\s*;", rest)
            if t and int(t.group(1), 16) < addr:
                loops.append((int(t.group(1), 16), addr))
    big = max(loops, key=lambda r: r[1] - r[0], default=None)
    res = {}
    for scope in ("all", "loop"):
        c = collections.Counter()
        for addr, op, _ in body:
            if op == "NOP" or (scope == "loop" and not (big and big[0] <= addr <= big[1])):
                continue
            c["instructions"] += 1
            for col, prefixes in CLASSES:
                if op.startswith(prefixes):
                    c[col] += 1
        res[scope] = c
    return res


def kernel_name(mangled):
    for k in KERNELS:
        if re.match(r"_Z\d+%s" % k, mangled):
            return k
    return mangled


def sass_of(ptx, arch, cuobjdump):
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "k.cubin")
        ptxas = os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "bin", "ptxas")
        subprocess.run([ptxas, "-arch=" + arch, "-O3", ptx, "-o", cubin], check=True)
        return subprocess.run([cuobjdump, "-sass", cubin], check=True, capture_output=True,
                              text=True).stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", help="LABEL=DIR")
    ap.add_argument("--checks", default="precision,oob+precision")
    ap.add_argument("--cuobjdump", default="cuobjdump")
    ap.add_argument("--arch", default="sm_90")
    a = ap.parse_args()
    builds = []
    for d in a.dirs:
        label, _, path = d.partition("=")
        if not path:
            sys.exit("sass_counts.py: error: expected LABEL=DIR, got '%s'" % d)
        builds.append((label, path))
    cols = ["instructions"] + [c for c, _ in CLASSES]
    print("Cells: " + " / ".join(l for l, _ in builds) + ", one value where all agree.\n")
    print("| kernel | check | " + " | ".join(cols) + " | largest loop: " + " | ".join(cols) + " |")
    print("|---|---|" + "---:|" * (2 * len(cols)))
    for check in a.checks.split(","):
        per = []
        for _, path in builds:
            ptx = os.path.join(path, "kernels.%s.ptx" % check)
            if not os.path.exists(ptx):
                sys.exit("sass_counts.py: error: no %s" % ptx)
            per.append({kernel_name(n[:-len("__kosan")]): counts(b)
                        for n, b in functions(sass_of(ptx, a.arch, a.cuobjdump))
                        if n.endswith("__kosan")})
        for k in KERNELS:
            if not all(k in p for p in per):
                continue
            cells = []
            for scope in ("all", "loop"):
                for c in cols:
                    vals = [str(p[k][scope][c]) for p in per]
                    cells.append(vals[0] if len(set(vals)) == 1 else " / ".join(vals))
            print("| %s | %s | %s |" % (k, check, " | ".join(cells)))


if __name__ == "__main__":
    main()
