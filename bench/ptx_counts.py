#!/usr/bin/env python3
"""What each check adds to the kernels of bench/kernels.cu, from the PTX
and `ptxas -v` output that bench/precision/build.sh leaves in its directory
(kernels.<check>.ptx, ptxas.<check>.txt): per kernel and check, the clone's
registers, spill bytes, PTX instructions and some classes of them, and the
same for the plain kernel (the original every module keeps). "error-free
path": the instructions of the blocks a run without findings can reach;
"in loops": those of them inside loops (what each iteration may pay, all
loops together). Several
directories (builds of different commits) are compared cell by cell,
"a / b / c" where they differ. Prints a markdown table.

usage: bench/ptx_counts.py LABEL=DIR [LABEL=DIR ...] [--checks oob,precision]
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptxas_regs import parse  # noqa: E402

KERNELS = ["saxpy", "matmul", "transpose", "reduce_sum", "histogram", "stencil", "softmax",
           "gather"]
# Instruction classes: (column, regular expression on the instruction).
CLASSES = [
    ("ld.global", r"\bld\.global"),
    ("ld/st.shared", r"\b(ld|st)\.shared"),
    ("f64", r"\.f64\b"),
    ("setp", r"\bsetp\."),
    ("bra", r"\bbra\b"),
    ("call", r"\bcall\b"),
    ("shfl", r"\bshfl\.sync"),
]
# Device runtime functions that instrumented code calls at every sink (and
# __kosan_prec_merge, once per thread and tallied site).
RUNTIME = ["__kosan_prec_value", "__kosan_prec_narrow", "__kosan_prec_merge"]
COLUMNS = ["regs", "spill", "instructions", "error-free path", "in loops"] + [c for c, _ in CLASSES]
# Blocks (by the IR block name ptxas's input gives in a comment) that a run
# without findings never enters: the checks' reports.
COLD = re.compile(r"%kosan\.(report|record|halt|uninit\.(test|scan)|group\.(scan|next|found)|slow|skip|unhoisted)")


def fail(message):
    print(f"ptx_counts: {message}", file=sys.stderr)
    sys.exit(2)


def functions(path):
    """Bodies of the .entry and .func definitions of a PTX file, by name."""
    out, name, body, depth = {}, None, [], 0
    for line in open(path):
        if name is None:
            m = re.search(r"\.(entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)", line)
            if not m or line.rstrip().endswith(";"):
                continue
            name, body, depth = m.group(2), [], 0
        body.append(line)
        depth += line.count("{") - line.count("}")
        if depth == 0 and "}" in line:
            out[name] = body
            name = None
    return out


def count(body):
    c = {"instructions": 0}
    for line in body:
        s = line.strip()
        if (not s or s.startswith(("//", ".", "{", "}", "$")) or s.endswith(":")
                or s.startswith(")") or s.startswith("(")):
            continue
        c["instructions"] += 1
        for col, rx in CLASSES:
            if re.search(rx, s):
                c[col] = c.get(col, 0) + 1
    return c


def is_instruction(s):
    return not (not s or s.startswith(("//", ".", "{", "}", "$", ")", "(")) or s.endswith(":"))


def error_free_path(body):
    """Instructions in the blocks reachable from the entry without entering
    a report block: what a run that finds nothing may execute."""
    blocks, order, cur = {}, [], "entry"
    blocks[cur] = {"lines": [], "cold": False}
    order.append(cur)
    for line in body:
        s = line.strip()
        m = re.match(r"(\$L__BB\w+):", s)
        if m:
            cur = m.group(1)
            blocks[cur] = {"lines": [s], "cold": bool(COLD.search(s))}
            order.append(cur)
            continue
        if s.startswith("// %bb.") or s.startswith("// %"):
            # A block ptxas's input names without a label (reached by
            # falling through).
            cur = f"{cur}+"
            blocks[cur] = {"lines": [s], "cold": bool(COLD.search(s))}
            order.append(cur)
            continue
        blocks[cur]["lines"].append(s)
    seen, work = set(), ["entry"]
    while work:
        b = work.pop()
        if b in seen or blocks[b]["cold"]:
            continue
        seen.add(b)
        ends = False
        for s in blocks[b]["lines"]:
            m = re.search(r"\bbra(?:\.uni)?\s+(\$L__BB\w+);", s)
            if m:
                work.append(m.group(1))
                if not s.startswith("@"):
                    ends = True
            if re.match(r"(ret|exit|trap)\b", s):
                ends = True
        if not ends:
            i = order.index(b)
            if i + 1 < len(order):
                work.append(order[i + 1])
    def in_loop(b):
        return any("in Loop:" in s or "Loop Header:" in s for s in blocks[b]["lines"])
    total = sum(1 for b in seen for s in blocks[b]["lines"] if is_instruction(s))
    looped = sum(1 for b in seen if in_loop(b) for s in blocks[b]["lines"] if is_instruction(s))
    return total, looped


def collect(directory, checks):
    rows = {}
    for check in checks:
        name = check.replace(",", "+")
        ptx = os.path.join(directory, f"kernels.{name}.ptx")
        if not os.path.exists(ptx):
            fail(f"{ptx} not found (run bench/precision/build.sh)")
        regs = parse(os.path.join(directory, f"ptxas.{name}.txt"))
        for fn, body in functions(ptx).items():
            kernel = next((k for k in KERNELS if re.match(rf"_Z\d+{k}P", fn)), None)
            variant = name if fn.endswith("__kosan") else "plain"
            if fn in RUNTIME:
                kernel, variant = fn, "runtime"
            if not kernel:
                continue
            c = count(body)
            c["error-free path"], c["in loops"] = error_free_path(body)
            r = regs.get(fn, {})
            c["regs"], c["spill"] = r.get("regs", "?"), r.get("spill", "?")
            rows.setdefault((kernel, variant), c)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+", help="LABEL=DIR")
    ap.add_argument("--checks", default="oob,precision",
                    help="checks to compare, comma-separated ('+' joins a combination)")
    a = ap.parse_args()
    labels, data = [], []
    for spec in a.dirs:
        label, _, directory = spec.partition("=")
        if not directory:
            fail(f"'{spec}' is not LABEL=DIR")
        labels.append(label)
        data.append(collect(directory, [c.replace("+", ",") for c in a.checks.split(",")]))
    variants = ["plain"] + a.checks.split(",")
    print(f"Cells: {' / '.join(labels)} (one value where all agree).\n")
    print("| kernel | check | " + " | ".join(COLUMNS) + " |")
    print("|---|---|" + "---:|" * len(COLUMNS))
    for k in KERNELS + RUNTIME:
        for v in (["runtime"] if k in RUNTIME else variants):
            cells = []
            for col in COLUMNS:
                vals = [str(d[(k, v)].get(col, 0)) if (k, v) in d else "?" for d in data]
                cells.append(vals[0] if len(set(vals)) == 1 else " / ".join(vals))
            if all(c == "?" for c in cells):
                continue  # not in these builds (a runtime function nothing calls)
            print(f"| {k} | {v} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
