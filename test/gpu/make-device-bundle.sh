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
