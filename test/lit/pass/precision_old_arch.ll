; The precision runtime needs sm_70 (match.any.sync): a module for an older
; GPU is checked for out-of-bounds accesses only, with a warning that says
; so, instead of failing in the backend.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan -kosan-checks=oob,precision \
; RUN:   -kosan-link-runtime=false -S < %s 2> %t.err | FileCheck %s
; RUN: FileCheck %s --check-prefix=WARN < %t.err
; And for sm_70 and newer, the shadow is there.
; RUN: sed 's/sm_60/sm_70/' %s | %opt -load-pass-plugin=%kosan_plugin -passes=kosan \
; RUN:   -kosan-checks=oob,precision -kosan-link-runtime=false -S 2>&1 | FileCheck %s --check-prefix=SM70

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k(ptr %out, float %a, float %b) #0 {
  %s = fadd float %a, %b
  store float %s, ptr %out, align 4
  ret void
}

attributes #0 = { "target-cpu"="sm_60" }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}

; WARN: kosan: warning: the precision check needs sm_70 or newer; <stdin> compiled for sm_60 is not checked for precision
; CHECK:     define ptx_kernel void @k__kosan(
; CHECK-NOT: __kosan_prec
; CHECK:     kosan.bad
; SM70-NOT:  warning
; SM70:      call void @__kosan_prec_value
