; A module whose every access has a known provenance (here: a kernel
; argument) records events inline and calls no runtime function, so linking
; the runtime must add no function at all.
;
; Regression: @__kosan_oob_check_table used to be declared in every
; instrumented module, and Linker::LinkOnlyNeeded links a definition for
; every declaration, used or not, so an unused internal
; __kosan_oob_check_table stayed in the PTX at clang -O0. The pass now erases
; the declaration when no unknown-provenance access calls it.

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -S < %s | FileCheck %s
; Without linking, too, the pass leaves no declaration behind.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -S < %s \
; RUN:   | FileCheck %s --check-prefix=NOLINK --implicit-check-not=__kosan_oob_check_table

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k(ptr %a, i64 %i) #0 {
entry:
  %p = getelementptr inbounds float, ptr %a, i64 %i
  store float 0.0, ptr %p, align 4
  ret void
}
attributes #0 = { "target-cpu"="sm_80" "target-features"="+ptx77,+sm_80" }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}

; CHECK-NOT: @__kosan_oob_
; CHECK:     define ptx_kernel void @k__kosan(
; CHECK:       call void @llvm.nvvm.membar.sys()
; CHECK-NOT: @__kosan_oob_

; NOLINK:     define ptx_kernel void @k__kosan(
