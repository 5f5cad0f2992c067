#!/usr/bin/env python3
"""Bytes of order records (order_stores, order_atomics, order_summary lines)
in traces, per element stored and per atomic contribution.

usage: bench/order/trace_bytes.py TRACE...
"""
import json, os, sys

print("| trace | stores | atomic contributions | order bytes | bytes per store or contribution | trace bytes |")
print("|---|---:|---:|---:|---:|---:|")
for path in sys.argv[1:]:
    stores = atomics = order_bytes = 0
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            t = r.get("type")
            if t in ("order_stores", "order_atomics", "order_summary"):
                order_bytes += len(line)
            if t == "order_summary":
                stores += r["stores"]
                atomics += r["atomics"]
    n = stores + atomics
    per = f"{order_bytes / n:.2f}" if n else "-"
    print(f"| {os.path.basename(path)} | {stores} | {atomics} | {order_bytes} | {per} | {os.path.getsize(path)} |")
