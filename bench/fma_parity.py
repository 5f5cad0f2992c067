#!/usr/bin/env python3
"""Floating-point arithmetic per kernel in the PTX of the plain build and of
each check's instrumented clone: the fused multiply-adds (fma), multiplies
and adds/subtracts of every type. A clone computes the bits of its original
only if it fuses the same multiplies and adds (docs/design.md, "Fused
multiply-adds").

    python3 bench/fma_parity.py [--checks oob,precision,order,race,all] [-O3]
                                [--arch sm_90] [-j 2] [FILE.cu ...]

Without files: the GPU tests (test/gpu/*.cu), bench/kernels.cu and the
mutation kernel set (bench/mutation/kernels/*.cu). Each file is compiled
device-only to PTX with build/bin/kosan-clang++, --kosan-plain and once per
check; the table compares each kernel and device function of the plain
build with its __kosan clone. The precision check's shadows are fp64: its
column leaves f64 arithmetic out (marked "f64 aside") for kernels that do
arithmetic in other types, and the f32 additions and fmas its local error
computes again on rounded shadows (those whose result only cvt.f64.f32
reads). Exit status 1 if any clone's counts differ from
its original's, 2 on a failed compile.
"""
import argparse
import collections
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLONE_SUFFIX = "__kosan"
# "fma.rn.f32", "mul.rn.ftz.f32", "add.rn.f16x2", "sub.f64", ...
ARITH = re.compile(r"^\s*(?:@%p\d+\s+)?(fma|mul|add|sub)(?:\.rn)?(?:\.ftz)?(?:\.sat)?"
                   r"\.(f16x2|f16|bf16x2|bf16|f32|f64)\s")
DEST = re.compile(r"\s*(%f\d+)\s*,")
REG = re.compile(r"%f\d+\b")
CVT_F64 = re.compile(r"^\s*(?:@%p\d+\s+)?cvt\.f64\.f32\s")
FUNC = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(?:entry|func)\s+"
                  r"(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)")


def default_files():
    files = sorted(glob.glob(os.path.join(ROOT, "test/gpu/*.cu")))
    files.append(os.path.join(ROOT, "bench/kernels.cu"))
    files += sorted(glob.glob(os.path.join(ROOT, "bench/mutation/kernels/*.cu")))
    return files


def compile_ptx(driver, src, variant, opt, arch, outdir, extra, sass):
    name = os.path.splitext(os.path.basename(src))[0]
    out = os.path.join(outdir, f"{name}.{variant}.ptx")
    flags = ["--kosan-plain"] if variant == "plain" else [f"--kosan-checks={variant}"] + extra
    cmd = [driver, opt, f"--cuda-gpu-arch={arch}", "--cuda-device-only", "-S",
           "-I" + os.path.join(ROOT, "include")] + flags + [src, "-o", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    if not sass:
        return count(out)
    ptxas, nvdisasm = sass
    cubin = out[:-4] + ".cubin"
    cmd = [ptxas, f"-arch={arch}", out, "-o", cubin]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0 and "Unresolved extern function" in r.stderr:
        # Relocatable device code (-fgpu-rdc) calls functions of other units.
        cmd.insert(2, "-c")
        r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    r = subprocess.run([nvdisasm, "-c", cubin], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"nvdisasm {cubin} failed:\n{r.stderr[-2000:]}")
    return count_sass(r.stdout.splitlines())


# SASS: FFMA/FMUL/FADD (f32), DFMA/DMUL/DADD (f64), HFMA2/HMUL2/HADD2 (f16,
# two lanes or one).
SASS_OPS = {"FFMA": ("fma", "f32"), "FMUL": ("mul", "f32"), "FADD": ("add", "f32"),
            "DFMA": ("fma", "f64"), "DMUL": ("mul", "f64"), "DADD": ("add", "f64"),
            "HFMA2": ("fma", "f16"), "HMUL2": ("mul", "f16"), "HADD2": ("add", "f16")}
SASS_INSN = re.compile(r"\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9]*)((?:\.[A-Z0-9_]+)*)\s")


def count_sass(lines):
    funcs, cur = {}, None
    for line in lines:
        m = re.match(r"^\.text\.(\S+):", line)
        if m:
            cur = m.group(1)
            funcs[cur] = collections.Counter()
            continue
        if line.lstrip().startswith(".section"):
            cur = None
        m = SASS_INSN.search(line)
        if cur and m and m.group(1) in SASS_OPS:
            # HFMA2.MMA and friends move constants, not arithmetic.
            if m.group(1) == "HFMA2" and ".MMA" in m.group(2):
                continue
            funcs[cur][SASS_OPS[m.group(1)]] += 1
    return funcs


def count(ptx_path):
    """{function: Counter({('fma', 'f32'): n, ...})} of the PTX's functions
    with a body."""
    funcs, cur, depth = {}, None, 0
    twins, uses, cvt_uses = {}, collections.Counter(), collections.Counter()
    for line in open(ptx_path):
        if cur is None:
            m = FUNC.match(line)
            if m and not line.rstrip().endswith(";"):
                cur, depth, pending = m.group(1), 0, True
                funcs[cur] = collections.Counter()
            continue
        depth += line.count("{") - line.count("}")
        if "{" in line:
            pending = False
        if not pending and depth <= 0:
            cur = None
            continue
        if line.rstrip().endswith(";") and depth == 0 and pending:
            # A declaration (".extern .func f(...);"): no body.
            del funcs[cur]
            cur = None
            continue
        m = ARITH.match(line)
        if m:
            funcs[cur][(m.group(1) if m.group(1) != "sub" else "add", m.group(2))] += 1
            if cur.endswith(CLONE_SUFFIX) and m.group(2) == "f32" and m.group(1) != "mul":
                d = DEST.match(line[m.end():])
                if d:
                    twins.setdefault(cur, []).append((m.group(1), d.group(1)))
        for r in REG.findall(line):
            uses[(cur, r)] += 1
            if CVT_F64.match(line):
                cvt_uses[(cur, r)] += 1
    # The precision check's local error computes an f32 addition or fma
    # again on the rounded shadows, and widens its result at once: an f32
    # add/sub/fma of a clone whose result only cvt.f64.f32 reads (the real
    # operation's result is read by its NaN/Inf test as well) is that
    # twin, not the program's arithmetic.
    for f, defs in twins.items():
        for op, reg in defs:
            if uses[(f, reg)] > 1 and uses[(f, reg)] - 1 == cvt_uses[(f, reg)]:
                funcs[f][(op if op != "sub" else "add", "f32")] -= 1
    return funcs


def is_program_function(name):
    return not (name.endswith(CLONE_SUFFIX) or name.startswith("__kosan") or
                name.startswith("_ZN5kosan") or "kosan_unit" in name)


def fmt(c, types=None):
    keys = [k for k in c if types is None or k[1] in types]
    if not keys:
        return "-"
    by_type = collections.defaultdict(dict)
    for op, ty in keys:
        by_type[ty][op] = c[(op, ty)]
    return " ".join(f"{ty}:{d.get('fma', 0)}/{d.get('mul', 0)}/{d.get('add', 0)}"
                    for ty, d in sorted(by_type.items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--checks", default="oob,precision,order,race,all")
    ap.add_argument("-O", dest="opt", default="3")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("-j", dest="jobs", type=int, default=2)
    ap.add_argument("--driver", default=os.path.join(ROOT, "build/bin/kosan-clang++"))
    ap.add_argument("--out", default=os.path.join(ROOT, ".bench-bin/fma_parity"))
    ap.add_argument("--extra", default="",
                    help="more driver options for the instrumented builds (\"-mllvm -kosan-form-fmas=false\")")
    ap.add_argument("--sass", action="store_true",
                    help="count the SASS instructions (ptxas, then nvdisasm) instead of the PTX's")
    ap.add_argument("--ptxas", default=os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "bin/ptxas"))
    ap.add_argument("--nvdisasm", default="nvdisasm")
    ap.add_argument("--all-rows", action="store_true",
                    help="list every function, not only those with floating-point arithmetic")
    args = ap.parse_args()
    files = args.files or default_files()
    checks = [c for c in args.checks.split(",") if c]
    variants = ["plain"] + checks
    os.makedirs(args.out, exist_ok=True)
    sass = (args.ptxas, args.nvdisasm) if args.sass else None
    opt = "-O" + args.opt.lstrip("O")

    jobs = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for f in files:
            for v in variants:
                jobs[(f, v)] = pool.submit(compile_ptx, args.driver, f, v, opt, args.arch, args.out,
                                           args.extra.split(), sass)
        ptx = {}
        for key, fut in jobs.items():
            try:
                ptx[key] = fut.result()
            except RuntimeError as e:
                print(f"fma_parity: {e}", file=sys.stderr)
                return 2

    what = "SASS (ptxas, nvdisasm)" if sass else "PTX"
    print(f"Floating-point arithmetic per function in the {what} ({opt}, {args.arch}"
          f"{', ' + args.extra if args.extra else ''}), as type:fma/mul/add+sub; the plain "
          "build against each check's clone.\n")
    print("| file | function | plain | " + " | ".join(checks) + " |")
    print("|---|---|---|" + "---|" * len(checks))
    differ = same = 0
    for f in files:
        plain = ptx[(f, "plain")]
        for name in sorted(plain):
            if not is_program_function(name):
                continue
            base = plain[name]
            if not base and not args.all_rows:
                continue
            cells = []
            for c in checks:
                funcs = ptx[(f, c)]
                clone = funcs.get(name + CLONE_SUFFIX)
                if clone is None:
                    cells.append("no clone")
                    continue
                aside = c == "all" or "precision" in c.split(",")
                types = None
                if aside and any(ty != "f64" for _, ty in base):
                    types = {ty for _, ty in base if ty != "f64"} | \
                            {ty for _, ty in clone if ty != "f64"}
                if funcs.get(name) != base:
                    cells.append("original differs from the plain build: " + fmt(funcs.get(name, {})))
                    differ += 1
                    continue
                want = {k: v for k, v in base.items() if types is None or k[1] in types}
                got = {k: v for k, v in clone.items() if types is None or k[1] in types}
                if aside and types is None:
                    cells.append("(f64 shadows)")
                elif want == got:
                    cells.append("same" + (" (f64 aside)" if types is not None and
                                           any(ty == "f64" for _, ty in base) else ""))
                    same += 1
                else:
                    cells.append("**" + fmt(clone, types) + "**")
                    differ += 1
            print(f"| {os.path.relpath(f, ROOT)} | {name} | {fmt(base)} | " + " | ".join(cells) + " |")
    print(f"\n{same} clones compute with the arithmetic of their original, {differ} differ.")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
