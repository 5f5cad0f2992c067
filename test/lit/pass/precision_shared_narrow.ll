; checks=precision: a narrowing whose value is stored to a shared array
; without a shadow (here: @tile takes all 48 KiB of static shared memory,
; and leaves no room for one) is marked in its site (arg_index: the dtype
; converted from, with KOSAN_PREC_NARROW_TO_SHARED, 0x100, set): the shadow
; does not follow the value there, so the verdict holds that narrowing to
; fp32's allowance (precision_verdict.h). The same narrowing stored to
; global memory is not marked, nor one stored to a shadowed shared array
; (precision_shared_shadow.ll).
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [24576 x half] undef, align 2

define void @to_shared(ptr %x, i32 %i) {
  %v = load float, ptr %x, align 4
  %m = fmul float %v, 3.0
  %h = fptrunc float %m to half
  %p = getelementptr inbounds [24576 x half], ptr addrspace(3) @tile, i32 0, i32 %i
  store half %h, ptr addrspace(3) %p, align 2
  ret void
}

define void @to_global(ptr %x, ptr %out) {
  %v = load float, ptr %x, align 4
  %m = fmul float %v, 3.0
  %h = fptrunc float %m to half
  store half %h, ptr %out, align 2
  ret void
}

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @to_shared, !"kernel", i32 1}
!1 = !{ptr @to_global, !"kernel", i32 1}

; Site records: access 7 (narrow), space 0, size 3 (f16), the operation's
; name, then arg_index: 0x102 (f32, to shared) for the first kernel's, 2
; (f32) for the second's.
; CHECK: @__kosan_site_table = {{.*}}\07\00\00\00\00\00\00\00\03\00\00\00{{(\\[0-9A-F][0-9A-F]|.)}}\00\00\00\02\01\00\00{{.*}}\07\00\00\00\00\00\00\00\03\00\00\00{{(\\[0-9A-F][0-9A-F]|.)}}\00\00\00\02\00\00\00
; The narrowing's local error rounds its exact input to f16 and back.
; CHECK-LABEL: define ptx_kernel void @to_shared__kosan(
; CHECK:         %h = fptrunc float %m to half
; CHECK-NEXT:    [[R:%[0-9]+]] = fptrunc double [[S:%[0-9]+]] to half
; CHECK-NEXT:    fpext half [[R]] to double
