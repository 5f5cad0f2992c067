; checks=precision: a store in a loop adds its error to the thread's tally
; of the site (kosan_prec_tally, abi.h): a zeroed local in the entry block,
; updated by __kosan_prec_tally at every store (inlined once the runtime is
; linked: no call per value) and merged into the site's slot by
; __kosan_prec_flush before each return (or every 255 values). A store outside any loop still
; calls __kosan_prec_value. -kosan-prec-tally=false calls it in the loop too.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -kosan-prec-tally=false -S < %s \
; RUN:   | FileCheck %s --check-prefix=OFF
; Linked and compiled: the loop keeps the tally in registers (no local
; memory, no call); the merge, with its warp reduction, is called after it.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision -S < %s -o %t.ll
; RUN: llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx80 %t.ll -o %t.ptx
; RUN: FileCheck %s --check-prefix=PTX < %t.ptx

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @saxpy(ptr %y, ptr %x, float %a, i32 %n) #0 {
entry:
  %first = icmp sgt i32 %n, 0
  br i1 %first, label %loop, label %exit

loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %px = getelementptr inbounds float, ptr %x, i32 %i
  %py = getelementptr inbounds float, ptr %y, i32 %i
  %xv = load float, ptr %px, align 4
  %yv = load float, ptr %py, align 4
  %r = call float @llvm.fma.f32(float %a, float %xv, float %yv)
  store float %r, ptr %py, align 4
  %next = add nsw i32 %i, 1
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %exit

exit:
  %x0 = load float, ptr %x, align 4
  %sq = fmul float %x0, %x0
  store float %sq, ptr %y, align 4
  ret void
}
declare float @llvm.fma.f32(float, float, float)
attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx80,+sm_90" }

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @saxpy, !"kernel", i32 1}
!1 = !{ptr @three, !"kernel", i32 1}

; CHECK-LABEL: define ptx_kernel void @saxpy__kosan(
; CHECK:         %kosan.tally = alloca [80 x i8], align 8
; CHECK:         call void @llvm.memset.p0.i64(ptr align 8 %kosan.tally, i8 0, i64 80, i1 false)
; CHECK:       loop:
; CHECK-NOT:     __kosan_prec_value
; CHECK:         [[SLOT:%[0-9]+]] = add i32 %kosan.prec_base, [[SITE:[0-9]+]]
; CHECK-NEXT:    call void @__kosan_prec_tally(i64 %kosan.state, i32 %kosan.launch_id, i32 [[SLOT]], ptr %kosan.tally, double %{{[0-9]+}}, double %{{[0-9]+}}, i32 2, i32 %kosan.cause_code, i32 %kosan.cause_slot)
; CHECK-NEXT:    store float %r
; CHECK:       exit:
; CHECK-NOT:     __kosan_prec_tally
; CHECK:         call void @__kosan_prec_value(
; CHECK:         store float %sq
; CHECK:         [[FLUSH:%[0-9]+]] = add i32 %kosan.prec_base, [[SITE]]
; CHECK-NEXT:    call void @__kosan_prec_flush(i64 %kosan.state, i32 %kosan.launch_id, i32 [[FLUSH]], ptr %kosan.tally)
; CHECK-NEXT:    ret void

; OFF-LABEL: define ptx_kernel void @saxpy__kosan(
; OFF-NOT:     kosan.tally
; OFF:       loop:
; OFF:         call void @__kosan_prec_value(
; OFF:         store float %r
; OFF-NOT:     __kosan_prec_flush
; OFF:         ret void

; The clone keeps the tally in registers (no local memory at all), and
; its loop calls nothing: a tally that reaches 255 values is added to the
; slot there by the lane alone, with atomics; the merge with the warp's
; other lanes is called after the loop, before the return.
; PTX-LABEL: .entry saxpy__kosan(
; PTX-NOT:     {{(ld|st)\.local}}
; PTX:         Loop Header
; PTX-NOT:     {{(ld|st)\.local|call}}
; PTX:         setp.ne.s32 %p{{[0-9]+}}, %r{{[0-9]+}}, 255;
; PTX-NOT:     {{(ld|st)\.local|call}}
; PTX:         atom.add.u64 %rd{{[0-9]+}}, [%rd{{[0-9]+}}], 255;
; PTX-NOT:     {{(ld|st)\.local|call}}
; PTX:         %__kosan_prec_tally.exit
; PTX-NOT:     {{(ld|st)\.local}}
; PTX:         {{^[[:space:]]+}}__kosan_prec_value,
; PTX-NOT:     {{(ld|st)\.local}}
; PTX:         {{^[[:space:]]+}}__kosan_prec_merge,
; PTX-NOT:     {{(ld|st)\.local}}
; PTX:       .func __kosan_prec_value(

; Two tallies per function by default: a loop of three stores tallies the
; first two (in program order) and calls the runtime per value for the third.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefix=MAX
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -kosan-prec-tally-max=3 -S < %s \
; RUN:   | FileCheck %s --check-prefix=MAX3

define void @three(ptr %y, ptr %x, i32 %n) #0 {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %px = getelementptr inbounds float, ptr %x, i32 %i
  %xv = load float, ptr %px, align 4
  %a = fmul float %xv, 3.0
  %b = fmul float %xv, 5.0
  %c = fmul float %xv, 7.0
  %p0 = getelementptr inbounds float, ptr %y, i32 %i
  store float %a, ptr %p0, align 4
  %p1 = getelementptr inbounds float, ptr %p0, i32 1
  store float %b, ptr %p1, align 4
  %p2 = getelementptr inbounds float, ptr %p0, i32 2
  store float %c, ptr %p2, align 4
  %next = add nsw i32 %i, 3
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %exit

exit:
  ret void
}


; MAX-LABEL: define ptx_kernel void @three__kosan(
; MAX:         call void @__kosan_prec_tally({{.*}}, ptr %kosan.tally{{[0-9]*}},
; MAX-NEXT:    store float %a
; MAX:         call void @__kosan_prec_tally({{.*}}, ptr %kosan.tally{{[0-9]*}},
; MAX-NEXT:    store float %b
; MAX:         call void @__kosan_prec_value(
; MAX-NEXT:    store float %c
; MAX-COUNT-2: call void @__kosan_prec_flush(
; MAX-NEXT:    ret void

; MAX3-LABEL: define ptx_kernel void @three__kosan(
; MAX3-NOT:    call void @__kosan_prec_value(
; MAX3-COUNT-3: call void @__kosan_prec_flush(
; MAX3-NEXT:   ret void
