#!/usr/bin/env python3
"""Cost of checks=order on bench/kernels.cu (on the GPU machine), side by
side in one run:

  launch   the program's own timing (CUDA events around each launch, median
           of --reps) without a trace: fingerprints are computed for float
           atomics, stores are not logged, and a launch waits only when its
           kernel may log atomics; order and oob+order against plain;
  kernel   with --ncu: each kernel's own GPU time (ncu's gpu__time_duration,
           median of its launches, clocks locked by ncu) against the plain
           kernel's, without a trace and with one (trace=/dev/null, every
           store of a float logged as in a judging run).

usage: bench/order/run.py [--dir .bench-bin/order] [--reps 20] [--rounds 2] [--ncu]
"""
import argparse, csv, io, math, os, re, statistics, subprocess, sys

ORDER_OPTS = "checks=order:order_stores=67108864:order_atomics=1048576:print_limit=0"


def run(cmd, env, timeout=240, fatal=True):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if p.returncode != 0:
        msg = f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-3000:]}{p.stdout[-3000:]}"
        if fatal:
            sys.exit(msg)
        print(msg, file=sys.stderr)
        return None
    return p


def program_rows(stdout):
    rows = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            try:
                rows[parts[0]] = (float(parts[1]), parts[2])
            except ValueError:
                pass
    return rows


def ncu_durations(binary, env):
    """Kernel name (without __kosan) -> median GPU time in ns of its launches."""
    p = run(["ncu", "--csv", "--metrics", "gpu__time_duration.sum", binary, "1"], env,
            timeout=300, fatal=False)
    if p is None:
        return {}
    text = p.stdout[p.stdout.find('"ID"'):]
    out = {}
    for row in csv.DictReader(io.StringIO(text)):
        name = re.sub(r"__kosan$", "", row.get("Kernel Name", "").split("(")[0])
        # Itanium-mangled "_Z5saxpyPfPKffi": the length-prefixed name.
        m = re.match(r"_Z(\d+)", name)
        base = name[m.end():m.end() + int(m.group(1))] if m else name
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        unit = row.get("Metric Unit", "nsecond")
        scale = {"nsecond": 1, "usecond": 1e3, "msecond": 1e6, "second": 1e9}.get(unit, 1)
        out.setdefault(base, []).append(value * scale)
    return {k: statistics.median(v) for k, v in out.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=".bench-bin/order")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--ncu", action="store_true",
                    help="also measure each kernel's own GPU time with ncu, without and with "
                         "a trace (slow: collecting the records of a 64 Mi-element output "
                         "takes seconds per launch)")
    a = ap.parse_args()
    base = dict(os.environ)
    base.pop("KOSAN_OPTIONS", None)
    variants = [("plain", "kernels.plain", None), ("order", "kernels.order", ORDER_OPTS),
                ("oob+order", "kernels.oob+order", ORDER_OPTS.replace("checks=order", "checks=oob,order"))]
    times, checks = {}, {}
    for _ in range(a.rounds):
        for name, binary, opts in variants:
            env = dict(base)
            if opts:
                env["KOSAN_OPTIONS"] = opts
            print(f"timing {name}", file=sys.stderr, flush=True)
            rows = program_rows(run([os.path.join(a.dir, binary), str(a.reps)], env).stdout)
            for k, (ms, check) in rows.items():
                times.setdefault(name, {}).setdefault(k, []).append(ms)
                checks.setdefault(k, {})[name] = check
    kernel = {"plain": {}, "order": {}, "order+log": {}}
    ncu_runs = [("plain", "kernels.plain", None), ("order", "kernels.order", ORDER_OPTS),
                ("order+log", "kernels.order", ORDER_OPTS + ":trace=/dev/null")]
    for name, binary, opts in ncu_runs if a.ncu else []:
        env = dict(base)
        if opts:
            env["KOSAN_OPTIONS"] = opts
        print(f"ncu {name}", file=sys.stderr, flush=True)
        kernel[name] = ncu_durations(os.path.join(a.dir, binary), env)
    print("| kernel | plain ms | launch: order/plain | launch: oob+order/plain "
          "| kernel: order/plain | kernel, stores logged: order/plain | results equal |")
    print("|---|---:|---:|---:|---:|---:|---|")
    ratios = {"l-order": [], "l-both": [], "k-order": [], "k-log": []}
    for k in times["plain"]:
        p = statistics.median(times["plain"][k])
        lo = statistics.median(times["order"][k]) / p
        lb = statistics.median(times["oob+order"][k]) / p
        kp = kernel["plain"].get(k)
        ko = kernel["order"].get(k, float("nan")) / kp if kp else float("nan")
        kl = kernel["order+log"].get(k, float("nan")) / kp if kp else float("nan")
        for key, v in (("l-order", lo), ("l-both", lb), ("k-order", ko), ("k-log", kl)):
            if v == v:
                ratios[key].append(v)
        same = len(set(checks[k].values())) == 1
        print(f"| {k} | {p:.4f} | {lo:.2f} | {lb:.2f} | {ko:.2f} | {kl:.2f} | "
              f"{'yes' if same else '**NO**'} |", flush=True)
    gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
    print(f"| **geomean** | | **{gm(ratios['l-order']):.2f}** | **{gm(ratios['l-both']):.2f}** | "
          f"**{gm(ratios['k-order']):.2f}** | **{gm(ratios['k-log']):.2f}** | |")

if __name__ == "__main__":
    main()
