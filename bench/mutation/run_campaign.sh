#!/bin/bash
# The mutation campaign of bench/mutation/kernels on one GPU machine (an
# H200 here), in under 10 minutes: every program, 21 mutants of each (504
# in all; MUTANTS=N for another count) taken in turn from each operator,
# two input draws, 8 programs at once on the GPU, builds on every CPU
# (LIMIT=S seconds for the campaign, 500 by default). Results (the SQLite file, report.txt,
# report.json, report.html, the log) go to $OUT/campaign; builds and traces
# to $TMPDIR.
#
# Run from anywhere, with kosan built in build/ (or, on a machine without
# LLVM, the bundle of test/gpu/make-device-bundle.sh --with-clang in
# .gpu-carry/, unpacked by test/gpu/device-env.sh). Stopped by its time
# limit, the campaign still writes the reports of what it judged; the same
# command resumes it.
set -u
cd "$(dirname "$0")/../.."
root=$PWD
export OUT=${OUT:-/tmp/kosan-campaign-out}
# The bundle, unpacked and put on the paths as for the GPU tests.
if [ -d .gpu-carry ]; then
  . test/gpu/device-env.sh
fi
out=$OUT
mkdir -p "$out"
export KOSAN_BUILD_DIR=$root/build
nvidia-smi -L | tee "$out/gpu.txt"
start=$(date +%s)
# ${LIMIT:-500} s for the campaign, the rest for the reports.
timeout -s INT "${LIMIT:-500}" build/bin/kosan campaign bench/mutation/kernels --out "$out/campaign" \
  --work "${TMPDIR:-/tmp}/kosan-campaign-work" --seeds 1,2 --max-mutants "${MUTANTS:-21}" --per-gpu 8 --jobs "$(nproc)" --timeout 8 --arch sm_90 \
  > "$out/campaign.log" 2>&1
status=$?
echo "kosan campaign: exit status $status after $(( $(date +%s) - start )) s" | tee -a "$out/campaign.log"
build/bin/kosan campaign bench/mutation/kernels --out "$out/campaign" --report-only > "$out/report.txt"
cat "$out/report.txt"
