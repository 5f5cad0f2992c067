; The order and the precision checks take their shadows of shared arrays
; from one budget: the 48 KiB of static shared memory every launch may use,
; less the module's own arrays and a reserve of 256 bytes. @acc (2000
; floats, 8000 bytes) leaves 40896: the precision shadow alone (2001 x 16
; bytes) fits; after the order check's (2000 x 8 bytes) it does not, and
; the precision check leaves @acc without one.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefix=PREC
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan -kosan-checks=order,precision \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefix=BOTH

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@acc = internal addrspace(3) global [2000 x float] undef, align 4

define void @accumulate(ptr %x, i32 %i) {
  %v = load float, ptr %x, align 4
  %p = getelementptr inbounds [2000 x float], ptr addrspace(3) @acc, i32 0, i32 %i
  %a = load float, ptr addrspace(3) %p, align 4
  %s = fadd float %a, %v
  store float %s, ptr addrspace(3) %p, align 4
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @accumulate, !"kernel", i32 1}

; PREC: @acc.kosan_prec = internal addrspace(3) global [2001 x { double, i32, i32 }] undef, align 16
; BOTH: @acc.kosan_fp = internal addrspace(3) global [2000 x i64] undef, align 8
; BOTH-NOT: @acc.kosan_prec
