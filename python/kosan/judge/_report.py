"""The judge's report as text, JSON or JUnit XML."""

from __future__ import annotations

import json
import math
import os
import xml.etree.ElementTree as ET

from ._verdict import describe_sizes

_WORD = {"pass": "PASS", "fail": "FAIL", "trouble": "TROUBLE", "not run": "NOT RUN"}


def _finite(value):
    """JSON has no inf or NaN: they become strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def headline(candidate: dict) -> str:
    """`== NAME: allclose PASS, kosan FAIL (bits-lost, out-of-bounds)`"""
    reasons = sorted({r["reason"] for r in candidate["reasons"]},
                     key=[r["reason"] for r in candidate["reasons"]].index)
    why = f" ({', '.join(reasons)})" if reasons else ""
    return (f"== {candidate['name']}: allclose {_WORD[candidate['allclose']]}, "
            f"kosan {_WORD[candidate['kosan']]}{why}")


def _plan_text(report: dict) -> str:
    trials = report["trials"]
    own = [t for t in trials if t["own"]]
    sizes = ", ".join(f"{k}={v}" for k, v in report["sizes"].items())
    text = f"{len(own)} seed{'s' if len(own) != 1 else ''}" + (f" at {sizes}" if sizes else "")
    others = [t for t in trials if not t["own"] and t.get("kind") != "batch"]
    for t in others:
        text += "; 1 at " + ", ".join(f"{k}={v}" for k, v in t["sizes"].items())
    if report.get("batch"):
        text += f"; batch variable {report['batch']}"
    return text


def text(report: dict) -> str:
    lines = [f"kosan judge {os.path.relpath(report['problem'])}: {_plan_text(report)}"]
    for c in report["candidates"]:
        lines.append(headline(c))
        if c.get("allclose_detail"):
            lines.append(f"   allclose: {c['allclose_detail']}")
        if c.get("trouble"):
            lines.append(f"   trouble: {c['trouble']}")
        for r in c["reasons"]:
            where = ""
            if r.get("where"):
                where = f" [{r['where']}" + (f"; {r['trials']} trials" if r["trials"] > 1 else "") + "]"
            message = r["message"].replace("\n", "\n      ")
            lines.append(f"   {r['reason']}: {message}{where}")
        for note in c.get("notes", []):
            lines.append(f"   note: {note}")
        timing = f"   {c['trials']} of {c['planned_trials']} trials ran"
        if c.get("build_seconds") is not None:
            timing += f"; built and loaded in {c['build_seconds']:.1f} s"
        if c.get("seconds") is not None:
            timing += f"; {c['seconds']:.1f} s in all"
        if c.get("device"):
            timing += f"; {c['device']}"
        lines.append(timing)
        if c.get("work_dir"):
            lines.append(f"   files: {c['work_dir']}")
    failing = sum(c["kosan"] == "fail" for c in report["candidates"])
    trouble = sum(c["kosan"] == "trouble" for c in report["candidates"])
    allclose_pass = sum(c["allclose"] == "pass" for c in report["candidates"])
    n = len(report["candidates"])
    summary = (f"SUMMARY: kosan judge: {failing} of {n} candidate{'s' if n != 1 else ''} fail"
               + (f", {trouble} in trouble" if trouble else "")
               + f"; allclose passes {allclose_pass} of {n}")
    lines.append(summary)
    return "\n".join(lines) + "\n"


def as_json(report: dict) -> str:
    return json.dumps(_finite(report), indent=2) + "\n"


def junit(report: dict) -> str:
    suite_name = os.path.relpath(report["problem"])
    candidates = report["candidates"]
    root = ET.Element("testsuites", name="kosan judge")
    suite = ET.SubElement(root, "testsuite", name=suite_name, tests=str(len(candidates)),
                          failures=str(sum(c["kosan"] == "fail" for c in candidates)),
                          errors=str(sum(c["kosan"] == "trouble" for c in candidates)),
                          time=f"{sum(c.get('seconds') or 0 for c in candidates):.3f}")
    for c in candidates:
        case = ET.SubElement(suite, "testcase", classname=f"kosan.judge.{suite_name}",
                             name=c["name"], time=f"{c.get('seconds') or 0:.3f}")
        props = ET.SubElement(case, "properties")
        ET.SubElement(props, "property", name="allclose", value=c["allclose"])
        ET.SubElement(props, "property", name="kosan", value=c["kosan"])
        if c["kosan"] == "trouble":
            error = ET.SubElement(case, "error", type="trouble", message=c.get("trouble") or "")
            error.text = c.get("trouble") or ""
        elif c["kosan"] == "fail":
            kinds = []
            for r in c["reasons"]:
                if r["reason"] not in kinds:
                    kinds.append(r["reason"])
            failure = ET.SubElement(case, "failure", type=",".join(kinds),
                                    message=headline(c)[3:])
            failure.text = "\n".join(
                f"{r['reason']}: {r['message']}" + (f" [{r['where']}]" if r.get("where") else "")
                for r in c["reasons"])
        out = [f"allclose: {c['allclose']}" + (f" ({c['allclose_detail']})" if c.get("allclose_detail") else "")]
        out += [f"note: {n}" for n in c.get("notes", [])]
        ET.SubElement(case, "system-out").text = "\n".join(out)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


FORMATS = {"text": text, "json": as_json, "junit": junit}


def progress_line(name: str, event: dict, total: int) -> str:
    if event.get("phase") == "build":
        return f"[{name}] building the candidate ..."
    return f"[{name} {event['index'] + 1}/{total}] {describe_sizes(event)} ..."
