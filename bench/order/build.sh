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
from ptxas_regs import print_table
print_table(sys.argv[1], ("order", "oob+order"))
PY
cat "$out/registers.md"
