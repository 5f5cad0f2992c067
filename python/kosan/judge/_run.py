"""Running one candidate: the worker process, its time limits, its trace.

The worker (_worker.py) runs in a process of its own, in a session of its
own (the compilers torch starts die with it), and reports on a pipe. The
judge waits for each report with a time limit: the build step gets
build_timeout seconds, every other step timeout seconds. A worker that
exceeds it is killed and the candidate fails with `timeout`; a worker that
dies (a signal, a CUDA error that kills the process, an exit without its
final report) fails it with `crash`, and the last lines it wrote to stderr
are kept. When the step that broke was the reference's, the judge is in
trouble instead: the problem, not the candidate, is at fault.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import typing

# The worker's command: the interpreter running the judge, the package this
# judge comes from. Tests replace it with a stand-in.
WORKER_MODULE = "kosan.judge._worker"

_PACKAGE_PARENT = str(pathlib.Path(__file__).resolve().parent.parent.parent)

# Steps of the worker that are the reference's or the judge's own: a failure
# there is trouble, not a verdict on the candidate.
_TROUBLE_STAGES = {"setup", "problem", "reference", "worker"}


def worker_command(plan_path: str, fd: int) -> list[str]:
    return [sys.executable, "-m", WORKER_MODULE, plan_path, str(fd)]


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass


def _tail(path: pathlib.Path, lines: int = 12) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    kept = [l for l in text.splitlines() if l.strip()]
    return "\n".join(kept[-lines:])


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _phase_text(phase: dict | None) -> str:
    if not phase:
        return "start-up"
    name = phase.get("phase")
    if name in ("reference", "candidate"):
        return f"the {name}'s run in trial {phase.get('index', '?') + 1}"
    if name == "trial":
        return f"trial {phase.get('index', 0) + 1}"
    return {"setup": "set-up (torch, kosan)", "problem": "loading the problem",
            "build": "building the candidate"}.get(name, str(name))


def _is_reference_phase(phase: dict | None) -> bool:
    return bool(phase) and phase.get("phase") in ("setup", "problem", "reference", "trial")


def run_candidate(plan: dict, *, timeout: float, build_timeout: float, work_dir: str,
                  env: dict | None = None, progress=None, command=None) -> dict:
    """Runs the worker for one candidate; returns the raw result for
    _verdict.decide: trials, skipped sizes, error, crash, trouble, notes,
    the trace's oob records, the worker's start record and timings."""
    work = pathlib.Path(work_dir)
    work.mkdir(parents=True, exist_ok=True)
    plan_path = work / "plan.json"
    trace_path = work / "candidate.kosan"
    log_path = work / "worker.log"
    plan = dict(plan, trace=str(trace_path))
    plan_path.write_text(json.dumps(plan, indent=1))

    child_env = dict(os.environ if env is None else env)
    child_env["PYTHONPATH"] = os.pathsep.join(
        [_PACKAGE_PARENT] + [p for p in [child_env.get("PYTHONPATH")] if p])
    child_env.setdefault("PYTHONUNBUFFERED", "1")
    if plan.get("kosan"):
        # The user's options first: ours (where the trace goes) win.
        options = [o for o in [child_env.get("KOSAN_OPTIONS")] if o]
        options.append(f"trace='{trace_path}':print_summary=0")
        if "order" in plan.get("checks", ()):
            # Built and run with the order check too, so that atomics whose
            # landing order decides the results are found in one run.
            checks = _with_order(child_env.get("KOSAN_CHECKS") or "oob")
            child_env["KOSAN_CHECKS"] = checks
            # Float atomics are all the order-dependence finding needs:
            # no store fingerprints (a large output's are gigabytes of trace).
            options.append(f"checks={checks}:order_stores=0")
        child_env["KOSAN_OPTIONS"] = ":".join(options)

    result: dict = {"trials": [], "skipped": [], "notes": [], "error": None, "crash": None,
                    "trouble": None, "oob": [], "order": [], "start": None, "built_seconds": None,
                    "work_dir": str(work)}
    read_fd, write_fd = os.pipe()
    started = time.monotonic()
    try:
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                (command or worker_command)(str(plan_path), write_fd), stdin=subprocess.DEVNULL,
                stdout=log, stderr=subprocess.STDOUT, env=child_env, pass_fds=(write_fd,),
                start_new_session=True)
    except OSError as error:
        os.close(read_fd)
        os.close(write_fd)
        result["trouble"] = f"cannot start the worker: {error}"
        return result
    os.close(write_fd)

    phase: dict | None = None
    done = False
    buffer = b""
    selector = selectors.DefaultSelector()
    selector.register(read_fd, selectors.EVENT_READ)
    deadline_for = lambda: time.monotonic() + (build_timeout if phase and phase.get("phase") in
                                               ("setup", "build") else timeout)
    deadline = deadline_for()
    eof = False
    try:
        while not eof:
            wait = deadline - time.monotonic()
            if wait <= 0 or not selector.select(timeout=wait):
                if time.monotonic() < deadline:
                    continue
                _kill(process)
                limit = build_timeout if phase and phase.get("phase") in ("setup", "build") else timeout
                message = f"no progress for {limit:g} s during {_phase_text(phase)}; killed"
                if _is_reference_phase(phase):
                    result["trouble"] = message
                else:
                    result["crash"] = {"kind": "timeout", "message": message,
                                       "phase": phase}
                break
            chunk = os.read(read_fd, 65536)
            if not chunk:
                eof = True
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                kind = event.pop("event", None)
                if kind == "phase":
                    phase = event
                    if progress and event.get("phase") == "trial":
                        progress(event)
                    elif progress and event.get("phase") == "build":
                        progress({"phase": "build"})
                elif kind == "start":
                    result["start"] = event
                elif kind == "built":
                    result["built_seconds"] = event.get("seconds")
                elif kind == "trial":
                    result["trials"].append(event)
                elif kind == "skip":
                    result["skipped"].append(event)
                elif kind == "note":
                    result["notes"].append(event.get("message", ""))
                elif kind == "error":
                    stage = event.get("stage")
                    message = event.get("message", "")
                    if stage in _TROUBLE_STAGES:
                        where = {"setup": "setting up the worker", "problem": "the problem",
                                 "reference": "the reference", "worker": "the judge's worker"}[stage]
                        result["trouble"] = f"{where} failed: {message}"
                    else:
                        result["error"] = {"stage": stage, "message": message,
                                           "trial": event.get("trial")}
                elif kind == "done":
                    done = True
                deadline = deadline_for()
    finally:
        selector.close()
        os.close(read_fd)

    if process.poll() is None and not result["crash"] and not result["trouble"]:
        try:
            process.wait(timeout=max(timeout, 30))
        except subprocess.TimeoutExpired:
            _kill(process)
            result["notes"].append("the worker did not exit after its last report; killed")
    if process.poll() is None:
        _kill(process)
    code = process.returncode
    if not done and not result["crash"] and not result["trouble"]:
        if code is not None and code < 0:
            how = f"killed by {_signal_name(-code)}"
        else:
            how = f"exited with status {code} without finishing"
        message = f"the worker was {how} during {_phase_text(phase)}"
        tail = _tail(log_path)
        if _is_reference_phase(phase):
            result["trouble"] = message + (f"; its last output:\n{tail}" if tail else "")
        else:
            result["crash"] = {"kind": "signal" if code and code < 0 else "exit",
                               "message": message, "phase": phase, "log_tail": tail}
            if tail:
                result["crash"]["message"] += f"; its last output:\n{tail}"
    result["seconds"] = round(time.monotonic() - started, 3)
    # What kosan's runtime said about kernels it stopped (stop_after,
    # halt_on_error): the CUDA error that follows is its consequence.
    try:
        with open(log_path, "rb") as log:
            for line in log:
                if line.startswith(b"kosan: ") and b"kernel was stopped" in line:
                    result["notes"].append(line.decode("utf-8", "replace").strip())
    except OSError:
        pass

    if plan.get("kosan"):
        read_trace(trace_path, result)
    return result


def _with_order(checks: str) -> str:
    names = [c for c in checks.split(",") if c and c != "none"]
    if "all" in names or "order" in names or "order-ops" in names:
        return ",".join(names)
    return ",".join(names + ["order"])


def order_findings(launches: list[dict], atomics: list[dict],
                   summaries: list[dict]) -> list[dict]:
    """The launches whose results depend on the order float atomics landed
    in (order_summary.order_dependent_locations), with the kernel, the
    buffer and the atomics' sites, from the trace's launch, order_atomics
    and order_summary records (an order_atomics record counted once: its
    first part, or the record the trace reader joined)."""
    kernels = {l.get("id"): l.get("kernel", "?") for l in launches}
    by_launch: dict[int, list[dict]] = {}
    for a in atomics:
        if a.get("part", 0) == 0:
            by_launch.setdefault(a.get("launch"), []).append(a)
    findings = []
    for record in summaries:
        if not record.get("order_dependent_locations"):
            continue
        launch = record.get("launch")
        on = [a for a in by_launch.get(launch, []) if a.get("op") in ("fadd", "fsub")]
        findings.append({
            "launch": launch, "kernel": kernels.get(launch, "?"),
            "locations": record["order_dependent_locations"],
            "name": ", ".join(dict.fromkeys(a.get("name", "?") for a in on)) or "?",
            "op": ", ".join(dict.fromkeys(a.get("op") for a in on)) or "fadd",
            "sites": list(dict.fromkeys(s for a in on for s in a.get("sites", [])))})
    return findings


def read_trace(trace_path: pathlib.Path, result: dict) -> None:
    """The oob and order records of the candidate's trace (complete or cut
    short), read once."""
    if not trace_path.exists():
        if result.get("built_seconds") is not None:
            result["notes"].append("the candidate wrote no kosan trace: no kosan-built code ran")
        return
    try:
        from .._library import LibraryNotFound
        from .._trace import TraceError, open_trace
        try:
            with open_trace(trace_path, allow_truncated=True) as trace:
                scan = _Scan(list(trace.oob), list(trace.launches), trace.order_atomics,
                             trace.order_summaries, trace.truncated)
        except LibraryNotFound:
            # Where only the runtime was carried (a GPU machine without the
            # host library): the records the judge needs are plain JSON lines
            # (docs/trace-format.md).
            scan = _scan_trace(trace_path)
        except TraceError as error:
            # A reader older or newer than the runtime that wrote the trace
            # refuses records it does not know; the judge needs only their
            # kind, site and buffer, so it reads them as JSON and says so.
            scan = _scan_trace(trace_path)
            result["notes"].append(f"the trace reader refused the trace ({error}); its "
                                   "records were read as plain JSON lines")
    except Exception as error:  # a damaged trace
        result["trouble"] = result.get("trouble") or f"cannot read the kosan trace: {error}"
        return
    result["oob"] = scan.oob
    result["order"] = order_findings(scan.launches, scan.atomics, scan.summaries)
    if scan.truncated:
        result["notes"].append(f"the kosan trace is incomplete: {scan.truncated}")
    if not any(l.get("instrumented") for l in scan.launches):
        result["notes"].append("no instrumented kernel ran: kosan checked nothing")


_TYPE = re.compile(rb'\{\s*"type"\s*:\s*"(\w+)"')


class _Scan(typing.NamedTuple):
    oob: list
    launches: list
    atomics: list
    summaries: list
    truncated: str | None


def _scan_trace(trace_path: pathlib.Path) -> _Scan:
    """The records read_trace needs, as JSON lines; the payloads of order
    records and the lines of other records are skipped unparsed ("type"
    comes first in every record)."""
    found: dict[str, list] = {kind: [] for kind in
                              ("oob", "launch", "end", "order_atomics", "order_summary")}
    with open(trace_path, "rb") as f:
        for line in f:
            kind = _TYPE.match(line)
            if not kind or kind.group(1).decode() not in found:
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            kind = record.get("type") if isinstance(record, dict) else None
            if kind in found:
                found[kind].append(record)
    return _Scan(found["oob"], found["launch"], found["order_atomics"], found["order_summary"],
                 None if found["end"] else "no end record (the process died)")


def new_work_dir(parent: str | None, name: str) -> tuple[str, bool]:
    """A folder for one candidate's files; True when the judge removes it."""
    if parent:
        path = pathlib.Path(parent) / name
        if path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True)
        return str(path), False
    return tempfile.mkdtemp(prefix=f"kosan-judge-{name}-"), True
