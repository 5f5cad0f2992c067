#!/bin/bash
# Runs the GPU tests and the examples, built on another machine, where a GPU
# is. Run from the repository root with build/ and .gpu/, or with
# .gpu-carry/ (see make-device-bundle.sh), present. Logs go to $OUT when it is set.
set -u
out=${OUT:-/tmp/kosan-gpu-out}
mkdir -p "$out"
root=$PWD
[ -f .gpu-carry/bundle.txz ] && tar xJf .gpu-carry/bundle.txz
# The build tree records the absolute path it was configured in.
built_in=$(sed -n 's/^config.kosan_obj_root = "\(.*\)\/build"$/\1/p' build/test/gpu/lit.site.cfg.py)
if [ -n "$built_in" ] && [ "$built_in" != "$root" ] && [ ! -e "$built_in" ]; then
  mkdir -p "$(dirname "$built_in")" && ln -s "$root" "$built_in"
fi
export PATH=$root/.gpu/bin:$PATH
export LD_LIBRARY_PATH=$root/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Debian's clang 19, carried as packages (make-device-bundle.sh --with-clang):
# unpacked here, it lets kosan compile on this machine.
if ls .gpu-carry/debs/*.deb >/dev/null 2>&1; then
  mkdir -p .gpu/clang
  for deb in .gpu-carry/debs/*.deb; do dpkg -x "$deb" .gpu/clang; done
  export LD_LIBRARY_PATH=$root/.gpu/clang/usr/lib/x86_64-linux-gnu:$root/.gpu/clang/usr/lib/llvm-19/lib:$LD_LIBRARY_PATH
  export KOSAN_CLANG=$root/.gpu/clang/usr/lib/llvm-19/bin/clang++
  echo "clang for kosan: $($KOSAN_CLANG --version | head -1)" | tee -a "$out/gpu.txt"
fi
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
