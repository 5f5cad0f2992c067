#!/usr/bin/env bash
# Builds bench/kernels.cu plain and once per check list into OUT: kernels.plain
# and kernels.<list> (a comma becomes '+'), and records registers, spills and
# stack per kernel from ptxas -v in OUT/registers.md. Run from the repository
# root after building kosan.
# usage: bench/build_variants.sh OUT CHECKS... (e.g. .bench-bin/order order oob,order)
set -euo pipefail
out=$1
shift
cuda=${CUDA_PATH:-/usr/local/cuda}
arch=${KOSAN_CUDA_ARCH:-sm_90}
mkdir -p "$out"
drv=build/bin/kosan-clang++
# Extra compiler flags for every variant but plain, e.g. an A/B of a pass
# option: KOSAN_BENCH_FLAGS="-mllvm -kosan-version-kernel-max=0".
read -r -a extra <<< "${KOSAN_BENCH_FLAGS:-}"
"$drv" --kosan-plain -O3 --cuda-gpu-arch="$arch" bench/kernels.cu -o "$out/kernels.plain"
names=()
for v in "$@"; do
  name=${v/,/+}
  names+=("$name")
  "$drv" --kosan-checks=$v "${extra[@]}" -O3 --cuda-gpu-arch="$arch" bench/kernels.cu -o "$out/kernels.$name"
  "$drv" --kosan-checks=$v "${extra[@]}" -O3 --cuda-gpu-arch="$arch" --cuda-device-only -S bench/kernels.cu \
    -o "$out/kernels.$name.ptx"
  "$cuda/bin/ptxas" -arch="$arch" -v "$out/kernels.$name.ptx" -o /dev/null 2> "$out/ptxas.$name.txt"
done
python3 - "$out" "${names[@]}" > "$out/registers.md" <<'PY'
import sys
sys.path.insert(0, "bench")
from ptxas_regs import print_table
print_table(sys.argv[1], tuple(sys.argv[2:]))
PY
cat "$out/registers.md"
