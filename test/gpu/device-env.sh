# Sourced on the GPU machine from the repository root, with build/ and .gpu/,
# or .gpu-carry/ (see make-device-bundle.sh), present: unpacks the bundle,
# links the path the build tree was configured in, and sets PATH,
# LD_LIBRARY_PATH and (with the carried clang packages) KOSAN_CLANG, so that
# kosan's tools, tests and benchmarks run there as they do where they were
# built. Sets `out` to $OUT (or /tmp/kosan-gpu-out) and creates it.
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
# Debian's LLVM 19 library (libkosan_codegen.so makes deferred clones PTX
# with it) and, with make-device-bundle.sh --with-clang, clang 19, carried
# as packages: unpacked here; clang lets kosan compile on this machine.
if ls .gpu-carry/debs/*.deb >/dev/null 2>&1; then
  # Unpacked again when the packages differ from those unpacked last.
  debs=$(cd .gpu-carry/debs && ls *.deb | tr '\n' ' ')
  if [ "$(cat .gpu/llvm/.unpacked 2>/dev/null)" != "$debs" ]; then
    mkdir -p .gpu/llvm
    for deb in .gpu-carry/debs/*.deb; do dpkg -x "$deb" .gpu/llvm; done
    echo "$debs" > .gpu/llvm/.unpacked
  fi
  export LD_LIBRARY_PATH=$root/.gpu/llvm/usr/lib/x86_64-linux-gnu:$root/.gpu/llvm/usr/lib/llvm-19/lib:$LD_LIBRARY_PATH
  if [ -x .gpu/llvm/usr/lib/llvm-19/bin/clang++ ]; then
    export KOSAN_CLANG=$root/.gpu/llvm/usr/lib/llvm-19/bin/clang++
    echo "clang for kosan: $($KOSAN_CLANG --version | head -1)" | tee -a "$out/gpu.txt"
  fi
fi
