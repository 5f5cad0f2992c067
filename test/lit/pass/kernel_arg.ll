; Accesses through a kernel's pointer parameters are checked against the
; bounds the host resolved for that argument at launch: two compares against
; launch_info.args[i].{begin,end} (byte offsets 32 + 32*i and 40 + 32*i of the
; by-value launch info). A failing compare goes to kosan.slow, which reports
; the site (id, size, bounds, and the pitch/shape at 48 + 32*i, 56 + 32*i) and
; says whether the access may go ahead; if not, the store is dropped and the
; load yields zero. Provenance sees through GEPs, bitcasts, addrspacecasts, a
; loop's pointer phi and a select between pointers into the same argument.

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -S < %s | FileCheck %s
; The dispatcher (what clang's pipeline runs) does the same on a device module.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan -kosan-link-runtime=false -S < %s | FileCheck %s
; With checks off, nothing is cloned or instrumented.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan -kosan-checks=none -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefix=NONE

; NONE-NOT: __kosan
; NONE:     define void @load_store(
; NONE-NOT: __kosan

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; in[i] = out[i] through a GEP and an addrspacecast to global.
define void @load_store(ptr %in, ptr %out, i64 %i) {
entry:
  %pi = getelementptr inbounds float, ptr %in, i64 %i
  %v = load float, ptr %pi, align 4
  %g = addrspacecast ptr %out to ptr addrspace(1)
  %po = getelementptr inbounds float, ptr addrspace(1) %g, i64 %i
  store float %v, ptr addrspace(1) %po, align 4
  ret void
}
; CHECK-LABEL: define void @load_store__kosan(ptr %in, ptr %out, i64 %i, ptr byval([16 x i64]) align 8 %kosan.launch_info)
; CHECK:         %kosan.state = load i64, ptr %{{.*}}, !nosanitize
; CHECK:         %kosan.launch_id = load i32, ptr %{{.*}}, !nosanitize
; CHECK:         %kosan.flags = load i32, ptr %{{.*}}, !nosanitize
; Bounds of every argument used are read once, at entry.
; CHECK-DAG:     [[E1P:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 72
; CHECK-DAG:     %kosan.arg1.end = load i64, ptr [[E1P]], align 8, !nosanitize
; CHECK-DAG:     [[B1P:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 64
; CHECK-DAG:     %kosan.arg1.begin = load i64, ptr [[B1P]], align 8, !nosanitize
; CHECK-DAG:     [[E0P:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 40
; CHECK-DAG:     %kosan.arg0.end = load i64, ptr [[E0P]], align 8, !nosanitize
; CHECK-DAG:     [[B0P:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 32
; CHECK-DAG:     %kosan.arg0.begin = load i64, ptr [[B0P]], align 8, !nosanitize
; The load: in bounds iff begin <= addr && addr + 4 <= end.
; CHECK:         %pi = getelementptr inbounds float, ptr %in, i64 %i
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %pi to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 4
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    br i1 %kosan.bad, label %kosan.slow, label %kosan.access, !prof [[UNLIKELY:![0-9]+]]
; CHECK:       kosan.access:
; CHECK-NEXT:    %v = load float, ptr %pi, align 4
; CHECK-NEXT:    br label %kosan.cont
; CHECK:       kosan.slow:
; CHECK-NEXT:    [[PP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 48
; CHECK-NEXT:    [[PITCH:%.*]] = load i64, ptr [[PP]], align 8, !nosanitize
; CHECK-NEXT:    [[SP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 56
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64, ptr [[SP]], align 8, !nosanitize
; CHECK-NEXT:    [[OK:%.*]] = call i1 @__kosan_oob_report(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 0, i64 %kosan.addr, i32 4, i64 %kosan.arg0.begin, i64 %kosan.arg0.end, i64 [[PITCH]], i64 [[SHAPE]])
; CHECK-NEXT:    br i1 [[OK]], label %kosan.access, label %kosan.skip, !prof [[LIKELY:![0-9]+]]
; CHECK:       kosan.skip:
; CHECK-NEXT:    br label %kosan.cont
; A dropped load yields zero.
; CHECK:       kosan.cont:
; CHECK-NEXT:    %v.kosan = phi float [ %v, %kosan.access ], [ 0.000000e+00, %kosan.skip ]
; The store through the addrspacecast is checked against argument 1 and
; stores the phi, not the unchecked load.
; CHECK:         %po = getelementptr inbounds float, ptr addrspace(1) %g, i64 %i
; CHECK-NEXT:    %kosan.addr1 = ptrtoint ptr addrspace(1) %po to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr1, 4
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg1.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr1, %kosan.arg1.begin
; CHECK-NEXT:    [[BAD:%.*]] = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    br i1 [[BAD]], label %[[SLOW:.*]], label %[[ACCESS:.*]], !prof [[UNLIKELY]]
; CHECK:       [[ACCESS]]:
; CHECK-NEXT:    store float %v.kosan, ptr addrspace(1) %po, align 4
; CHECK-NEXT:    br label %[[CONT:.*]]
; CHECK:       [[SLOW]]:
; CHECK-NEXT:    [[PP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 80
; CHECK-NEXT:    [[PITCH:%.*]] = load i64, ptr [[PP]]
; CHECK-NEXT:    [[SP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 88
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64, ptr [[SP]]
; CHECK-NEXT:    [[OK:%.*]] = call i1 @__kosan_oob_report(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 1, i64 %kosan.addr1, i32 4, i64 %kosan.arg1.begin, i64 %kosan.arg1.end, i64 [[PITCH]], i64 [[SHAPE]])
; CHECK-NEXT:    br i1 [[OK]], label %[[ACCESS]], label %[[SKIP:.*]], !prof [[LIKELY]]
; CHECK:       [[SKIP]]:
; CHECK-NEXT:    br label %[[CONT]]
; CHECK:       [[CONT]]:
; CHECK-NEXT:    ret void

; The third parameter (index 2): its bounds at 96/104; a 16-byte vector store
; through an i8 GEP and a vector GEP.
define void @third_arg(i32 %n, float %x, ptr %p, i64 %i) {
entry:
  %q = getelementptr inbounds i8, ptr %p, i64 %i
  %r = getelementptr inbounds <4 x float>, ptr %q, i64 1
  store <4 x float> zeroinitializer, ptr %r, align 16
  ret void
}
; CHECK-LABEL: define void @third_arg__kosan(i32 %n, float %x, ptr %p, i64 %i, ptr byval([20 x i64]) align 8 %kosan.launch_info)
; CHECK-DAG:     [[EP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 104
; CHECK-DAG:     %kosan.arg2.end = load i64, ptr [[EP]]
; CHECK-DAG:     [[BP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 96
; CHECK-DAG:     %kosan.arg2.begin = load i64, ptr [[BP]]
; CHECK:         %kosan.addr = ptrtoint ptr %r to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 16
; CHECK-NEXT:    icmp ugt i64 [[LAST]], %kosan.arg2.end
; CHECK-NEXT:    icmp ult i64 %kosan.addr, %kosan.arg2.begin
; CHECK:       kosan.access:
; CHECK-NEXT:    store <4 x float> zeroinitializer, ptr %r, align 16
; CHECK:       kosan.slow:
; CHECK:         getelementptr inbounds i8, ptr %kosan.launch_info, i64 112
; CHECK:         getelementptr inbounds i8, ptr %kosan.launch_info, i64 120
; CHECK:         call i1 @__kosan_oob_report(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 2, i64 %kosan.addr, i32 16, i64 %kosan.arg2.begin, i64 %kosan.arg2.end,
; Nothing else reads another argument's bounds.
; CHECK-NOT:     %kosan.arg{{[013]}}.
; CHECK:         ret void

; A pointer walking the buffer in a loop: the phi's back edge adds no object,
; so both the load and the store are checked against argument 0.
define void @loop(ptr %p, i64 %n) {
entry:
  br label %loop
loop:
  %ptr = phi ptr [ %p, %entry ], [ %next, %loop ]
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %v = load i64, ptr %ptr, align 8
  %w = add i64 %v, 1
  store i64 %w, ptr %ptr, align 8
  %next = getelementptr inbounds i64, ptr %ptr, i64 1
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
; CHECK-LABEL: define void @loop__kosan(
; CHECK:       loop:
; CHECK-NEXT:    %ptr = phi ptr [ %p, %entry ], [ %next, %{{.*}} ]
; CHECK:         %kosan.addr = ptrtoint ptr %ptr to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 8
; CHECK-NEXT:    icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK:         call i1 @__kosan_oob_report({{.*}}, i32 3, i64 %kosan.addr, i32 8, i64 %kosan.arg0.begin, i64 %kosan.arg0.end,
; CHECK:         %v.kosan = phi i64 [ %v, %kosan.access ], [ 0, %kosan.skip ]
; CHECK-NEXT:    %w = add i64 %v.kosan, 1
; CHECK:         call i1 @__kosan_oob_report({{.*}}, i32 4, i64 %kosan.addr1, i32 8, i64 %kosan.arg0.begin, i64 %kosan.arg0.end,
; CHECK-NOT:     @__kosan_oob_check_table
; CHECK:         ret void

; select(c, a, a + i): both sides are argument 0.
define void @select_same(ptr %a, i1 %c, i64 %i) {
entry:
  %ai = getelementptr inbounds i16, ptr %a, i64 %i
  %s = select i1 %c, ptr %a, ptr %ai
  store i16 7, ptr %s, align 2
  ret void
}
; CHECK-LABEL: define void @select_same__kosan(
; CHECK:         %kosan.addr = ptrtoint ptr %s to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 2
; CHECK-NEXT:    icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK:         call i1 @__kosan_oob_report({{.*}}, i32 5, i64 %kosan.addr, i32 2, i64 %kosan.arg0.begin, i64 %kosan.arg0.end,
; CHECK-NOT:     @__kosan_oob_check_table
; CHECK:         ret void

; __ldg(&in[i]) as clang 19 emits it: a read-only-cache load intrinsic on a
; global pointer, checked like a load (4 bytes, argument 0).
define void @ldg(ptr %in, i64 %i) {
entry:
  %g = addrspacecast ptr %in to ptr addrspace(1)
  %p = getelementptr inbounds float, ptr addrspace(1) %g, i64 %i
  %v = call float @llvm.nvvm.ldg.global.f.f32.p1(ptr addrspace(1) %p, i32 4)
  %w = fadd float %v, 1.0
  ret void
}
declare float @llvm.nvvm.ldg.global.f.f32.p1(ptr addrspace(1), i32)
; CHECK-LABEL: define void @ldg__kosan(
; CHECK:         %kosan.addr = ptrtoint ptr addrspace(1) %p to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 4
; CHECK-NEXT:    icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK:       kosan.access:
; CHECK-NEXT:    %v = call float @llvm.nvvm.ldg.global.f.f32.p1(ptr addrspace(1) %p, i32 4)
; CHECK:         call i1 @__kosan_oob_report({{.*}}, i32 6, i64 %kosan.addr, i32 4, i64 %kosan.arg0.begin, i64 %kosan.arg0.end,
; CHECK:         %v.kosan = phi float [ %v, %kosan.access ], [ 0.000000e+00, %kosan.skip ]
; CHECK-NEXT:    %w = fadd float %v.kosan, 1.000000e+00

; The slow path is marked unlikely, and the access after it likely.
; CHECK-DAG: [[UNLIKELY]] = !{!"branch_weights", i32 1, i32 1048575}
; CHECK-DAG: [[LIKELY]] = !{!"branch_weights", i32 1048575, i32 1}

!nvvm.annotations = !{!0, !1, !2, !3, !4}
!0 = !{ptr @load_store, !"kernel", i32 1}
!1 = !{ptr @third_arg, !"kernel", i32 1}
!2 = !{ptr @loop, !"kernel", i32 1}
!3 = !{ptr @select_same, !"kernel", i32 1}
!4 = !{ptr @ldg, !"kernel", i32 1}
