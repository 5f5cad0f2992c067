#!/usr/bin/env bash
# Builds bench/kernels.cu plain and instrumented into .bench-bin/kernels/,
# and records per-kernel registers, spills and stack (ptxas -v) of both, the
# cost instrumentation puts on register pressure. Run from the repository root
# after building kosan.
set -euo pipefail
out=${1:-.bench-bin/kernels}
cuda=${CUDA_PATH:-/usr/local/cuda}
arch=${KOSAN_CUDA_ARCH:-sm_90}
mkdir -p "$out"
drv=build/bin/kosan-clang++
"$drv" -O3 --cuda-gpu-arch="$arch" bench/kernels.cu -o "$out/kernels"
"$drv" --kosan-plain -O3 --cuda-gpu-arch="$arch" bench/kernels.cu -o "$out/kernels.plain"
"$drv" -O3 --cuda-gpu-arch="$arch" --cuda-device-only -S bench/kernels.cu -o "$out/kernels.ptx"
"$cuda/bin/ptxas" -arch="$arch" -v "$out/kernels.ptx" -o /dev/null 2> "$out/ptxas.txt"
python3 - "$out/ptxas.txt" > "$out/registers.md" <<'PY'
import sys
sys.path.insert(0, "bench")
from ptxas_regs import parse, demangle
entries = parse(sys.argv[1])
print("| kernel | registers plain | registers kosan | spill bytes plain | spill bytes kosan | stack plain | stack kosan |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name, e in sorted(entries.items()):
    if name.endswith("__kosan"):
        continue
    k = entries.get(name + "__kosan", {})
    print(f"| {demangle(name)} | {e.get('regs','?')} | {k.get('regs','?')} | {e.get('spill','?')} | {k.get('spill','?')} | {e.get('stack','?')} | {k.get('stack','?')} |")
PY
cat "$out/registers.md"
