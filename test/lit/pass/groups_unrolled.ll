; An unrolled loop's accesses of a kernel argument at constant distances
; (ScalarEvolution sees in + 4*(base + i + k)) are checked once per
; iteration: the leader, the first in program order, compares the range
; they span [lo, hi) with the argument's bounds (%kosan.bad), and a bad
; range or a pitched argument takes the one report branch. Loads then read
; off %kosan.safe.base, which a bad group points at @__kosan_zero_sink
; (never written: they read zero, no select of their values). The report's
; cold path loops over the group's table @__kosan_group {offset, size,
; site} and reports the first member in program order that is bad on its
; own (out of bounds or outside its row), with that member's site and
; address.
;
; NEGATIVE: a loop with an early exit puts each unrolled access in a block
; of its own: each keeps its own check and report. So does an access after a
; call that may not return, and a conditional one.

; (-kosan-hoist-checks=0: these loops' accesses would be checked once before
; the loop, hoist.ll; here they keep the checks of every iteration.)
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-hoist-checks=0 -pass-remarks=kosan-oob -S < %s 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; The uninit check of a group: one branch on the launch flag after its
; last load, a select per load in the cold path.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-hoist-checks=0 -kosan-debug-func=unrolled4 -S < %s | FileCheck %s --check-prefix=UNINIT

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @may_exit()

; REMARK: kernel 'unrolled4': 5 accesses checked (5 against kernel arguments, 0 against shared/local/global objects, 0 against the table of all buffers) by 2 checks, 4 of them in 1 groups at constant distances
; REMARK: kernel 'early_exit': 5 accesses checked (5 against kernel arguments, {{.*}} by 5 checks, 0 of them in 0 groups
; REMARK: kernel 'stores': 3 accesses checked (3 against kernel arguments, {{.*}} by 1 checks, 3 of them in 1 groups
; REMARK: kernel 'not_returning': 4 accesses checked {{.*}} by 3 checks, 2 of them in 1 groups
; REMARK: kernel 'conditional': 4 accesses checked {{.*}} by 3 checks, 2 of them in 1 groups
; REMARK: kernel 'mixed_alignment': 3 accesses checked {{.*}} by 2 checks, 2 of them in 1 groups

; CHECK-DAG: @__kosan_zero_sink = internal addrspace(1) global [1024 x i64] zeroinitializer, align 64
; The table of unrolled4's group: offsets 0, 4, 8, 12 from the leader, 4
; bytes each, sites 0 to 3.
; CHECK-DAG: @__kosan_group = internal addrspace(1) constant [4 x { i64, i32, i32 }] [{ i64, i32, i32 } { i64 0, i32 4, i32 0 }, { i64, i32, i32 } { i64 4, i32 4, i32 1 }, { i64, i32, i32 } { i64 8, i32 4, i32 2 }, { i64, i32, i32 } { i64 12, i32 4, i32 3 }]

; CHECK-LABEL: define ptx_kernel void @unrolled4__kosan(
; CHECK:       for.body:
; CHECK:         %kosan.group = ptrtoint ptr %arrayidx to i64
; CHECK-NEXT:    [[LO:%.*]] = add i64 %kosan.group, 0
; CHECK-NEXT:    [[HI:%.*]] = add i64 %kosan.group, 16
; CHECK-NEXT:    [[ABOVE:%.*]] = icmp ugt i64 [[HI]], %kosan.arg0.end
; CHECK-NEXT:    [[BELOW:%.*]] = icmp ult i64 [[LO]], %kosan.arg0.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[BELOW]], [[ABOVE]]
; CHECK-NEXT:    %kosan.safe.base = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %arrayidx
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 %kosan.bad, %kosan.pitched
; CHECK-NEXT:    %v0 = load float, ptr %kosan.safe.base, align 4
; CHECK-NEXT:    br i1 [[REPORT]], label %kosan.report, label %[[CONT:[0-9]+]], !prof
; The cold path: the scan of the table, then one report of the member found.
; CHECK:       kosan.group.scan:
; CHECK-NEXT:    %kosan.member = phi i32 [ 0, %kosan.report ], [ [[NEXT:%.*]], %kosan.group.next ]
; CHECK:         getelementptr inbounds [4 x { i64, i32, i32 }], ptr addrspace(1) @__kosan_group, i32 0, i32 %kosan.member, i32 0
; CHECK:         urem i32
; CHECK:         br i1 {{%.*}}, label %kosan.group.found, label %kosan.group.next
; CHECK:       kosan.group.next:
; CHECK-NEXT:    [[NEXT]] = add i32 %kosan.member, 1
; CHECK-NEXT:    [[MORE:%.*]] = icmp ult i32 [[NEXT]], 4
; CHECK-NEXT:    br i1 [[MORE]], label %kosan.group.scan, label %kosan.group.found
; CHECK:       kosan.group.found:
; CHECK-NEXT:    %kosan.member.bad = phi i1 [ true, %kosan.group.scan ], [ false, %kosan.group.next ]
; CHECK-NEXT:    %kosan.member.site = phi i32
; CHECK-NEXT:    %kosan.member.addr = phi i64
; CHECK-NEXT:    %kosan.member.size = phi i32
; CHECK:         br i1 %kosan.member.bad, label %kosan.record
; CHECK:       kosan.record.write:
; CHECK:         store i64 %kosan.member.addr,
; The other three members: constant offsets off the safe base, nothing else.
; CHECK:       [[CONT]]:
; CHECK-NEXT:    %add1 = fadd contract float %acc, %v0
; CHECK-NEXT:    %inc = or disjoint i32 %i, 1
; CHECK-NEXT:    %add.1 = add nsw i32 %inc, %base
; CHECK-NEXT:    %idxprom.1 = sext i32 %add.1 to i64
; CHECK-NEXT:    %arrayidx.1 = getelementptr inbounds float, ptr %in, i64 %idxprom.1
; CHECK-NEXT:    %kosan.safe = getelementptr i8, ptr %kosan.safe.base, i64 4
; CHECK-NEXT:    %v1 = load float, ptr %kosan.safe, align 4
; CHECK-NEXT:    %add1.1 = fadd contract float %add1, %v1
; CHECK:         %kosan.safe{{[0-9]+}} = getelementptr i8, ptr %kosan.safe.base, i64 8
; CHECK:         %kosan.safe{{[0-9]+}} = getelementptr i8, ptr %kosan.safe.base, i64 12
; CHECK-NOT:     %kosan.group =
; CHECK:         %kosan.addr = ptrtoint ptr %arrayidx3 to i64
; CHECK:         ret void

; UNINIT-LABEL: define ptx_kernel void @unrolled4__kosan(
; UNINIT:         [[FLAG:%.*]] = and i32 %kosan.flags, {{[0-9]+}}
; UNINIT-NEXT:    %kosan.uninit.on = icmp ne i32 [[FLAG]], 0
; UNINIT:         %v3 = load float, ptr %kosan.safe{{[0-9]+}}, align 4
; UNINIT-NEXT:    br i1 %kosan.uninit.on, label %kosan.uninit.scan, label
; UNINIT:       kosan.uninit.scan:
; UNINIT-NEXT:    [[W3:%.*]] = bitcast float %v3 to i32
; UNINIT-NEXT:    [[E3:%.*]] = icmp eq i32 [[W3]], -655371
; UNINIT-NEXT:    [[R3:%.*]] = select i1 [[E3]], i32 3, i32 4
; UNINIT:         [[R0:%.*]] = select i1 {{%.*}}, i32 0, i32 {{%.*}}
; UNINIT-NEXT:    %kosan.uninit = icmp ne i32 [[R0]], 4
; UNINIT-NEXT:    [[ROW:%.*]] = select i1 %kosan.uninit, i32 [[R0]], i32 0
; UNINIT-NEXT:    getelementptr inbounds [4 x { i64, i32, i32 }], ptr addrspace(1) @__kosan_group, i32 0, i32 [[ROW]], i32 0
; UNINIT:         or i32 {{%.*}}, -2147483648
; UNINIT:         br i1 %kosan.uninit, label %kosan.record

define void @unrolled4(ptr %in, ptr %out, i32 %base) {
entry:
  br label %for.body
for.body:
  %i = phi i32 [ 0, %entry ], [ %inc.3, %for.body ]
  %acc = phi float [ 0.000000e+00, %entry ], [ %add1.3, %for.body ]
  %add = add nsw i32 %i, %base
  %idxprom = sext i32 %add to i64
  %arrayidx = getelementptr inbounds float, ptr %in, i64 %idxprom
  %v0 = load float, ptr %arrayidx, align 4
  %add1 = fadd contract float %acc, %v0
  %inc = or disjoint i32 %i, 1
  %add.1 = add nsw i32 %inc, %base
  %idxprom.1 = sext i32 %add.1 to i64
  %arrayidx.1 = getelementptr inbounds float, ptr %in, i64 %idxprom.1
  %v1 = load float, ptr %arrayidx.1, align 4
  %add1.1 = fadd contract float %add1, %v1
  %inc.1 = or disjoint i32 %i, 2
  %add.2 = add nsw i32 %inc.1, %base
  %idxprom.2 = sext i32 %add.2 to i64
  %arrayidx.2 = getelementptr inbounds float, ptr %in, i64 %idxprom.2
  %v2 = load float, ptr %arrayidx.2, align 4
  %add1.2 = fadd contract float %add1.1, %v2
  %inc.2 = or disjoint i32 %i, 3
  %add.3 = add nsw i32 %inc.2, %base
  %idxprom.3 = sext i32 %add.3 to i64
  %arrayidx.3 = getelementptr inbounds float, ptr %in, i64 %idxprom.3
  %v3 = load float, ptr %arrayidx.3, align 4
  %add1.3 = fadd contract float %add1.2, %v3
  %inc.3 = add nuw nsw i32 %i, 4
  %exitcond.not.3 = icmp eq i32 %inc.3, 64
  br i1 %exitcond.not.3, label %for.cond.cleanup, label %for.body
for.cond.cleanup:
  %t = tail call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %idxprom2 = zext nneg i32 %t to i64
  %arrayidx3 = getelementptr inbounds float, ptr %out, i64 %idxprom2
  store float %add1.3, ptr %arrayidx3, align 4
  ret void
}

; for (...) { v = in[base + i]; if (v < 0) break; acc += v; } unrolled by 4.
; CHECK-LABEL: define ptx_kernel void @early_exit__kosan(
; CHECK-NOT:     %kosan.group =
; CHECK-NOT:     %kosan.safe.base
; CHECK:         %kosan.addr = ptrtoint ptr %arrayidx to i64
; CHECK:       for.inc:
; CHECK:         %kosan.addr{{[0-9]+}} = ptrtoint ptr %arrayidx.1 to i64
; CHECK:       for.inc.1:
; CHECK:         %kosan.addr{{[0-9]+}} = ptrtoint ptr %arrayidx.2 to i64
; CHECK:       for.inc.2:
; CHECK:         %kosan.addr{{[0-9]+}} = ptrtoint ptr %arrayidx.3 to i64
; CHECK-NOT:     %kosan.group =
; CHECK:         ret void
define void @early_exit(ptr %in, ptr %out, i32 %base) {
entry:
  br label %for.body
for.body:
  %acc = phi float [ 0.000000e+00, %entry ], [ %add2.3, %for.inc.3 ]
  %i = phi i32 [ 0, %entry ], [ %inc.3, %for.inc.3 ]
  %add = add nsw i32 %i, %base
  %idxprom = sext i32 %add to i64
  %arrayidx = getelementptr inbounds float, ptr %in, i64 %idxprom
  %v0 = load float, ptr %arrayidx, align 4
  %cmp1 = fcmp contract uge float %v0, 0.000000e+00
  br i1 %cmp1, label %for.inc, label %cleanup
for.inc:
  %add2 = fadd contract float %acc, %v0
  %inc = or disjoint i32 %i, 1
  %add.1 = add nsw i32 %inc, %base
  %idxprom.1 = sext i32 %add.1 to i64
  %arrayidx.1 = getelementptr inbounds float, ptr %in, i64 %idxprom.1
  %v1 = load float, ptr %arrayidx.1, align 4
  %cmp1.1 = fcmp contract uge float %v1, 0.000000e+00
  br i1 %cmp1.1, label %for.inc.1, label %cleanup
for.inc.1:
  %add2.1 = fadd contract float %add2, %v1
  %inc.1 = or disjoint i32 %i, 2
  %add.2 = add nsw i32 %inc.1, %base
  %idxprom.2 = sext i32 %add.2 to i64
  %arrayidx.2 = getelementptr inbounds float, ptr %in, i64 %idxprom.2
  %v2 = load float, ptr %arrayidx.2, align 4
  %cmp1.2 = fcmp contract uge float %v2, 0.000000e+00
  br i1 %cmp1.2, label %for.inc.2, label %cleanup
for.inc.2:
  %add2.2 = fadd contract float %add2.1, %v2
  %inc.2 = or disjoint i32 %i, 3
  %add.3 = add nsw i32 %inc.2, %base
  %idxprom.3 = sext i32 %add.3 to i64
  %arrayidx.3 = getelementptr inbounds float, ptr %in, i64 %idxprom.3
  %v3 = load float, ptr %arrayidx.3, align 4
  %cmp1.3 = fcmp contract uge float %v3, 0.000000e+00
  br i1 %cmp1.3, label %for.inc.3, label %cleanup
for.inc.3:
  %add2.3 = fadd contract float %add2.2, %v3
  %inc.3 = add nuw nsw i32 %i, 4
  %exitcond.not.3 = icmp eq i32 %inc.3, 64
  br i1 %exitcond.not.3, label %cleanup, label %for.body
cleanup:
  %acc.0.lcssa = phi float [ %acc, %for.body ], [ %add2, %for.inc ], [ %add2.1, %for.inc.1 ], [ %add2.2, %for.inc.2 ], [ %add2.3, %for.inc.3 ]
  %t = tail call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %idxprom4 = zext nneg i32 %t to i64
  %arrayidx5 = getelementptr inbounds float, ptr %out, i64 %idxprom4
  store float %acc.0.lcssa, ptr %arrayidx5, align 4
  ret void
}

; out[i], out[i + 1], out[i + 2] = 0: stores go to the ordinary sink, each
; with the group's %kosan.bad.
; CHECK-LABEL: define ptx_kernel void @stores__kosan(
; CHECK:         %kosan.group = ptrtoint ptr %p0 to i64
; CHECK:         %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %p0
; CHECK:         %kosan.safe{{[0-9]+}} = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %p1
; CHECK:         %kosan.safe{{[0-9]+}} = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %p2
; CHECK-NOT:     kosan.report
; CHECK:         ret void
define void @stores(ptr %out, i64 %i) {
entry:
  %p0 = getelementptr inbounds i32, ptr %out, i64 %i
  store i32 0, ptr %p0, align 4
  %p1 = getelementptr inbounds i32, ptr %p0, i64 1
  store i32 0, ptr %p1, align 4
  %p2 = getelementptr inbounds i32, ptr %p0, i64 2
  store i32 0, ptr %p2, align 4
  ret void
}

; in[i] and in[i + 1] before a call that may not return, in[i + 2] after it:
; two checks.
; CHECK-LABEL: define ptx_kernel void @not_returning__kosan(
; CHECK:         %kosan.group = ptrtoint ptr %p0 to i64
; CHECK:         call void @may_exit()
; CHECK:         %kosan.addr = ptrtoint ptr %p2 to i64
define void @not_returning(ptr %in, ptr %out, i64 %i) {
entry:
  %p0 = getelementptr inbounds float, ptr %in, i64 %i
  %v0 = load float, ptr %p0, align 4
  %p1 = getelementptr inbounds float, ptr %p0, i64 1
  %v1 = load float, ptr %p1, align 4
  call void @may_exit()
  %p2 = getelementptr inbounds float, ptr %p0, i64 2
  %v2 = load float, ptr %p2, align 4
  %s = fadd float %v0, %v1
  %t = fadd float %s, %v2
  store float %t, ptr %in, align 4
  ret void
}

; in[i] and in[i + 1] always, in[i + 2] only when c: two checks; the
; conditional one is its own.
; CHECK-LABEL: define ptx_kernel void @conditional__kosan(
; CHECK:         %kosan.group = ptrtoint ptr %p0 to i64
; CHECK:       then:
; CHECK:         %kosan.addr = ptrtoint ptr %p2 to i64
define void @conditional(ptr %in, ptr %out, i64 %i, i1 %c) {
entry:
  %p0 = getelementptr inbounds float, ptr %in, i64 %i
  %v0 = load float, ptr %p0, align 4
  %p1 = getelementptr inbounds float, ptr %p0, i64 1
  %v1 = load float, ptr %p1, align 4
  %s = fadd float %v0, %v1
  br i1 %c, label %then, label %done
then:
  %p2 = getelementptr inbounds float, ptr %p0, i64 2
  %v2 = load float, ptr %p2, align 4
  br label %done
done:
  %r = phi float [ %s, %entry ], [ %v2, %then ]
  store float %r, ptr %out, align 4
  ret void
}

; in[i + 1] (align 4) and the float4 at in + i + 4 (align 16): off a safe
; base the float4 would sit 12 bytes past it, off its 16-byte alignment, so
; each member selects the (aligned) sink on its own.
; CHECK-LABEL: define ptx_kernel void @mixed_alignment__kosan(
; CHECK:         %kosan.group = ptrtoint ptr %q1 to i64
; CHECK-NOT:     %kosan.safe.base
; CHECK:         %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %q1
; CHECK:         %kosan.safe{{[0-9]+}} = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %p4
; CHECK-NEXT:    %v4 = load <4 x float>, ptr %kosan.safe{{[0-9]+}}, align 16
define void @mixed_alignment(ptr align 16 %in, ptr %out, i64 %i4) {
entry:
  %i = shl i64 %i4, 2
  %p1 = getelementptr inbounds float, ptr %in, i64 %i
  %q1 = getelementptr inbounds float, ptr %p1, i64 1
  %v1 = load float, ptr %q1, align 4
  %p4 = getelementptr inbounds float, ptr %p1, i64 4
  %v4 = load <4 x float>, ptr %p4, align 16
  %e = extractelement <4 x float> %v4, i32 0
  %s = fadd float %v1, %e
  store float %s, ptr %out, align 4
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5}
!0 = !{ptr @unrolled4, !"kernel", i32 1}
!1 = !{ptr @early_exit, !"kernel", i32 1}
!2 = !{ptr @stores, !"kernel", i32 1}
!3 = !{ptr @not_returning, !"kernel", i32 1}
!4 = !{ptr @conditional, !"kernel", i32 1}
!5 = !{ptr @mixed_alignment, !"kernel", i32 1}
