"""Prints `kosan judge` JSON reports as one Markdown table: allclose and
kosan side by side, per candidate.  usage: table.py REPORT.json ..."""
import json
import os
import sys


def main(paths):
    print("| problem | candidate | allclose (KernelBench) | kosan | reasons |")
    print("| --- | --- | --- | --- | --- |")
    for path in paths:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        problem = os.path.basename(os.path.dirname(report["problem"]))
        for c in report["candidates"]:
            reasons = []
            for r in c["reasons"]:
                if r["reason"] not in reasons:
                    reasons.append(r["reason"])
            why = ", ".join(reasons) or (c.get("trouble") or "")
            print(f"| {problem} | {c['name'][:-3]} | {c['allclose'].upper()} | "
                  f"{c['kosan'].upper()} | {why} |")


if __name__ == "__main__":
    main(sys.argv[1:])
