"""The campaign's steps, as functions of plain data (so that a local pool
and Ray workers run the same code): list a program's mutants, build one,
run it on the draws, judge it with each oracle."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# kosan's parts, in the order reports list them; "crash" is a run that did
# not complete (a signal, a CUDA error, a hang past the timeout).
KOSAN_PARTS = ("memory", "race", "diff", "precision", "order", "crash")
ORACLES = ("own", "kosan", "either")
# A mutant's precision finding: its worst site loses this many bits more
# than the reference's worst site on the same draw, or it makes NaNs the
# reference does not.
PRECISION_MARGIN_BITS = 2.0
# A loss from a root cause the reference does not have counts past this
# margin over the reference's loss at the same site.
NEW_CAUSE_MARGIN_BITS = 0.5
# A run of an unmutated program that times out is run once more with this
# many times the timeout before its draw is judged (a loaded machine).
REFERENCE_RETRY_TIMEOUT_FACTOR = 3


class CampaignError(Exception):
    """Trouble: one line for the user, exit status 2."""


def tool(settings: dict, name: str) -> str:
    if settings.get("tools"):
        path = Path(settings["tools"]) / name
        if path.exists():
            return str(path)
    found = shutil.which(name)
    if not found:
        raise CampaignError(f"{name} not found (give --tools DIR, kosan's bin directory)")
    return found


def _tail(text: str, lines: int = 3) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])[-400:]


def list_mutants(settings: dict, source: str) -> list[dict]:
    """The mutants of one program, as `kosan-mutate list --format json` gives them."""
    command = [tool(settings, "kosan-mutate"), "list", "--format", "json", "--",
               *settings["compiler"], "--cuda-device-only", "-c", *settings["flags"], source]
    p = subprocess.run(command, capture_output=True, text=True, timeout=settings["build_timeout"])
    if p.returncode != 0:
        raise CampaignError(f"kosan-mutate list failed for {source}: {_tail(p.stderr, 2)}")
    return json.loads(p.stdout)["mutants"]


def build(settings: dict, source: str, output: str, mutant: str | None, plain: bool) -> dict:
    """Builds the program (a mutant of it with `mutant`); plain: no checks."""
    command = [*settings["compiler"], *settings["flags"],
               "--kosan-plain" if plain else f"--kosan-checks={settings['checks']}"]
    if mutant:
        command.append(f"--kosan-mutate={mutant}")
    command += [source, "-o", output]
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    try:
        p = subprocess.run(command, capture_output=True, text=True, timeout=settings["build_timeout"])
        ok, error = p.returncode == 0, "" if p.returncode == 0 else _tail(p.stderr)
    except subprocess.TimeoutExpired:
        ok, error = False, f"the build took more than {settings['build_timeout']} s"
    return {"ok": ok, "error": error, "seconds": time.monotonic() - start, "output": output}


def _hash(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:32]
    except OSError:
        return ""


def run_program(settings: dict, binary: str, seed: int, output: Path, trace: Path | None,
                gpu: int | None) -> dict:
    """Runs one draw; returns exit status, PASS, the output's hash."""
    env = dict(os.environ)
    env["MUT_SEED"] = str(seed)
    env["MUT_OUTPUT"] = str(output)
    if trace is not None:
        env["KOSAN_OPTIONS"] = f"trace={trace}:snapshot=1:poison=1:uninit=1:checks={settings['checks']}"
    else:
        env.pop("KOSAN_OPTIONS", None)
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = str(gpu)
    for stale in (output, trace):
        if stale is not None and stale.exists():
            stale.unlink()
    command = [*settings["runner"], binary, str(seed), str(output)]
    start = time.monotonic()
    try:
        p = subprocess.run(command, capture_output=True, text=True, env=env,
                           timeout=settings["timeout"], errors="replace")
        status, out, timed_out = p.returncode, p.stdout + p.stderr, False
    except subprocess.TimeoutExpired as e:
        status, timed_out = -9, True
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
    lines = [line for line in out.splitlines() if line.startswith(("PASS", "FAIL"))]
    return {"seed": seed, "status": status, "timeout": timed_out,
            "passed": status == 0 and bool(lines) and lines[-1].startswith("PASS"),
            "check": lines[-1][:300] if lines else _tail(out, 1),
            "output_hash": _hash(output), "seconds": time.monotonic() - start}


def _max_bits(sites: list[dict]) -> tuple[float, int]:
    bits, nans = 0.0, 0
    for s in sites or []:
        b = s.get("bits_lost", 0)
        bits = max(bits, float("inf") if b == "inf" else float(b))
        nans += int(s.get("nans", 0) or 0)
    return bits, nans


def kosan_verdict(settings: dict, ref_trace: Path, cand_trace: Path, cand_run: dict,
                  ref_nondeterministic=()) -> dict:
    """Which parts of kosan's verdict fire for CAND against REF (one draw).
    REF_NONDETERMINISTIC: the outputs ("launch:arg") whose order differs
    between two runs of the reference itself, which the order part leaves
    out; None leaves the order part out altogether."""
    parts, notes = [], []
    crashed = cand_run["timeout"] or cand_run["status"] not in (0, 1)
    if crashed:
        parts.append("crash")
        notes.append("timeout" if cand_run["timeout"] else f"exit status {cand_run['status']}")
    if not ref_trace.exists():
        # No trace of the reference (a runner that is not kosan's, as the
        # CPU stand-in of the tests): kosan has no verdict beyond the exit.
        notes.append("no kosan trace of the reference")
        return {"parts": parts, "summary": "; ".join(notes)}
    if not cand_trace.exists():
        if "crash" not in parts:
            parts.append("crash")
            notes.append("the mutant wrote no trace")
        return {"parts": parts, "summary": "; ".join(notes)}
    report = subprocess.run([tool(settings, "kosan-report"), "--fail-on-error", str(cand_trace)],
                            capture_output=True, text=True, errors="replace")
    if report.returncode == 1:
        # The race check's data races are kosan-report's errors too; they
        # are the verdict's own part.
        errors = [line for line in report.stdout.splitlines() if "ERROR" in line or "error" in line]
        races = [line for line in errors if "data-race" in line]
        memory = [line for line in errors if "data-race" not in line and "ERROR" in line]
        if memory or not races:
            parts.append("memory")
            notes.append(memory[0][:200] if memory else errors[0][:200] if errors else "kosan-report: errors")
        if races:
            parts.append("race")
            notes.append(races[0][:200])
    diff = subprocess.run([tool(settings, "kosan-diff"), "--format", "json", str(ref_trace), str(cand_trace)],
                          capture_output=True, text=True, errors="replace")
    try:
        doc = json.loads(diff.stdout)
    except ValueError:
        doc = {"verdict": "trouble", "summary": _tail(diff.stderr, 1), "launches": []}
    launches = doc.get("launches", [])
    differs = any(not o.get("equivalent", True) for lp in launches for o in lp.get("outputs", []))
    differs |= any(lp.get("modified_inputs") for lp in launches)
    if doc.get("verdict") == "trouble" and "crash" not in parts:
        differs = True
    if differs:
        parts.append("diff")
        notes.append(doc.get("summary", "")[:300])
    ref_sites = [s for lp in launches for s in lp.get("precision", {}).get("ref", [])]
    cand_sites = [s for lp in launches for s in lp.get("precision", {}).get("cand", [])]
    ref_bits, ref_nans = _max_bits(ref_sites)
    cand_bits, cand_nans = _max_bits(cand_sites)
    beyond = [b for lp in launches for b in lp.get("precision_beyond_ref", [])]
    introduced = _new_causes(ref_sites, cand_sites)
    if beyond:
        parts.append("precision")
        notes.append(f"precision beyond the reference's at {_where(beyond[0])}")
    elif introduced:
        parts.append("precision")
        notes.append(introduced[0])
    elif cand_bits > ref_bits + PRECISION_MARGIN_BITS or (cand_nans and not ref_nans):
        parts.append("precision")
        notes.append(f"precision: {cand_bits:.1f} bits lost (reference {ref_bits:.1f})")
    if "order" in settings["checks"] and ref_nondeterministic is not None:
        # Outputs whose order differs between two runs of the reference
        # itself (float atomics) say nothing about the mutant.
        changed = order_changes(settings, ref_trace, cand_trace) - set(ref_nondeterministic)
        if changed:
            parts.append("order")
            notes.append("order: the computation of output " + ", ".join(sorted(changed)[:3])
                         + " (launch:argument) differs from the reference's (order fingerprints)")
    return {"parts": parts, "summary": "; ".join(n for n in notes if n)}


def _num(v, default=0.0) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def _where(site: dict) -> str:
    loc = site.get("site") or site
    return f"{loc.get('file', '?')}:{loc.get('line', 0)}"


def _cause_key(cause: dict) -> tuple:
    return (cause.get("kind"), cause.get("op"), cause.get("dtype"), cause.get("from_dtype"))


def _new_causes(ref_sites: list[dict], cand_sites: list[dict]) -> list[str]:
    """Losses CAND adds that the reference does not have: narrowings to a
    type the reference never narrows to, and sites whose error comes from
    an operation of a kind the reference never names as a root cause (a
    narrowing, a fast intrinsic) that lose more than the reference's site
    at the same place."""
    ref_causes = {_cause_key(s["cause"]) for s in ref_sites if s.get("cause")}
    ref_at = {}
    for s in ref_sites:
        key = (s.get("kind"), _where(s))
        ref_at[key] = max(ref_at.get(key, 0.0), _num(s.get("scaled_bits")))
    # Narrowings (precision records of kind "narrow") to a type the
    # reference never narrows to: a precision downgrade.
    ref_narrowings = {(s.get("from_dtype"), s.get("dtype")) for s in ref_sites if s.get("kind") == "narrow"}
    ref_narrowings |= {(c.get("from_dtype"), c.get("dtype")) for c in (s.get("cause") for s in ref_sites)
                       if c and c.get("kind") == "narrow"}
    found = [f"precision: {s.get('from_dtype')}->{s.get('dtype')} narrowing at {_where(s)} "
             f"({s.get('count', 0)} values), a narrowing the reference never does"
             for s in cand_sites if s.get("kind") == "narrow"
             and (s.get("from_dtype"), s.get("dtype")) not in ref_narrowings]
    for s in cand_sites:
        cause = s.get("cause")
        if not cause or _cause_key(cause) in ref_causes:
            continue
        mine, theirs = _num(s.get("scaled_bits")), ref_at.get((s.get("kind"), _where(s)), 0.0)
        if mine > theirs + NEW_CAUSE_MARGIN_BITS:
            found.append(f"precision: {_where(s)} loses {mine:.1f} bits of fp32 at scale (reference {theirs:.1f}), "
                         f"introduced by {cause.get('op') or cause.get('kind')} at {_where(cause)}, "
                         "a root cause the reference does not have")
    return found


def _diff_json(settings: dict, *args) -> dict:
    p = subprocess.run([tool(settings, "kosan-diff"), "--format", "json", *map(str, args)],
                       capture_output=True, text=True, errors="replace")
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {"verdict": "trouble", "summary": _tail(p.stderr, 1), "launches": []}


def order_changes(settings: dict, a: Path, b: Path) -> set[str]:
    """The outputs (\"launch:arg\", launches counted from 0) whose order
    fingerprints or float atomics differ between the traces A and B of one
    program, by kosan-diff --order."""
    doc = _diff_json(settings, "--order", a, b)
    if doc.get("verdict") not in ("deterministic", "nondeterministic"):
        return set()
    return {f"{i}:{o.get('arg')}" for i, lp in enumerate(doc.get("launches", []))
            for o in [*lp.get("stores", []), *lp.get("atomics", [])] if not o.get("deterministic", True)}


# A value that varies from run to run in the reference may differ in the
# mutant by twice the largest spread seen, and at least by this many ULPs.
SPREAD_FLOOR_ULPS = 4


def _output_diffs(settings: dict, a: Path, b: Path) -> dict | None:
    """Per output ("launch:arg") of the traces A and B compared exactly:
    (largest difference, largest distance in units in the last place of the
    output's dtype, as kosan-diff counts them); None where they cannot be
    compared."""
    doc = _diff_json(settings, "--atol", "0", "--rtol", "0", a, b)
    if doc.get("verdict") == "trouble":
        return None
    diffs = {}
    for i, lp in enumerate(doc.get("launches", [])):
        if lp.get("modified_inputs"):
            return None
        for o in lp.get("outputs", []):
            st = o.get("stats", {})
            if o.get("problem") or st.get("unwritten_cand") or st.get("nan_mismatch") or st.get("inf_mismatch"):
                return None
            differs = bool(st.get("over_tolerance"))
            diffs[f"{i}:{o.get('arg')}"] = (_num(st.get("max_abs"), float("inf")) if differs else 0.0,
                                            _num(st.get("max_ulp"), float("inf")) if differs else 0.0)
    return diffs


def output_spread(settings: dict, a: Path, b: Path) -> dict | None:
    """The largest difference per output ("launch:arg") between the traces
    A and B, compared exactly; None where they cannot be compared."""
    diffs = _output_diffs(settings, a, b)
    return None if diffs is None else {k: v[0] for k, v in diffs.items()}


def reference_task(settings: dict, kernel: str, source: str, gpu: int | None) -> dict:
    """Builds the unmutated program plain and checked, runs each draw (the
    checked build twice) and measures kosan's false alarms: kosan's verdict
    on the second checked run against the first. The two checked runs also
    say which outputs vary from run to run (float atomics) and by how much."""
    built = reference_build_task(settings, kernel, source)
    if not built["ok"]:
        return {"kernel": kernel, "status": "build-error", "detail": built["error"]}
    return reference_runs_task(settings, kernel, built, settings["seeds"], gpu)


def reference_build_task(settings: dict, kernel: str, source: str) -> dict:
    """The unmutated program, plain and checked."""
    work = Path(settings["work"]) / kernel
    plain = build(settings, source, str(work / "ref.plain"), None, True)
    checked = build(settings, source, str(work / "ref.kosan"), None, False)
    return {"ok": plain["ok"] and checked["ok"], "error": plain["error"] or checked["error"],
            "plain": plain["output"], "checked": checked["output"]}


def reference_runs_task(settings: dict, kernel: str, built: dict, seeds: list[int], gpu: int | None) -> dict:
    """Runs the draws SEEDS of the unmutated program built by
    reference_build_task and judges kosan's false alarms on them."""
    work = Path(settings["work"]) / kernel

    def patient(binary, seed, output, trace):
        # A correct program that runs past the timeout is a machine under
        # load, not a verdict on kosan: run it again with more time before
        # anything is judged, and keep the count.
        run = run_program(settings, binary, seed, output, trace, gpu)
        if run["timeout"]:
            longer = dict(settings, timeout=settings["timeout"] * REFERENCE_RETRY_TIMEOUT_FACTOR)
            run = dict(run_program(longer, binary, seed, output, trace, gpu), retried=True)
        return run

    def draw(seed):
        own = patient(built["plain"], seed, work / f"ref.{seed}.out", None)
        first = patient(built["checked"], seed, work / f"ref.{seed}.kout", work / f"ref.{seed}.kosan")
        again = patient(built["checked"], seed, work / f"ref2.{seed}.kout", work / f"ref2.{seed}.kosan")
        varies = set()
        if (work / f"ref.{seed}.kosan").exists() and "order" in settings["checks"]:
            varies = order_changes(settings, work / f"ref.{seed}.kosan", work / f"ref2.{seed}.kosan")
        return {"seed": seed, "own": own, "first": first, "again": again, "varies": varies}

    # Draws at once where many are asked for (--no-mutants over many seeds).
    with ThreadPoolExecutor(max(1, settings.get("seed_workers", 1))) as pool:
        runs = list(pool.map(draw, seeds))
    nondeterministic = set().union(*(r["varies"] for r in runs))
    failures = [f"seed {r['seed']}: {r['own']['check'] or 'no PASS line'} (exit status {r['own']['status']})"
                for r in runs if not r["own"]["passed"]]
    def judged(r):
        seed = r["seed"]
        # The order part is left out: what differs between the two runs is
        # by definition the reference's nondeterminism (draw() compared it).
        alarms = kosan_verdict(settings, work / f"ref.{seed}.kosan", work / f"ref2.{seed}.kosan", r["again"],
                               None)
        retried = sum(bool(r[k].get("retried")) for k in ("own", "first", "again"))
        if retried:
            alarms["retried"] = retried
        if not r["first"]["passed"]:
            alarms["parts"].append("own-check-under-kosan")
            if r["first"]["timeout"]:
                alarms["summary"] = ", ".join(x for x in (alarms.get("summary"), "timeout") if x)
        spread = None
        if nondeterministic and (work / f"ref2.{seed}.kosan").exists():
            spread = output_spread(settings, work / f"ref.{seed}.kosan", work / f"ref2.{seed}.kosan")
        return {"seed": seed, "passed": r["own"]["passed"], "output_hash": r["own"]["output_hash"],
                "trace": str(work / f"ref.{seed}.kosan"), "false_alarms": alarms,
                "spread": spread, "seconds": r["own"]["seconds"] + r["first"]["seconds"]}

    with ThreadPoolExecutor(max(1, settings.get("seed_workers", 1))) as pool:
        out = list(pool.map(judged, runs))
    return {"kernel": kernel, "status": "reference-fails" if failures else "ok",
            "detail": "; ".join(failures)[:500], "order_deterministic": not nondeterministic,
            "nondeterministic": sorted(nondeterministic), "runs": out}


def _same_as_reference(settings: dict, ref: dict, cand_trace: Path, nondeterministic: list[str],
                       spread: dict) -> bool:
    """Whether a draw of the mutant gives the reference's outputs: the same
    bits where the reference's outputs are the same from run to run, and
    where they are not (float atomics), within twice SPREAD (per output: the
    largest two runs of the reference showed on any draw), and at least
    SPREAD_FLOOR_ULPS units in the last place."""
    if not nondeterministic or not cand_trace.exists():
        return False
    diffs = _output_diffs(settings, Path(ref["trace"]), cand_trace)
    if diffs is None:
        return False
    for key, (v, ulps) in diffs.items():
        if v == 0.0:
            continue
        if key not in nondeterministic:
            return False
        if v > 2 * spread.get(key, 0.0) and ulps > SPREAD_FLOOR_ULPS:
            return False
    return True


def mutant_build_task(settings: dict, kernel: str, source: str, mutant: str) -> dict:
    work = Path(settings["work"]) / kernel / mutant
    plain = build(settings, source, str(work / "plain"), mutant, True)
    checked = build(settings, source, str(work / "kosan"), mutant, False) if plain["ok"] else plain
    return {"kernel": kernel, "id": mutant, "ok": plain["ok"] and checked["ok"],
            "error": plain["error"] or checked["error"], "plain": plain["output"],
            "kosan": checked["output"], "seconds": plain["seconds"] + (checked["seconds"] if plain["ok"] else 0)}


def mutant_run_task(settings: dict, kernel: str, reference: dict, built: dict, gpu: int | None) -> dict:
    """Runs a built mutant on every draw and judges it with each oracle."""
    work = Path(settings["work"]) / kernel / built["id"]
    draws, start = [], time.monotonic()
    for seed in settings["seeds"]:
        ref = reference["runs"][str(seed)]
        own = run_program(settings, built["plain"], seed, work / f"{seed}.out", None, gpu)
        checked = run_program(settings, built["kosan"], seed, work / f"{seed}.kout", work / f"{seed}.kosan", gpu)
        nondeterministic = reference.get("nondeterministic", [])
        verdict = kosan_verdict(settings, Path(ref["trace"]), work / f"{seed}.kosan", checked, nondeterministic)
        own_killed = not own["passed"]
        same = bool(own["output_hash"]) and own["output_hash"] == ref["output_hash"]
        if not same and not own_killed and not verdict["parts"]:
            same = _same_as_reference(settings, ref, work / f"{seed}.kosan", nondeterministic,
                                      reference.get("spread", {}))
        draws.append({"seed": seed, "own": own_killed, "own_check": own["check"],
                      "own_timeout": own["timeout"], "kosan": bool(verdict["parts"]),
                      "parts": verdict["parts"], "kosan_summary": verdict["summary"],
                      "same_output": same})
    if not settings.get("keep"):
        shutil.rmtree(work, ignore_errors=True)
    parts = sorted({p for d in draws for p in d["parts"]}, key=KOSAN_PARTS.index)
    own_killed = any(d["own"] for d in draws)
    kosan_killed = any(d["kosan"] for d in draws)
    return {"kernel": kernel, "id": built["id"], "status": "judged", "own": own_killed,
            "kosan": kosan_killed, "parts": parts,
            "equivalent": not own_killed and not kosan_killed and all(d["same_output"] for d in draws),
            "draws": draws, "build_seconds": built["seconds"], "run_seconds": time.monotonic() - start}
