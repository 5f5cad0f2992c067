"""kosan judge: the KernelBench oracle, stronger.

    kosan judge PROBLEM.py CANDIDATE.py [CANDIDATE.py ...]

A problem in KernelBench's format (Model, get_inputs, get_init_inputs) and
candidates (ModelNew) are judged by running both on the problem's inputs and
on more draws: several seeds, other sizes where the problem allows them, the
first rows of the batch alone. Each candidate gets two verdicts: allclose
at KernelBench's tolerances on the problem's own sizes (what KernelBench
checks), and kosan's, which fails it for every reason it finds (see
_verdict.REASONS and docs/judge.md). The candidate is built through kosan
(``kosan.torch.enable()`` in its process), so its kernels are checked for
out-of-bounds accesses against every tensor's own bounds.

Everything that runs torch runs in a worker process per candidate
(_worker.py) with time limits (_run.py); this module plans the trials,
and _verdict.py decides.
"""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import sys
import threading

from ._problem import Problem, ProblemError, check_candidate, load_problem, size_configurations
from ._run import new_work_dir, run_candidate
from ._verdict import CHECKS, MAX_BITS_LOST, REASONS, TOLERANCES, decide

__all__ = ["judge", "plan_trials", "ProblemError", "Problem", "load_problem", "CHECKS",
           "REASONS", "TOLERANCES", "MAX_BITS_LOST", "main"]

DEFAULT_SEEDS = 3
DEFAULT_TIMEOUT = 120.0
DEFAULT_BUILD_TIMEOUT = 1800.0


def plan_trials(problem: Problem, *, seeds: int = DEFAULT_SEEDS, checks=CHECKS) -> list[dict]:
    """The trials: every seed at the problem's own sizes, then one seed at
    each other size configuration, then (when the problem has a batch
    variable) one batch trial per size: the whole batch and its first rows
    alone. Batch trials come last so that a candidate that fails on a tiny
    batch has been judged on everything else first."""
    configs = size_configurations(problem) if "sizes" in checks else size_configurations(
        Problem(problem.path, problem.sizes, problem.variable, {}, problem.batch))
    trials = []
    for c, sizes in enumerate(configs):
        for s in range(seeds if c == 0 else 1):
            trials.append({"index": len(trials), "seed": s, "sizes": sizes, "own": c == 0,
                           "kind": "values"})
    if problem.batch and "batch" in checks:
        for sizes in configs:
            trials.append({"index": len(trials), "seed": 0, "sizes": sizes, "own": False,
                           "kind": "batch",
                           "batch": sizes.get(problem.batch, problem.sizes[problem.batch])})
    return trials


def judge(problem_path: str, candidates: list[str], *, seeds: int = DEFAULT_SEEDS,
          sizes: dict[str, list[int]] | None = None, vary_sizes: bool = True, batch: str | None = "",
          batch_rows: int = 1, checks=CHECKS, atol: float | None = None, rtol: float | None = None,
          max_bits_lost: float = MAX_BITS_LOST, timeout: float = DEFAULT_TIMEOUT,
          build_timeout: float = DEFAULT_BUILD_TIMEOUT, use_kosan: bool = True,
          device: str = "cuda", jobs: int = 1, work_dir: str | None = None,
          progress=None, command=None) -> dict:
    """Judges candidates against a problem; returns the report (a dict, as
    `--format json` prints it). Raises ProblemError for a problem or
    candidate file that cannot be used."""
    checks = tuple(checks)
    problem = load_problem(problem_path, batch=batch, sizes=sizes, vary=vary_sizes and "sizes" in checks)
    candidate_paths = [check_candidate(c) for c in candidates]
    trials = plan_trials(problem, seeds=seeds, checks=checks)
    plan = {"problem": problem.path, "trials": trials, "checks": list(checks), "atol": atol,
            "rtol": rtol, "batch_rows": batch_rows, "kosan": use_kosan, "device": device}
    names = _short_names(candidate_paths)
    lock = threading.Lock()

    def one(index: int) -> dict:
        path, name = candidate_paths[index], names[index]
        folder, remove = new_work_dir(work_dir, f"{index + 1}-{os.path.basename(path)[:-3]}")
        say = None
        if progress:
            def say(event, name=name):
                with lock:
                    progress(name, event, len(trials))
        try:
            raw = run_candidate(dict(plan, candidate=path), timeout=timeout,
                                build_timeout=build_timeout, work_dir=folder, progress=say,
                                command=command)
        finally:
            if remove:
                shutil.rmtree(folder, ignore_errors=True)
        verdict = decide(raw, checks=checks, max_bits_lost=max_bits_lost)
        start = raw.get("start") or {}
        return {"candidate": path, "name": name, **verdict,
                "trials": len(raw["trials"]), "planned_trials": len(trials),
                "skipped": raw["skipped"], "build_seconds": raw.get("built_seconds"),
                "seconds": raw.get("seconds"), "device": start.get("device"),
                "torch": start.get("torch"), "work_dir": None if remove else folder}

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        judged = list(pool.map(one, range(len(candidate_paths))))
    return {
        "problem": problem.path,
        "sizes": {n: problem.sizes[n] for n in problem.variable},
        "size_values": problem.size_values,
        "batch": problem.batch,
        "seeds": seeds,
        "checks": list(checks),
        "kosan": use_kosan,
        "trials": trials,
        "candidates": judged,
        "exit_code": max((c["exit_code"] for c in judged), default=0),
    }


def _short_names(paths: list[str]) -> list[str]:
    names = [os.path.basename(p) for p in paths]
    if len(set(names)) == len(names):
        return names
    return [os.path.relpath(p) for p in paths]


def main(argv: list[str] | None = None) -> int:
    from ._cli import main as cli_main
    return cli_main(argv)
