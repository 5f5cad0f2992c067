; __floats2half2_rn(a, b) is one cvt.rn.f16x2.f32 of two floats in inline
; PTX. Its shadow is the pair of the operands' shadows, and the narrowing is
; logged after everything built for it: with variable operands, the input
; vector handed to the runtime comes before the call that uses it (it once
; came after, which the verifier rejects); with constant operands (the
; shadow folds to a constant) nothing is logged, as for any narrowing of
; constants (it once crashed the pass).
; opt verifies the module it writes, so invalid IR fails these RUN lines.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s
; The whole pipeline as clang runs it, at both ends of the -O range.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='default<O2>' \
; RUN:   -kosan-checks=oob,precision,order -kosan-link-runtime=false -S < %s \
; RUN:   | FileCheck %s --check-prefix=PIPELINE
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='default<O0>' \
; RUN:   -kosan-checks=oob,precision,order -kosan-link-runtime=false -S < %s \
; RUN:   | FileCheck %s --check-prefix=PIPELINE

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; out[i] = __floats2half2_rn(x[i], y[i])
define void @pack(ptr %x, ptr %y, ptr %out, i32 %i) {
entry:
  %px = getelementptr inbounds float, ptr %x, i32 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i32 %i
  %b = load float, ptr %py, align 4
  %h2 = call i32 asm "{ cvt.rn.f16x2.f32 $0, $2, $1; }\0A", "=r,f,f"(float %a, float %b)
  %po = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %h2, ptr %po, align 4
  ret void
}

; atomicAdd(h2, __floats2half2_rn(1.f, 2.f))
define void @acc(ptr %h2) {
entry:
  %v = call i32 asm "{ cvt.rn.f16x2.f32 $0, $2, $1; }\0A", "=r,f,f"(float 1.000000e+00, float 2.000000e+00)
  %old = call i32 asm sideeffect "{ atom.add.noftz.f16x2 $0,[$1],$2; }\0A", "=r,l,r,~{memory}"(ptr %h2, i32 %v)
  ret void
}

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @pack, !"kernel", i32 1}
!1 = !{ptr @acc, !"kernel", i32 1}

; The operands are swapped in the template ($2, $1): lane 0 (low) is %a.
; CHECK-LABEL: define ptx_kernel void @pack__kosan(
; CHECK:         %a = load float
; CHECK-NEXT:    [[AS:%[0-9]+]] = fpext float %a to double
; CHECK:         %b = load float
; CHECK-NEXT:    [[BS:%[0-9]+]] = fpext float %b to double
; CHECK:         %h2 = call i32 asm
; CHECK-NEXT:    [[S0:%[0-9]+]] = insertelement <2 x double> poison, double [[AS]], i64 0
; CHECK-NEXT:    [[S1:%[0-9]+]] = insertelement <2 x double> [[S0]], double [[BS]], i64 1
; CHECK-NEXT:    [[IN0:%[0-9]+]] = insertelement <2 x float> poison, float %a, i64 0
; CHECK-NEXT:    [[IN:%[0-9]+]] = insertelement <2 x float> [[IN0]], float %b, i64 1
; CHECK-NEXT:    fpext <2 x float> [[IN]] to <2 x double>
; CHECK:         call void @__kosan_prec_narrow({{.*}}, i32 3)
; CHECK:         call void @__kosan_prec_narrow({{.*}}, i32 3)
; The stored half2 carries the shadow pair, lane by lane.
; CHECK:         extractelement <2 x double> [[S1]], i64 0
; CHECK:         call void @__kosan_prec_value(
; CHECK:         extractelement <2 x double> [[S1]], i64 1
; CHECK:         call void @__kosan_prec_value(
; CHECK:         store i32 %h2

; CHECK-LABEL: define ptx_kernel void @acc__kosan(
; CHECK-NOT:     __kosan_prec_narrow
; CHECK:         call i32 asm sideeffect "{ atom.add.noftz.f16x2
; CHECK:         ret void

; PIPELINE: define ptx_kernel void @pack__kosan(
; PIPELINE: define ptx_kernel void @acc__kosan(
