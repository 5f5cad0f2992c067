"""The campaign's reports: text, JSON and an HTML page with inline SVG plots."""

from __future__ import annotations

import html
import json
from pathlib import Path

from ._work import KOSAN_PARTS, ORACLES

FORMATS = ("text", "json")
_COLUMNS = ORACLES + KOSAN_PARTS


def _scores(rows) -> dict:
    judged = [r for r in rows if r["status"] == "judged"]
    nonequiv = [r for r in judged if not r["equivalent"]]
    n = len(nonequiv)
    out = {"mutants": len(rows), "build_errors": len(rows) - len(judged),
           "equivalent": len(judged) - n, "non_equivalent": n, "scores": {}}
    for col in _COLUMNS:
        if col == "own":
            k = sum(r["own"] for r in nonequiv)
        elif col == "kosan":
            k = sum(r["kosan"] for r in nonequiv)
        elif col == "either":
            k = sum(r["own"] or r["kosan"] for r in nonequiv)
        else:
            k = sum(col in json.loads(r["parts"]) for r in nonequiv)
        out["scores"][col] = {"killed": k, "score": k / n if n else None}
    return out


def summarize(db) -> dict:
    rows = db.results()
    meta = db.meta()
    summary = _scores(rows)
    listed = db.mutants()
    summary["listed"] = len(listed)
    summary["listed_by_operator"] = {}
    for m in listed:
        summary["listed_by_operator"][m["operator"]] = summary["listed_by_operator"].get(m["operator"], 0) + 1
    for key, field in (("by_operator", "operator"), ("by_kernel", "kernel")):
        groups: dict = {}
        for r in rows:
            groups.setdefault(r[field], []).append(r)
        summary[key] = {name: _scores(g) for name, g in sorted(groups.items())}
    survivors = []
    for r in rows:
        if r["status"] != "judged" or r["equivalent"] or r["kosan"]:
            continue
        draws = json.loads(r["draws"])
        survivors.append({"kernel": r["kernel"], "id": r["id"], "operator": r["operator"],
                          "where": f"{Path(r['file']).name}:{r['line']}", "description": r["description"],
                          "killed_by_own": bool(r["own"]),
                          "own_check": "; ".join(sorted({d.get("own_check", "") for d in draws})),
                          "kosan": "; ".join(sorted({d.get("kosan_summary", "") for d in draws} - {""})),
                          "same_output": all(d.get("same_output") for d in draws)})
    summary["survivors"] = survivors
    alarms, runs, retried = [], 0, 0
    for k in db.kernels():
        if k["status"] != "ok":
            continue  # a program that fails its own check is reported as such
        for seed, r in db.ref_runs(k["name"]).items():
            runs += 1
            fa = json.loads(r["false_alarms"])
            retried += fa.get("retried", 0)
            if fa.get("parts"):
                alarms.append({"kernel": k["name"], "seed": seed, **fa})
    summary["false_alarms"] = {"reference_runs": runs, "alarms": alarms, "retried": retried}
    summary["kernels"] = [{"name": k["name"], "status": k["status"], "detail": k["detail"],
                           "order_deterministic": bool(k["order_deterministic"])} for k in db.kernels()]
    wall = meta.get("wall_seconds", 0.0)
    summary["wall_seconds"] = wall
    summary["seconds_per_mutant"] = wall / len(rows) if rows else None
    summary["settings"] = meta.get("settings", {})
    summary["scheduler"] = {k: meta.get(k) for k in ("scheduler", "gpus", "per_gpu")}
    return summary


def _retried(fa: dict) -> str:
    n = fa.get("retried", 0)
    return f" ({n} program run{'s' if n != 1 else ''} past the timeout, run again with more time)" if n else ""


def _pct(s) -> str:
    return "-" if s["score"] is None else f"{100 * s['score']:.1f}%"


def _table_text(groups: dict, title: str) -> list[str]:
    head = f"{title:<18} {'mut':>5} {'eq':>4} {'bld':>4} " + " ".join(f"{c:>9}" for c in _COLUMNS)
    lines = [head]
    for name, g in groups.items():
        lines.append(f"{name[:18]:<18} {g['mutants']:>5} {g['equivalent']:>4} {g['build_errors']:>4} "
                     + " ".join(f"{_pct(g['scores'][c]):>9}" for c in _COLUMNS))
    return lines


def text_report(s: dict) -> str:
    lines = [f"kosan campaign: {s['mutants']} mutants judged of {s['listed']} listed; "
             f"{s['build_errors']} did not build, {s['equivalent']} likely equivalent, "
             f"{s['non_equivalent']} not equivalent"]
    lines.append("mutation score over the non-equivalent mutants: " + ", ".join(
        f"{c} {_pct(s['scores'][c])} ({s['scores'][c]['killed']})" for c in _COLUMNS))
    fa = s["false_alarms"]
    lines.append(f"false alarms on the unmutated programs: {len(fa['alarms'])} in {fa['reference_runs']} runs"
                 + _retried(fa))
    if s["seconds_per_mutant"] is not None:
        lines.append(f"wall time: {s['wall_seconds']:.0f} s, {s['seconds_per_mutant']:.2f} s per mutant")
    lines.append("")
    lines += _table_text(s["by_operator"], "operator")
    lines.append("")
    lines += _table_text(s["by_kernel"], "kernel")
    bad = [k for k in s["kernels"] if k["status"] != "ok"]
    if bad:
        lines.append("")
        lines += [f"program {k['name']}: {k['status']} {k['detail']}" for k in bad]
    if fa["alarms"]:
        lines.append("")
        lines += [f"false alarm: {a['kernel']} seed {a['seed']}: {', '.join(a['parts'])}: {a.get('summary', '')}"
                  for a in fa["alarms"]]
    if s["survivors"]:
        lines.append("")
        lines.append(f"mutants kosan did not kill ({len(s['survivors'])}):")
        for m in s["survivors"]:
            lines.append(f"  {m['kernel']} {m['id']} {m['where']} {m['operator']}: {m['description']}"
                         f" | own check: {'killed' if m['killed_by_own'] else 'survived'}"
                         f"{'' if m['same_output'] else ', output differs'}")
    return "\n".join(lines) + "\n"


_COLORS = {"own": "#888888", "kosan": "#1f77b4", "either": "#2ca02c", "memory": "#d62728",
           "race": "#bcbd22", "diff": "#9467bd", "precision": "#ff7f0e", "order": "#8c564b",
           "crash": "#e377c2"}


def _svg_bars(groups: dict, columns, title: str) -> str:
    """Grouped bars: the score of each oracle (columns) per group."""
    names = list(groups)
    bar, gap, height, left = 9, 14, 200, 40
    width = left + len(names) * (len(columns) * bar + gap) + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 110}" '
           f'role="img" aria-label="{html.escape(title)}">']
    for pct in (0, 25, 50, 75, 100):
        y = 10 + height * (1 - pct / 100)
        out.append(f'<line x1="{left}" x2="{width}" y1="{y}" y2="{y}" stroke="#ddd"/>'
                   f'<text x="{left - 4}" y="{y + 4}" font-size="10" text-anchor="end">{pct}%</text>')
    for i, name in enumerate(names):
        x0 = left + i * (len(columns) * bar + gap) + gap / 2
        for j, col in enumerate(columns):
            score = groups[name]["scores"][col]["score"]
            h = 0 if score is None else height * score
            out.append(f'<rect x="{x0 + j * bar}" y="{10 + height - h}" width="{bar - 1}" height="{h}" '
                       f'fill="{_COLORS[col]}"><title>{html.escape(name)} {col}: '
                       f'{_pct(groups[name]["scores"][col])}</title></rect>')
        cx = x0 + len(columns) * bar / 2
        out.append(f'<text x="{cx}" y="{height + 22}" font-size="10" text-anchor="end" '
                   f'transform="rotate(-45 {cx} {height + 22})">{html.escape(name)}</text>')
    out.append("</svg>")
    return "".join(out)


def _legend(columns) -> str:
    return " ".join(f'<span class="key" style="background:{_COLORS[c]}"></span>{c}' for c in columns)


def _table_html(groups: dict, title: str) -> str:
    head = "".join(f"<th>{c}</th>" for c in ("mutants", "equivalent", "build errors", *_COLUMNS))
    rows = []
    for name, g in groups.items():
        cells = [g["mutants"], g["equivalent"], g["build_errors"], *(_pct(g["scores"][c]) for c in _COLUMNS)]
        rows.append(f"<tr><th>{html.escape(name)}</th>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return f"<table><tr><th>{title}</th>{head}</tr>{''.join(rows)}</table>"


def html_report(s: dict) -> str:
    cols = list(_COLUMNS)
    survivors = "".join(
        f"<tr><td>{html.escape(m['kernel'])}</td><td><code>{m['id']}</code></td><td>{html.escape(m['where'])}</td>"
        f"<td>{m['operator']}</td><td>{html.escape(m['description'])}</td>"
        f"<td>{'killed' if m['killed_by_own'] else 'survived'}</td>"
        f"<td>{'identical' if m['same_output'] else 'differs'}</td>"
        f"<td><pre>{html.escape(m['own_check'])}\n{html.escape(m['kosan'])}</pre></td></tr>"
        for m in s["survivors"])
    overall = {"all mutants": {"scores": s["scores"]}}
    fa = s["false_alarms"]
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kosan campaign</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #ccc;padding:2px 6px;font-size:13px;text-align:right}}
pre{{margin:0;text-align:left;white-space:pre-wrap;max-width:50em}}
.key{{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}}</style></head>
<body><h1>kosan campaign</h1>
<p id="summary">{s['mutants']} mutants judged of {s['listed']} listed: {s['build_errors']} did not build,
{s['equivalent']} likely equivalent, {s['non_equivalent']} not equivalent.
False alarms on the unmutated programs: {len(fa['alarms'])} in {fa['reference_runs']} runs{html.escape(_retried(fa))}.
Wall time {s['wall_seconds']:.0f} s{'' if s['seconds_per_mutant'] is None else f", {s['seconds_per_mutant']:.2f} s per mutant"}.</p>
<h2>Mutation score per oracle</h2><p>{_legend(cols)}</p>{_svg_bars(overall, cols, "score per oracle")}
<h2>Per operator</h2>{_svg_bars(s['by_operator'], cols, "score per operator and oracle")}
{_table_html(s['by_operator'], 'operator')}
<h2>Per program</h2>{_svg_bars(s['by_kernel'], cols, "score per program and oracle")}
{_table_html(s['by_kernel'], 'program')}
<h2 id="survivors">Mutants kosan did not kill ({len(s['survivors'])})</h2>
<table><tr><th>program</th><th>id</th><th>where</th><th>operator</th><th>mutant</th><th>own check</th>
<th>output</th><th>what the oracles said</th></tr>{survivors}</table>
</body></html>
"""


def write_reports(summary: dict, out: Path) -> dict:
    texts = {"text": text_report(summary), "json": json.dumps(summary, indent=2) + "\n"}
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.txt").write_text(texts["text"])
    (out / "report.json").write_text(texts["json"])
    (out / "report.html").write_text(html_report(summary))
    return texts
