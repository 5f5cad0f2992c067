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
# .gpu-carry/, unpacked as test/gpu/device-run.sh does). Stopped by its time
# limit, the campaign still writes the reports of what it judged; the same
# command resumes it.
set -u
cd "$(dirname "$0")/../.."
root=$PWD
out=${OUT:-/tmp/kosan-campaign-out}
mkdir -p "$out"
if [ -f .gpu-carry/bundle.txz ] && [ ! -x build/bin/kosan-mutate ]; then
  tar xJf .gpu-carry/bundle.txz
fi
if ls .gpu-carry/debs/*.deb >/dev/null 2>&1 && ! command -v clang++-19 >/dev/null; then
  mkdir -p .gpu/clang
  for deb in .gpu-carry/debs/*.deb; do dpkg -x "$deb" .gpu/clang; done
  export LD_LIBRARY_PATH=$root/.gpu/clang/usr/lib/x86_64-linux-gnu:$root/.gpu/clang/usr/lib/llvm-19/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export KOSAN_CLANG=$root/.gpu/clang/usr/lib/llvm-19/bin/clang++
fi
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
