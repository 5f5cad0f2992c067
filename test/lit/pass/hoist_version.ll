; A loop whose accesses are all checked before it (hoist.ll) and that holds
; nothing convergent is copied whole: the preheader's one branch on
; %kosan.loop.ok goes to the loop as it was (kosan.loop.fast: the program's
; own code, nothing of kosan in it, so that the GPU's compiler unrolls and
; schedules it as it would the plain kernel) or to a copy of the whole loop
; (kosan.loop.checked) whose accesses are checked one by one and report
; their own sites. Both leave by the loop's exits: a value the loop computes
; for the code after it comes from whichever copy ran (a phi at each exit).
; A convergent operation must be one instruction for all the threads that
; meet there, so the threads that meet take the same copy: a loop with
; warp operations on the full mask (shuffles, votes) decides by one vote of
; the warp in its preheader; a loop with __syncthreads by one barrier's
; and-reduction over the block (the whole block reaches the loop, so its
; preheader). A loop with anything else convergent (a partial mask, a call
; of a device function) keeps one branch per stretch (hoist.ll), as does a
; loop with an access checked in every trip (a data-dependent index).
; -kosan-version-loops=0 turns the whole copies off. In a build with the
; race check, kosan adds no barrier: the loop with __syncthreads branches
; per stretch.
;
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -pass-remarks=kosan-oob -S < %s 2>%t.remarks \
; RUN:   | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -kosan-version-loops=0 -S < %s \
; RUN:   | FileCheck %s --check-prefix=OFF
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan,verify -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -kosan-checks=oob,race -kosan-debug-func=tile -S < %s \
; RUN:   | FileCheck %s --check-prefix=RACE
; With the uninit check on, the loop's test includes the launch's flag: the
; loop as it was never reads the fill unchecked.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=1 -kosan-debug-func=sum -S < %s \
; RUN:   | FileCheck %s --check-prefix=UNINIT

; REMARK: kernel 'sum': {{.*}} 1 hoisted out of 1 loops, {{.*}}; 1 of the loops copied whole
; REMARK: kernel 'find': {{.*}} 2 hoisted out of 1 loops, {{.*}}; 1 of the loops copied whole
; REMARK: kernel 'tile': {{.*}} 1 hoisted out of 1 loops, {{.*}}; 1 of the loops copied whole
; REMARK: kernel 'warp_sum': {{.*}} 1 hoisted out of 1 loops, {{.*}}; 1 of the loops copied whole
; REMARK: kernel 'partial': {{.*}} 1 hoisted out of 1 loops, {{.*}}; 0 of the loops copied whole
; REMARK: kernel 'indirect': {{.*}} 1 hoisted out of 1 loops, {{.*}}; 0 of the loops copied whole

; OFF-NOT: kosan.loop.fast
; OFF: br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted
; OFF-NOT: kosan.loop.fast

; sum: the sum the loop leaves is the fast loop's or the copy's.
; CHECK-LABEL: define ptx_kernel void @sum__kosan(
; CHECK:       preheader:
; CHECK:         %kosan.loop.ok = and i1
; CHECK-NEXT:    br i1 %kosan.loop.ok, label %kosan.loop.fast, label %kosan.loop.checked, !prof
; The copy: every access checked, with its own site.
; CHECK:       kosan.loop.checked:
; CHECK-NEXT:    br label %loop.kosan
; CHECK:       loop.kosan:
; CHECK:         %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %p.kosan
; CHECK:         %kosan.report
; The loop as it was: not one instruction of kosan's.
; CHECK:       kosan.loop.fast:
; CHECK-NEXT:    br label %loop
; CHECK:       loop:
; CHECK-NEXT:    %i = phi i64 [ 0, %kosan.loop.fast ], [ %i.next, %loop ]
; CHECK-NEXT:    %s = phi float [ 0.000000e+00, %kosan.loop.fast ], [ %s.next, %loop ]
; CHECK-NEXT:    %p = getelementptr inbounds float, ptr %a, i64 %i
; CHECK-NEXT:    %v = load float, ptr %p, align 4
; CHECK-NEXT:    %s.next = fadd float %s, %v
; CHECK-NEXT:    %i.next = add nuw nsw i64 %i, 1
; CHECK-NEXT:    %c = icmp slt i64 %i.next, %n
; CHECK-NEXT:    br i1 %c, label %loop, label %done
; CHECK:       done:
; CHECK-NEXT:    [[S:%.*]] = phi float [ %s.next.kosan, %{{.*}} ], [ %s.next, %loop ]
; CHECK:         store float [[S]], ptr

; find: two exits, each with its phi, takes both copies' edges.
; CHECK-LABEL: define ptx_kernel void @find__kosan(
; CHECK:         br i1 %kosan.loop.ok, label %kosan.loop.fast, label %kosan.loop.checked
; CHECK:       found:
; CHECK-NEXT:    %at = phi i64 [ %i, %loop ], [ %i.kosan, %{{[0-9a-z.]+}} ]
; CHECK:       missing:
; CHECK-NEXT:    %last = phi i64 [ %i.next, %latch ], [ %i.next.kosan, %{{[0-9a-z.]+}} ]

; tile: __syncthreads in the loop: the block agrees.
; CHECK-LABEL: define ptx_kernel void @tile__kosan(
; CHECK:         %kosan.loop.ok = and i1
; CHECK-NEXT:    [[OK:%.*]] = zext i1 %kosan.loop.ok to i32
; CHECK-NEXT:    %kosan.loop.ok.all = call i32 @llvm.nvvm.barrier0.and(i32 [[OK]])
; CHECK-NEXT:    %kosan.loop.ok.block = icmp ne i32 %kosan.loop.ok.all, 0
; CHECK-NEXT:    br i1 %kosan.loop.ok.block, label %kosan.loop.fast, label %kosan.loop.checked
; warp_sum: a full-mask shuffle: the warp agrees.
; CHECK-LABEL: define ptx_kernel void @warp_sum__kosan(
; CHECK:         %kosan.loop.ok.warp = call i1 @llvm.nvvm.vote.all.sync(i32 -1, i1 %kosan.loop.ok)
; CHECK-NEXT:    br i1 %kosan.loop.ok.warp, label %kosan.loop.fast, label %kosan.loop.checked
; partial: a shuffle on a mask kosan cannot read: one branch per stretch.
; CHECK-LABEL: define ptx_kernel void @partial__kosan(
; CHECK-NOT:     kosan.loop.fast
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted
; CHECK-LABEL: define ptx_kernel void @indirect__kosan(
; CHECK-NOT:     kosan.loop.fast
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted

; RACE-LABEL: define ptx_kernel void @tile__kosan(
; RACE-NOT:     barrier0.and
; RACE-NOT:     kosan.loop.fast
; RACE:         br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted

; UNINIT-LABEL: define ptx_kernel void @sum__kosan(
; UNINIT:         %kosan.uninit.off = xor i1
; UNINIT:         %kosan.loop.ok = and i1 {{%.*}}, %kosan.uninit.off
; UNINIT:         br i1 %kosan.loop.ok, label %kosan.loop.fast, label %kosan.loop.checked
; UNINIT:       loop.kosan:
; UNINIT:         %kosan.uninit = icmp eq i32 {{%.*}}, -655371
; UNINIT:       kosan.loop.fast:
; UNINIT-NOT:     %kosan.uninit
; UNINIT:       done:

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare void @llvm.nvvm.barrier0() convergent
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32) convergent

; float s = 0; for (i = 0; i < n; ++i) s += a[i]; *out = s;
define void @sum(ptr %out, ptr %a, i64 %n) {
entry:
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %i = phi i64 [ 0, %preheader ], [ %i.next, %loop ]
  %s = phi float [ 0.0, %preheader ], [ %s.next, %loop ]
  %p = getelementptr inbounds float, ptr %a, i64 %i
  %v = load float, ptr %p, align 4
  %s.next = fadd float %s, %v
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  store float %s.next, ptr %out, align 8
  br label %exit
exit:
  ret void
}

; for (i = 0; i < n; ++i) { if (a[i] == key) { out[0] = i; return; } b[i] = 1; }
; out[1] = i;  -- two exits, each leaving a value.
define void @find(ptr %out, ptr %a, ptr %b, i32 %key, i64 %n) {
entry:
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %i = phi i64 [ 0, %preheader ], [ %i.next, %latch ]
  %pa = getelementptr inbounds i32, ptr %a, i64 %i
  %v = load i32, ptr %pa, align 4
  %hit = icmp eq i32 %v, %key
  br i1 %hit, label %found, label %latch
latch:
  %pb = getelementptr inbounds i32, ptr %b, i64 %i
  store i32 1, ptr %pb, align 4
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %missing
found:
  %at = phi i64 [ %i, %loop ]
  store i64 %at, ptr %out, align 8
  br label %exit
missing:
  %last = phi i64 [ %i.next, %latch ]
  %po = getelementptr inbounds i64, ptr %out, i64 1
  store i64 %last, ptr %po, align 8
  br label %exit
exit:
  ret void
}

; for (i = 0; i < n; ++i) { a[i] = 0; __syncthreads(); }
define void @tile(ptr %a, i64 %n) {
entry:
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %i = phi i64 [ 0, %preheader ], [ %i.next, %loop ]
  %p = getelementptr inbounds float, ptr %a, i64 %i
  store float 0.0, ptr %p, align 4
  call void @llvm.nvvm.barrier0()
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; for (i = lane; i < n; i += 32) { s += a[i]; s += __shfl_down_sync(~0u, s, 1); }
define void @warp_sum(ptr %out, ptr %a, i32 %n) {
entry:
  %lane = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %guard = icmp slt i32 %lane, %n
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %i = phi i32 [ %lane, %preheader ], [ %i.next, %loop ]
  %s = phi float [ 0.0, %preheader ], [ %s.next, %loop ]
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %a, i64 %i64
  %v = load float, ptr %p, align 4
  %sv = fadd float %s, %v
  %o = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %sv, i32 1, i32 31)
  %s.next = fadd float %sv, %o
  %i.next = add i32 %i, 32
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  store float %s.next, ptr %out, align 4
  br label %exit
exit:
  ret void
}

; The same with the shuffle's mask an argument.
define void @partial(ptr %out, ptr %a, i32 %n, i32 %mask) {
entry:
  %lane = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %guard = icmp slt i32 %lane, %n
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %i = phi i32 [ %lane, %preheader ], [ %i.next, %loop ]
  %s = phi float [ 0.0, %preheader ], [ %s.next, %loop ]
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %a, i64 %i64
  %v = load float, ptr %p, align 4
  %sv = fadd float %s, %v
  %o = call float @llvm.nvvm.shfl.sync.down.f32(i32 %mask, float %sv, i32 1, i32 31)
  %s.next = fadd float %sv, %o
  %i.next = add i32 %i, 32
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  store float %s.next, ptr %out, align 4
  br label %exit
exit:
  ret void
}

; for (i = 0; i < n; ++i) out[idx[i]] = 1;  -- out[idx[i]] is checked in
; every trip, in both copies: the loop is not copied whole.
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

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5}
!0 = !{ptr @sum, !"kernel", i32 1}
!1 = !{ptr @find, !"kernel", i32 1}
!2 = !{ptr @tile, !"kernel", i32 1}
!3 = !{ptr @indirect, !"kernel", i32 1}
!4 = !{ptr @warp_sum, !"kernel", i32 1}
!5 = !{ptr @partial, !"kernel", i32 1}
