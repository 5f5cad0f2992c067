#!/usr/bin/env python3
"""Kernel-level cost of checks=precision and of oob+precision, side by side
in one run (on the GPU machine), on bench/kernels.cu: each kernel timed
inside the program with CUDA events (median of many launches after a
warm-up), interleaved rounds. Prints a markdown table of ratios to plain.

usage: bench/precision/run.py [--dir .bench-bin/precision] [--reps 50] [--rounds 3]
"""
import argparse, math, os, statistics, subprocess, sys

def run(cmd, env):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    rows = {}
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            try:
                rows[parts[0]] = (float(parts[1]), parts[2])
            except ValueError:
                pass
    return rows, p.stderr

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=".bench-bin/precision")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    base = dict(os.environ)
    base.pop("KOSAN_OPTIONS", None)
    variants = [
        ("plain", "kernels.plain", None),
        ("oob", "kernels.oob", "checks=oob"),
        ("precision", "kernels.precision", "checks=precision:print_limit=0"),
        ("oob+precision", "kernels.oob+precision", "checks=oob,precision:print_limit=0"),
    ]
    times, checks, stderr = {}, {}, {}
    for _ in range(a.rounds):
        for name, binary, opts in variants:
            env = dict(base)
            if opts:
                env["KOSAN_OPTIONS"] = opts
            rows, err = run([os.path.join(a.dir, binary), str(a.reps)], env)
            stderr[name] = err
            for k, (ms, check) in rows.items():
                times.setdefault(name, {}).setdefault(k, []).append(ms)
                checks.setdefault(k, {})[name] = check
    print("| kernel | plain ms | oob/plain | precision/plain | oob+precision/plain | results equal |")
    print("|---|---:|---:|---:|---:|---|")
    ratios = {n: [] for n, _, _ in variants[1:]}
    for k in times["plain"]:
        p = statistics.median(times["plain"][k])
        cells = []
        for n, _, _ in variants[1:]:
            r = statistics.median(times[n][k]) / p
            ratios[n].append(r)
            cells.append(f"{r:.2f}")
        same = len(set(checks[k].values())) == 1
        print(f"| {k} | {p:.4f} | " + " | ".join(cells) + f" | {'yes' if same else '**NO**'} |")
    gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
    print("| **geomean** | | " + " | ".join(f"**{gm(ratios[n]):.2f}**" for n, _, _ in variants[1:]) + " | |")
    for n in ("precision", "oob+precision"):
        lines = [l for l in stderr[n].splitlines() if "precision" in l][:12]
        print(f"\nkosan's precision summary ({n}, last round):\n" + "\n".join("    " + l for l in lines))

if __name__ == "__main__":
    main()
