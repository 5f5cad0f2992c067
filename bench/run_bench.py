#!/usr/bin/env python3
"""Runs the kosan benchmark on a GPU machine (python3 standard library only).

For every program of <bin-dir>/programs.tsv (written when the programs are built; see bench/README.md)
it runs, N times each and interleaved (the order rotates every round):

  plain     NAME.plain                       (built with --kosan-plain)
  instr     NAME, default KOSAN_OPTIONS      (KOSAN_OPTIONS removed from env)
  off       NAME, KOSAN_OPTIONS=checks=none  (instrumented, checks off)
  memcheck  compute-sanitizer --tool memcheck NAME.plain   (--memcheck-runs times, default 1)

and records the whole-process wall time (time.perf_counter around the child),
the exit status, the GPU time the program prints about itself (where its
kernel-time regex matches), the kosan reports on stderr, and compute-sanitizer's
"ERROR SUMMARY". It writes <out>/bench.json and <out>/bench.md after every
program (so a cut-short run still leaves results) and prints the table last.

Ratios are median(variant) / median(plain). Geometric means are over the
programs where every run of both variants exited 0 (the count is shown).
"""

import argparse
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

# Lines of stdout that carry timings (or rates derived from them) are dropped
# before the outputs of two runs are compared. This is the filter:
TIMING_LINE_RE = re.compile(r"time|Time|msec|ms\b|GB/s|GFlop|Throughput|sec|MB/s|/s\b")

KOSAN_REPORT = "ERROR: kosan"
MEMCHECK_SUMMARY_RE = re.compile(r"ERROR SUMMARY: (\d+) error")

VARIANTS = ["plain", "instr", "off", "memcheck"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin-dir", required=True, help="folder with NAME, NAME.plain and programs.tsv")
    p.add_argument("--out", required=True, help="where bench.json, bench.md and logs/ go")
    p.add_argument("-n", "--runs", type=int, default=3, help="runs of each variant (default 3)")
    p.add_argument("--programs", default="default",
                   help="'default' (the programs marked 1), 'all', or comma-separated names")
    p.add_argument("--run-timeout", type=float, default=60.0,
                   help="seconds before a plain/instr/off run is killed; a variant that timed out "
                        "is not run again for that program (default 60)")
    p.add_argument("--no-memcheck", action="store_true", help="skip compute-sanitizer")
    p.add_argument("--sanitizer", default=None, help="compute-sanitizer to use (default: PATH, then CUDA dirs)")
    p.add_argument("--memcheck-timeout", type=float, default=120.0,
                   help="seconds before a memcheck run is killed and reported as timeout (default 120)")
    p.add_argument("--memcheck-runs", type=int, default=1,
                   help="memcheck runs per program, interleaved with the others (default 1: memcheck's "
                        "slowdown is large next to its run-to-run noise, and 3 runs of it would take "
                        "the default benchmark past 6 minutes; give -n's value for full medians)")
    p.add_argument("--memcheck-slow-s", type=float, default=20.0,
                   help="after a memcheck run that takes longer than this (or times out), "
                        "run memcheck no more for that program (default 20)")
    p.add_argument("--budget-s", type=float, default=300.0,
                   help="after this many seconds, memcheck runs once per program (default 300)")
    p.add_argument("--hard-budget-s", type=float, default=480.0,
                   help="after this many seconds, the remaining programs are skipped (default 480)")
    p.add_argument("--kosan-options", default=None,
                   help="KOSAN_OPTIONS for the 'instr' variant (default: unset, the runtime's defaults)")
    return p.parse_args()


def find_sanitizer(given):
    if given:
        return given
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for cand in ["/usr/local/cuda/bin/compute-sanitizer",
                 "/usr/local/cuda/compute-sanitizer/compute-sanitizer"]:
        if os.access(cand, os.X_OK):
            return cand
    return None


def read_programs(bin_dir):
    progs = []
    with open(os.path.join(bin_dir, "programs.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            if not line.strip():
                continue
            row = dict(zip(header, line.rstrip("\n").split("\t")))
            row["args"] = [] if row.get("args", "-") in ("", "-") else row["args"].split()
            row["kernel_re"] = None if row.get("kernel_re", "-") in ("", "-") else row["kernel_re"]
            row["kernel_unit"] = row.get("kernel_unit", "-")
            row["default"] = row.get("default", "1") == "1"
            progs.append(row)
    return progs


def run_once(cmd, env, cwd, timeout):
    """Runs cmd; returns (wall seconds, exit status or None on timeout, stdout, stderr)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        rc = None
    wall = time.perf_counter() - t0
    return wall, rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def normalize(stdout, exe_paths):
    """The program's stdout without timing lines and with its own path replaced."""
    lines = []
    for line in stdout.splitlines():
        if TIMING_LINE_RE.search(line):
            continue
        for p in exe_paths:
            line = line.replace(p, "<prog>")
        lines.append(line)
    return "\n".join(lines)


def kernel_seconds(stdout, regex, unit):
    if not regex:
        return None
    vals = [float(m.group(1)) for m in re.finditer(regex, stdout) if m.group(1) not in ("", ".")]
    if not vals:
        return None
    return sum(vals) * (1e-3 if unit == "ms" else 1.0)


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def ratio(a, b):
    if a is None or b is None or b <= 0:
        return None
    return a / b


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    if not xs:
        return None
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def fmt(x, digits=2, suffix=""):
    return "—" if x is None else f"{x:.{digits}f}{suffix}"


def gpu_info():
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,persistence_mode",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
        return r.stdout.strip() or r.stderr.strip()
    except Exception as e:  # noqa: BLE001 - informational only
        return f"nvidia-smi: {e}"


class Bench:
    def __init__(self, args):
        self.a = args
        self.bin_dir = os.path.abspath(args.bin_dir)
        self.out = os.path.abspath(args.out)
        os.makedirs(os.path.join(self.out, "logs"), exist_ok=True)
        # Programs run in a scratch folder (some samples write files to their cwd).
        self.work = tempfile.mkdtemp(prefix="kosan-bench-work-")
        self.sanitizer = None if args.no_memcheck else find_sanitizer(args.sanitizer)
        self.memcheck_runs = min(args.memcheck_runs, args.runs)
        self.t_start = time.perf_counter()
        self.results = []
        self.meta = {
            "bin_dir": self.bin_dir,
            "runs": args.runs,
            "memcheck_runs": 0 if self.sanitizer is None else self.memcheck_runs,
            "sanitizer": self.sanitizer,
            "run_timeout_s": args.run_timeout,
            "memcheck_timeout_s": args.memcheck_timeout,
            "memcheck_slow_s": args.memcheck_slow_s,
            "budget_s": args.budget_s,
            "hard_budget_s": args.hard_budget_s,
            "instr_kosan_options": args.kosan_options,
            "timing_line_filter": TIMING_LINE_RE.pattern,
            "gpu": gpu_info(),
            "host": os.uname().nodename,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        for name in ("build_info.txt",):
            p = os.path.join(self.bin_dir, name)
            if os.path.exists(p):
                self.meta["build_info"] = open(p).read().strip().splitlines()

    def elapsed(self):
        return time.perf_counter() - self.t_start

    def env_for(self, variant):
        env = dict(os.environ)
        env.pop("KOSAN_OPTIONS", None)
        if variant == "instr" and self.a.kosan_options is not None:
            env["KOSAN_OPTIONS"] = self.a.kosan_options
        if variant == "off":
            env["KOSAN_OPTIONS"] = "checks=none"
        return env

    def command(self, prog, variant):
        name = prog["name"]
        plain = os.path.join(self.bin_dir, name + ".plain")
        instr = os.path.join(self.bin_dir, name)
        if variant == "plain":
            return [plain] + prog["args"]
        if variant in ("instr", "off"):
            return [instr] + prog["args"]
        return [self.sanitizer, "--tool", "memcheck", plain] + prog["args"]

    def bench_program(self, prog):
        name = prog["name"]
        a = self.a
        cwd = os.path.join(self.work, name)
        os.makedirs(cwd, exist_ok=True)
        exe_paths = [os.path.join(self.bin_dir, name + ".plain"), os.path.join(self.bin_dir, name)]
        runs = {v: [] for v in VARIANTS}
        memcheck_left = self.memcheck_runs if self.sanitizer else 0
        over_budget = self.elapsed() > a.budget_s
        if over_budget:
            memcheck_left = min(memcheck_left, 1)
        notes = []
        if over_budget and self.sanitizer:
            notes.append("memcheck once (time budget)")
        variants = ["plain", "instr", "off", "memcheck"]
        timed_out = set()
        cut = False
        for r in range(a.runs):
            order = variants[r % 4:] + variants[:r % 4]
            for v in order:
                if self.elapsed() > a.hard_budget_s:
                    cut = True
                    break
                if v in timed_out:
                    continue
                if v == "memcheck":
                    if memcheck_left <= 0:
                        continue
                    memcheck_left -= 1
                cmd = self.command(prog, v)
                timeout = a.memcheck_timeout if v == "memcheck" else a.run_timeout
                wall, rc, out, err = run_once(cmd, self.env_for(v), cwd, timeout)
                rec = {
                    "round": r,
                    "wall_s": wall,
                    "exit": rc,
                    "timeout": rc is None,
                    "stdout_norm": normalize(out, exe_paths),
                    "kernel_s": kernel_seconds(out, prog["kernel_re"], prog["kernel_unit"]),
                    "kosan_reports": err.count(KOSAN_REPORT) + out.count(KOSAN_REPORT),
                    "kosan_lines": [l for l in err.splitlines() if l.startswith("kosan")][:20],
                }
                if v == "memcheck":
                    m = MEMCHECK_SUMMARY_RE.findall(out + err)
                    rec["memcheck_errors"] = int(m[-1]) if m else None
                    if rc is None or wall > a.memcheck_slow_s:
                        if memcheck_left > 0:
                            notes.append(f"memcheck stopped after {len(runs[v]) + 1} run(s): "
                                         f"{'timeout' if rc is None else f'{wall:.0f}s > {a.memcheck_slow_s:.0f}s'}")
                        memcheck_left = 0
                # Keep the output of the first run of each variant, and of any failing one.
                if not runs[v] or rc != 0:
                    tag = f"{name}.{v}" + ("" if not runs[v] else f".r{r}")
                    with open(os.path.join(self.out, "logs", tag + ".out"), "w") as f:
                        f.write(out)
                    with open(os.path.join(self.out, "logs", tag + ".err"), "w") as f:
                        f.write(err)
                runs[v].append(rec)
                if rc is None and v != "memcheck":
                    timed_out.add(v)
                    notes.append(f"{v} timed out (> {timeout:.0f} s); not run again")
                status = "timeout" if rc is None else f"rc={rc}"
                print(f"  {name:24s} round {r} {v:8s} {wall:8.3f}s {status}"
                      + (f" kosan-reports={rec['kosan_reports']}" if rec["kosan_reports"] else "")
                      + (f" memcheck-errors={rec.get('memcheck_errors')}" if v == "memcheck" else ""),
                      flush=True)
            if cut:
                notes.append(f"cut short after {self.elapsed():.0f} s (--hard-budget-s)")
                break
        return self.summarize(prog, runs, notes)

    def summarize(self, prog, runs, notes):
        res = {"name": prog["name"], "args": prog["args"], "kernel_re": prog["kernel_re"], "notes": notes}
        wall = {}
        kern = {}
        ok = {}
        for v in VARIANTS:
            rs = runs[v]
            wall[v] = med([x["wall_s"] for x in rs if not x["timeout"]])
            kern[v] = med([x["kernel_s"] for x in rs])
            ok[v] = bool(rs) and all(x["exit"] == 0 for x in rs)
            res[v] = {
                "n": len(rs),
                "wall_s": [round(x["wall_s"], 4) for x in rs],
                "median_wall_s": wall[v],
                "kernel_s": [x["kernel_s"] for x in rs],
                "median_kernel_s": kern[v],
                "exit": [x["exit"] for x in rs],
                "timeouts": sum(x["timeout"] for x in rs),
                "kosan_reports": [x["kosan_reports"] for x in rs],
                "kosan_lines": rs[0]["kosan_lines"] if rs else [],
            }
            if v == "memcheck":
                res[v]["errors"] = [x.get("memcheck_errors") for x in rs]
        res["ok"] = ok
        for v in ("instr", "off", "memcheck"):
            good = ok["plain"] and ok[v]
            res[f"{v}_ratio"] = ratio(wall[v], wall["plain"]) if good else None
            res[f"{v}_ratio_any"] = ratio(wall[v], wall["plain"])
            if v != "memcheck":
                res[f"{v}_kernel_ratio"] = ratio(kern[v], kern["plain"]) if good else None
        # Outputs: plain must agree with itself for the comparison to mean anything.
        plain_outs = {x["stdout_norm"] for x in runs["plain"] if x["exit"] == 0}
        for v in ("instr", "off"):
            outs = [x["stdout_norm"] for x in runs[v] if not x["timeout"]]
            if not runs["plain"] or not outs:
                same = None
            elif len(plain_outs) != 1:
                same = "plain-varies"
            else:
                ref = next(iter(plain_outs))
                same = all(o == ref for o in outs)
                if not same:
                    diff_path = os.path.join(self.out, "logs", f"{prog['name']}.{v}.stdout-diff.txt")
                    with open(diff_path, "w") as f:
                        import difflib
                        bad = next(o for o in outs if o != ref)
                        f.writelines(difflib.unified_diff(ref.splitlines(True), bad.splitlines(True),
                                                          "plain", v))
            res[f"{v}_stdout_same"] = same
        res["instr_kosan_reports"] = max(res["instr"]["kosan_reports"] or [0])
        res["off_kosan_reports"] = max(res["off"]["kosan_reports"] or [0])
        errs = [e for e in res["memcheck"]["errors"] if e is not None] if runs["memcheck"] else []
        res["memcheck_errors"] = max(errs) if errs else None
        return res

    def exit_summary(self, r):
        parts = []
        for v in VARIANTS:
            ex = r[v]["exit"]
            if not ex:
                parts.append("-")
            elif all(e == ex[0] for e in ex):
                parts.append("T" if ex[0] is None else str(ex[0]))
            else:
                parts.append(",".join("T" if e is None else str(e) for e in ex))
        return "/".join(parts)

    def markdown(self, final):
        a = self.a
        rows = self.results
        L = []
        L.append("# kosan benchmark: cuda-samples and kosan examples")
        L.append("")
        L.append(f"- GPU: {self.meta['gpu']}; host {self.meta['host']}; {self.meta['date']}")
        L.append(f"- runs per variant: {a.runs} (interleaved, order rotated per round), median wall time; "
                 f"memcheck runs: {self.meta['memcheck_runs']} max "
                 f"(fewer after one slower than {a.memcheck_slow_s:.0f} s, or past {a.budget_s:.0f} s)")
        L.append("- plain: --kosan-plain build; instr: instrumented, default KOSAN_OPTIONS"
                 + (f" (KOSAN_OPTIONS={a.kosan_options})" if a.kosan_options else "")
                 + "; off: instrumented, KOSAN_OPTIONS=checks=none; memcheck: compute-sanitizer "
                   "--tool memcheck on the plain binary")
        L.append("- kernel ratios: the GPU time the program prints about itself (sum of its timing lines), "
                 "instrumented / plain (median of runs); host timers around synchronised launches, so they include "
                 "kosan's per-launch host work; several samples print only 5 decimals of seconds, so check "
                 "'kernel plain ms' for the resolution")
        L.append(f"- stdout compared after dropping lines matching `{TIMING_LINE_RE.pattern}` "
                 "and replacing the program's own path")
        L.append("- exit: plain/instr/off/memcheck (T = timeout, - = not run)")
        if not final:
            L.append("- **partial: the run did not finish**")
        L.append("")
        L.append("| program | args | plain s | instr s | off s | memcheck s | instr/plain | off/plain "
                 "| memcheck/plain | kernel plain ms | kernel instr/plain | kernel off/plain | stdout instr=plain "
                 "| kosan reports | memcheck errors | exit |")
        L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|")

        def same(x):
            return {True: "yes", False: "**NO**", None: "—", "plain-varies": "plain varies"}[x]

        for r in rows:
            if r.get("skipped"):
                L.append(f"| {r['name']} | | | | | | | | | | | | | | | skipped: {r['skipped']} |")
                continue
            mc = r["memcheck"]
            mc_wall = fmt(mc["median_wall_s"], 2)
            if mc["n"] and mc["timeouts"] == mc["n"]:
                mc_wall = f"timeout (> {a.memcheck_timeout:.0f})"
            mc_ratio = fmt(r["memcheck_ratio"])
            if r["memcheck_ratio"] is None and r["memcheck_ratio_any"] is not None:
                mc_ratio = fmt(r["memcheck_ratio_any"]) + " (rc≠0)"
            if mc["n"] and mc["timeouts"] == mc["n"]:
                mc_ratio = "timeout"
            mc_err = "—" if r["memcheck_errors"] is None else str(r["memcheck_errors"])
            if mc["n"] == 0:
                mc_wall = mc_ratio = mc_err = "not run"
            rep = r["instr_kosan_reports"]
            rep_s = str(rep) if rep == 0 else f"**{rep}**"
            if r["off_kosan_reports"]:
                rep_s += f" (off: **{r['off_kosan_reports']}**)"
            L.append("| " + " | ".join([
                r["name"], " ".join(r["args"]) or "",
                fmt(r["plain"]["median_wall_s"], 3), fmt(r["instr"]["median_wall_s"], 3),
                fmt(r["off"]["median_wall_s"], 3), mc_wall,
                fmt(r["instr_ratio"]), fmt(r["off_ratio"]), mc_ratio,
                "—" if r["plain"]["median_kernel_s"] is None else f'{r["plain"]["median_kernel_s"] * 1e3:.3g}',
                fmt(r["instr_kernel_ratio"]), fmt(r["off_kernel_ratio"]),
                same(r["instr_stdout_same"]) + ("" if r["off_stdout_same"] in (True, None)
                                                else f" (off: {same(r['off_stdout_same'])})"),
                rep_s, mc_err, self.exit_summary(r)]) + " |")
        done = [r for r in rows if not r.get("skipped")]
        g = {}
        for key in ("instr_ratio", "off_ratio", "memcheck_ratio", "instr_kernel_ratio", "off_kernel_ratio"):
            vals = [r[key] for r in done if r.get(key) is not None]
            g[key] = (geomean(vals), len(vals))
        self.geomeans = {k: {"geomean": v[0], "programs": v[1]} for k, v in g.items()}

        def gm(key):
            v, n = g[key]
            return "—" if v is None else f"**{v:.2f}** ({n})"

        L.append("| **geomean** (programs) | | | | | | " + " | ".join(
            [gm("instr_ratio"), gm("off_ratio"), gm("memcheck_ratio"), "", gm("instr_kernel_ratio"),
             gm("off_kernel_ratio")]) + " | | | | |")
        notes = [(r["name"], n) for r in done for n in r["notes"]]
        if notes:
            L.append("")
            L.append("Notes: " + "; ".join(f"{n}: {t}" for n, t in notes))
        problems = []
        for r in done:
            if r["instr_kosan_reports"] or r["off_kosan_reports"]:
                problems.append(f"{r['name']}: kosan reported errors on a correct program (logs/{r['name']}.instr.err)")
            if r["instr_stdout_same"] is False or r["off_stdout_same"] is False:
                problems.append(f"{r['name']}: stdout differs from plain (logs/{r['name']}.*.stdout-diff.txt)")
            for v in ("plain", "instr", "off"):
                if r[v]["n"] and not r["ok"][v]:
                    problems.append(f"{r['name']}: {v} exit status {r[v]['exit']} (logs/{r['name']}.{v}*.err)")
            if r["memcheck_errors"]:
                problems.append(f"{r['name']}: compute-sanitizer reports {r['memcheck_errors']} errors")
        if problems:
            L.append("")
            L.append("Problems:")
            L.append("")
            L += [f"- {p}" for p in problems]
        cm = os.path.join(self.bin_dir, "compile.md")
        if os.path.exists(cm):
            L.append("")
            L.append("## " + open(cm).read().strip().lstrip("# "))
        L.append("")
        L.append(f"Benchmark wall time: {self.elapsed():.0f} s")
        return "\n".join(L) + "\n"

    def write(self, final):
        md = self.markdown(final)
        with open(os.path.join(self.out, "bench.md"), "w") as f:
            f.write(md)
        data = {"meta": dict(self.meta, final=final, elapsed_s=self.elapsed()),
                "geomeans": self.geomeans, "programs": self.results}
        with open(os.path.join(self.out, "bench.json"), "w") as f:
            json.dump(data, f, indent=1, default=str)
        return md

    def main(self):
        a = self.a
        progs = read_programs(self.bin_dir)
        if a.programs == "default":
            progs = [p for p in progs if p["default"]]
        elif a.programs != "all":
            want = a.programs.split(",")
            unknown = [w for w in want if w not in {p["name"] for p in progs}]
            if unknown:
                print(f"run_bench: not built / unknown: {', '.join(unknown)}", file=sys.stderr)
            progs = [p for p in progs if p["name"] in want]
        if not progs:
            print("run_bench: no programs to run", file=sys.stderr)
            return 1
        if a.no_memcheck:
            print("run_bench: memcheck skipped (--no-memcheck)")
        elif self.sanitizer is None:
            print("run_bench: WARNING: compute-sanitizer not found; memcheck skipped", file=sys.stderr)
        print(f"run_bench: {len(progs)} programs, {a.runs} runs each; GPU: {self.meta['gpu']}", flush=True)
        # One untimed run first: driver start-up and GPU initialisation land here.
        w = progs[0]
        os.makedirs(self.work, exist_ok=True)
        wall, rc, _, _ = run_once(self.command(w, "plain"), self.env_for("plain"), self.work, a.run_timeout)
        self.meta["warmup"] = {"program": w["name"], "wall_s": wall, "exit": rc}
        print(f"  warm-up {w['name']}.plain {wall:.3f}s rc={rc}", flush=True)
        for p in progs:
            if self.elapsed() > a.hard_budget_s:
                self.results.append({"name": p["name"], "skipped": f"time budget ({a.hard_budget_s:.0f} s)"})
                print(f"  {p['name']}: skipped (time budget)", flush=True)
                continue
            self.results.append(self.bench_program(p))
            self.write(final=False)
        md = self.write(final=True)
        shutil.rmtree(self.work, ignore_errors=True)
        print()
        print(md)
        return 0


if __name__ == "__main__":
    sys.exit(Bench(parse_args()).main())
