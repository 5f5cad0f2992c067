"""Registers, spill bytes and stack bytes per entry function, from the
output of `ptxas -v` (used by bench/build_kernels.sh and
bench/precision/build.sh)."""
import re
import subprocess


def parse(path):
    entries, cur = {}, None
    for line in open(path):
        m = re.search(r"Compiling entry function '(\S+)'", line)
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
