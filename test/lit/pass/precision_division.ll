; checks=precision on NVPTX: the shadow of a division is computed without
; div.rn.f64, whose slow path ptxas reaches through a branch (a branch
; between a multiply and an add keeps ptxas from fusing them as it does in
; the plain kernel): rcp.approx.ftz.f64, two Newton steps, the quotient and
; its correction by the residual; a constant divisor's reciprocal is a
; constant. Where the correction is NaN (0/0, x/0, inf) the first quotient
; stands.
;
; And the fma ptxas forms in the plain kernel out of __fdividef's multiply
; and the add or subtract that is the quotient's only use (1 - p) is
; written out in the clone once the checks are done: the checks see the
; quotient and the subtraction (the quotient stays the root cause), the
; clone computes fma(-a', rcp.approx.ftz(b'), 1) with a and b scaled by
; 2^24 when |b| is below 2^-126, as ptxas computes div.approx.f32.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s
; Without contraction (adds the backend leaves rounded on their own, which
; ptxas does not fuse) the quotient and the add stay as written.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -kosan-fp-fusion=standard -S < %s \
; RUN:   | FileCheck %s --check-prefix=STANDARD

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @divide(ptr %x, ptr %out) {
  %a = load float, ptr %x, align 4
  %p1 = getelementptr inbounds float, ptr %x, i32 1
  %b = load float, ptr %p1, align 4
  %s = fadd contract float %a, %b
  %q = fdiv float %s, %b
  store float %q, ptr %out, align 4
  %q7 = fdiv float %s, 7.000000e+00
  %o1 = getelementptr inbounds float, ptr %out, i32 1
  store float %q7, ptr %o1, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @divide__kosan(
; CHECK-NOT:     fdiv double
; CHECK:         %q = fdiv float %s, %b
; CHECK-NEXT:    [[NB:%[0-9]+]] = fneg double [[B:%[0-9]+]]
; CHECK-NEXT:    [[R0:%[0-9]+]] = call double @llvm.nvvm.rcp.approx.ftz.d(double [[B]])
; CHECK-NEXT:    [[E0:%[0-9]+]] = call double @llvm.fma.f64(double [[NB]], double [[R0]], double 1.000000e+00)
; CHECK-NEXT:    [[R1:%[0-9]+]] = call double @llvm.fma.f64(double [[R0]], double [[E0]], double [[R0]])
; CHECK-NEXT:    [[E1:%[0-9]+]] = call double @llvm.fma.f64(double [[NB]], double [[R1]], double 1.000000e+00)
; CHECK-NEXT:    [[R2:%[0-9]+]] = call double @llvm.fma.f64(double [[R1]], double [[E1]], double [[R1]])
; CHECK-NEXT:    [[Q0:%[0-9]+]] = fmul double [[S:%[0-9]+]], [[R2]]
; CHECK-NEXT:    [[RES:%[0-9]+]] = call double @llvm.fma.f64(double [[NB]], double [[Q0]], double [[S]])
; CHECK-NEXT:    [[Q1:%[0-9]+]] = call double @llvm.fma.f64(double [[R2]], double [[RES]], double [[Q0]])
; CHECK-NEXT:    [[FIRST:%[0-9]+]] = fmul double [[S]], [[R0]]
; CHECK-NEXT:    [[NAN:%[0-9]+]] = fcmp uno double [[Q1]], [[Q1]]
; CHECK-NEXT:    [[QS:%kosan.div[0-9]*]] = select i1 [[NAN]], double [[FIRST]], double [[Q1]]
; CHECK:         call void @__kosan_prec_value({{.*}}, double [[QS]], i32 2,
; CHECK-NEXT:    store float %q, ptr %out
; By 7: times the double nearest 1/7, corrected once.
; CHECK:         %q7 = fdiv float %s, 7.000000e+00
; CHECK-NEXT:    [[C0:%[0-9]+]] = fmul double [[S]], 0x3FC2492492492492
; CHECK-NEXT:    [[CRES:%[0-9]+]] = call double @llvm.fma.f64(double -7.000000e+00, double [[C0]], double [[S]])
; CHECK-NEXT:    [[C1:%[0-9]+]] = call double @llvm.fma.f64(double 0x3FC2492492492492, double [[CRES]], double [[C0]])
; CHECK-NEXT:    [[CNAN:%[0-9]+]] = fcmp uno double [[C1]], [[C1]]
; CHECK-NEXT:    select i1 [[CNAN]], double [[C0]], double [[C1]]
; CHECK-NOT:     fdiv double
; CHECK:         ret void

; 1 - __fdividef(a, b), squared: the Brier loss of precision_fast_loss.cu.
define void @brier(ptr %x, ptr %out) {
  %a = load float, ptr %x, align 4
  %p1 = getelementptr inbounds float, ptr %x, i32 1
  %b = load float, ptr %p1, align 4
  %p = call float @llvm.nvvm.div.approx.f(float %a, float %b)
  %t = fsub contract float 1.000000e+00, %p
  %l = fmul contract float %t, %t
  store float %l, ptr %out, align 4
  ret void
}

; The quotient's shadow and tag as before; the subtraction's shadow is
; 1 minus it.
; CHECK-LABEL: define ptx_kernel void @brier__kosan(
; CHECK:         %p = call float @llvm.nvvm.div.approx.f(float %a, float %b)
; CHECK:         [[PS:%kosan.div[0-9]*]] = select i1
; CHECK:         call float @llvm.nvvm.div.approx.f(float
; Where the subtraction was: the fma ptxas forms.
; CHECK:         [[SMALL:%[0-9]+]] = fcmp olt float %{{[0-9]+}}, 0x3810000000000000
; CHECK-NEXT:    [[BS:%[0-9]+]] = fmul float %b, 0x4170000000000000
; CHECK-NEXT:    [[B2:%[0-9]+]] = select i1 [[SMALL]], float [[BS]], float %b
; CHECK-NEXT:    [[AS:%[0-9]+]] = fmul float %a, 0x4170000000000000
; CHECK-NEXT:    [[A2:%[0-9]+]] = select i1 [[SMALL]], float [[AS]], float %a
; CHECK-NEXT:    [[RCP:%[0-9]+]] = call float @llvm.nvvm.rcp.approx.ftz.f(float [[B2]])
; CHECK-NEXT:    [[NA:%[0-9]+]] = fneg float [[A2]]
; CHECK-NEXT:    %t.fused = call float @llvm.fma.f32(float [[NA]], float [[RCP]], float 1.000000e+00)
; CHECK-NOT:     fsub contract float 1.000000e+00, %p
; CHECK:         fsub double 1.000000e+00, [[PS]]
; The checks' uses of the difference use the fma.
; CHECK:         fpext float %t.fused to double
; CHECK:         %l = fmul contract float %t.fused, %t.fused
; CHECK:         ret void

; A quotient with another use: ptxas keeps its multiply; nothing written.
define void @two_uses(ptr %x, ptr %out) {
  %a = load float, ptr %x, align 4
  %p1 = getelementptr inbounds float, ptr %x, i32 1
  %b = load float, ptr %p1, align 4
  %p = call float @llvm.nvvm.div.approx.f(float %a, float %b)
  %t = fsub contract float 1.000000e+00, %p
  %l = fmul contract float %t, %p
  store float %l, ptr %out, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @two_uses__kosan(
; CHECK-NOT:     rcp.approx.ftz.f(
; CHECK:         %t = fsub contract float 1.000000e+00, %p
; CHECK-NOT:     rcp.approx.ftz.f(
; CHECK:         ret void

; STANDARD-LABEL: define ptx_kernel void @brier__kosan(
; STANDARD-NOT:   rcp.approx.ftz.f(
; STANDARD:       %t = fsub contract float 1.000000e+00, %p
; STANDARD-NOT:   rcp.approx.ftz.f(
; STANDARD:       ret void

declare float @llvm.nvvm.div.approx.f(float, float)

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @divide, !"kernel", i32 1}
!1 = !{ptr @brier, !"kernel", i32 1}
!2 = !{ptr @two_uses, !"kernel", i32 1}
