"""`kosan campaign`: the command line and the campaign's loop."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from .._checks import check_names
from ._db import Database
from ._report import FORMATS, summarize, write_reports
from ._schedule import LocalScheduler, RayScheduler
from ._work import (CampaignError, list_mutants, mutant_build_task, mutant_run_task, reference_build_task,
                    reference_runs_task, reference_task, tool)

_DESCRIPTION = """\
Mutation analysis of a kernel set: every mutant kosan's plugin makes of each
program (kosan-mutate list) is built with kosan-clang++ --kosan-mutate, run
on several input draws beside the unmutated program, and judged by the
program's own check and by kosan's verdict (memory errors, kosan-diff against
the reference's trace, precision, order; which part fired). Reports the
mutation score per oracle, operator and kernel, and the likely-equivalent
mutants. Results are kept in OUT/campaign.sqlite: run the same command again
to resume. Exit status: 0 done, 2 trouble."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"kosan campaign: error: {message} (see kosan campaign --help)", file=sys.stderr)
        sys.exit(2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="kosan campaign", description=_DESCRIPTION,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kernels", type=Path, help="directory of CUDA programs (*.cu), one program each")
    p.add_argument("--out", type=Path, required=True, help="directory for the database, builds and reports")
    p.add_argument("--seeds", default="1,2", help="input draws, e.g. 1,2,3 or 1-10 (default 1,2)")
    p.add_argument("--only", default="", help="programs to take, comma-separated names without .cu")
    p.add_argument("--operators", default="", help="mutation operators to take (kosan-mutate operators)")
    p.add_argument("--no-mutants", action="store_true",
                   help="only the unmutated programs: their own checks and kosan's false alarms over the draws "
                        "(with many --seeds)")
    p.add_argument("--max-mutants", type=int, default=0,
                   help="at most N mutants per program, taken in turn from each operator (0: all)")
    p.add_argument("--checks", default=None,
                   help="kosan's checks for the checked builds (default: every check)")
    p.add_argument("--arch", default=os.environ.get("KOSAN_CUDA_ARCH", "sm_90"), help="GPU architecture")
    p.add_argument("--flags", default="-O2", help="compiler flags (default -O2)")
    p.add_argument("--compiler", default="", help="the compiler command (default: kosan-clang++ of --tools)")
    p.add_argument("--runner", default="",
                   help="a command that runs each program (prefix), in place of running it directly; "
                        "the tests use it for a CPU stand-in of the GPU step")
    p.add_argument("--tools", default="", help="kosan's bin directory (default: $KOSAN_BUILD_DIR/bin, then PATH)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel builds (default: CPUs)")
    p.add_argument("--gpus", type=int, default=-1, help="GPUs to use (default: all that nvidia-smi lists)")
    p.add_argument("--per-gpu", type=int, default=1, help="programs run at once on each GPU (default 1)")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds a run may take (default 20)")
    p.add_argument("--build-timeout", type=float, default=300.0, help="seconds a build may take")
    p.add_argument("--ray", metavar="ADDRESS", default="",
                   help="run the steps on a Ray cluster (ADDRESS as ray.init takes it; 'local' starts one)")
    p.add_argument("--format", choices=FORMATS, default="text", help="what to print at the end")
    p.add_argument("--report-only", action="store_true", help="write the reports of OUT and stop")
    p.add_argument("--work", type=Path, default=None,
                   help="directory for builds, outputs and traces (default OUT/work)")
    p.add_argument("--keep", action="store_true", help="keep the mutants' builds, outputs and traces")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    return p


def _seeds(text: str) -> list[int]:
    seeds = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        try:
            seeds += list(range(int(a), int(b) + 1)) if b else [int(a)]
        except ValueError:
            raise CampaignError(f"--seeds {text}: expected numbers such as 1,2,3 or 1-10") from None
    if not seeds:
        raise CampaignError("--seeds: give at least one seed")
    return seeds


def _gpu_count() -> int:
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([v for v in visible.split(",") if v.strip()])
    try:
        p = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
        return sum(1 for line in p.stdout.splitlines() if line.startswith("GPU "))
    except (OSError, subprocess.SubprocessError):
        return 0


def _select(mutants: list[dict], operators: set[str], limit: int) -> list[dict]:
    """Up to `limit` mutants, one operator after the other in turn, each
    operator's in a fixed pseudo-random order (by a hash of the id)."""
    chosen = [m for m in mutants if not operators or m["operator"] in operators]
    if not limit or len(chosen) <= limit:
        return chosen
    by_op: dict[str, list[dict]] = {}
    for m in sorted(chosen, key=lambda m: hashlib.sha1(m["id"].encode()).hexdigest()):
        by_op.setdefault(m["operator"], []).append(m)
    out, queues = [], [by_op[k] for k in sorted(by_op)]
    while len(out) < limit and any(queues):
        for q in queues:
            if q and len(out) < limit:
                out.append(q.pop(0))
    return out


class Progress:
    def __init__(self, quiet: bool):
        self.quiet, self.tty = quiet, sys.stderr.isatty()
        self.start, self.last = time.monotonic(), 0.0

    def show(self, text: str, force: bool = False):
        if self.quiet:
            return
        now = time.monotonic()
        if self.tty:
            sys.stderr.write(f"\r\033[K{text}")
            sys.stderr.flush()
        elif force or now - self.last >= 10:
            sys.stderr.write(text + "\n")
            self.last = now

    def done(self):
        if self.tty and not self.quiet:
            sys.stderr.write("\n")


def _settings(args, out: Path) -> dict:
    tools = args.tools or (str(Path(os.environ["KOSAN_BUILD_DIR"]) / "bin") if os.environ.get("KOSAN_BUILD_DIR") else "")
    compiler = shlex.split(args.compiler) if args.compiler else [
        str(Path(tools) / "kosan-clang++") if tools and (Path(tools) / "kosan-clang++").exists() else "kosan-clang++"]
    return {"tools": tools, "compiler": compiler,
            "flags": [*shlex.split(args.flags), f"--cuda-gpu-arch={args.arch}", "-I", str(args.kernels.resolve())],
            "checks": args.checks or ",".join(check_names()), "seeds": _seeds(args.seeds), "timeout": args.timeout,
            "build_timeout": args.build_timeout, "runner": shlex.split(args.runner),
            "work": str((args.work or out / "work").resolve()), "keep": args.keep,
            # Without mutants, a program's draws run side by side.
            "seed_workers": max(1, args.jobs // max(1, args.per_gpu)) if args.no_mutants else 1}


def run(args) -> int:
    out = args.out.resolve()
    db = Database(out / "campaign.sqlite")
    if args.report_only:
        return _finish(db, out, args)
    if not args.kernels.is_dir():
        raise CampaignError(f"{args.kernels} is not a directory of CUDA programs")
    settings = _settings(args, out)
    # What decides the results must not change under a resumed campaign.
    fixed = {k: settings[k] for k in ("flags", "checks", "seeds")}
    fixed["flags"] = [f for f in fixed["flags"] if not f.startswith("/")]
    previous = db.meta().get("settings")
    if previous and previous != fixed:
        raise CampaignError(f"{out} holds a campaign with other settings ({json.dumps(previous)}); "
                            "give the same --flags, --checks, --seeds and --arch, or another --out")
    db.set_meta({"settings": fixed, "kernel_dir": str(args.kernels.resolve())})

    sources = sorted(args.kernels.glob("*.cu"))
    if args.only:
        wanted = {n.strip() for n in args.only.split(",") if n.strip()}
        missing = wanted - {s.stem for s in sources}
        if missing:
            raise CampaignError(f"--only: no program {sorted(missing)[0]}.cu in {args.kernels}")
        sources = [s for s in sources if s.stem in wanted]
    if not sources:
        raise CampaignError(f"no *.cu programs in {args.kernels}")
    operators = {o.strip() for o in args.operators.split(",") if o.strip()}
    if operators:
        # The operators are kosan-mutate's (include/kosan/mutate.h).
        known = [o["name"] for o in json.loads(subprocess.run(
            [tool(settings, "kosan-mutate"), "operators", "--format", "json"],
            capture_output=True, text=True, check=True).stdout)]
        unknown = sorted(operators - set(known))
        if unknown:
            raise CampaignError(f"--operators: unknown operator {unknown[0]!r} (operators: {', '.join(known)})")

    gpus = args.gpus if args.gpus >= 0 else _gpu_count()
    slots = [g for g in range(gpus) for _ in range(args.per_gpu)] if gpus else [None] * args.per_gpu
    if args.ray:
        scheduler = RayScheduler(args.ray, 1.0 / args.per_gpu if gpus else 0,
                                 str(Path(__file__).resolve().parents[2]))
    else:
        scheduler = LocalScheduler(args.jobs, slots)
    progress = Progress(args.quiet)
    started = time.monotonic()
    try:
        _campaign(db, settings, sources, operators, args.max_mutants, scheduler, progress, args.no_mutants)
    finally:
        # First what was done (a stop may send its signal twice), then the
        # workers: their unfinished steps are done again on resume.
        meta = db.meta()
        db.set_meta({"wall_seconds": meta.get("wall_seconds", 0) + time.monotonic() - started,
                     "scheduler": scheduler.name, "gpus": gpus, "per_gpu": args.per_gpu})
        progress.done()
        try:
            scheduler.close()
        except KeyboardInterrupt:
            pass
    return _finish(db, out, args)


def _campaign(db, settings, sources, operators, limit, scheduler, progress, no_mutants=False):
    # 1. The mutants of each program (resumed: kept from before).
    pending = {}
    for src in sources:
        if db.kernel(src.stem) is None or not db.mutants(src.stem):
            pending[scheduler.build(list_mutants, settings, str(src))] = src
    while pending:
        for handle, mutants in scheduler.wait(pending):
            src = pending.pop(handle)
            db.add_mutants(src.stem, mutants)
            db.set_kernel(src.stem, str(src), "listed")
            progress.show(f"kosan campaign: listed the mutants of {src.stem} ({len(mutants)})")
    # 2. The unmutated programs: builds, runs, false alarms; again where
    # their traces are gone (a campaign resumed on another machine).
    # Without mutants (false alarms over many draws), the draws go in
    # chunks, each recorded as it ends, so that a stopped run resumes.
    pending = {}
    for src in sources:
        k = db.kernel(src.stem)
        work_gone = k["status"] == "ok" and not (Path(settings["work"]) / src.stem).exists()
        if no_mutants:
            missing = [s for s in settings["seeds"] if s not in db.ref_runs(src.stem)]
            if missing:
                pending[scheduler.build(reference_build_task, settings, src.stem, str(src))] = ("build", src, missing)
        elif k["status"] == "listed" or work_gone:
            pending[scheduler.run(reference_task, settings, src.stem, str(src))] = ("all", src, None)
    while pending:
        for handle, ref in scheduler.wait(pending):
            kind, src, seeds = pending.pop(handle)
            if kind == "build":
                if not ref["ok"]:
                    db.set_kernel(src.stem, str(src), "build-error", ref["error"])
                    continue
                for i in range(0, len(seeds), REFERENCE_CHUNK):
                    chunk = seeds[i:i + REFERENCE_CHUNK]
                    pending[scheduler.run(reference_runs_task, settings, src.stem, ref, chunk)] = ("chunk", src, chunk)
                continue
            _record_reference(db, src, ref, merge=kind == "chunk")
            progress.show(f"kosan campaign: reference {src.stem}: {ref['status']}"
                          + (f" (draws {seeds[0]}-{seeds[-1]})" if kind == "chunk" else ""), force=True)
    # 3. The mutants: build, then run and judge, as builds finish.
    done = db.done()
    todo, references = [], {}
    for src in sources:
        k = db.kernel(src.stem)
        if k["status"] != "ok":
            continue
        runs = db.ref_runs(src.stem)
        facts = db.meta().get(f"reference {src.stem}", {})
        spreads = [sp for sp in facts.get("spread", {}).values() if sp]
        references[src.stem] = {"nondeterministic": facts.get("nondeterministic", []),
                                # the largest spread per output over every draw
                                "spread": {k: max(sp.get(k, 0.0) for sp in spreads)
                                           for k in {k for sp in spreads for k in sp}},
                                "runs": {str(s): {"trace": r["trace"], "output_hash": r["output_hash"]}
                                         for s, r in runs.items()}}
        if no_mutants:
            continue
        chosen = _select([dict(m) for m in db.mutants(src.stem)], operators, limit)
        todo += [(src, m["id"]) for m in chosen if (src.stem, m["id"]) not in done]
    total, judged, killed = len(todo), 0, {"own": 0, "kosan": 0}
    t0 = time.monotonic()
    pending = {scheduler.build(mutant_build_task, settings, src.stem, str(src), mid): ("build", src)
               for src, mid in todo}
    while pending:
        for handle, result in scheduler.wait(pending):
            kind, src = pending.pop(handle)
            if kind == "build" and result["ok"]:
                pending[scheduler.run(mutant_run_task, settings, src.stem, references[src.stem],
                                      result)] = ("run", src)
                continue
            if kind == "build":
                result = {"kernel": src.stem, "id": result["id"], "status": "build-error",
                          "draws": [{"error": result["error"]}], "build_seconds": result["seconds"]}
            db.add_result(result)
            judged += 1
            for oracle in killed:
                killed[oracle] += int(bool(result.get(oracle)))
            rate = (time.monotonic() - t0) / judged
            progress.show(f"kosan campaign: {judged}/{total} mutants judged, killed: own {killed['own']}, "
                          f"kosan {killed['kosan']}; {rate:.2f} s per mutant, "
                          f"about {rate * (total - judged) / 60:.1f} min left")
    progress.show(f"kosan campaign: {judged}/{total} mutants judged", force=True)


REFERENCE_CHUNK = 10  # draws of an unmutated program recorded at once under --no-mutants


def _record_reference(db, src, ref: dict, merge: bool):
    """Records a reference's draws; MERGE: add to what earlier chunks found."""
    for r in ref.get("runs", []):
        db.add_ref_run(src.stem, r["seed"], r["passed"], r["output_hash"], r["trace"],
                       r["false_alarms"], r["seconds"])
    facts = db.meta().get(f"reference {src.stem}", {}) if merge else {}
    nondeterministic = sorted(set(facts.get("nondeterministic", [])) | set(ref.get("nondeterministic", [])))
    spread = {**facts.get("spread", {}), **{str(r["seed"]): r.get("spread") for r in ref.get("runs", [])}}
    status, detail = ref.get("status", "ok"), ref.get("detail", "")
    old = db.kernel(src.stem)
    if merge and old is not None and old["status"] == "reference-fails":
        status, detail = "reference-fails", "; ".join(d for d in (old["detail"], detail) if d)[:500]
    db.set_kernel(src.stem, str(src), status, detail, int(not nondeterministic))
    db.set_meta({f"reference {src.stem}": {"nondeterministic": nondeterministic, "spread": spread}})


def _finish(db, out: Path, args) -> int:
    summary = summarize(db)
    texts = write_reports(summary, out)
    sys.stdout.write(texts[args.format])
    db.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return run(args)
    except CampaignError as e:
        print(f"kosan campaign: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nkosan campaign: stopped; run the same command again to resume", file=sys.stderr)
        return 130
