"""`kosan judge`: the command line."""

from __future__ import annotations

import argparse
import os
import sys

from . import DEFAULT_BUILD_TIMEOUT, DEFAULT_SEEDS, DEFAULT_TIMEOUT, judge
from ._problem import ProblemError
from ._report import FORMATS, progress_line
from ._verdict import CHECKS, MAX_BITS_LOST, TOLERANCES

_DESCRIPTION = """\
Judges KernelBench candidates (ModelNew) against a problem (Model,
get_inputs, get_init_inputs): allclose at KernelBench's tolerances on the
problem's own sizes, and kosan's verdict with every reason found
(out-of-bounds accesses, unwritten outputs, modified inputs, bits lost
against an fp64 run of the reference, run-to-run nondeterminism, batch
variance, errors, crashes and hangs). Exit status: 0 every candidate passes,
1 one fails, 2 trouble (a bad problem file, a reference that fails, the
judge unable to run)."""

_TOLERANCE_TEXT = ", ".join(f"{k} {a:g}/{r:g}" for k, (a, r) in TOLERANCES.items())


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (trouble), as every kosan tool
        print(f"kosan judge: error: {message} (see kosan judge --help)", file=sys.stderr)
        sys.exit(2)


def _size(text: str) -> tuple[str, list[int]]:
    name, sep, values = text.partition("=")
    try:
        if not sep or not name:
            raise ValueError
        parsed = [int(v) for v in values.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected NAME=V[,V...] with integers, got {text!r}") from None
    return name, parsed


def _checks(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown check {unknown[0]!r} (checks: {', '.join(CHECKS)})")
    return names


def _positive(kind):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
        return value
    return parse


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="kosan judge", description=_DESCRIPTION,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("problem", help="the problem file (Model, get_inputs, get_init_inputs)")
    p.add_argument("candidates", nargs="+", metavar="candidate", help="candidate files (ModelNew)")
    p.add_argument("--format", choices=sorted(FORMATS), default="text", help="report format (default text)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report here instead of stdout")
    p.add_argument("--seeds", type=_positive(int), default=DEFAULT_SEEDS,
                   help=f"input draws at the problem's own sizes (default {DEFAULT_SEEDS})")
    p.add_argument("--size", action="append", type=_size, default=[], metavar="NAME=V[,V...]",
                   help="values of a module-level size to try besides the problem's own "
                        "(replaces the default of about 3/4 of it, odd)")
    p.add_argument("--no-sizes", action="store_true", help="judge at the problem's own sizes only")
    p.add_argument("--batch", metavar="NAME", default="",
                   help="the batch variable (default: the problem's KOSAN_JUDGE, else batch_size)")
    p.add_argument("--no-batch", action="store_true", help="no batch-variance check")
    p.add_argument("--batch-rows", type=_positive(int), default=1,
                   help="rows of the batch run alone for the batch-variance check (default 1)")
    p.add_argument("--skip", type=_checks, default=[], metavar="CHECK[,CHECK...]",
                   help=f"checks left out: {', '.join(CHECKS)}")
    p.add_argument("--atol", type=float, help=f"allclose atol for every dtype (default per dtype: {_TOLERANCE_TEXT})")
    p.add_argument("--rtol", type=float, help="allclose rtol for every dtype")
    p.add_argument("--max-bits-lost", type=float, default=MAX_BITS_LOST,
                   help=f"bits the candidate may lose against the fp64 reference beyond the "
                        f"reference's own loss (default {MAX_BITS_LOST:g})")
    p.add_argument("--timeout", type=_positive(float), default=DEFAULT_TIMEOUT,
                   help=f"seconds one step (a trial's run) may take before the candidate is "
                        f"judged hung (default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--build-timeout", type=_positive(float), default=DEFAULT_BUILD_TIMEOUT,
                   help=f"seconds the set-up and the candidate's build may take (default "
                        f"{DEFAULT_BUILD_TIMEOUT:g})")
    p.add_argument("--no-kosan", action="store_true",
                   help="build with torch's own nvcc, no kosan checks in the kernels")
    p.add_argument("--quarantine", action="store_true",
                   help="kosan's runtime as the candidate's PyTorch allocator: released "
                        "tensors wait in a quarantine, so a use after free is found even when "
                        "the memory was allocated again (KOSAN_TORCH_QUARANTINE=1; slower)")
    p.add_argument("--device", default="cuda", help="torch device (default cuda)")
    p.add_argument("-j", "--jobs", type=_positive(int), default=1,
                   help="candidates judged at once (default 1)")
    p.add_argument("--work-dir", metavar="DIR",
                   help="keep each candidate's plan, worker log and kosan trace under DIR")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    checks = [c for c in CHECKS if c not in args.skip]
    if args.no_batch and "batch" in checks:
        checks.remove("batch")
    if args.no_sizes and "sizes" in checks:
        checks.remove("sizes")

    if args.quarantine:
        os.environ["KOSAN_TORCH_QUARANTINE"] = "1"  # read by the worker's kosan.torch.enable()

    def progress(name, event, total):
        print(progress_line(name, event, total), file=sys.stderr, flush=True)

    try:
        report = judge(args.problem, args.candidates, seeds=args.seeds, sizes=dict(args.size),
                       batch=None if args.no_batch else args.batch, batch_rows=args.batch_rows,
                       checks=checks, atol=args.atol, rtol=args.rtol,
                       max_bits_lost=args.max_bits_lost, timeout=args.timeout,
                       build_timeout=args.build_timeout, use_kosan=not args.no_kosan,
                       device=args.device, jobs=args.jobs, work_dir=args.work_dir,
                       progress=None if args.quiet else progress)
    except ProblemError as error:
        print(f"kosan judge: error: {error}", file=sys.stderr)
        return 2
    out = FORMATS[args.format](report)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(out)
        except OSError as error:
            print(f"kosan judge: error: cannot write {args.output}: {error.strerror}", file=sys.stderr)
            return 2
    else:
        sys.stdout.write(out)
    return report["exit_code"]
