#!/usr/bin/env python3
"""Kernel-level overhead, side by side in one run (on the GPU machine).

Runs .bench-bin/kernels/kernels (instrumented) and kernels.plain, each kernel
timed inside the program with CUDA events (median of many launches after a
warm-up): plain, instrumented, instrumented with checks off, and the plain
binary under compute-sanitizer memcheck. Prints a markdown table of ratios.

usage: bench/kernel_bench.py [--dir .bench-bin/kernels] [--reps 50] [--rounds 3]
"""
import argparse, math, os, statistics, subprocess, sys

def run(cmd, env=None, timeout=600):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    rows = {}
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) != 3:
            continue  # compute-sanitizer's own lines
        try:
            rows[parts[0]] = (float(parts[1]), parts[2])
        except ValueError:
            continue
    return rows, p.stderr

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=".bench-bin/kernels")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--memcheck-reps", type=int, default=5)
    a = ap.parse_args()
    inst, plain = os.path.join(a.dir, "kernels"), os.path.join(a.dir, "kernels.plain")
    base = dict(os.environ)
    base.pop("KOSAN_OPTIONS", None)
    off = dict(base, KOSAN_OPTIONS="checks=none")
    times = {"plain": {}, "kosan": {}, "off": {}}
    checks = {}
    stderr_kosan = ""
    for r in range(a.rounds):  # interleaved rounds
        for variant, cmd, env in (("plain", [plain, str(a.reps)], base),
                                  ("kosan", [inst, str(a.reps)], base),
                                  ("off", [inst, str(a.reps)], off)):
            rows, err = run(cmd, env)
            if variant == "kosan":
                stderr_kosan += err
            for k, (ms, check) in rows.items():
                times[variant].setdefault(k, []).append(ms)
                checks.setdefault(k, {})[variant] = check
    mc = {}
    try:
        rows, _ = run(["compute-sanitizer", "--tool", "memcheck", plain, str(a.memcheck_reps)], base, 900)
        mc = {k: v[0] for k, v in rows.items()}
    except (FileNotFoundError, subprocess.TimeoutExpired) as e:
        print(f"compute-sanitizer not run: {e}", file=sys.stderr)
    print("| kernel | plain ms | kosan ms | kosan/plain | checks-off/plain | memcheck/plain | results equal |")
    print("|---|---:|---:|---:|---:|---:|---|")
    g = {"kosan": [], "off": [], "mc": []}
    for k in times["plain"]:
        p = statistics.median(times["plain"][k])
        i = statistics.median(times["kosan"][k])
        o = statistics.median(times["off"][k])
        same = len(set(checks[k].values())) == 1
        m = mc.get(k)
        g["kosan"].append(i / p); g["off"].append(o / p)
        if m:
            g["mc"].append(m / p)
        print(f"| {k} | {p:.4f} | {i:.4f} | {i/p:.2f} | {o/p:.2f} | {m/p if m else float('nan'):.1f} | {'yes' if same else '**NO**'} |")
    gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
    print(f"| **geomean** | | | **{gm(g['kosan']):.2f}** | **{gm(g['off']):.2f}** | **{gm(g['mc']):.1f}** | |")
    reports = stderr_kosan.count("ERROR: kosan")
    print(f"\nkosan reports on these correct kernels: {reports}")
    if "uninstrumented" in stderr_kosan:
        print("warning: some kernels ran uninstrumented:\n" + stderr_kosan[-1500:])

if __name__ == "__main__":
    main()
