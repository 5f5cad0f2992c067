; A clone computes the bits of its original: NVPTX fuses a multiply and the
; add that uses it into one fma when both sit in one basic block, and the
; OOB check of the load between them splits that block in the clone. The
; clone gets the fma written out (llvm.fma) before it is instrumented, by
; the rules of LLVM 19's DAG combiner (passes/core/Contraction.h), and the
; PTX of original and clone has the same fmas, multiplies and adds.

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -S < %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefix=ORIG
; What may be fused: any multiply and add with -ffp-contract=fast (also
; inferred from the contract flags), only pairs both marked contract otherwise.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -kosan-fp-fusion=fast -S < %s | FileCheck %s --check-prefix=FAST
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -kosan-fp-fusion=standard -S < %s | FileCheck %s --check-prefix=STD
; In PTX, each clone does the arithmetic of its original.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false < %s \
; RUN:   | llc -mcpu=sm_90 -fp-contract=fast -o - | FileCheck %s --check-prefix=PTX
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob,kosan-precision,kosan-order -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefix=SHADOW

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; out[i] = a[i] * b[i] + c[i]: the load of c[i] (checked) comes between
; the multiply and the add.
define void @axpy(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c,
                  ptr addrspace(1) %out, i64 %i) {
entry:
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %i
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i64 %i
  %pc = getelementptr inbounds float, ptr addrspace(1) %c, i64 %i
  %x = load float, ptr addrspace(1) %pa, align 4
  %y = load float, ptr addrspace(1) %pb, align 4
  %m = fmul contract float %x, %y
  %z = load float, ptr addrspace(1) %pc, align 4
  %s = fadd contract float %m, %z
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %s, ptr addrspace(1) %po, align 4
  ret void
}
; ORIG-LABEL: define void @axpy(
; ORIG: %m = fmul contract float %x, %y
; ORIG: %s = fadd contract float %m, %z
; CHECK-LABEL: define {{.*}}@axpy__kosan(
; CHECK-NOT: fmul
; CHECK: load float
; CHECK: %s = call contract float @llvm.fma.f32(float %x{{(.kosan)?}}, float %y{{(.kosan)?}}, float %z{{(.kosan)?}})
; CHECK-NOT: fadd
; CHECK: ret void
; SHADOW-LABEL: define {{.*}}@axpy__kosan(
; SHADOW: call contract float @llvm.fma.f32(float %x{{(.kosan)?}}, float %y{{(.kosan)?}}, float %z{{(.kosan)?}})
; SHADOW: call double @llvm.fma.f64(

; The subtracting forms, as the combiner writes them: x*y - z is
; fma(x, y, -z), z - x*y is fma(-x, y, z), -(x*y) - z is fma(-x, y, -z),
; z - -(x*y) is fma(x, y, z).
define void @subtract(ptr addrspace(1) %a, ptr addrspace(1) %out, float %x, float %y, float %z) {
entry:
  %m1 = fmul contract float %x, %y
  %v1 = load float, ptr addrspace(1) %a, align 4
  %r1 = fsub contract float %m1, %v1
  store float %r1, ptr addrspace(1) %out, align 4
  %m2 = fmul contract float %x, %z
  %v2 = load volatile float, ptr addrspace(1) %a, align 4
  %r2 = fsub contract float %v2, %m2
  store float %r2, ptr addrspace(1) %out, align 4
  %m3 = fmul contract float %y, %z
  %n3 = fneg contract float %m3
  %v3 = load volatile float, ptr addrspace(1) %a, align 4
  %r3 = fsub contract float %n3, %v3
  store float %r3, ptr addrspace(1) %out, align 4
  %m4 = fmul contract float %z, %z
  %n4 = fneg contract float %m4
  %v4 = load volatile float, ptr addrspace(1) %a, align 4
  %r4 = fsub contract float %v4, %n4
  store float %r4, ptr addrspace(1) %out, align 4
  ret void
}
; CHECK-LABEL: define {{.*}}@subtract__kosan(
; CHECK: [[NEG1:%.*]] = fneg contract float %v1
; CHECK: %r1 = call contract float @llvm.fma.f32(float %x, float %y, float [[NEG1]])
; CHECK: [[NEG2:%.*]] = fneg contract float %x
; CHECK: %r2 = call contract float @llvm.fma.f32(float [[NEG2]], float %z, float %v2)
; CHECK: [[NEGY:%.*]] = fneg contract float %y
; CHECK: [[NEG3:%.*]] = fneg contract float %v3
; CHECK: %r3 = call contract float @llvm.fma.f32(float [[NEGY]], float %z, float [[NEG3]])
; CHECK: %r4 = call contract float @llvm.fma.f32(float %z, float %z, float %v4)
; CHECK-NOT: fmul
; CHECK: ret void

; Of an add of two multiplies the one with fewer uses is fused, the first
; on a tie. The combiner visits the block's adds last to first: when it
; reaches %s, %t has fused %m2 away, so %m1 and %m2 have one use each and
; %m2, the first operand, is fused.
define void @fewer_uses(ptr addrspace(1) %a, ptr addrspace(1) %out, float %x, float %y, float %z) {
entry:
  %m1 = fmul contract float %x, %y
  %m2 = fmul contract float %z, %z
  %v = load float, ptr addrspace(1) %a, align 4
  %s = fadd contract float %m2, %m1
  %t = fadd contract float %m2, %v
  store volatile float %s, ptr addrspace(1) %out, align 4
  store volatile float %t, ptr addrspace(1) %out, align 4
  ; %m4 is stored as well: %m3 has fewer uses.
  %m3 = fmul contract float %x, %z
  %m4 = fmul contract float %y, %y
  %u = fadd contract float %m4, %m3
  store volatile float %u, ptr addrspace(1) %out, align 4
  store volatile float %m4, ptr addrspace(1) %out, align 4
  ret void
}
; CHECK-LABEL: define {{.*}}@fewer_uses__kosan(
; CHECK: %m1 = fmul contract float %x, %y
; CHECK: %s = call contract float @llvm.fma.f32(float %z, float %z, float %m1)
; CHECK: %t = call contract float @llvm.fma.f32(float %z, float %z, float %v{{(.kosan)?}})
; CHECK: %m4 = fmul contract float %y, %y
; CHECK: %u = call contract float @llvm.fma.f32(float %x, float %z, float %m4)

; A multiply in another block than its add is not fused in the original:
; the clone keeps it apart too.
define void @other_block(ptr addrspace(1) %a, ptr addrspace(1) %out, float %x, float %y, i1 %c) {
entry:
  %m = fmul contract float %x, %y
  br i1 %c, label %then, label %done
then:
  %v = load float, ptr addrspace(1) %a, align 4
  %s = fadd contract float %m, %v
  store float %s, ptr addrspace(1) %out, align 4
  br label %done
done:
  ret void
}
; CHECK-LABEL: define {{.*}}@other_block__kosan(
; CHECK: %m = fmul contract float %x, %y
; CHECK: %s = fadd contract float %m, %v{{(.kosan)?}}

; Without contract flags: fused with -ffp-contract=fast (the backend fuses
; any multiply and add), not otherwise.
define void @unmarked(ptr addrspace(1) %a, ptr addrspace(1) %out, float %x, float %y) {
entry:
  %m = fmul float %x, %y
  %v = load float, ptr addrspace(1) %a, align 4
  %s = fadd float %m, %v
  store float %s, ptr addrspace(1) %out, align 4
  ret void
}
; FAST-LABEL: define {{.*}}@unmarked__kosan(
; FAST: %s = call float @llvm.fma.f32(float %x, float %y, float %v{{(.kosan)?}})
; STD-LABEL: define {{.*}}@unmarked__kosan(
; STD: %m = fmul float %x, %y
; STD: %s = fadd float %m, %v{{(.kosan)?}}

; The PTX of the originals, then of the clones, in the order llc emits them.
; PTX-LABEL: .entry axpy(
; PTX-NOT: mul{{(.rn)?}}.f32
; PTX: fma.rn.f32
; PTX-NOT: {{(mul|add|sub)(.rn)?}}.f32
; PTX-LABEL: .entry subtract(
; PTX-COUNT-4: fma.rn.f32
; PTX-NOT: {{(mul|add|sub)(.rn)?}}.f32
; PTX-LABEL: .entry fewer_uses(
; PTX-COUNT-3: fma.rn.f32
; PTX-NOT: add{{(.rn)?}}.f32
; PTX-LABEL: .entry other_block(
; PTX: mul{{(.rn)?}}.f32
; PTX: add{{(.rn)?}}.f32
; PTX-LABEL: .entry unmarked(
; PTX: fma.rn.f32
; PTX-LABEL: .entry axpy__kosan(
; PTX-NOT: mul{{(.rn)?}}.f32
; PTX: fma.rn.f32
; PTX-NOT: {{(mul|add|sub)(.rn)?}}.f32
; PTX-LABEL: .entry subtract__kosan(
; PTX-COUNT-4: fma.rn.f32
; PTX-NOT: {{(mul|add|sub)(.rn)?}}.f32
; PTX-LABEL: .entry fewer_uses__kosan(
; PTX-COUNT-3: fma.rn.f32
; PTX-NOT: add{{(.rn)?}}.f32
; PTX-LABEL: .entry other_block__kosan(
; PTX-NOT: fma.rn.f32
; PTX: mul{{(.rn)?}}.f32
; PTX-NOT: fma.rn.f32
; PTX: add{{(.rn)?}}.f32
; PTX-NOT: fma.rn.f32
; PTX-LABEL: .entry unmarked__kosan(
; PTX-NOT: mul{{(.rn)?}}.f32
; PTX: fma.rn.f32

!nvvm.annotations = !{!0, !1, !2, !3, !4}
!0 = !{ptr @axpy, !"kernel", i32 1}
!1 = !{ptr @subtract, !"kernel", i32 1}
!2 = !{ptr @fewer_uses, !"kernel", i32 1}
!3 = !{ptr @other_block, !"kernel", i32 1}
!4 = !{ptr @unmarked, !"kernel", i32 1}
