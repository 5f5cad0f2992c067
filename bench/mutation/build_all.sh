#!/bin/bash
# Builds every program of the kernel set with kosan-clang++, plain and with
# every check, and prints one line per build (no GPU needed). With
# --mutants N it also builds, device code only, the first N mutants of each
# operator of each program with the checks, which shows that the mutants
# compile and instrument.
set -u
cd "$(dirname "$0")/../.."
per_op=0
[ "${1:-}" = --mutants ] && per_op=${2:-1}
bin=build/bin
out=${OUT:-/tmp/kosan-mutation-builds}
mkdir -p "$out"
fail=0
for src in bench/mutation/kernels/*.cu; do
  name=$(basename "$src" .cu)
  for mode in --kosan-plain --kosan-checks=oob,precision,order,race; do
    if $bin/kosan-clang++ -O2 --cuda-gpu-arch=sm_90 $mode "$src" -o "$out/$name" 2>"$out/$name.err"; then
      echo "ok    $name $mode"
    else
      echo "FAIL  $name $mode: $(head -1 "$out/$name.err")"; fail=1
    fi
  done
  [ "$per_op" = 0 ] && continue
  while read -r id op; do
    if $bin/kosan-clang++ -O2 --cuda-gpu-arch=sm_90 --kosan-checks=oob,precision,order,race --kosan-mutate="$id" \
         --cuda-device-only -c "$src" -o "$out/$name.$id.o" 2>"$out/$name.$id.err"; then
      echo "ok    $name mutant $id ($op)"
    else
      echo "FAIL  $name mutant $id ($op): $(grep -m1 error "$out/$name.$id.err")"; fail=1
    fi
  done < <($bin/kosan-mutate list --format json -- "$src" -O2 --cuda-gpu-arch=sm_90 2>/dev/null |
    python3 -c "
import json, sys, collections
seen = collections.Counter()
for m in json.load(sys.stdin)['mutants']:
    seen[m['operator']] += 1
    if seen[m['operator']] <= $per_op:
        print(m['id'], m['operator'])")
done
exit $fail
