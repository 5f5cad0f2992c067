#!/bin/sh
# Collects what a machine with a GPU but without LLVM needs to run the GPU
# tests built here: FileCheck, not and lit. Run from the repository root;
# the bundle goes to .gpu/ (ignored by git).
set -eu
llvm=${LLVM_DIR:-/usr/lib/llvm-19}
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib
cp "$llvm/bin/FileCheck" "$llvm/bin/not" .gpu/bin/
cp -r "$llvm/build/utils/lit" .gpu/lit
# FileCheck's shared libraries that a bare CUDA image may lack.
for lib in $(ldd "$llvm/bin/FileCheck" | awk '/=>/ {print $3}' | grep -E 'libz3'); do
  cp "$lib" .gpu/lib/
done
echo "bundle in .gpu/: $(du -sh .gpu | cut -f1)"
# Everything a GPU run needs from the build, packed (a copy of the build's
# binaries is several times larger than the archive): device-run.sh unpacks
# it when it is there.
mkdir -p .gpu-carry
tar czf .gpu-carry/bundle.tgz build/test/gpu/bin build/test/gpu/lit.site.cfg.py \
  $(find build/examples -maxdepth 1 -type f -perm -u+x) \
  build/bin/kosan-diff build/bin/kosan-report .gpu
echo "archive for the GPU machine: .gpu-carry/bundle.tgz ($(du -sh .gpu-carry/bundle.tgz | cut -f1))"
