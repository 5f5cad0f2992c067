#!/usr/bin/env python3
"""Static SASS cost of each kernel's hot loop, without a GPU.

usage: bench/order/sass_cost.py KERNELS.cubin [...]   (cuobjdump from CUDA_PATH/bin,
       or set CUOBJDUMP)

Per kernel (plain and __kosan clones alike): the instructions of its
innermost loops (each backward branch's range that holds no other backward
branch); apart, the instructions of the subroutines that range calls (a
call into the device runtime runs its body, one path of it, at every call
it makes). The weight of an instruction is SM cycles per warp at the sm_90
throughput of the CUDA C Programming Guide's table (results per clock per
SM): 128 for fp32 add/mul/fma (0.25), 64 for 32-bit integer add, multiply,
logic, shift, compare and select (0.5), IMAD.WIDE as two multiplies, 32 for
shuffles (1), 16 for MUFU and conversions (2); every other instruction
(memory, control, uniform datapath) takes its issue slot (0.25). Memory
instructions are counted apart: they cost bandwidth, which this does not
weigh. A kernel without a loop is counted whole.
"""
import os
import re
import subprocess
import sys
from collections import Counter

FP32 = {"FFMA", "FADD", "FMUL", "FMNMX", "FSEL", "FSETP", "FCHK"}
INT = {"IMAD", "IADD3", "LOP3", "SHF", "ISETP", "SEL", "LEA", "IABS", "IMNMX", "MOV", "PRMT",
       "POPC", "FLO", "BREV", "IADD", "ISCADD", "IMUL", "LOP", "SHL", "SHR", "PLOP3", "P2R",
       "R2P", "VIADD", "VIMNMX"}
SLOW = {"MUFU", "F2F", "F2I", "I2F", "I2FP", "F2FP", "FRND"}
MEMORY = re.compile(r"^(LD|ST|ATOM|RED|LDS|STS|LDG|STG|LDC|LDSM|ULDC)")

INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)([^;]*);")


def weight(op):
    base = op.split(".")[0]
    if base in FP32:
        return 0.25
    if base == "IMAD" and ".WIDE" in op:
        return 1.0
    if base in INT:
        return 0.5
    if base == "SHFL":
        return 1.0
    if base in SLOW:
        return 2.0
    return 0.25


def functions(cubin):
    tool = os.environ.get("CUOBJDUMP") or os.path.join(
        os.environ.get("CUDA_PATH", "/usr/local/cuda"), "bin", "cuobjdump")
    text = subprocess.run([tool, "-sass", cubin], check=True, capture_output=True,
                          text=True).stdout
    name, insns, out = None, [], {}
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            if name:
                out[name] = insns
            name, insns = m.group(1), []
            continue
        m = INSN.search(line)
        if m and name:
            insns.append((int(m.group(1), 16), m.group(3), m.group(4)))
    if name:
        out[name] = insns
    return out


def hot(insns):
    """The instructions the innermost loops run, with the subroutines they call."""
    by_addr = {a: i for i, (a, _, _) in enumerate(insns)}
    loops = []
    for i, (a, op, rest) in enumerate(insns):
        if op.startswith("BRA"):
            m = re.search(r"0x([0-9a-f]+)", rest)
            if m and int(m.group(1), 16) < a and int(m.group(1), 16) in by_addr:
                loops.append((by_addr[int(m.group(1), 16)], i))
    innermost = [(s, e) for s, e in loops
                 if not any((s2, e2) != (s, e) and s <= s2 and e2 <= e for s2, e2 in loops)]
    if not innermost:
        return insns, None
    picked = set()
    for s, e in innermost:
        picked.update(range(s, e + 1))
    loop = set(picked)
    # Subroutines called from the loops: from the target to its RET.
    todo = [insns[i] for i in sorted(picked)]
    seen = set()
    while todo:
        a, op, rest = todo.pop()
        if not op.startswith("CALL"):
            continue
        m = re.search(r"0x([0-9a-f]+)", rest)
        if not m or int(m.group(1), 16) not in by_addr or m.group(1) in seen:
            continue
        seen.add(m.group(1))
        j = by_addr[int(m.group(1), 16)]
        while j < len(insns):
            if j not in picked:
                picked.add(j)
                todo.append(insns[j])
            if insns[j][1].startswith("RET"):
                break
            j += 1
    return [insns[i] for i in sorted(loop)], len(picked - loop)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: sass_cost.py KERNELS.cubin [...]")
    print("| cubin | kernel | counted | instructions | weighted cycles/warp | integer | fp32 | memory "
          "| calls | callee instructions |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for cubin in sys.argv[1:]:
        for name, insns in sorted(functions(cubin).items()):
            body, callee = hot(insns)
            kinds = Counter()
            cycles = 0.0
            for _, op, _ in body:
                cycles += weight(op)
                base = op.split(".")[0]
                if base in INT:
                    kinds["int"] += 2 if (base == "IMAD" and ".WIDE" in op) else 1
                elif base in FP32:
                    kinds["fp32"] += 1
                elif MEMORY.match(op) and not op.startswith("ULDC") and not op.startswith("LDC"):
                    kinds["mem"] += 1
                elif op.startswith("CALL"):
                    kinds["call"] += 1
            print(f"| {os.path.basename(cubin)} | {name} | {'whole' if callee is None else 'loop'} | "
                  f"{len(body)} | {cycles:.2f} | {kinds['int']} | {kinds['fp32']} | {kinds['mem']} | "
                  f"{kinds['call']} | {callee or 0} |")


if __name__ == "__main__":
    main()
