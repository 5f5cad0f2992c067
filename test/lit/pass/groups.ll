; Accesses in one stretch of straight-line code to the same object (static
; shared, local or __device__ array, extern shared, or a kernel argument)
; whose addresses differ by constants (ScalarEvolution) form a group: the
; first in program order (the leader) checks the whole range
; [%kosan.group + min, %kosan.group + maxEnd) once (%kosan.bad) and
; reports; the other members reuse its %kosan.bad and get no report branch.
; When every member is a load of a static object and the span fits in it,
; the members address off one %kosan.safe.base = select(bad, object - min,
; leader) with constant GEPs (a bad group reads inside the object, values
; discarded); otherwise each member selects the sink itself. The report's
; cold path scans the group's table @__kosan_group {offset from the leader,
; size, site} in program order and reports the first member that is out of
; bounds on its own. Accesses in different blocks are never grouped.
; (groups_unrolled.ll: an unrolled loop over a kernel argument, and the
; cases that must keep checks of their own.)

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 -kosan-link-runtime=false -S < %s | FileCheck %s

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [16 x [8 x float]] undef, align 4
@itile = internal addrspace(3) global [16 x [4 x i32]] undef, align 4

define void @unrolled(ptr %out, i64 %ty) {
entry:
  %p0 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 0
  %v0 = load float, ptr addrspace(3) %p0, align 4
  %p1 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 1
  %v1 = load float, ptr addrspace(3) %p1, align 4
  %p2 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 2
  %v2 = load float, ptr addrspace(3) %p2, align 4
  %p3 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 3
  %v3 = load float, ptr addrspace(3) %p3, align 4
  %p4 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 4
  %v4 = load float, ptr addrspace(3) %p4, align 4
  %p5 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 5
  %v5 = load float, ptr addrspace(3) %p5, align 4
  %p6 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 6
  %v6 = load float, ptr addrspace(3) %p6, align 4
  %p7 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 7
  %v7 = load float, ptr addrspace(3) %p7, align 4
  %s1 = fadd float %v0, %v1
  %s2 = fadd float %s1, %v2
  %s3 = fadd float %s2, %v3
  %s4 = fadd float %s3, %v4
  %s5 = fadd float %s4, %v5
  %s6 = fadd float %s5, %v6
  %s7 = fadd float %s6, %v7
  store float %s7, ptr %out, align 4
  ret void
}

; tile[ty][1] = tile[ty][0]; tile[ty][2] = 0 (a store in the group).
define void @with_store(i64 %ty) {
entry:
  %p0 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 0
  %v = load float, ptr addrspace(3) %p0, align 4
  %p1 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 1
  store float %v, ptr addrspace(3) %p1, align 4
  %p2 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 2
  store float 0.0, ptr addrspace(3) %p2, align 4
  ret void
}

define void @two_blocks(i64 %ty, ptr %out) {
entry:
  %p0 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 0
  %v0 = load float, ptr addrspace(3) %p0, align 4
  br label %next
next:
  %p1 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 1
  %v1 = load float, ptr addrspace(3) %p1, align 4
  %s = fadd float %v0, %v1
  store float %s, ptr %out, align 4
  ret void
}

define void @arg(ptr %a, i64 %i) {
entry:
  %p0 = getelementptr inbounds float, ptr %a, i64 %i
  %v0 = load float, ptr %p0, align 4
  %p1 = getelementptr inbounds float, ptr %p0, i64 1
  %v1 = load float, ptr %p1, align 4
  %s = fadd float %v0, %v1
  store float %s, ptr %p0, align 4
  ret void
}

; Leader at offset 12, minimum at 4 (tile[ty][1]), maximum end at 24 (tile[ty][5]).
define void @mixed(ptr %out, i64 %ty) {
entry:
  %p3 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 3
  %v3 = load float, ptr addrspace(3) %p3, align 4
  %p1 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 1
  %v1 = load float, ptr addrspace(3) %p1, align 4
  %p5 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 5
  %v5 = load float, ptr addrspace(3) %p5, align 4
  %s = fadd float %v3, %v1
  %t = fadd float %s, %v5
  store float %t, ptr %out, align 4
  ret void
}

; Members promise a range and a defined value of what they read; read through
; the safe base of a bad group they read another element instead, so the
; promises are dropped, as for a redirected access.
define void @ranged(ptr %out, i64 %ty) {
entry:
  %p0 = getelementptr inbounds [16 x [4 x i32]], ptr addrspace(3) @itile, i64 0, i64 %ty, i64 0
  %v0 = load i32, ptr addrspace(3) %p0, align 4, !range !6, !noundef !7
  %p1 = getelementptr inbounds [16 x [4 x i32]], ptr addrspace(3) @itile, i64 0, i64 %ty, i64 1
  %v1 = load i32, ptr addrspace(3) %p1, align 4, !range !6, !noundef !7
  %s = add i32 %v0, %v1
  store i32 %s, ptr %out, align 4
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5}
!0 = !{ptr @unrolled, !"kernel", i32 1}
!1 = !{ptr @with_store, !"kernel", i32 1}
!2 = !{ptr @two_blocks, !"kernel", i32 1}
!3 = !{ptr @arg, !"kernel", i32 1}
!4 = !{ptr @mixed, !"kernel", i32 1}
!5 = !{ptr @ranged, !"kernel", i32 1}
!6 = !{i32 0, i32 100}
!7 = !{}

; The tables: offsets from each group's leader, sizes and sites in program
; order (@mixed's leader, tile[ty][3], first: tile[ty][1] is at -8).
; CHECK-DAG: @__kosan_group = internal addrspace(1) constant [8 x { i64, i32, i32 }] [{ i64, i32, i32 } { i64 0, i32 4, i32 0 }, { i64, i32, i32 } { i64 4, i32 4, i32 1 }, {{.*}}, { i64, i32, i32 } { i64 28, i32 4, i32 7 }]
; CHECK-DAG: @__kosan_group1 = internal addrspace(1) constant [3 x { i64, i32, i32 }] [{ i64, i32, i32 } { i64 0, i32 4, i32 9 }, { i64, i32, i32 } { i64 4, i32 4, i32 10 }, { i64, i32, i32 } { i64 8, i32 4, i32 11 }]
; CHECK-DAG: @__kosan_group2 = internal addrspace(1) constant [3 x { i64, i32, i32 }] [{ i64, i32, i32 } { i64 0, i32 4, i32 15 }, { i64, i32, i32 } { i64 4, i32 4, i32 16 }, { i64, i32, i32 } { i64 0, i32 4, i32 17 }]
; CHECK-DAG: @__kosan_group3 = internal addrspace(1) constant [3 x { i64, i32, i32 }] [{ i64, i32, i32 } { i64 0, i32 4, i32 18 }, { i64, i32, i32 } { i64 -8, i32 4, i32 19 }, { i64, i32, i32 } { i64 8, i32 4, i32 20 }]

; The unrolled loop: one range check of the 32 bytes tile[ty][0..7] span.
; CHECK-LABEL: define ptx_kernel void @unrolled__kosan(
; CHECK:         %p0 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 0
; CHECK-NEXT:    %kosan.group = ptrtoint ptr addrspace(3) %p0 to i64
; CHECK-NEXT:    [[LO:%.*]] = add i64 %kosan.group, 0
; CHECK-NEXT:    [[HI:%.*]] = add i64 %kosan.group, 32
; CHECK-NEXT:    [[ABOVE:%.*]] = icmp ugt i64 [[HI]], add (i64 ptrtoint (ptr addrspace(3) @tile to i64), i64 512)
; CHECK-NEXT:    [[BELOW:%.*]] = icmp ult i64 [[LO]], ptrtoint (ptr addrspace(3) @tile to i64)
; CHECK-NEXT:    %kosan.bad = or i1 [[BELOW]], [[ABOVE]]
; CHECK-NEXT:    %kosan.safe.base = select i1 %kosan.bad, ptr addrspace(3) @tile, ptr addrspace(3) %p0
; The leader itself is redirected to the shared sink and reports.
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %p0
; CHECK-NEXT:    %v0 = load float, ptr addrspace(3) %kosan.safe, align 4
; CHECK-NEXT:    %v0.kosan = select i1 %kosan.bad, float 0.000000e+00, float %v0
; CHECK-NEXT:    br i1 %kosan.bad, label %kosan.report, label %[[CONT:[0-9]+]], !prof
; CHECK-EMPTY:
; The report: the first member out of the object, from the table.
; CHECK-NEXT:  kosan.report:
; CHECK-NEXT:    br label %kosan.group.scan
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.group.scan:
; CHECK-NEXT:    %kosan.member = phi i32 [ 0, %kosan.report ], [ [[NEXT:%.*]], %kosan.group.next ]
; CHECK-NEXT:    [[OFFP:%.*]] = getelementptr inbounds [8 x { i64, i32, i32 }], ptr addrspace(1) @__kosan_group, i32 0, i32 %kosan.member, i32 0
; CHECK-NEXT:    [[OFF:%.*]] = load i64, ptr addrspace(1) [[OFFP]], align 8, !nosanitize
; CHECK-NEXT:    [[ADDR:%.*]] = add i64 %kosan.group, [[OFF]]
; CHECK-NEXT:    [[SIZEP:%.*]] = getelementptr inbounds [8 x { i64, i32, i32 }], ptr addrspace(1) @__kosan_group, i32 0, i32 %kosan.member, i32 1
; CHECK-NEXT:    [[SIZE:%.*]] = load i32, ptr addrspace(1) [[SIZEP]], align 4, !nosanitize
; CHECK-NEXT:    [[SITEP:%.*]] = getelementptr inbounds [8 x { i64, i32, i32 }], ptr addrspace(1) @__kosan_group, i32 0, i32 %kosan.member, i32 2
; CHECK-NEXT:    [[SITE:%.*]] = load i32, ptr addrspace(1) [[SITEP]], align 4, !nosanitize
; CHECK-NEXT:    [[SIZE64:%.*]] = zext i32 [[SIZE]] to i64
; CHECK-NEXT:    [[END:%.*]] = add i64 [[ADDR]], [[SIZE64]]
; CHECK-NEXT:    [[RHI:%.*]] = icmp ugt i64 [[END]], add (i64 ptrtoint (ptr addrspace(3) @tile to i64), i64 512)
; CHECK-NEXT:    [[RLO:%.*]] = icmp ult i64 [[ADDR]], ptrtoint (ptr addrspace(3) @tile to i64)
; CHECK-NEXT:    [[RBAD:%.*]] = or i1 [[RLO]], [[RHI]]
; CHECK-NEXT:    br i1 [[RBAD]], label %kosan.group.found, label %kosan.group.next
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.group.next:
; CHECK-NEXT:    [[NEXT]] = add i32 %kosan.member, 1
; CHECK-NEXT:    [[MORE:%.*]] = icmp ult i32 [[NEXT]], 8
; CHECK-NEXT:    br i1 [[MORE]], label %kosan.group.scan, label %kosan.group.found
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.group.found:
; CHECK-NEXT:    %kosan.member.bad = phi i1 [ true, %kosan.group.scan ], [ false, %kosan.group.next ]
; CHECK-NEXT:    %kosan.member.site = phi i32 [ [[SITE]], %kosan.group.scan ], [ 0, %kosan.group.next ]
; CHECK-NEXT:    %kosan.member.addr = phi i64 [ [[ADDR]], %kosan.group.scan ], [ 0, %kosan.group.next ]
; CHECK-NEXT:    %kosan.member.size = phi i32 [ [[SIZE]], %kosan.group.scan ], [ 0, %kosan.group.next ]
; CHECK:         br i1 %kosan.member.bad, label %kosan.record, label
; CHECK:       kosan.record.write:
; CHECK:         store i64 %kosan.member.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 ptrtoint (ptr addrspace(3) @tile to i64), ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 add (i64 ptrtoint (ptr addrspace(3) @tile to i64), i64 512), ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 0, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 %kosan.member.size, ptr {{%.*}}, align 4
; CHECK:         call void @llvm.nvvm.membar.sys()
; CHECK-NEXT:    [[SITE64:%.*]] = zext i32 %kosan.member.site to i64
; CHECK-NEXT:    zext i32 %kosan.launch_id to i64
; CHECK-NEXT:    shl i64
; CHECK-NEXT:    or i64 {{%.*}}, [[SITE64]]
; CHECK:         call void @llvm.trap()
; The other seven: constant offsets off the one safe base, no check and no
; report of their own.
; CHECK:       [[CONT]]:
; CHECK-NEXT:    %p1 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 1
; CHECK-NEXT:    %kosan.safe1 = getelementptr i8, ptr addrspace(3) %kosan.safe.base, i64 4
; CHECK-NEXT:    %v1 = load float, ptr addrspace(3) %kosan.safe1, align 4
; CHECK-NEXT:    %v1.kosan = select i1 %kosan.bad, float 0.000000e+00, float %v1
; CHECK-NEXT:    %p2 = getelementptr
; CHECK-NEXT:    %kosan.safe2 = getelementptr i8, ptr addrspace(3) %kosan.safe.base, i64 8
; CHECK-NEXT:    %v2 = load float, ptr addrspace(3) %kosan.safe2, align 4
; CHECK-NEXT:    %v2.kosan = select i1 %kosan.bad, float 0.000000e+00, float %v2
; CHECK-NEXT:    %p3 = getelementptr
; CHECK-NEXT:    %kosan.safe3 = getelementptr i8, ptr addrspace(3) %kosan.safe.base, i64 12
; CHECK-NEXT:    %v3 = load float, ptr addrspace(3) %kosan.safe3, align 4
; CHECK-NEXT:    %v3.kosan = select i1 %kosan.bad, float 0.000000e+00, float %v3
; CHECK-NEXT:    %p4 = getelementptr
; CHECK-NEXT:    %kosan.safe4 = getelementptr i8, ptr addrspace(3) %kosan.safe.base, i64 16
; CHECK-NEXT:    %v4 = load float, ptr addrspace(3) %kosan.safe4, align 4
; CHECK-NEXT:    %v4.kosan = select i1 %kosan.bad, float 0.000000e+00, float %v4
; CHECK-NEXT:    %p5 = getelementptr
; CHECK-NEXT:    %kosan.safe5 = getelementptr i8, ptr addrspace(3) %kosan.safe.base, i64 20
; CHECK-NEXT:    %v5 = load float, ptr addrspace(3) %kosan.safe5, align 4
; CHECK-NEXT:    %v5.kosan = select i1 %kosan.bad, float 0.000000e+00, float %v5
; CHECK-NEXT:    %p6 = getelementptr
; CHECK-NEXT:    %kosan.safe6 = getelementptr i8, ptr addrspace(3) %kosan.safe.base, i64 24
; CHECK-NEXT:    %v6 = load float, ptr addrspace(3) %kosan.safe6, align 4
; CHECK-NEXT:    %v6.kosan = select i1 %kosan.bad, float 0.000000e+00, float %v6
; CHECK-NEXT:    %p7 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 7
; CHECK-NEXT:    %kosan.safe7 = getelementptr i8, ptr addrspace(3) %kosan.safe.base, i64 28
; CHECK-NEXT:    %v7 = load float, ptr addrspace(3) %kosan.safe7, align 4
; CHECK-NEXT:    %v7.kosan = select i1 %kosan.bad, float 0.000000e+00, float %v7
; CHECK-NEXT:    %s1 = fadd float %v0.kosan, %v1.kosan
; Only the store to %out (argument 0) has a check of its own.
; CHECK-NOT:     %kosan.group =
; CHECK:         %kosan.addr = ptrtoint ptr %out to i64
; CHECK:         ret void

; A store in the group: no safe base; each member selects the sink with the
; group's %kosan.bad; the leader reports (sites 9 to 11 in its table).
; CHECK-LABEL: define ptx_kernel void @with_store__kosan(
; CHECK:         %kosan.group = ptrtoint ptr addrspace(3) %p0 to i64
; CHECK-NEXT:    [[LO:%.*]] = add i64 %kosan.group, 0
; CHECK-NEXT:    [[HI:%.*]] = add i64 %kosan.group, 12
; CHECK:         %kosan.bad = or i1
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %p0
; CHECK-NEXT:    %v = load float, ptr addrspace(3) %kosan.safe, align 4
; CHECK-NEXT:    %v.kosan = select i1 %kosan.bad, float 0.000000e+00, float %v
; CHECK-NEXT:    br i1 %kosan.bad, label %kosan.report, label %[[CONT:[0-9]+]], !prof
; CHECK:         @__kosan_group1, i32 0, i32 %kosan.member, i32 0
; CHECK:       [[CONT]]:
; CHECK-NEXT:    %p1 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 1
; CHECK-NEXT:    %kosan.safe1 = select i1 %kosan.bad, ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %p1
; CHECK-NEXT:    store float %v.kosan, ptr addrspace(3) %kosan.safe1, align 4
; CHECK-NEXT:    %p2 = getelementptr inbounds [16 x [8 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 2
; CHECK-NEXT:    %kosan.safe2 = select i1 %kosan.bad, ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %p2
; CHECK-NEXT:    store float 0.000000e+00, ptr addrspace(3) %kosan.safe2, align 4
; CHECK-NEXT:    ret void

; Different blocks: two ordinary checks, two reports (sites 12 and 13).
; CHECK-LABEL: define ptx_kernel void @two_blocks__kosan(
; CHECK-NOT:     %kosan.group =
; CHECK-NOT:     %kosan.safe.base
; CHECK:         %kosan.addr = ptrtoint ptr addrspace(3) %p0 to i64
; CHECK:         %kosan.safe = select i1 %kosan.bad, ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %p0
; CHECK:         or i64 {{%.*}}, 12
; CHECK:       next:
; CHECK-NEXT:    %p1 = getelementptr
; CHECK-NEXT:    %kosan.addr1 = ptrtoint ptr addrspace(3) %p1 to i64
; CHECK:         [[BAD:%kosan.bad[0-9]+]] = icmp ugt i64
; CHECK-NEXT:    {{%kosan.safe[0-9]+}} = select i1 [[BAD]], ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %p1
; CHECK:         or i64 {{%.*}}, 13
; CHECK-NOT:     %kosan.group =
; CHECK:         ret void

; A kernel argument: a[i], a[i + 1] loaded and a[i] stored, one group of
; three against its bounds (sites 15 to 17); a pitched argument takes the
; report branch, where each member's row is tested.
; CHECK-LABEL: define ptx_kernel void @arg__kosan(
; CHECK:         %kosan.group = ptrtoint ptr %p0 to i64
; CHECK-NEXT:    [[LO:%.*]] = add i64 %kosan.group, 0
; CHECK-NEXT:    [[HI:%.*]] = add i64 %kosan.group, 8
; CHECK-NEXT:    [[ABOVE:%.*]] = icmp ugt i64 [[HI]], %kosan.arg0.end
; CHECK-NEXT:    [[BELOW:%.*]] = icmp ult i64 [[LO]], %kosan.arg0.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[BELOW]], [[ABOVE]]
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 %kosan.bad, %kosan.pitched
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, {{.*}}, ptr %p0
; CHECK:         br i1 [[REPORT]], label %kosan.report
; CHECK:         @__kosan_group2, i32 0, i32 %kosan.member, i32 0
; CHECK:         urem i32
; CHECK:         %kosan.safe1 = select i1 %kosan.bad, {{.*}}, ptr %p1
; CHECK:         %kosan.safe2 = select i1 %kosan.bad, {{.*}}, ptr %p0
; CHECK-NEXT:    store float %s, ptr %kosan.safe2, align 4
; CHECK-NOT:     %kosan.group =
; CHECK:         ret void

; Leader tile[ty][3], range [leader - 8, leader + 12): the safe base falls
; back to tile + 8, so that tile[ty][1] and tile[ty][5] read tile[0] and
; tile[4] when bad.
; CHECK-LABEL: define ptx_kernel void @mixed__kosan(
; CHECK:         %kosan.group = ptrtoint ptr addrspace(3) %p3 to i64
; CHECK-NEXT:    [[LO:%.*]] = add i64 %kosan.group, -8
; CHECK-NEXT:    [[HI:%.*]] = add i64 %kosan.group, 12
; CHECK-NEXT:    [[ABOVE:%.*]] = icmp ugt i64 [[HI]], add (i64 ptrtoint (ptr addrspace(3) @tile to i64), i64 512)
; CHECK-NEXT:    [[BELOW:%.*]] = icmp ult i64 [[LO]], ptrtoint (ptr addrspace(3) @tile to i64)
; CHECK-NEXT:    %kosan.bad = or i1 [[BELOW]], [[ABOVE]]
; CHECK-NEXT:    %kosan.safe.base = select i1 %kosan.bad, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @tile, i64 8), ptr addrspace(3) %p3
; CHECK:         @__kosan_group3, i32 0, i32 %kosan.member, i32 0
; CHECK:         %kosan.safe1 = getelementptr i8, ptr addrspace(3) %kosan.safe.base, i64 -8
; CHECK-NEXT:    %v1 = load float, ptr addrspace(3) %kosan.safe1, align 4
; CHECK:         %kosan.safe2 = getelementptr i8, ptr addrspace(3) %kosan.safe.base, i64 8
; CHECK-NEXT:    %v5 = load float, ptr addrspace(3) %kosan.safe2, align 4

; Members with !range and !noundef: the leader (redirected to the sink) and
; the member (read off the safe base) both lose them. The group's report
; writes its 8-byte key, with the site from the table, as one naturally
; aligned store.
; CHECK-LABEL: define ptx_kernel void @ranged__kosan(
; CHECK:         %kosan.safe.base = select i1 %kosan.bad, ptr addrspace(3) @itile, ptr addrspace(3) %p0
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %p0
; CHECK-NEXT:    %v0 = load i32, ptr addrspace(3) %kosan.safe, align 4{{$}}
; CHECK:       kosan.group.found:
; CHECK:         [[SITE64:%.*]] = zext i32 %kosan.member.site to i64
; CHECK-NEXT:    [[L64:%.*]] = zext i32 %kosan.launch_id to i64
; CHECK-NEXT:    [[HIGH:%.*]] = shl i64 [[L64]], 32
; CHECK-NEXT:    [[KEY0:%.*]] = or i64 [[HIGH]], [[SITE64]]
; CHECK-NEXT:    [[KEY:%.*]] = add i64 [[KEY0]], 1
; CHECK-NEXT:    [[F:%.*]] = getelementptr inbounds i8, ptr {{%.*}}, i64 0
; CHECK-NEXT:    store i64 [[KEY]], ptr [[F]], align 8
; CHECK:         %kosan.safe1 = getelementptr i8, ptr addrspace(3) %kosan.safe.base, i64 4
; CHECK-NEXT:    %v1 = load i32, ptr addrspace(3) %kosan.safe1, align 4{{$}}
; CHECK-NEXT:    %v1.kosan = select i1 %kosan.bad, i32 0, i32 %v1
; CHECK:         ret void
