"""Checks the precision verdict of one kernel, from kosan-report --format json.

    kosan-report --format json run.kosan | python3 precision_verdict.py KERNEL finding [OP]
    kosan-report --format json run.kosan | python3 precision_verdict.py KERNEL clean

Looks at the precision sites of functions whose demangled name starts with
KERNEL. "finding": at least one of them must be a finding (the "finding"
field kosan-report computes at its threshold); with OP, the root cause of
the worst finding (its "cause", or the site itself for a narrowing into
shared memory) must be an operation whose name contains OP (or one of
OP's alternatives, separated by |). Prints
"KERNEL: finding ... cause OP at LINE: ok". "clean": none of them may be a
finding. Exits 1 when the verdict is not the one asked for.
"""
import sys

kernel, want = sys.argv[1], sys.argv[2]
op = sys.argv[3] if len(sys.argv) > 3 else None
doc = __import__("json").load(sys.stdin)
sites = [s for s in doc["precision_sites"] if s["site"]["function"].startswith(kernel)]
findings = [s for s in sites if s["finding"]]
if not sites:
    print("%s: no precision site" % kernel)
    sys.exit(1)
if want == "clean":
    for s in findings:
        print("%s: unexpected finding at %s:%d (%s, %s bits of fp32, allowance %s)" % (
            kernel, s["site"]["file"], s["site"]["line"], s["kind"], s["scaled_bits"],
            s["allowance"]))
    if not findings:
        print("%s: no finding among %d sites: ok" % (kernel, len(sites)))
    sys.exit(1 if findings else 0)

if not findings:
    print("%s: no finding among %d sites" % (kernel, len(sites)))
    sys.exit(1)
worst = findings[0]  # kosan-report lists sites worst first
if "cause" in worst:
    cause_op, cause_line = worst["cause"]["op"], worst["cause"]["site"]["line"]
elif worst["kind"] in ("narrow", "nonfinite"):
    cause_op, cause_line = worst["op"], worst["site"]["line"]
else:
    cause_op, cause_line = "", 0
ok = op is None or any(alt in cause_op for alt in op.split("|"))
print("%s: finding at line %d (%s), cause %s at line %d: %s" % (
    kernel, worst["site"]["line"], worst["kind"], cause_op or "none", cause_line,
    "ok" if ok else "NOT %s" % op))
sys.exit(0 if ok else 1)
