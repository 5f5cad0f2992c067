#!/bin/bash
# Runs the GPU tests and the examples, built on another machine, where a GPU
# is. Run from the repository root with build/ and .gpu/, or with
# .gpu-carry/ (see make-device-bundle.sh), present. Logs go to $OUT when it is set.
set -u
. test/gpu/device-env.sh
nvidia-smi -L | tee "$out/gpu.txt"
for ex in saxpy scale neighbor; do
  echo "== examples/$ex" | tee -a "$out/examples.log"
  ./build/examples/$ex >> "$out/examples.log" 2>&1
  echo "exit status $?" >> "$out/examples.log"
done
echo "== examples/judge.sh" | tee -a "$out/examples.log"
JUDGE_OUT=$out/judge examples/judge.sh build >> "$out/examples.log" 2>&1
echo "exit status $?" >> "$out/examples.log"
python3 .gpu/lit/lit.py -v build/test/gpu 2>&1 | tee "$out/gpu-tests.log" | tail -40
