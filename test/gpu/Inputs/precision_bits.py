"""Checks the bits a kernel's global stores lose, from kosan-report --format json.

    kosan-report --format json run.kosan | python3 precision_bits.py KERNEL MIN MAX

For every precision site of kind "store" in a function whose demangled name
starts with KERNEL, prints "store FUNCTION: BITS bits: ok" when
MIN <= bits_lost < MAX ("inf" for no upper limit), and exits 1 otherwise, or
when there is no such site.
"""
import json
import math
import sys

kernel, low, high = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
doc = json.load(sys.stdin)
ok = True
found = False
for site in doc["precision_sites"]:
    if site["kind"] != "store" or not site["site"]["function"].startswith(kernel):
        continue
    found = True
    bits = site["bits_lost"]
    bits = math.inf if bits == "inf" else float(bits)
    inside = low <= bits < high or (math.isinf(bits) and math.isinf(high))
    where = "%s:%d" % (site["site"]["file"], site["site"]["line"])
    print("store %s: %s bits: %s (%s)" % (site["site"]["function"],
          "inf" if math.isinf(bits) else "%.2f" % bits,
          "ok" if inside else "NOT in [%g, %g)" % (low, high), where))
    ok = ok and inside
if not found:
    print("no store site in a function named %s*" % kernel)
sys.exit(0 if ok and found else 1)
