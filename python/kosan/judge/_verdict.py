"""What the judge concludes from the measurements of a candidate's runs.

Pure Python: the worker (a process with torch) measures, this module
decides, so that the rules are tested without a GPU.
"""

from __future__ import annotations

import math

# allclose tolerances (atol, rtol) per output dtype, as KernelBench sets them
# per precision; other floating dtypes take "other", integers and bool are
# compared exactly. --atol/--rtol replace them for every dtype.
TOLERANCES = {
    "float32": (1e-4, 1e-4),
    "float16": (1e-2, 1e-2),
    "bfloat16": (1e-2, 1e-2),
    "float64": (1e-8, 1e-8),
    "other": (1e-1, 1e-1),
}

# Unit roundoff per dtype: the floor of the error the bits-lost rule counts,
# so that an exact reference does not turn an ulp of difference into a loss.
UNIT_ROUNDOFF = {"float64": 2.0 ** -53, "float32": 2.0 ** -24, "float16": 2.0 ** -11,
                 "bfloat16": 2.0 ** -8}

#: Default of --max-bits-lost: a candidate whose error against the fp64 run
#: of the reference is more than 2^6 = 64 times the fp32 reference's own.
MAX_BITS_LOST = 6.0

# Every reason a candidate fails for, in the order reports list them.
REASONS = {
    "build-error": "the candidate did not build or load",
    "crash": "the candidate's process died",
    "timeout": "the candidate made no progress within the time limit",
    "error": "the candidate raised an error while running",
    "shape-mismatch": "an output's shape, dtype or count differs from the reference's",
    "mismatch": "outputs differ from the reference beyond the allclose tolerance",
    "out-of-bounds": "a kernel accessed memory outside the buffer its pointer came from",
    "use-after-free": "a kernel accessed memory that had been freed",
    "uninitialized-read": "a kernel read memory nobody had written",
    "misaligned-access": "a kernel accessed memory at an address not aligned as the access needs "
                         "(the GPU faults there)",
    "unwritten-output": "output elements that the candidate never wrote",
    "inputs-modified": "the candidate changed an input the reference leaves alone",
    "bits-lost": "the candidate loses precision against an fp64 run of the reference",
    "nondeterministic": "two runs on the same inputs gave different bits",
    "order-dependent": "results depend on the order in which float atomics land, which changes "
                       "from run to run",
    "batch-variant": "a row's result depends on the rest of the batch",
}

# kosan runtime report kinds (the `kind` of oob trace records) -> reasons.
# Every overflow kind (global-, shared-, local-buffer-overflow, ...) is
# out-of-bounds; a kind not known here is a reason of its own name.
REPORT_KINDS = {
    "heap-use-after-free": "use-after-free",
    "use-after-free": "use-after-free",
    "use-of-uninitialized-value": "uninitialized-read",
    "uninitialized-read": "uninitialized-read",
}

CHECKS = ("oob", "unwritten", "inputs", "bits", "nondeterminism", "order", "batch", "sizes")


def tolerance(dtype: str, atol: float | None = None, rtol: float | None = None) -> tuple[float, float]:
    """(atol, rtol) for an output of this dtype (torch's name: float32, ...)."""
    if dtype in TOLERANCES:
        base = TOLERANCES[dtype]
    elif dtype.startswith(("float", "complex")):
        base = TOLERANCES["other"]
    else:
        base = (0.0, 0.0)
    return (base[0] if atol is None else atol, base[1] if rtol is None else rtol)


def reason_of_kind(kind: str) -> str:
    if kind in REPORT_KINDS:
        return REPORT_KINDS[kind]
    if kind.endswith("overflow") or "out-of-bounds" in kind:
        return "out-of-bounds"
    return kind or "kosan-report"


def bits_lost(dtype: str, err_ref: float | None, err_cand: float | None) -> float | None:
    """log2 of how much larger the candidate's error against fp64 is than the
    reference's own, both floored at the dtype's unit roundoff."""
    if err_ref is None or err_cand is None:
        return None
    floor = UNIT_ROUNDOFF.get(dtype, 2.0 ** -24)
    if math.isnan(err_cand) or math.isinf(err_cand):
        return math.inf
    if math.isnan(err_ref) or math.isinf(err_ref):
        return None
    return math.log2(max(err_cand, floor) / max(err_ref, floor))


def describe_sizes(trial: dict) -> str:
    parts = [f"seed {trial.get('seed')}"]
    parts += [f"{k}={v}" for k, v in (trial.get("sizes") or {}).items()]
    return ", ".join(parts)


def _fmt(x: float | None) -> str:
    if x is None:
        return "-"
    if math.isinf(x) or math.isnan(x):
        return str(x)
    return f"{x:.3g}"


class _Reasons:
    """Collects reasons, one entry per (reason, output): the first trial it
    was seen in, and in how many trials."""

    def __init__(self):
        self.entries: dict[tuple, dict] = {}

    def add(self, reason: str, message: str, *, key=None, trial: dict | None = None,
            worst: float | None = None) -> None:
        k = (reason, key)
        entry = self.entries.get(k)
        if entry is None:
            self.entries[k] = {"reason": reason, "message": message, "trials": 1,
                               "where": describe_sizes(trial) if trial else None, "_worst": worst}
            return
        entry["trials"] += 1
        if worst is not None and (entry["_worst"] is None or worst > entry["_worst"]):
            entry.update(message=message, where=describe_sizes(trial) if trial else None,
                         _worst=worst)

    def sorted(self) -> list[dict]:
        order = {name: i for i, name in enumerate(REASONS)}
        out = []
        for entry in sorted(self.entries.values(), key=lambda e: order.get(e["reason"], len(order))):
            entry = {k: v for k, v in entry.items() if not k.startswith("_")}
            out.append(entry)
        return out


def decide(result: dict, *, checks=CHECKS, max_bits_lost: float = MAX_BITS_LOST) -> dict:
    """The verdict on one candidate from what its worker reported.

    result: {"trials": [...], "error": {...}|None, "crash": {...}|None,
    "trouble": str|None, "oob": [...], "skipped": [...], "notes": [...]}
    (see _worker.py for the trial records). Returns a dict with "allclose"
    ("pass", "fail" or "not run"), "kosan" ("pass", "fail" or "trouble"),
    "reasons" and "exit_code" (0, 1, 2).
    """
    reasons = _Reasons()
    trials = result.get("trials", [])
    notes = list(result.get("notes", []))
    own = [t for t in trials if t.get("own")]

    # allclose at the problem's own sizes: KernelBench's check.
    if own:
        allclose_ok = all(not t.get("shape_mismatch") and
                          all(o.get("allclose") for o in t.get("outputs", [])) for t in own)
        allclose = "pass" if allclose_ok else "fail"
    else:
        allclose = "not run"
    worst = None
    for t in own:
        for o in t.get("outputs", []):
            if o.get("max_rel") is not None and (worst is None or o["max_rel"] > worst["max_rel"]):
                worst = o
    allclose_detail = None
    if own:
        outside = sum(o.get("outside", 0) for t in own for o in t.get("outputs", []))
        total = sum(o.get("numel", 0) for t in own for o in t.get("outputs", []))
        allclose_detail = (f"{outside} of {total} elements outside over {len(own)} trials"
                           + (f", max abs err {_fmt(worst.get('max_abs'))}, max rel err "
                              f"{_fmt(worst.get('max_rel'))}" if worst else ""))

    for t in trials:
        if t.get("kind") == "batch":
            if "batch" in checks:
                for o in t.get("outputs", []):
                    if o.get("batch_differs"):
                        also = (" (the reference is batch-variant too)"
                                if o.get("ref_batch_differs") else "")
                        reasons.add("batch-variant",
                                    f"output {o.get('index', 0)} ({o.get('dtype')}, shape "
                                    f"{tuple(o.get('shape') or ())}): {o['batch_differs']} elements "
                                    f"of the first {o.get('batch_rows')} row(s) differ bitwise "
                                    f"between the whole batch and a batch of "
                                    f"{o.get('batch_rows')}{also}",
                                    key=o.get("index", 0), trial=t, worst=o["batch_differs"])
            continue
        if t.get("shape_mismatch"):
            reasons.add("shape-mismatch", t["shape_mismatch"], trial=t)
            continue
        for o in t.get("outputs", []):
            j, dtype = o.get("index", 0), o.get("dtype", "?")
            name = f"output {j} ({dtype}, shape {tuple(o.get('shape') or ())})"
            if not o.get("allclose"):
                reasons.add("mismatch",
                            f"{name}: {o.get('outside')} of {o.get('numel')} elements outside "
                            f"atol={o.get('atol')} rtol={o.get('rtol')} (max abs err "
                            f"{_fmt(o.get('max_abs'))}, max rel err {_fmt(o.get('max_rel'))})",
                            key=j, trial=t, worst=o.get("outside"))
            if "unwritten" in checks and o.get("unwritten"):
                reasons.add("unwritten-output",
                            f"{name}: {o['unwritten']} of {o.get('numel')} elements are never "
                            "written (they keep the NaN of NaN-filled fresh memory, or are "
                            "computed from memory nobody wrote)",
                            key=j, trial=t, worst=o["unwritten"])
            if "bits" in checks:
                lost = bits_lost(dtype, o.get("err_ref"), o.get("err_cand"))
                if lost is not None and lost > max_bits_lost:
                    reasons.add("bits-lost",
                                f"{name}: {lost:.1f} bits lost beyond the reference's own error "
                                f"against fp64 (relative error {_fmt(o.get('err_cand'))} vs the "
                                f"fp32 reference's {_fmt(o.get('err_ref'))}; limit "
                                f"{max_bits_lost:g} bits)",
                                key=j, trial=t, worst=lost)
            if "nondeterminism" in checks and o.get("nondeterministic"):
                reasons.add("nondeterministic",
                            f"{name}: {o['nondeterministic']} of {o.get('numel')} elements "
                            "differ bitwise between two runs on the same inputs",
                            key=j, trial=t, worst=o["nondeterministic"])
        if "inputs" in checks:
            for i in t.get("inputs_modified", []):
                reasons.add("inputs-modified", f"input {i} was changed by the candidate's forward",
                            key=i, trial=t)

    if "oob" in checks:
        for record in result.get("oob", []):
            kind = record.get("kind", "")
            site = record.get("site") or {}
            where = (f"{site.get('file', '?')}:{site.get('line', 0)}:{site.get('column', 0)}"
                     if site.get("file") else site.get("function", "?"))
            buffer = record.get("buffer_name") or "?"
            message = (f"{kind}: {record.get('access', '?')} of size {record.get('size', '?')} "
                       f"at {where} in '{site.get('function', '?')}', buffer '{buffer}', "
                       f"{record.get('count', '?')} accesses")
            reasons.add(reason_of_kind(kind), message, key=(kind, where, buffer))

    if "order" in checks:
        for finding in result.get("order", []):
            sites = ", ".join(finding.get("sites") or []) or "?"
            reasons.add("order-dependent",
                        f"{finding.get('locations')} locations of '{finding.get('name', '?')}' "
                        f"depend on the order float atomics land in (kernel "
                        f"'{finding.get('kernel', '?')}', {finding.get('op', 'fadd')} at {sites}): "
                        "the bits may differ from run to run even where two runs agreed",
                        key=(finding.get("kernel"), finding.get("name")),
                        worst=finding.get("locations"))

    for skipped in result.get("skipped", []):
        notes.append(f"sizes {describe_sizes(skipped)} skipped: {skipped.get('reason')}")

    error = result.get("error")
    if error:
        reason = "build-error" if error.get("stage") == "build" else "error"
        where = f" ({describe_sizes(error['trial'])})" if error.get("trial") else ""
        reasons.add(reason, f"{error.get('message', '?')}{where}")
    crash = result.get("crash")
    if crash:
        reasons.add("timeout" if crash.get("kind") == "timeout" else "crash", crash.get("message", "?"))

    trouble = result.get("trouble")
    listed = reasons.sorted()
    if trouble:
        kosan, code = "trouble", 2
    elif listed:
        kosan, code = "fail", 1
    elif not own:
        kosan, code, trouble = "trouble", 2, "no trial ran at the problem's own sizes"
    else:
        kosan, code = "pass", 0
    return {"allclose": allclose, "allclose_detail": allclose_detail, "kosan": kosan,
            "reasons": listed, "trouble": trouble, "notes": notes, "exit_code": code}
