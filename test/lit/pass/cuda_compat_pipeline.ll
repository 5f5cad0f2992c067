; In the pipeline: NVVMReflect, which the NVPTX target adds at the pipeline
; start ahead of any plugin's pass, answers __CUDA_PREC_SQRT with 0; the
; compatibility pass, which the plugin adds at the pipeline start, then gives
; nvcc's answer, at -O2 and at -O0, before libdevice's function is inlined.
; With checks=none, as in --kosan-plain builds, the compatibility pass alone
; acts: the kernel is not cloned or instrumented, no kosan symbol appears.

; Without the plugin: the approximate square root nvcc would not use.
; RUN: %opt -passes='default<O2>' -S < %s | FileCheck %s --check-prefix=LLVM19
; LLVM19-LABEL: define void @k(
; LLVM19-NEXT:  load float
; LLVM19-NEXT:  call float @llvm.nvvm.sqrt.approx.f(

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-checks=none -passes='default<O2>' -S < %s \
; RUN:   | FileCheck %s --check-prefix=O2 --implicit-check-not=kosan
; O2-LABEL: define void @k(
; O2-NEXT:  load float
; O2-NEXT:  call float @llvm.nvvm.sqrt.rn.f(
; O2-NEXT:  store float
; O2-NEXT:  ret void

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-checks=none -passes='default<O0>' -S < %s \
; RUN:   | FileCheck %s --check-prefix=O0 --implicit-check-not=kosan
; O0-LABEL: define void @k(
; O0-NEXT:  load float
; O0-NEXT:  call float @llvm.nvvm.sqrt.rn.f(
; O0-NEXT:  store float
; O0-NEXT:  ret void

; With -nvptx-prec-sqrtf32=0 (-prec-sqrt=false), libdevice's answer stays.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-checks=none -nvptx-prec-sqrtf32=0 \
; RUN:   -passes='default<O2>' -S < %s | FileCheck %s --check-prefix=LLVM19

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@.str = private unnamed_addr constant [11 x i8] c"__CUDA_FTZ\00"
@.str.2 = private unnamed_addr constant [17 x i8] c"__CUDA_PREC_SQRT\00"

define void @k(ptr %p) #0 {
  %x = load float, ptr %p, align 4
  %r = call float @__nv_sqrtf(float %x)
  store float %r, ptr %p, align 4
  ret void
}

; libdevice's __nv_sqrtf as linked by -mlink-builtin-bitcode.
define internal float @__nv_sqrtf(float %x) #1 {
  %ftz = call i32 @__nvvm_reflect(ptr @.str)
  %is.ftz = icmp ne i32 %ftz, 0
  br i1 %is.ftz, label %ftz.query, label %ieee.query

ftz.query:
  %prec.ftz = call i32 @__nvvm_reflect(ptr @.str.2)
  %rn.ftz = icmp ne i32 %prec.ftz, 0
  br i1 %rn.ftz, label %ftz.rn, label %ftz.approx

ftz.rn:
  %a = call float @llvm.nvvm.sqrt.rn.ftz.f(float %x)
  br label %done

ftz.approx:
  %b = call float @llvm.nvvm.sqrt.approx.ftz.f(float %x)
  br label %done

ieee.query:
  %prec = call i32 @__nvvm_reflect(ptr @.str.2)
  %rn = icmp ne i32 %prec, 0
  br i1 %rn, label %ieee.rn, label %ieee.approx

ieee.rn:
  %c = call float @llvm.nvvm.sqrt.rn.f(float %x)
  br label %done

ieee.approx:
  %d = call float @llvm.nvvm.sqrt.approx.f(float %x)
  br label %done

done:
  %r = phi float [ %a, %ftz.rn ], [ %b, %ftz.approx ], [ %c, %ieee.rn ], [ %d, %ieee.approx ]
  ret float %r
}

declare i32 @__nvvm_reflect(ptr)
declare float @llvm.nvvm.sqrt.rn.ftz.f(float)
declare float @llvm.nvvm.sqrt.approx.ftz.f(float)
declare float @llvm.nvvm.sqrt.rn.f(float)
declare float @llvm.nvvm.sqrt.approx.f(float)

attributes #0 = { "target-cpu"="sm_90" }
attributes #1 = { alwaysinline "target-cpu"="sm_90" }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
