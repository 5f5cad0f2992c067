; checks=precision on a long block (matmul's unrolled tile loop: a chain of
; fmas of values loaded from shared memory). The local error of each fma is
; the f32 fma itself on the loaded operands as they are and the running
; sum's shadow rounded to f32; NaN/Inf births are reported every
; -kosan-prec-birth-span (4) operations, not once at the block's end, so
; that ptxas keeps a few operations' shadow arithmetic live at once, not the
; block's (matmul's clone: 728 bytes of spills before, none now); never
; between a product and the addition the backend or ptxas fuses it with.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -kosan-prec-birth-span=0 -S < %s \
; RUN:   | FileCheck %s --check-prefix=SPAN0

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; acc += a[k] * b[k], k = 0..5, unrolled (matmul's tile loop): fmas of
; loaded values, one block.
define void @chain(ptr %a, ptr %b, ptr %out) {
entry:
  %a0 = load float, ptr %a, align 4
  %b0 = load float, ptr %b, align 4
  %s0 = call contract float @llvm.fma.f32(float %a0, float %b0, float 0.0)
  %pa1 = getelementptr inbounds float, ptr %a, i32 1
  %pb1 = getelementptr inbounds float, ptr %b, i32 1
  %a1 = load float, ptr %pa1, align 4
  %b1 = load float, ptr %pb1, align 4
  %s1 = call contract float @llvm.fma.f32(float %a1, float %b1, float %s0)
  %pa2 = getelementptr inbounds float, ptr %a, i32 2
  %pb2 = getelementptr inbounds float, ptr %b, i32 2
  %a2 = load float, ptr %pa2, align 4
  %b2 = load float, ptr %pb2, align 4
  %s2 = call contract float @llvm.fma.f32(float %a2, float %b2, float %s1)
  %pa3 = getelementptr inbounds float, ptr %a, i32 3
  %pb3 = getelementptr inbounds float, ptr %b, i32 3
  %a3 = load float, ptr %pa3, align 4
  %b3 = load float, ptr %pb3, align 4
  %s3 = call contract float @llvm.fma.f32(float %a3, float %b3, float %s2)
  %pa4 = getelementptr inbounds float, ptr %a, i32 4
  %pb4 = getelementptr inbounds float, ptr %b, i32 4
  %a4 = load float, ptr %pa4, align 4
  %b4 = load float, ptr %pb4, align 4
  %s4 = call contract float @llvm.fma.f32(float %a4, float %b4, float %s3)
  %pa5 = getelementptr inbounds float, ptr %a, i32 5
  %pb5 = getelementptr inbounds float, ptr %b, i32 5
  %a5 = load float, ptr %pa5, align 4
  %b5 = load float, ptr %pb5, align 4
  %s5 = call contract float @llvm.fma.f32(float %a5, float %b5, float %s4)
  store float %s5, ptr %out, align 4
  ret void
}

; __fdividef above the fifth addition, which is its quotient's only use (ptxas
; fuses the two): no branch between them.
define void @product_below(ptr %a, ptr %out, float %x, float %y) {
entry:
  %a0 = load float, ptr %a, align 4
  %m = call float @llvm.nvvm.div.approx.f(float %x, float %y)
  %s1 = fadd float %a0, %x
  %s2 = fadd float %s1, %y
  %s3 = fadd float %s2, %a0
  %s4 = fadd float %s3, %x
  %s5 = fadd float %s4, %m
  %s6 = fadd float %s5, %y
  store float %s6, ptr %out, align 4
  ret void
}

; fp64 arithmetic of loaded values: its shadow overflows with it, so its
; operands are tested themselves.
define void @double_product(ptr %a, ptr %out) {
entry:
  %a0 = load double, ptr %a, align 8
  %p1 = getelementptr inbounds double, ptr %a, i32 1
  %a1 = load double, ptr %p1, align 8
  %m = fmul double %a0, %a1
  store double %m, ptr %out, align 8
  ret void
}

declare float @llvm.fma.f32(float, float, float)
declare float @llvm.nvvm.div.approx.f(float, float)

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @chain, !"kernel", i32 1}
!1 = !{ptr @product_below, !"kernel", i32 1}
!2 = !{ptr @double_product, !"kernel", i32 1}

; CHECK-LABEL: define ptx_kernel void @chain__kosan(
; CHECK:         %s0 = call contract float @llvm.fma.f32(float %a0, float %b0, float 0.000000e+00)
; CHECK-NOT:     br
; CHECK:         %s1 = call contract float @llvm.fma.f32(float %a1, float %b1, float %s0)
; CHECK-NEXT:    [[S1:%[0-9]+]] = call double @llvm.fma.f64(double [[A1:%[0-9]+]], double [[B1:%[0-9]+]], double [[S0:%[0-9]+]])
; The local error: the f32 fma of the loaded values (exact: their shadows are
; themselves) and the sum's shadow rounded to f32, widened once.
; CHECK-NEXT:    [[R0:%[0-9]+]] = fptrunc double [[S0]] to float
; CHECK-NEXT:    [[ONR:%[0-9]+]] = call contract float @llvm.fma.f32(float %a1, float %b1, float [[R0]])
; CHECK-NEXT:    [[ONRD:%[0-9]+]] = fpext float [[ONR]] to double
; CHECK-NEXT:    [[ACT:%[0-9]+]] = fpext float %s1 to double
; CHECK-NEXT:    fsub double [[ACT]], [[S1]]
; CHECK:         fsub double [[ONRD]], [[S1]]
; CHECK-NOT:     br
; CHECK:         %s3 = call contract float @llvm.fma.f32
; After the fourth, the report branch of the first four.
; CHECK:         %kosan.born = icmp ne i32 %{{[0-9]+}}, 0
; CHECK-NEXT:    br i1 %kosan.born, label %[[REPORT:[0-9]+]], label %[[NEXT:[0-9]+]], !prof
; CHECK:       [[REPORT]]:
; CHECK:         call void @__kosan_prec_nonfinite(
; CHECK:       [[NEXT]]:
; CHECK-NEXT:    %s4 = call contract float @llvm.fma.f32(float %a4, float %b4, float %s3)
; CHECK-NEXT:    [[S4:%[0-9]+]] = call double @llvm.fma.f64(
; Born: not finite, from finite loaded operands, which the shadow's being
; finite says for both (one test of the fp64 result for two of the loads);
; the running sum was tested as the fourth's result.
; CHECK:         [[R4:%[0-9]+]] = call float @llvm.fabs.f32(float %s4)
; CHECK-NEXT:    [[F4:%[0-9]+]] = fcmp olt float [[R4]], 0x7FF0000000000000
; CHECK-NEXT:    [[BAD4:%[0-9]+]] = xor i1 [[F4]], true
; CHECK-NEXT:    [[SA4:%[0-9]+]] = call double @llvm.fabs.f64(double [[S4]])
; CHECK-NEXT:    [[SF4:%[0-9]+]] = fcmp olt double [[SA4]], 0x7FF0000000000000
; CHECK-NEXT:    [[BORN4:%[0-9]+]] = and i1 [[BAD4]], [[SF4]]
; The fifth is the block's first birth only if none of the first four
; results was not finite (born or not): the block's flag goes on.
; CHECK-NEXT:    [[NOTANY:%[0-9]+]] = xor i1 %{{[0-9]+}}, true
; CHECK-NEXT:    [[TAKE:%[0-9]+]] = and i1 [[BORN4]], [[NOTANY]]
; CHECK-NEXT:    select i1 [[TAKE]], i32 5, i32 0
; CHECK:         %s5 = call contract float @llvm.fma.f32
; CHECK:         store float %s5, ptr %out
; CHECK:         %kosan.born{{[0-9]+}} = icmp ne i32
; CHECK:         call void @__kosan_prec_nonfinite(

; CHECK-LABEL: define ptx_kernel void @product_below__kosan(
; CHECK:         %m = call float @llvm.nvvm.div.approx.f(float %x, float %y)
; CHECK-NOT:     br
; CHECK:         %s4 = fadd float %s3, %x
; CHECK-NOT:     br
; CHECK:         %s5.fused = call float @llvm.fma.f32(
; CHECK:         %kosan.born = icmp ne i32
; CHECK-NEXT:    br i1 %kosan.born
; CHECK:         %s6 = fadd float %s5.fused, %y

; CHECK-LABEL: define ptx_kernel void @double_product__kosan(
; CHECK:         %m = fmul double %a0, %a1
; CHECK:         call double @llvm.fabs.f64(double %m)
; CHECK:         call double @llvm.fabs.f64(double %a0)
; CHECK:         call double @llvm.fabs.f64(double %a1)

; With -kosan-prec-birth-span=0, one branch at the block's end.
; SPAN0-LABEL: define ptx_kernel void @chain__kosan(
; SPAN0-NOT:     kosan.born
; SPAN0:         %s5 = call contract float @llvm.fma.f32
; SPAN0:         %kosan.born = icmp ne i32
; SPAN0-NOT:     kosan.born{{[0-9]+}}
; SPAN0:         ret void
