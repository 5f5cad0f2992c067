"""The judge's worker: one process that builds the candidate and runs the
reference and the candidate on every trial of a plan, and says what it saw.

    python -m kosan.judge._worker PLAN.json FD

It writes one JSON object per line to the file descriptor FD (never to
stdout or stderr, which the candidate's prints and the compilers share):

- {"event": "phase", "phase": "setup"|"problem"|"build"|"trial"|"reference"|"candidate", ...}
  before each step, so that the judge knows what a crash or a hang
  interrupted, and can print progress;
- {"event": "start", "torch": ..., "device": ..., "kosan": ...} once torch is up;
- {"event": "built", "seconds": ...} once ModelNew exists;
- {"event": "trial", ...} the measurements of one trial (see _measure);
- {"event": "skip", "index", "seed", "sizes", "reason"}: a size the
  reference itself does not run at (the problem does not allow it);
- {"event": "note", "message": ...};
- {"event": "error", "stage": "setup"|"problem"|"reference"|"build"|"candidate",
  "message": ..., "trial": {...}|None}: the step failed; nothing follows
  but "done";
- {"event": "done"}.

Each trial runs, as KernelBench does, the seed, then get_inputs(), the
reference and the candidate; then what kosan adds: the reference in fp64,
the candidate a second time (bitwise nondeterminism), a third time with
torch's deterministic mode filling every fresh allocation with NaN
(``torch.utils.deterministic.fill_uninitialized_memory``: output elements
that stay NaN were never written, or were computed from memory nobody
wrote). Batch trials (the last of a plan) run the whole batch and its first
rows on their own (batch variance). Every run gets its own copy of the inputs, which
is compared with the original afterwards.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import json
import math
import os
import sys
import time
import traceback
import warnings

from ._verdict import tolerance

MODEL_SEED = 42


class _Stop(Exception):
    pass


class Channel:
    def __init__(self, fd: int):
        self._file = os.fdopen(fd, "w", buffering=1, encoding="utf-8")

    def send(self, **event) -> None:
        self._file.write(json.dumps(event) + "\n")
        self._file.flush()


def _short(error: BaseException, limit: int = 2000) -> str:
    """One error as a few lines: compiler errors first, for build failures."""
    text = f"{type(error).__name__}: {error}".strip()
    lines = text.splitlines()
    interesting = [l for l in lines if "error" in l.lower() and "Error building extension" not in l]
    if len(lines) > 6 and interesting:
        text = lines[0] + "\n" + "\n".join(interesting[:8])
    return text[:limit]


def _load_module(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class Worker:
    def __init__(self, plan: dict, channel: Channel):
        self.plan = plan
        self.ch = channel
        self.checks = set(plan.get("checks", []))
        self.kosan_errors = 0

    # --- helpers (torch imported in run) -----------------------------------

    def fail(self, stage: str, error: BaseException | str, trial: dict | None = None):
        message = error if isinstance(error, str) else _short(error)
        if not isinstance(error, str):
            traceback.print_exception(type(error), error, error.__traceback__)
        self.ch.send(event="error", stage=stage, message=message, trial=trial)
        raise _Stop()

    def set_seed(self, seed: int) -> None:
        self.torch.manual_seed(seed)
        if self.device.startswith("cuda"):
            self.torch.cuda.manual_seed(seed)

    def sync(self) -> None:
        if self.device.startswith("cuda"):
            self.torch.cuda.synchronize()

    def to_device(self, values):
        torch = self.torch
        return [v.to(self.device) if isinstance(v, torch.Tensor) else v for v in values]

    def clone(self, values):
        torch = self.torch
        return [v.clone() if isinstance(v, torch.Tensor) else copy.deepcopy(v) for v in values]

    def flatten(self, out) -> list:
        torch = self.torch
        if isinstance(out, torch.Tensor):
            return [out]
        if isinstance(out, (list, tuple)):
            return [t for o in out for t in self.flatten(o)]
        if isinstance(out, (bool, int, float)):
            return [torch.tensor(out, device=self.device)]
        raise TypeError(f"forward returned a {type(out).__name__}, not tensors")

    def bits(self, t):
        torch = self.torch
        t = t.detach()
        if t.is_complex():
            t = torch.view_as_real(t)
        t = t.contiguous()
        if t.is_floating_point():
            return t.view({8: torch.int64, 4: torch.int32, 2: torch.int16, 1: torch.int8}[t.element_size()])
        return t

    def bit_differences(self, a, b) -> int:
        if a.shape != b.shape or a.dtype != b.dtype:
            return max(a.numel(), b.numel(), 1)
        return int((self.bits(a) != self.bits(b)).sum())

    def forward(self, model, inputs, seed):
        self.set_seed(seed)
        out = self.flatten(model(*inputs))
        self.sync()
        return out

    def flush_kosan(self) -> int:
        """Errors kosan reported in the candidate's runs since the last call."""
        if not self.plan.get("kosan"):
            return 0
        import kosan.torch
        total = kosan.torch.flush()
        new, self.kosan_errors = total - self.kosan_errors, total
        return new

    @contextlib.contextmanager
    def nan_filled_allocations(self):
        torch = self.torch
        was = torch.are_deterministic_algorithms_enabled()
        was_warn = torch.is_deterministic_algorithms_warn_only_enabled()
        fill = getattr(torch.utils, "deterministic", None)
        was_fill = getattr(fill, "fill_uninitialized_memory", True)
        torch.use_deterministic_algorithms(True, warn_only=True)
        if fill is not None:
            fill.fill_uninitialized_memory = True
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield
        finally:
            torch.use_deterministic_algorithms(was, warn_only=was_warn)
            if fill is not None:
                fill.fill_uninitialized_memory = was_fill

    # --- the run -----------------------------------------------------------

    def run(self) -> None:
        ch, plan = self.ch, self.plan
        ch.send(event="phase", phase="setup")
        try:
            import torch
        except Exception as error:
            self.fail("setup", f"torch cannot be imported: {_short(error)}")
        self.torch = torch
        torch.set_grad_enabled(False)
        self.device = plan.get("device", "cuda")
        if self.device.startswith("cuda") and not torch.cuda.is_available():
            self.fail("setup", "torch sees no CUDA device")
        # The problem's fp32 is fp32: no TF32 in the reference's matmuls and
        # convolutions (cuDNN allows it by default), which alone would put a
        # correct candidate outside fp32's tolerance.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        state = {}
        if plan.get("kosan"):
            try:
                import kosan.torch
                state = kosan.torch.enable()
            except Exception as error:
                self.fail("setup", f"kosan.torch.enable() failed: {_short(error)}")
        ch.send(event="start", torch=torch.__version__, python=sys.version.split()[0],
                device=(torch.cuda.get_device_name() if self.device.startswith("cuda") else self.device),
                kosan=bool(plan.get("kosan")), nvcc=state.get("nvcc"))

        ch.send(event="phase", phase="problem")
        try:
            problem = _load_module(plan["problem"], "kosan_judge_problem")
            self.set_seed(MODEL_SEED)
            init = self.to_device(problem.get_init_inputs())
            self.set_seed(MODEL_SEED)
            reference = problem.Model(*init).to(self.device)
        except Exception as error:
            self.fail("problem", error)
        reference64 = None
        if "bits" in self.checks:
            try:
                reference64 = copy.deepcopy(reference).double()
            except Exception as error:
                ch.send(event="note", message=f"no fp64 reference (bits-lost not checked): {_short(error, 300)}")

        ch.send(event="phase", phase="build")
        started = time.monotonic()
        try:
            candidate_module = _load_module(plan["candidate"], "kosan_judge_candidate")
            self.set_seed(MODEL_SEED)
            candidate = candidate_module.ModelNew(*init).to(self.device)
            self.sync()
        except Exception as error:
            self.fail("build", error)
        ch.send(event="built", seconds=round(time.monotonic() - started, 3))
        self.flush_kosan()

        for trial in plan["trials"]:
            reference64 = self.run_trial(problem, reference, reference64, candidate, trial)

    def run_trial(self, problem, reference, reference64, candidate, trial: dict):
        torch, ch = self.torch, self.ch
        where = {"seed": trial["seed"], "sizes": trial["sizes"]}
        ch.send(event="phase", phase="trial", **trial)
        started = time.monotonic()
        for name, value in trial["sizes"].items():
            setattr(problem, name, value)
        try:
            self.set_seed(trial["seed"])
            inputs = self.to_device(problem.get_inputs())
            ch.send(event="phase", phase="reference", index=trial["index"])
            ref_in = self.clone(inputs)
            out_ref = self.forward(reference, ref_in, trial["seed"])
        except Exception as error:
            if trial.get("own"):
                self.fail("reference", error, where)
            traceback.print_exception(type(error), error, error.__traceback__)
            ch.send(event="skip", index=trial["index"], seed=trial["seed"], sizes=trial["sizes"],
                    reason=f"the reference fails: {_short(error, 300)}")
            return reference64
        ref_modified = {i for i, (a, b) in enumerate(zip(ref_in, inputs))
                        if isinstance(a, torch.Tensor) and self.bit_differences(a, b)}
        del ref_in

        if trial.get("kind") == "batch":
            self.batch_trial(reference, candidate, inputs, out_ref, trial, started)
            return reference64

        out64 = None
        if reference64 is not None:
            try:
                in64 = [x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
                        for x in self.clone(inputs)]
                out64 = self.forward(reference64, in64, trial["seed"])
            except Exception as error:
                ch.send(event="note", message=f"the reference does not run in fp64 (bits-lost not "
                                              f"checked): {_short(error, 300)}")
                reference64 = None

        ch.send(event="phase", phase="candidate", index=trial["index"])
        try:
            cand_in = self.clone(inputs)
            out_a = self.forward(candidate, cand_in, trial["seed"])
            modified = [i for i, (a, b) in enumerate(zip(cand_in, inputs))
                        if isinstance(a, torch.Tensor) and i not in ref_modified
                        and self.bit_differences(a, b)]
            del cand_in
            out_c = out_b = None
            if "nondeterminism" in self.checks:
                out_c = self.forward(candidate, self.clone(inputs), trial["seed"])
            if "unwritten" in self.checks:
                with self.nan_filled_allocations():
                    out_b = self.forward(candidate, self.clone(inputs), trial["seed"])
            kosan_errors = self.flush_kosan()
        except Exception as error:
            self.flush_kosan()
            self.fail("candidate", error, where)

        record = self.measure(out_ref, out64, out_a, out_b, out_c)
        record.update(event="trial", index=trial["index"], seed=trial["seed"], sizes=trial["sizes"],
                      own=bool(trial.get("own")), kind="values", inputs_modified=modified,
                      kosan_errors=kosan_errors, seconds=round(time.monotonic() - started, 3))
        ch.send(**record)
        return reference64

    def batch_trial(self, reference, candidate, inputs, out_ref, trial, started):
        """The whole batch and its first rows alone, through both models:
        a row's bits must not depend on the rest of the batch."""
        torch, ch = self.torch, self.ch
        where = {"seed": trial["seed"], "sizes": trial["sizes"]}
        rows, whole = self.plan.get("batch_rows", 1), trial["batch"]
        sliced = [x[:rows].clone() if isinstance(x, torch.Tensor) and x.dim() > 0 and
                  x.shape[0] == whole else x for x in inputs]
        record = {"event": "trial", "index": trial["index"], "seed": trial["seed"],
                  "sizes": trial["sizes"], "own": False, "kind": "batch", "outputs": [],
                  "shape_mismatch": None, "inputs_modified": []}
        if whole <= rows or all(a is b for a, b in zip(sliced, inputs)):
            ch.send(event="note", message=f"no batch check: no input has {whole} rows")
            return None
        ch.send(event="phase", phase="candidate", index=trial["index"])
        try:
            whole_out = self.forward(candidate, self.clone(inputs), trial["seed"])
            rows_out = self.forward(candidate, self.clone(sliced), trial["seed"])
            record["kosan_errors"] = self.flush_kosan()
        except Exception as error:
            self.flush_kosan()
            self.fail("candidate", error, dict(where, batch_rows=rows))
        ch.send(event="phase", phase="reference", index=trial["index"])
        try:
            ref_rows = self.forward(reference, self.clone(sliced), trial["seed"])
        except Exception as error:
            ref_rows = []
            ch.send(event="note", message=f"the reference fails on {rows} row(s): {_short(error, 300)}")
        for j, c in enumerate(whole_out):
            if j >= len(rows_out) or c.dim() == 0 or c.shape[0] != whole or \
                    rows_out[j].dim() == 0 or rows_out[j].shape[0] != rows:
                continue
            o = {"index": j, "dtype": str(c.dtype).replace("torch.", ""), "shape": list(c.shape),
                 "numel": c.numel(), "batch_rows": rows,
                 "batch_differs": self.bit_differences(c[:rows], rows_out[j])}
            if j < len(out_ref) and j < len(ref_rows) and out_ref[j].dim() > 0 and \
                    ref_rows[j].dim() > 0 and ref_rows[j].shape[0] == rows:
                o["ref_batch_differs"] = self.bit_differences(out_ref[j][:rows], ref_rows[j])
            record["outputs"].append(o)
        record["seconds"] = round(time.monotonic() - started, 3)
        ch.send(**record)
        return None

    def measure(self, out_ref, out64, out_a, out_b, out_c) -> dict:
        torch = self.torch
        record: dict = {"outputs": [], "shape_mismatch": None}
        if len(out_ref) != len(out_a):
            record["shape_mismatch"] = (f"the candidate returns {len(out_a)} tensors, the reference "
                                        f"{len(out_ref)}")
            return record
        for j, (r, c) in enumerate(zip(out_ref, out_a)):
            if r.shape != c.shape or r.dtype != c.dtype:
                record["shape_mismatch"] = (f"output {j}: {str(c.dtype)[6:]} {tuple(c.shape)}, the "
                                            f"reference's is {str(r.dtype)[6:]} {tuple(r.shape)}")
                return record
        for j, (r, c) in enumerate(zip(out_ref, out_a)):
            dtype = str(r.dtype).replace("torch.", "")
            atol, rtol = tolerance(dtype, self.plan.get("atol"), self.plan.get("rtol"))
            o = {"index": j, "dtype": dtype, "shape": list(r.shape), "numel": r.numel(),
                 "atol": atol, "rtol": rtol}
            floating = r.is_floating_point() or r.is_complex()
            if floating:
                # torch.allclose(ref, cand), as KernelBench calls it.
                o["allclose"] = bool(torch.allclose(r, c, atol=atol, rtol=rtol))
                o["outside"] = int((~torch.isclose(r, c, atol=atol, rtol=rtol)).sum())
                finite = torch.isfinite(r) & torch.isfinite(c)
                if bool(finite.any()):
                    diff = (c.double() - r.double()).abs()[finite]
                    o["max_abs"] = float(diff.max())
                    o["max_rel"] = float((diff / r.double().abs()[finite].clamp_min(1e-30)).max())
                else:
                    o["max_abs"] = o["max_rel"] = None
            else:
                o["outside"] = int((r != c).sum())
                o["allclose"] = o["outside"] == 0
                o["max_abs"] = o["max_rel"] = None
            if out64 is not None and j < len(out64) and r.is_floating_point() and not r.is_complex():
                o["err_ref"] = self.normwise(r, out64[j])
                o["err_cand"] = self.normwise(c, out64[j])
            if out_b is not None and j < len(out_b) and out_b[j].shape == c.shape:
                b = out_b[j]
                if b.is_floating_point():
                    fresh = torch.isnan(b) & ~torch.isnan(c)
                elif b.dtype != torch.bool and not b.is_complex():
                    top = torch.iinfo(b.dtype).max
                    fresh = (b == top) & (c != top)
                else:
                    fresh = None
                o["unwritten"] = int(fresh.sum()) if fresh is not None else None
            if out_c is not None and j < len(out_c):
                o["nondeterministic"] = self.bit_differences(c, out_c[j])
            record["outputs"].append(o)
        return record

    def normwise(self, x, r64) -> float:
        """||x - r64|| / ||r64|| over the elements where the fp64 reference is finite."""
        torch = self.torch
        finite = torch.isfinite(r64)
        if not bool(finite.any()):
            return 0.0
        r = r64[finite]
        d = x.double()[finite] - r
        num = float(torch.linalg.vector_norm(d))
        den = float(torch.linalg.vector_norm(r))
        if math.isnan(num):
            return math.inf
        return num / den if den > 0 else num


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m kosan.judge._worker PLAN.json FD", file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        plan = json.load(f)
    channel = Channel(int(argv[1]))
    try:
        Worker(plan, channel).run()
    except _Stop:
        pass
    except BaseException as error:  # a bug of the judge: say it, then stop
        traceback.print_exc()
        channel.send(event="error", stage="worker", message=_short(error))
    channel.send(event="done")
    sys.stdout.flush()
    sys.stderr.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
