#!/usr/bin/env python3
"""Compile time and PTX size, kosan-clang++ instrumented vs --kosan-plain.

Each program's CUDA sources are compiled to objects (device code through
ptxas, host code included) once plain and once per checks setting, one
after another on the same machine; the table gives wall seconds, the
ratio to plain and the PTX lines of the device code. Programs come from
public_programs.txt (cuda-samples, by name) or are kosan's own compile-time
cases under bench/compile/ (named compile/NAME).

  bench/compile_time.py --samples /path/to/cuda-samples \\
      --programs compile/unrolled,reduction,threadFenceReduction --checks oob

Clones are deferred to their first checked launch by default (kosan-clang++
--kosan-defer-clones), kept as bitcode; --eager adds the builds that compile
them with the module, --ptx-deferred those that keep them as PTX made at
build time (--kosan-defer-clones=ptx). The PTX lines are those of --cuda-device-only -S, which keeps the
clones in the module either way.

--baseline-driver OTHER adds OTHER's instrumented builds (another kosan, as
"base:SETTING"), measured in the same run, program by program, so that the
two compare under the same load.
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

CPU_TIME = False  # --cpu: user + system seconds of the compilers, not wall seconds
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Samples outside public_programs.txt (not run by run_bench.py): folder and sources.
EXTRA = {
    "bf16TensorCoreGemm": ("3_CUDA_Features/bf16TensorCoreGemm", ["bf16TensorCoreGemm.cu"], []),
    "cudaTensorCoreGemm": ("3_CUDA_Features/cudaTensorCoreGemm", ["cudaTensorCoreGemm.cu"], []),
}


def programs_table():
    table = {}
    with open(os.path.join(HERE, "public_programs.txt")) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split("|")]
            name, folder, sources, flags = fields[0], fields[1], fields[2].split(","), fields[3]
            table[name] = (folder, sources, [] if flags == "-" else flags.split())
    table.update(EXTRA)
    return table


def sources_of(name, samples, table):
    if name.startswith("compile/"):
        path = os.path.join(HERE, name + ".cu")
        if not os.path.exists(path):
            sys.exit(f"compile_time.py: no {path}")
        return [path], []
    if name not in table:
        sys.exit(f"compile_time.py: unknown program '{name}' (public_programs.txt, compile/NAME)")
    folder, sources, flags = table[name]
    if folder.startswith("kosan:"):
        base = os.path.join(ROOT, folder[len("kosan:"):])
        flags = [f if not f.startswith("-I") else "-I" + os.path.join(ROOT, f[2:]) for f in flags]
    else:
        if not samples:
            sys.exit("compile_time.py: --samples is needed for cuda-samples programs")
        base = os.path.join(samples, "Samples", folder)
        flags = flags + ["-I" + os.path.join(samples, "Common")]
    return [os.path.join(base, s) for s in sources if s.endswith(".cu")], flags


def compile_once(driver, src, flags, mode, out, timeout, extra):
    cmd = [driver, "-O3", "--cuda-gpu-arch=sm_90", *mode, *flags, *extra, src, "-o", out]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["failed"])[-1]
    return (cpu if CPU_TIME else wall), ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--driver", default=os.path.join(ROOT, "build", "bin", "kosan-clang++"))
    ap.add_argument("--samples", help="a cuda-samples checkout (for its programs)")
    ap.add_argument("--programs", default="compile/unrolled")
    ap.add_argument("--checks", default="oob", help="settings of --kosan-checks to measure, separated by semicolons: oob or 'oob;all'")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per compile (default 600)")
    ap.add_argument("--baseline-driver", help="another kosan-clang++ whose instrumented builds to measure too")
    ap.add_argument("--no-ptx", action="store_true", help="skip the PTX line counts (a second compile each)")
    ap.add_argument("--cpu", action="store_true",
                    help="CPU seconds (user + system) of the compiler processes instead of wall "
                         "seconds: steadier on a loaded machine")
    ap.add_argument("--eager", action="store_true",
                    help="also measure each setting with the clones compiled with the build "
                         "(--kosan-defer-clones=0), as \"eager:SETTING\"")
    ap.add_argument("--ptx-deferred", action="store_true",
                    help="also measure each setting with the clones kept as PTX made at build "
                         "time (--kosan-defer-clones=ptx), as \"ptx:SETTING\"")
    ap.add_argument("--reps", type=int, default=1,
                    help="compiles per source and build, the fastest kept (on a shared machine) (default 1)")
    args = ap.parse_args()
    global CPU_TIME
    CPU_TIME = args.cpu
    table = programs_table()
    settings = [s for s in args.checks.split(";") if s]
    modes = [("plain", ["--kosan-plain"], args.driver)]
    if args.baseline_driver:
        modes += [("base:" + s, ["--kosan-checks=" + s], args.baseline_driver) for s in settings]
    if args.eager:
        modes += [("eager:" + s, ["--kosan-checks=" + s, "--kosan-defer-clones=0"], args.driver)
                  for s in settings]
    if args.ptx_deferred:
        modes += [("ptx:" + s, ["--kosan-checks=" + s, "--kosan-defer-clones=ptx"], args.driver)
                  for s in settings]
    modes += [(s, ["--kosan-checks=" + s], args.driver) for s in settings]
    head = "| program | " + " | ".join(
        f"{m} (s)" + ("" if args.no_ptx else f" | {m} PTX lines") + ("" if m == "plain" else f" | {m}/plain")
        for m, _, _ in modes) + " |"
    print(head)
    print("|---|" + "---:|" * (head.count("|") - 2))
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.programs.split(","):
            srcs, flags = sources_of(name, args.samples, table)
            cells, plain = [], None
            for label, mode, driver in modes:
                total, lines, why = 0.0, 0, ""
                for i, src in enumerate(srcs):
                    wall = None
                    for _ in range(max(1, args.reps)):
                        w, why = compile_once(driver, src, flags, mode, os.path.join(tmp, f"{i}.o"),
                                              args.timeout, ["-c"])
                        if w is None:
                            wall = None
                            break
                        wall = w if wall is None else min(wall, w)
                    if wall is None:
                        break
                    total += wall
                    ptx = os.path.join(tmp, f"{i}.ptx")
                    if args.no_ptx:
                        continue
                    if compile_once(driver, src, flags, mode, ptx, args.timeout,
                                    ["--cuda-device-only", "-S"])[0] is not None:
                        with open(ptx) as f:
                            lines += sum(1 for _ in f)
                ptxcell = [] if args.no_ptx else [str(lines)]
                if why:
                    cells += [why if why == "timeout" else "failed"] + ([] if args.no_ptx else ["-"]) + \
                        ([] if label == "plain" else ["-"])
                    print(f"{name} {label}: {why}", file=sys.stderr)
                    continue
                if label == "plain":
                    plain = total
                    cells += [f"{total:.2f}"] + ptxcell
                else:
                    ratio = f"{total / plain:.2f}" if plain else "-"
                    cells += [f"{total:.2f}"] + ptxcell + [ratio]
            print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
