"""Registers, spill bytes and stack bytes per entry function, from the
output of `ptxas -v` (used by bench/build_kernels.sh and
bench/precision/build.sh and bench/order/build.sh)."""
import re
import subprocess


def parse(path):
    entries, cur = {}, None
    for line in open(path):
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m:
            cur = m.group(1)
            continue
        # The device functions an entry calls get their properties listed
        # after the entry's: they are not the entry's.
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            cur = m.group(1)
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and cur:
            entries.setdefault(cur, {}).update(stack=int(m.group(1)), spill=int(m.group(2)) + int(m.group(3)))
        m = re.search(r"Used (\d+) registers", line)
        if m and cur:
            entries.setdefault(cur, {})["regs"] = int(m.group(1))
    return entries


def demangle(name):
    try:
        return subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip()
    except OSError:
        return name


def print_table(out, variants):
    """Markdown table of registers, spills and stack per kernel: the plain
    kernel (every module holds the originals, uninstrumented) against its
    instrumented clone in each variant, from {out}/ptxas.{variant}.txt."""
    parsed = {v: parse(f"{out}/ptxas.{v}.txt") for v in variants}
    plain = parsed[variants[0]]
    names = " | ".join(variants)
    slashed = " / ".join(variants)
    print(f"| kernel | registers plain | {names} | spill bytes plain / {slashed} "
          f"| stack bytes plain / {slashed} |")
    print("|---|---:|" + "---:|" * len(variants) + "---|---|")
    for name, e in sorted(plain.items()):
        if name.endswith("__kosan"):
            continue
        k = {v: parsed[v].get(name + "__kosan", {}) for v in variants}
        cols = {f: [str(e.get(f, "?"))] + [str(k[v].get(f, "?")) for v in variants]
                for f in ("regs", "spill", "stack")}
        print(f"| {demangle(name)} | " + " | ".join(cols["regs"]) + " | " +
              " / ".join(cols["spill"]) + " | " + " / ".join(cols["stack"]) + " |")
