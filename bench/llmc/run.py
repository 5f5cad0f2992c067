#!/usr/bin/env python3
"""Whole-process cost of kosan's checks on GPT-2-layer kernels (bench/llmc/llmc.cu):
each kernel in a process of its own (CPU reference, five block sizes checked and
timed), plain and instrumented, side by side in one run, rounds interleaved.

  bench/llmc/run.py build [--dir .bench-bin/llmc]     build machine: builds the variants
  bench/llmc/run.py run [--dir ...] [--rounds 2]      GPU machine: prints a markdown table

Variants: plain (--kosan-plain); oob (the default build, checks=oob); all
(--kosan-checks=all, checks=all: oob, precision and order); off (the all build
with checks=none). Ratios are whole-process wall times to plain's, medians
over the rounds; "kernel" is the sum of the program's own per-launch times
(CUDA events, one figure per block size), all over plain's. "ok" is whether
every variant's outputs passed the program's check against its CPU reference.
"""
import argparse, math, os, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VARIANTS = [  # name, build flags, KOSAN_OPTIONS
    ("plain", ["--kosan-plain"], None),
    ("oob", [], "checks=oob"),
    ("all", ["--kosan-checks=all"], "checks=all:print_limit=0"),
    ("off", ["--kosan-checks=all"], "checks=none"),
]


def binary(d, name):
    return os.path.join(d, "llmc." + ("all" if name == "off" else name))


def build(a):
    os.makedirs(a.dir, exist_ok=True)
    drv = os.path.join(ROOT, "build/bin/kosan-clang++")
    arch = os.environ.get("KOSAN_CUDA_ARCH", "sm_90")
    for name, flags, _ in VARIANTS:
        if name == "off":
            continue
        cmd = [drv, *flags, "-O3", f"--cuda-gpu-arch={arch}", os.path.join(HERE, "llmc.cu"),
               "-o", binary(a.dir, name)]
        print(" ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)


def run_one(path, kernel, opts, timeout):
    env = dict(os.environ)
    env.pop("KOSAN_OPTIONS", None)
    if opts:
        env["KOSAN_OPTIONS"] = opts
    t0 = time.monotonic()
    try:
        p = subprocess.run([path, kernel], capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, False, f"past {timeout} s"
    wall = time.monotonic() - t0
    kernel_ms = sum(float(l.split()[2]) for l in p.stdout.splitlines() if len(l.split()) == 4)
    ok = p.returncode == 0 and p.stdout.rstrip().endswith(" ok")
    return wall, kernel_ms, ok, p.stderr[-400:] if not ok else ""


def run(a):
    kernels = subprocess.run([binary(a.dir, "plain"), "list"], capture_output=True, text=True,
                             check=True).stdout.split()
    if a.kernels:
        kernels = [k for k in kernels if k in a.kernels.split(",")]
    walls, kms, oks, notes = {}, {}, {}, {}
    for r in range(a.rounds):
        for k in kernels:
            for name, _, opts in VARIANTS:
                w, km, ok, note = run_one(binary(a.dir, name), k, opts, a.timeout)
                print(f"round {r + 1} {k} {name}: {w if w is None else round(w, 2)} s, ok={ok} {note}",
                      file=sys.stderr, flush=True)
                walls.setdefault((k, name), []).append(w)
                kms.setdefault((k, name), []).append(km)
                oks[(k, name)] = oks.get((k, name), True) and ok
                if note:
                    notes[(k, name)] = note
    names = [n for n, _, _ in VARIANTS]
    print("| kernel | plain s | " + " | ".join(f"{n}/plain" for n in names[1:]) + " | kernel: "
          + " | kernel: ".join(f"{n}/plain" for n in names[1:]) + " | ok |")
    print("|---|---:|" + "---:|" * (2 * len(names) - 2) + "---|")
    ratios = {n: [] for n in names[1:]}
    kratios = {n: [] for n in names[1:]}

    def med(xs):
        xs = [x for x in xs if x is not None]
        return statistics.median(xs) if xs else None

    for k in kernels:
        p, pk = med(walls[(k, "plain")]), med(kms[(k, "plain")])
        cells, kcells = [], []
        for n in names[1:]:
            w, km = med(walls[(k, n)]), med(kms[(k, n)])
            if w is None or p is None:
                cells.append("timeout")
                kcells.append("-")
                continue
            ratios[n].append(w / p)
            cells.append(f"{w / p:.2f}")
            if km and pk:
                kratios[n].append(km / pk)
                kcells.append(f"{km / pk:.2f}")
            else:
                kcells.append("-")
        ok = "yes" if all(oks[(k, n)] for n in names) else "NO: " + ", ".join(
            f"{n} {notes.get((k, n), 'failed')}" for n in names if not oks[(k, n)])
        print(f"| {k} | {p:.2f} | " + " | ".join(cells) + " | " + " | ".join(kcells) + f" | {ok} |")

    def geo(xs):
        return f"**{math.exp(sum(map(math.log, xs)) / len(xs)):.2f}**" if xs else "-"

    print("| **geomean** | | " + " | ".join(geo(ratios[n]) for n in names[1:]) + " | "
          + " | ".join(geo(kratios[n]) for n in names[1:]) + " | |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["build", "run"])
    ap.add_argument("--dir", default=os.path.join(ROOT, ".bench-bin/llmc"))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--kernels", help="comma-separated subset")
    a = ap.parse_args()
    build(a) if a.what == "build" else run(a)


if __name__ == "__main__":
    main()
