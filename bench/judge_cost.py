"""What `kosan judge` costs against KernelBench's own check of the same
candidate, measured side by side in one run.

    python3 bench/judge_cost.py [--trials N] [--runs R] [CANDIDATE.py ...]

Default: the correct candidate of every problem in examples/kernelbench.
Per candidate, each measured as a whole fresh process (torch's start-up and
CUDA's included, as a harness pays them), builds warmed first and not timed:

- KernelBench's check: Model and ModelNew built with seed 42, then N trials
  of seed, get_inputs(), reference, candidate, torch.allclose -- the loop of
  KernelBench's eval -- with the candidate built by torch's own nvcc;
- `kosan judge --seeds N`: the same N trials at the problem's sizes plus
  what kosan adds (other sizes, the fp64 reference, second and NaN-filled
  runs, the batch check), the candidate built through kosan.

Prints the best of R runs of each, their ratio, and the geometric mean.
"""

from __future__ import annotations

import argparse
import glob
import math
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KERNELBENCH_CHECK = r"""
import importlib.util, sys, torch
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec); sys.modules[name] = module
    spec.loader.exec_module(module); return module
problem, candidate, trials = load(sys.argv[1], "problem"), load(sys.argv[2], "candidate"), int(sys.argv[3])
def seed(s): torch.manual_seed(s); torch.cuda.manual_seed(s)
with torch.no_grad():
    seed(42); init = [x.cuda() if isinstance(x, torch.Tensor) else x for x in problem.get_init_inputs()]
    seed(42); model = problem.Model(*init).cuda()
    seed(42); model_new = candidate.ModelNew(*init).cuda()
    torch.cuda.synchronize()
    passed = 0
    for trial in range(trials):
        seed(trial)
        inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in problem.get_inputs()]
        out = model(*inputs); torch.cuda.synchronize()
        seed(trial)
        out_new = model_new(*inputs); torch.cuda.synchronize()
        tol = 1e-2 if out.dtype in (torch.float16, torch.bfloat16) else 1e-4
        passed += out.shape == out_new.shape and bool(torch.allclose(out, out_new, atol=tol, rtol=tol))
print(f"allclose {passed}/{trials}")
"""


def timed(command, env) -> tuple[float, int]:
    started = time.monotonic()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - started, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("candidates", nargs="*")
    parser.add_argument("--trials", type=int, default=5, help="trials (KernelBench's default: 5)")
    parser.add_argument("--runs", type=int, default=2, help="timed runs of each, best kept")
    args = parser.parse_args()
    candidates = args.candidates or sorted(glob.glob(os.path.join(ROOT, "examples/kernelbench/*/correct.py")))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.join(ROOT, "python")] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    plain_env = {k: v for k, v in env.items() if k not in ("PYTORCH_NVCC", "TORCH_EXTENSIONS_DIR")}

    def kernelbench(c):
        problem = os.path.join(os.path.dirname(c), "problem.py")
        return [sys.executable, "-c", KERNELBENCH_CHECK, problem, c, str(args.trials)]

    def judge(c):
        problem = os.path.join(os.path.dirname(c), "problem.py")
        return [sys.executable, "-m", "kosan", "judge", problem, c, "--seeds", str(args.trials), "-q"]

    # Warm the builds (torch's nvcc and kosan's) in parallel; not timed.
    warm = [subprocess.Popen(make(c), env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for c in candidates for make, e in ((kernelbench, plain_env), (judge, env))]
    for p in warm:
        p.wait()

    print(f"{'candidate':32} {'KernelBench check':>18} {'kosan judge':>12} {'ratio':>6}")
    ratios = []
    for c in candidates:
        name = os.path.relpath(c, os.path.join(ROOT, "examples/kernelbench"))
        kb = min(timed(kernelbench(c), plain_env)[0] for _ in range(args.runs))
        results = [timed(judge(c), env) for _ in range(args.runs)]
        kj = min(r[0] for r in results)
        ratios.append(kj / kb)
        print(f"{name:32} {kb:17.2f}s {kj:11.2f}s {kj / kb:5.2f}x"
              + ("" if results[0][1] == 0 else f"  (judge exit {results[0][1]})"), flush=True)
    mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geometric mean ratio over {len(ratios)} candidates: {mean:.2f}x "
          f"({args.trials} trials, best of {args.runs} runs; {sys.executable})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
