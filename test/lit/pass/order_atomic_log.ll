; checks=order: a kernel entry says whether its clone may log float atomics
; on global memory (flag 128, KOSAN_KERNEL_ORDER_ATOMIC_LOG): it logs one
; itself, or calls a function that might. Without that flag, and without a
; trace, the runtime has nothing to collect after a launch and does not wait
; for the kernel.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-order \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s
; Kernel entries (name, flags, first param, params, first site, sites):
; @atom 162 = 128 | 32 (fingerprints) | 2 (float atomics); @calls the same,
; through its call; @none 32.
; CHECK: @__kosan_site_table = {{.*}}\06\00\00\00\A2\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00{{.*}}[\00\00\00\A2\00\00\00\02\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00{{.*}}\AE\00\00\00 \00\00\00\04\00\00\00\02\00\00\00\01\00\00\00\01\00\00\00

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @atom(ptr %out, float %v) {
  %old = atomicrmw fadd ptr %out, float %v monotonic, align 4
  ret void
}

define void @helper(ptr %out, float %v) noinline {
  %old = atomicrmw fadd ptr %out, float %v monotonic, align 4
  ret void
}

define void @calls(ptr %out, float %v) {
  call void @helper(ptr %out, float %v)
  ret void
}

define void @none(ptr %out, float %v) {
  %w = fadd float %v, 1.0
  store float %w, ptr %out, align 4
  ret void
}

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @atom, !"kernel", i32 1}
!1 = !{ptr @calls, !"kernel", i32 1}
!2 = !{ptr @none, !"kernel", i32 1}
