; A device module without kernels is left exactly as it was: no clones, no
; site table, no runtime linked (an empty site table or a second copy of the
; runtime would only cost link time and size). Note what this means under
; -fgpu-rdc: __device__ functions defined in a translation unit without
; kernels are not instrumented at all, and kernel clones elsewhere call them
; uninstrumented.

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -S < %s > %t.kosan.ll
; RUN: %opt -S < %s > %t.plain.ll
; RUN: diff %t.plain.ll %t.kosan.ll
; RUN: FileCheck %s < %t.kosan.ll

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @f(ptr %p, i64 %i) {
  %q = getelementptr inbounds i32, ptr %p, i64 %i
  store i32 0, ptr %q, align 4
  ret void
}

; CHECK:     define void @f(
; CHECK-NOT: kosan
