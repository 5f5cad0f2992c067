#!/usr/bin/env bash
# Builds bench/kernels.cu three ways into .bench-bin/order/: plain, order
# (checks=order alone) and OOB + order, and records registers, spills and
# stack per kernel from ptxas -v. Run from the repository root after
# building kosan.
set -euo pipefail
out=${1:-.bench-bin/order}
cuda=${CUDA_PATH:-/usr/local/cuda}
arch=${KOSAN_CUDA_ARCH:-sm_90}
mkdir -p "$out"
drv=build/bin/kosan-clang++
"$drv" --kosan-plain -O3 --cuda-gpu-arch="$arch" bench/kernels.cu -o "$out/kernels.plain"
for v in order oob,order; do
  name=${v/,/+}
  "$drv" --kosan-checks=$v -O3 --cuda-gpu-arch="$arch" bench/kernels.cu -o "$out/kernels.$name"
  "$drv" --kosan-checks=$v -O3 --cuda-gpu-arch="$arch" --cuda-device-only -S bench/kernels.cu \
    -o "$out/kernels.$name.ptx"
  "$cuda/bin/ptxas" -arch="$arch" -v "$out/kernels.$name.ptx" -o /dev/null 2> "$out/ptxas.$name.txt"
done
python3 - "$out" > "$out/registers.md" <<'PY'
import sys
sys.path.insert(0, "bench")
from ptxas_regs import parse, demangle
out = sys.argv[1]
variants = {v: parse(f"{out}/ptxas.{v}.txt") for v in ("order", "oob+order")}
plain = variants["order"]  # the originals are in every module, uninstrumented
print("| kernel | registers plain | order | oob+order | spill bytes plain / order / both | stack bytes plain / order / both |")
print("|---|---:|---:|---:|---|---|")
for name, e in sorted(plain.items()):
    if name.endswith("__kosan"):
        continue
    k = {v: variants[v].get(name + "__kosan", {}) for v in variants}
    regs = [str(e.get("regs", "?"))] + [str(k[v].get("regs", "?")) for v in variants]
    spill = [str(e.get("spill", "?"))] + [str(k[v].get("spill", "?")) for v in variants]
    stack = [str(e.get("stack", "?"))] + [str(k[v].get("stack", "?")) for v in variants]
    print(f"| {demangle(name)} | " + " | ".join(regs) + " | " + " / ".join(spill) + " | " + " / ".join(stack) + " |")
PY
cat "$out/registers.md"
