; A loop's access to a kernel argument at addresses {start,+,step} of the
; loop (ScalarEvolution: a constant stride) whose trips are bounded
; (the symbolic maximum of the loop's backedges) is checked once, in the
; loop's preheader, on every address it may take: first = start, last =
; start + trips * step, [min, max + size) against the argument's bounds, and
; the argument not pitched. The loop's tests are and-ed into one,
; %kosan.loop.ok. In the loop, one branch on it per stretch of a block
; holding hoisted accesses: to the stretch as it was (kosan.hoisted), or to
; a copy of it whose accesses are checked as any access is (kosan.unhoisted:
; select to the sink, report branch), so that a thread whose range fails
; reports its first bad access exactly, with its own site.
; The copy reads the argument's bounds where it needs them (the loop keeps
; only the one flag). The range is a bound, not the exact set: a guarded
; access, or one after an early exit, is hoisted too, and a thread whose
; guard keeps it in bounds just takes the checked copy.
;
; Stay checked in every iteration: a data-dependent index (out[idx[i]]) and
; a loop without a bound on its trips (while (a[i] != 0)). saxpy's
; grid-stride loop (a 32-bit index stepped by the grid's size) is hoisted
; through its own test i < n (hoist_grid_stride.ll). -kosan-hoist-checks=0
; turns hoisting off. The runs here branch per stretch
; (-kosan-version-loops=0); loops with nothing convergent are copied whole
; by default (hoist_version.ll).

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-version-loops=0 -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -pass-remarks=kosan-oob -S < %s 2>%t.remarks \
; RUN:   | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-version-loops=0 -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -kosan-hoist-checks=0 -S < %s \
; RUN:   | FileCheck %s --check-prefix=OFF
; With the alignment test: the first address's, once, in the preheader.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-version-loops=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -kosan-debug-func=copy -S < %s \
; RUN:   | FileCheck %s --check-prefix=ALIGN

; A loop with more hoistable accesses than -kosan-hoist-max-per-loop (8; an
; unrolled loop's hundreds) keeps them checked in place, where they group:
; with a cap of 1, copy's two accesses stay in the loop, strided's load and
; store of a[i] become one group, and guarded's one hoisted access still is.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob,verify -kosan-version-loops=0 -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -kosan-hoist-max-per-loop=1 \
; RUN:   -pass-remarks=kosan-oob -S < %s 2>&1 >/dev/null | FileCheck %s --check-prefix=CAP
; CAP: kernel 'copy': 2 accesses checked {{.*}} 0 hoisted out of 0 loops, 2 checked one by one,
; CAP: kernel 'strided': 2 accesses checked {{.*}} by 1 checks, 2 of them in 1 groups at constant distances, 0 hoisted out of 0 loops, 0 checked one by one,
; CAP: kernel 'guarded': 2 accesses checked {{.*}} 1 hoisted out of 1 loops, 1 checked one by one,

; REMARK: kernel 'copy': 2 accesses checked (2 against kernel arguments, 0 against shared/local/global objects, 0 against the table of all buffers) by 1 checks, 0 of them in 0 groups at constant distances, 2 hoisted out of 1 loops, 0 checked one by one, 0 proven in bounds, 0 to constant/parameter memory
; REMARK: kernel 'strided': 2 accesses checked {{.*}} by 1 checks, 0 of them in 0 groups at constant distances, 2 hoisted out of 1 loops, 0 checked one by one,
; REMARK: kernel 'guarded': 2 accesses checked {{.*}} by 2 checks, 0 of them in 0 groups at constant distances, 1 hoisted out of 1 loops, 1 checked one by one,
; REMARK: kernel 'indirect': 2 accesses checked {{.*}} by 2 checks, 0 of them in 0 groups at constant distances, 1 hoisted out of 1 loops, 1 checked one by one,
; REMARK: kernel 'until_zero': 2 accesses checked {{.*}} by 2 checks, 0 of them in 0 groups at constant distances, 0 hoisted out of 0 loops, 2 checked one by one,
; REMARK: kernel 'early_exit': 2 accesses checked {{.*}} by 1 checks, 0 of them in 0 groups at constant distances, 2 hoisted out of 1 loops, 0 checked one by one,
; REMARK: kernel 'grid_stride': 3 accesses checked {{.*}} by 1 checks, 0 of them in 0 groups at constant distances, 3 hoisted out of 1 loops, 0 checked one by one,

; OFF-NOT: kosan.loop.ok
; OFF-NOT: kosan.hoisted

; copy: trips n - 1 (the loop runs while i + 1 < n), one test per argument,
; and-ed; nothing of the bounds in the loop but the branch on the flag.
; CHECK-LABEL: define ptx_kernel void @copy__kosan(
; CHECK:       preheader:
; CHECK-NEXT:    [[TRIPS:%.*]] = add i64 %n, -1
; CHECK-NEXT:    %kosan.hoist.first = ptrtoint ptr %in to i64
; CHECK-NEXT:    [[SPAN:%.*]] = mul i64 [[TRIPS]], 4
; CHECK-NEXT:    %kosan.hoist.last = add i64 %kosan.hoist.first, [[SPAN]]
; CHECK-NEXT:    [[FEW:%.*]] = icmp ule i64 [[TRIPS]], 274877906944
; CHECK-NEXT:    [[LO:%.*]] = icmp uge i64 %kosan.hoist.first, %kosan.arg1.begin
; CHECK-NEXT:    [[END:%.*]] = add i64 %kosan.hoist.last, 4
; CHECK-NEXT:    [[HI:%.*]] = icmp ule i64 [[END]], %kosan.arg1.end
; CHECK-NEXT:    [[FLAT:%.*]] = icmp eq i64 %kosan.arg1.pitch, 0
; CHECK-NEXT:    [[A:%.*]] = and i1 [[FEW]], [[LO]]
; CHECK-NEXT:    [[B:%.*]] = and i1 [[A]], [[HI]]
; CHECK-NEXT:    %kosan.hoist.ok = and i1 [[B]], [[FLAT]]
; CHECK-NEXT:    %kosan.hoist.first1 = ptrtoint ptr %out to i64
; CHECK:         icmp uge i64 %kosan.hoist.first1, %kosan.arg0.begin
; CHECK:         icmp ule i64 {{%.*}}, %kosan.arg0.end
; CHECK:         %kosan.hoist.ok3 = and i1
; CHECK-NEXT:    %kosan.loop.ok = and i1 %kosan.hoist.ok, %kosan.hoist.ok3
; CHECK-NEXT:    br label %loop
; CHECK:       loop:
; CHECK-NEXT:    %i = phi i64
; CHECK-NEXT:    %pin = getelementptr inbounds float, ptr %in, i64 %i
; CHECK-NEXT:    br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted, !prof [[LIKELY:![0-9]+]]
; One branch for the stretch from the load to the store: to the stretch as
; it was, or to its copy, whose accesses are checked.
; CHECK:       kosan.hoisted:
; CHECK-NEXT:    %v = load float, ptr %pin, align 4
; CHECK-NEXT:    %pout = getelementptr inbounds float, ptr %out, i64 %i
; CHECK-NEXT:    store float %v, ptr %pout, align 4
; CHECK-NEXT:    br label %[[JOIN:[0-9]+]]
; The checked copy: its bounds read where it needs them, the sink, the
; report (the access's own site).
; CHECK:       kosan.unhoisted:
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %pin to i64
; CHECK-NEXT:    [[BP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 88
; CHECK-NEXT:    [[BEGIN:%.*]] = load i64, ptr [[BP]], align 8, !nosanitize
; CHECK-NEXT:    [[EP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 96
; CHECK-NEXT:    [[END:%.*]] = load i64, ptr [[EP]], align 8, !nosanitize
; CHECK:         %kosan.bad = or i1
; CHECK:         %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %pin
; CHECK-NEXT:    [[VC:%.*]] = load float, ptr %kosan.safe, align 4
; CHECK-NEXT:    br i1 {{%.*}}, label %kosan.report, label
; CHECK:       kosan.record.write:
; CHECK:         store i64 %kosan.addr, ptr
; CHECK:         [[POUT:%.*]] = getelementptr inbounds float, ptr %out, i64 %i
; CHECK:         %kosan.safe{{[0-9]+}} = select i1 %kosan.bad{{[0-9]+}}, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr [[POUT]]
; CHECK-NEXT:    store float [[VC]], ptr %kosan.safe{{[0-9]+}}, align 4
; CHECK:       [[JOIN]]:
; CHECK-NOT:     br i1 %kosan.loop.ok
; CHECK:       exit:

; strided: trips (n - 1 - tid) / 8, 32 bytes a trip; the load and the store
; of a[i] share one test.
; CHECK-LABEL: define ptx_kernel void @strided__kosan(
; CHECK:       preheader:
; CHECK:         [[T:%.*]] = lshr i64 {{%.*}}, 3
; CHECK:         %kosan.hoist.first = ptrtoint ptr
; CHECK-NEXT:    [[SPAN:%.*]] = mul i64 [[T]], 32
; CHECK-NEXT:    %kosan.hoist.last = add i64 %kosan.hoist.first, [[SPAN]]
; CHECK-NEXT:    icmp ule i64 [[T]], 34359738368
; CHECK-NOT:     kosan.hoist.first{{[0-9]}}
; CHECK:         %kosan.loop.ok = and i1
; CHECK-NEXT:    br label %loop
; CHECK:       loop:
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted
; CHECK:       kosan.hoisted:
; CHECK-NEXT:    %v = load float, ptr %p, align 4
; CHECK-NEXT:    %w = fadd float %v, 1.000000e+00
; CHECK-NEXT:    store float %w, ptr %p, align 4
; CHECK-NOT:     br i1 %kosan.loop.ok
; CHECK:       exit:

; guarded: the test covers every i < n; a[i] under i < m keeps its checked
; copy for the threads whose range fails it.
; CHECK-LABEL: define ptx_kernel void @guarded__kosan(
; CHECK:       preheader:
; CHECK:         %kosan.hoist.first = ptrtoint ptr %a to i64
; CHECK:         %kosan.loop.ok = and i1
; CHECK:       then:
; CHECK-NEXT:    %p = getelementptr inbounds float, ptr %a, i64 %i
; CHECK-NEXT:    br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted
; CHECK:       kosan.unhoisted:
; CHECK:         %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %p
; CHECK:       latch:
; The store after the loop is checked on its own.
; CHECK:       done:
; CHECK:         select i1 %kosan.bad{{[0-9]*}}, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %out

; indirect: idx[i] hoisted; out[idx[i]] keeps its check in the loop.
; CHECK-LABEL: define ptx_kernel void @indirect__kosan(
; CHECK:         %kosan.hoist.first = ptrtoint ptr %idx to i64
; CHECK-NOT:     kosan.hoist.first{{[0-9]}}
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted
; CHECK:         %j.kosan = phi i32
; CHECK:         %po = getelementptr inbounds float, ptr %out, i64 %j64
; CHECK-NOT:     br i1 %kosan.loop.ok
; CHECK:         select i1 %kosan.bad{{[0-9]*}}, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %po
; CHECK:       exit:

; until_zero: no bound on the trips, nothing hoisted.
; CHECK-LABEL: define ptx_kernel void @until_zero__kosan(
; CHECK-NOT:     kosan.hoist
; CHECK:       loop:
; CHECK:         %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %p
; CHECK-NOT:     kosan.hoist
; CHECK:       exit:

; early_exit: trips at most n - 1; a[i] before the exit and b[i] after it
; both hoisted.
; CHECK-LABEL: define ptx_kernel void @early_exit__kosan(
; CHECK:         %kosan.hoist.first = ptrtoint ptr %a to i64
; CHECK:         %kosan.hoist.first1 = ptrtoint ptr %b to i64
; CHECK:         %kosan.loop.ok = and i1 %kosan.hoist.ok, %kosan.hoist.ok3
; CHECK:       loop:
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted
; CHECK:       latch:
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted{{[0-9]+}}, label %kosan.unhoisted

; grid_stride: hoisted through the loop's test of i (hoist_grid_stride.ll).
; CHECK-LABEL: define ptx_kernel void @grid_stride__kosan(
; CHECK:         %kosan.iv.high = call i32 @llvm.smax.i32(i32 %start,
; CHECK:         %kosan.loop.ok = and i1
; CHECK:       loop:
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted
; CHECK:       exit:

; CHECK: [[LIKELY]] = !{!"branch_weights", i32 1048575, i32 1}

; ALIGN-LABEL: define ptx_kernel void @copy__kosan(
; ALIGN:       preheader:
; ALIGN:         %kosan.hoist.first = ptrtoint ptr %in to i64
; ALIGN:         [[LOW:%.*]] = and i64 %kosan.hoist.first, 3
; ALIGN-NEXT:    [[ALIGNED:%.*]] = icmp eq i64 [[LOW]], 0
; ALIGN-NEXT:    %kosan.hoist.ok = and i1 {{%.*}}, [[ALIGNED]]

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()

; for (i = 0; i < n; ++i) out[i] = in[i];
define void @copy(ptr %out, ptr %in, i64 %n) {
entry:
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %i = phi i64 [ 0, %preheader ], [ %i.next, %loop ]
  %pin = getelementptr inbounds float, ptr %in, i64 %i
  %v = load float, ptr %pin, align 4
  %pout = getelementptr inbounds float, ptr %out, i64 %i
  store float %v, ptr %pout, align 4
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; for (i = tid; i < n; i += 8) a[i] += 1;
define void @strided(ptr %a, i64 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tid = zext i32 %t to i64
  %guard = icmp slt i64 %tid, %n
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %i = phi i64 [ %tid, %preheader ], [ %i.next, %loop ]
  %p = getelementptr inbounds float, ptr %a, i64 %i
  %v = load float, ptr %p, align 4
  %w = fadd float %v, 1.0
  store float %w, ptr %p, align 4
  %i.next = add nuw nsw i64 %i, 8
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; for (i = 0; i < n; ++i) if (i < m) s += a[i];  -- the guard keeps a[i]
; in bounds when m is the length and n is not.
define void @guarded(ptr %out, ptr %a, i64 %n, i64 %m) {
entry:
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %i = phi i64 [ 0, %preheader ], [ %i.next, %latch ]
  %s = phi float [ 0.0, %preheader ], [ %s.next, %latch ]
  %in = icmp slt i64 %i, %m
  br i1 %in, label %then, label %latch
then:
  %p = getelementptr inbounds float, ptr %a, i64 %i
  %v = load float, ptr %p, align 4
  %sv = fadd float %s, %v
  br label %latch
latch:
  %s.next = phi float [ %sv, %then ], [ %s, %loop ]
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  store float %s.next, ptr %out, align 4
  br label %exit
exit:
  ret void
}

; for (i = 0; i < n; ++i) out[idx[i]] = 1;  -- idx[i] is hoisted, out[idx[i]]
; (a data-dependent index) is checked in every iteration.
define void @indirect(ptr %out, ptr %idx, i64 %n) {
entry:
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %i = phi i64 [ 0, %preheader ], [ %i.next, %loop ]
  %pi = getelementptr inbounds i32, ptr %idx, i64 %i
  %j = load i32, ptr %pi, align 4
  %j64 = sext i32 %j to i64
  %po = getelementptr inbounds float, ptr %out, i64 %j64
  store float 1.0, ptr %po, align 4
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; i = 0; while (a[i] != 0) ++i;  -- no bound on the trips: checked in every
; iteration.
define void @until_zero(ptr %out, ptr %a) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  %v = load i32, ptr %p, align 4
  %i.next = add nuw nsw i64 %i, 1
  %z = icmp eq i32 %v, 0
  br i1 %z, label %exit, label %loop
exit:
  store i64 %i, ptr %out, align 8
  ret void
}

; for (i = 0; i < n; ++i) { if (a[i] < 0) break; b[i] = a[i]; }  -- an early
; exit: the trips are bounded by n, so both are hoisted; the range is a
; bound, a thread that leaves early may fail it and take the checked path.
define void @early_exit(ptr %b, ptr %a, i64 %n) {
entry:
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %i = phi i64 [ 0, %preheader ], [ %i.next, %latch ]
  %pa = getelementptr inbounds float, ptr %a, i64 %i
  %v = load float, ptr %pa, align 4
  %neg = fcmp olt float %v, 0.0
  br i1 %neg, label %exit, label %latch
latch:
  %pb = getelementptr inbounds float, ptr %b, i64 %i
  store float %v, ptr %pb, align 4
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; saxpy's grid-stride loop: i is a 32-bit int stepped by the grid's size
; (not a constant); the test i < n bounds it.
define void @grid_stride(ptr %y, ptr %x, float %a, i32 %n) {
entry:
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %d = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bd = mul i32 %b, %d
  %start = add i32 %bd, %t
  %guard = icmp slt i32 %start, %n
  br i1 %guard, label %preheader, label %exit
preheader:
  %g = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %stride = mul i32 %g, %d
  br label %loop
loop:
  %i = phi i32 [ %start, %preheader ], [ %i.next, %loop ]
  %i64 = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr %x, i64 %i64
  %vx = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i64
  %vy = load float, ptr %py, align 4
  %r = call float @llvm.fma.f32(float %a, float %vx, float %vy)
  store float %r, ptr %py, align 4
  %i.next = add i32 %i, %stride
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
declare float @llvm.fma.f32(float, float, float)

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5, !6}
!0 = !{ptr @copy, !"kernel", i32 1}
!1 = !{ptr @strided, !"kernel", i32 1}
!2 = !{ptr @guarded, !"kernel", i32 1}
!3 = !{ptr @indirect, !"kernel", i32 1}
!4 = !{ptr @until_zero, !"kernel", i32 1}
!5 = !{ptr @early_exit, !"kernel", i32 1}
!6 = !{ptr @grid_stride, !"kernel", i32 1}
