#!/bin/sh
# Packs what a machine with a GPU but without LLVM needs to run the GPU tests
# and examples built here: FileCheck, not and lit, the built programs,
# kosan's tools, and Debian's LLVM 19 library as packages (libllvm19 and
# libz3-4), which libkosan_codegen.so links to make deferred clones PTX. With
# --with-clang it also carries Debian's clang 19 (about 47 MB in all), so that
# kosan can compile there too: the tests that build at run time (PyTorch
# extensions through kosan-nvcc) need it.
# Run from the repository root; everything goes to .gpu-carry/ (ignored by
# git), which device-run.sh unpacks.
set -eu
with_clang=0
for arg in "$@"; do
  case $arg in
    --with-clang) with_clang=1 ;;
    *) echo "usage: $0 [--with-clang]" >&2; exit 2 ;;
  esac
done
llvm=${LLVM_DIR:-/usr/lib/llvm-19}
build=${KOSAN_BUILD_DIR:-build}
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib
cp "$llvm/bin/FileCheck" "$llvm/bin/not" .gpu/bin/
cp -r "$llvm/build/utils/lit" .gpu/lit
mkdir -p .gpu-carry
rm -rf .gpu-carry/debs
# LLVM's library and libz3 (FileCheck needs it too); clang, its libraries
# and its resource headers with --with-clang.
debs="libllvm19 libz3-4"
[ $with_clang = 1 ] && debs="$debs clang-19 libclang-cpp19 libclang-common-19-dev"
mkdir -p .gpu-carry/debs
(cd .gpu-carry/debs &&
 apt-get download -q $debs 2>&1 | grep -v "couldn't be accessed by user '_apt'" || true)
ls .gpu-carry/debs/*.deb >/dev/null
# kosan's tools, stripped (debug information is most of their size), in the
# build tree's layout.
stage=.gpu-carry/stage
rm -rf "$stage" && mkdir -p "$stage/$build/bin" "$stage/$build/lib" "$stage/$build/share"
for f in kosan-diff kosan-report kosan-clang++ kosan-nvcc kosan-mutate; do
  [ -f "$build/bin/$f" ] && strip -o "$stage/$build/bin/$f" "$build/bin/$f"
done
# The Python commands (bin/kosan: kosan judge) and the host library the
# Python package reads traces with.
[ -f "$build/bin/kosan" ] && cp "$build/bin/kosan" "$stage/$build/bin/kosan"
for f in libkosan.so libkosan_rt.so libkosan_codegen.so libkosan_host.so; do
  strip --strip-unneeded -o "$stage/$build/lib/$f" "$build/lib/$f"
done
cp -r "$build/share/kosan" "$stage/$build/share/"
rm -f .gpu-carry/bundle.tgz
XZ_OPT=-6T2 tar cJf .gpu-carry/bundle.txz "$build/test/gpu/bin" "$build/test/gpu/lit.site.cfg.py" \
  $(find "$build/examples" -maxdepth 1 -type f -perm -u+x) .gpu \
  -C "$stage" "$build"
rm -rf "$stage"
echo "archive for the GPU machine: .gpu-carry/ ($(du -sh .gpu-carry | cut -f1)); carry .gpu-carry"
