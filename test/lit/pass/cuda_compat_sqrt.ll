; The compatibility pass gives libdevice's square roots nvcc's rounding:
; libdevice asks __nvvm_reflect("__CUDA_PREC_SQRT"), which LLVM 19's
; NVVMReflect answers 0 (approximate) where nvcc answers 1 unless
; -prec-sqrt=false. The functions below are libdevice's after NVVMReflect,
; as the pass finds them at the start of clang's pipeline.

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-compat -S < %s \
; RUN:   | FileCheck %s --check-prefixes=CHECK,RN
; -nvptx-prec-sqrtf32=0 (kosan-nvcc's -prec-sqrt=false, --use_fast_math)
; keeps libdevice's approximate answer, even where =1 would not.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-compat -nvptx-prec-sqrtf32=0 -S < %s \
; RUN:   | FileCheck %s --check-prefixes=CHECK,APPROX
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-compat -nvptx-prec-sqrtf32=1 -S < %s \
; RUN:   | FileCheck %s --check-prefixes=CHECK,FORCED-RN
; Host modules are left alone.
; RUN: sed 's/^target triple = .*/target triple = "x86_64-unknown-linux-gnu"/' %s \
; RUN:   | %opt -load-pass-plugin=%kosan_plugin -passes=kosan-compat -S \
; RUN:   | FileCheck %s --check-prefixes=CHECK,APPROX
; The pass prints as it parses.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-compat -print-pipeline-passes \
; RUN:   -disable-output < %s | FileCheck %s --check-prefix=PIPELINE
; PIPELINE: kosan-compat

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; sqrtf without -ftz.
; CHECK-LABEL: define internal float @__nv_sqrtf(
; RN:        %r = call float @llvm.nvvm.sqrt.rn.f(float %x)
; FORCED-RN: %r = call float @llvm.nvvm.sqrt.rn.f(float %x)
; APPROX:    %r = call float @llvm.nvvm.sqrt.approx.f(float %x)
define internal float @__nv_sqrtf(float %x) {
  %r = call float @llvm.nvvm.sqrt.approx.f(float %x)
  ret float %r
}

; hypotf's square root, with -ftz (NVVMReflect answered __CUDA_FTZ with 1):
; the .ftz choice is kept.
; CHECK-LABEL: define internal float @__nv_hypotf(
; RN:        %r = call float @llvm.nvvm.sqrt.rn.ftz.f(float %s)
; FORCED-RN: %r = call float @llvm.nvvm.sqrt.rn.ftz.f(float %s)
; APPROX:    %r = call float @llvm.nvvm.sqrt.approx.ftz.f(float %s)
define internal float @__nv_hypotf(float %a, float %b) {
  %aa = fmul float %a, %a
  %s = call float @llvm.nvvm.fma.rn.ftz.f(float %b, float %b, float %aa)
  %r = call float @llvm.nvvm.sqrt.approx.ftz.f(float %s)
  ret float %r
}

; Compiled with clang's -ffast-math: approximate, as the NVPTX backend
; makes its own llvm.nvvm.sqrt.f there, unless -nvptx-prec-sqrtf32=1.
; CHECK-LABEL: define internal float @__nv_normf(
; RN:        %r = call float @llvm.nvvm.sqrt.approx.f(float %x)
; FORCED-RN: %r = call float @llvm.nvvm.sqrt.rn.f(float %x)
; APPROX:    %r = call float @llvm.nvvm.sqrt.approx.f(float %x)
define internal float @__nv_normf(float %x) #0 {
  %r = call float @llvm.nvvm.sqrt.approx.f(float %x)
  ret float %r
}

; The explicitly rounded forms are not libdevice's answer to the query.
; CHECK-LABEL: define internal float @__nv_fsqrt_rz(
; CHECK:       call float @llvm.nvvm.sqrt.rz.f(float %x)
define internal float @__nv_fsqrt_rz(float %x) {
  %r = call float @llvm.nvvm.sqrt.rz.f(float %x)
  ret float %r
}

; Code outside libdevice that asks for the approximate square root gets it.
; CHECK-LABEL: define float @user_approx(
; CHECK:       call float @llvm.nvvm.sqrt.approx.f(float %x)
define float @user_approx(float %x) {
  %r = call float @llvm.nvvm.sqrt.approx.f(float %x)
  ret float %r
}

declare float @llvm.nvvm.sqrt.approx.f(float)
declare float @llvm.nvvm.sqrt.approx.ftz.f(float)
declare float @llvm.nvvm.sqrt.rz.f(float)
declare float @llvm.nvvm.fma.rn.ftz.f(float, float, float)

attributes #0 = { "unsafe-fp-math"="true" }
