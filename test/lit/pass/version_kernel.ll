; A kernel without loops whose every checked address is linear in the
; thread's index, and otherwise the same for the whole block (arguments,
; block index and size, constants), is tested once at its entry and copied
; whole. The test covers each access's range over the block's threads:
; threadIdx.x from its lowest to its highest, the highest the block's size
; less one, or less where a guard on the index bounds it (halo's store
; under tid < 2: umin(ntid - 1, 1)). A narrow index extended on the way
; (sext of the i32 bid * bd + tid) is tested not to wrap over that range.
; Nothing in the test differs between the block's threads, so the whole
; block takes one copy without a barrier or vote of kosan's, and
; __syncthreads in both copies meets as in the program (also in a build
; with the race check). The entry's branch goes to the kernel as it was
; (kosan.entry.fast: nothing of kosan's in it) or to a copy checked access
; by access (kosan.entry.checked), which reports only what runs. An
; address read from memory (gather), one not linear in the index (square)
; or an access in a loop (in_loop) keeps the checks in place, as does an
; alloca after the first checked access (late_alloca: the copy would hold
; it outside the entry).
; -kosan-version-kernel-max=0 turns the copies off.
;
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -kosan-entry-test-on-host=0 -pass-remarks=kosan-oob \
; RUN:   -S < %s 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -kosan-version-kernel-max=0 -S < %s \
; RUN:   | FileCheck %s --check-prefix=OFF
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan,verify -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -kosan-checks=oob,race -kosan-debug-func=halo \
; RUN:   -kosan-entry-test-on-host=0 -S < %s | FileCheck %s --check-prefix=RACE
; With the uninit check on, the test includes the launch's flag: the kernel
; as it was never reads the fill unchecked.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=1 -kosan-debug-func=halo -kosan-entry-test-on-host=0 \
; RUN:   -S < %s | FileCheck %s --check-prefix=UNINIT

; The host decides the test (the default; core/EntryProgram.h): it gets the
; program of the test above, which reads only the launch, and each block
; compares its index with the blocks the host proved for the launch.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=1 -kosan-debug-func=halo -kosan-print-entry-tests \
; RUN:   -pass-remarks=kosan-oob -S < %s 2>%t.host | FileCheck %s --check-prefix=HOST
; RUN: FileCheck %s --check-prefix=PROGRAM < %t.host

; REMARK: kernel 'halo': 6 accesses checked {{.*}}; 6 outside loops tested at the entry by 6 tests (the kernel copied whole){{$}}

; in[g]'s range: in (parameter 1) + 4 * sext(bid * bd) against in's begin
; and end in the launch info (argument 1's bounds at 88 and 96); the shared
; stores' ends against the dynamic shared memory's size (16), the guarded
; one's highest index umin(bd - 1, 1); bid * bd + tid within i32; the
; launch's uninit flag (bit 8 of the flags at 12).
; PROGRAM:      kosan: entry test of halo__kosan:
; PROGRAM-NEXT: dims 1
; PROGRAM-NEXT: %[[IN:[0-9]+]] = PARAM i64 1
; PROGRAM-NEXT: %[[BID:[0-9]+]] = BLOCK_ID i32 0
; PROGRAM-NEXT: %[[BD:[0-9]+]] = BLOCK_DIM i32 0
; PROGRAM-NEXT: %[[MUL:[0-9]+]] = MUL i32 %[[BID]], %[[BD]]
; PROGRAM-NEXT: %[[WIDE:[0-9]+]] = SEXT i64 %[[MUL]]
; PROGRAM:      %[[FIRST:[0-9]+]] = ADD i64 %[[IN]], %{{[0-9]+}}
; PROGRAM:      %[[BEGIN:[0-9]+]] = INFO i64 88
; PROGRAM-NEXT: ICMP i1 %{{[0-9]+}}, %[[BEGIN]] UGE
; PROGRAM:      %[[END:[0-9]+]] = INFO i64 96
; PROGRAM-NEXT: ICMP i1 %{{[0-9]+}}, %[[END]] ULE
; PROGRAM:      %[[SMEM:[0-9]+]] = INFO i64 16
; PROGRAM-NEXT: ICMP i1 %{{[0-9]+}}, %[[SMEM]] SLE
; PROGRAM:      UMIN i64
; PROGRAM:      CONST i64 2147483647
; PROGRAM-NEXT: ICMP i1 %{{[0-9]+}}, %{{[0-9]+}} SLE
; PROGRAM:      %[[FLAGS:[0-9]+]] = INFO i32 12
; PROGRAM-NEXT: %[[BIT:[0-9]+]] = CONST i32 8
; PROGRAM-NEXT: AND i32 %[[FLAGS]], %[[BIT]]
; PROGRAM:      remark: {{.*}}kernel 'halo': {{.*}} 6 outside loops tested at the entry by 6 tests (the kernel copied whole; the host decides them per launch)

; HOST-LABEL: define ptx_kernel void @halo__kosan(
; HOST-NOT:     icmp {{u|s}}{{ge|le}} i64
; HOST:         %kosan.fast.lo = load i32, ptr %{{[0-9]+}}, align 4, !nosanitize
; HOST:         %kosan.fast.n = load i32, ptr %{{[0-9]+}}, align 4, !nosanitize
; HOST-NEXT:    %[[ID:[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; HOST-NEXT:    %[[REL:[0-9]+]] = sub i32 %[[ID]], %kosan.fast.lo
; HOST-NEXT:    %kosan.entry.ok = icmp ult i32 %[[REL]], %kosan.fast.n
; HOST-NEXT:    br i1 %kosan.entry.ok, label %kosan.entry.fast, label %kosan.entry.checked, !prof
; HOST:       kosan.entry.fast:
; HOST-NOT:     {{%kosan\.(bad|safe|report|hoist|group|uninit)|@__kosan}}
; HOST:         ret void
; HOST:       kosan.entry.checked:
; HOST:         %kosan.bad
; REMARK: kernel 'gather': {{.*}} 0 of the loops copied whole{{$}}
; REMARK: kernel 'square': {{.*}} 0 of the loops copied whole{{$}}
; REMARK: kernel 'late_alloca': {{.*}} 0 of the loops copied whole{{$}}
; REMARK: kernel 'in_loop': {{.*}} 1 hoisted out of 1 loops, {{.*}}; 1 of the loops copied whole{{$}}

; OFF-NOT: kosan.entry

; halo: in[g], sh[tid + 1], sh[tid + 1 + bd] under tid < 2, in[g - 1] and
; sh[0] under tid < 1, out[g]: six ranges.
; CHECK-LABEL: define ptx_kernel void @halo__kosan(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %[[NTID:[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
; in[g]'s range against in's bounds: in + 4 * sext(bid * bd) up to 4 * bd
; bytes further.
; CHECK:         %[[BD:[0-9]+]] = zext i32 %[[NTID]] to i64
; CHECK:         icmp uge i64 %{{.*}}, %kosan.arg1.begin
; CHECK:         icmp ule i64 %{{.*}}, %kosan.arg1.end
; The shared stores' offsets against the dynamic shared memory's size; the
; guarded one's highest index is 1 (tid < 2) where the block has more.
; CHECK:         icmp sle i64 %{{.*}}, %kosan.dyn_smem
; CHECK:         %[[LAST:[0-9]+]] = add nsw i64 %[[BD]], -1
; CHECK-NEXT:    call i64 @llvm.umin.i64(i64 %[[LAST]], i64 1)
; CHECK:         icmp sle i64 %{{.*}}, %kosan.dyn_smem
; bid * bd + tid does not wrap in 32 bits over the block (in[g - 1], for
; tid 0 alone, needs no such test).
; CHECK:         icmp sle i64 %{{.*}}, 2147483647
; No barrier or vote of kosan's: the test is the block's already.
; CHECK-NOT:     barrier0.and
; CHECK-NOT:     vote
; CHECK:         br i1 %kosan.entry.ok, label %kosan.entry.fast, label %kosan.entry.checked, !prof
; The kernel as it was, then its checked copy.
; CHECK:       kosan.entry.fast:
; CHECK-NOT:     {{%kosan\.(bad|safe|report|hoist|group)|@__kosan}}
; CHECK:         call void @llvm.nvvm.barrier0()
; CHECK-NOT:     {{%kosan\.(bad|safe|report|hoist|group)|@__kosan}}
; CHECK:         ret void
; CHECK:       kosan.entry.checked:
; CHECK:         %kosan.bad
; CHECK:         call void @llvm.nvvm.barrier0()
; CHECK:         ret void

; RACE-LABEL: define ptx_kernel void @halo__kosan(
; RACE-NOT:     barrier0.and
; RACE:         br i1 %kosan.entry.ok, label %kosan.entry.fast, label %kosan.entry.checked

; UNINIT-LABEL: define ptx_kernel void @halo__kosan(
; UNINIT:         %kosan.uninit.off = xor i1 %kosan.uninit.on, true
; UNINIT:         br i1 %kosan.entry.ok, label %kosan.entry.fast, label %kosan.entry.checked

; CHECK-LABEL: define ptx_kernel void @gather__kosan(
; CHECK-NOT:     kosan.entry
; CHECK:         ret void
; CHECK-LABEL: define ptx_kernel void @square__kosan(
; CHECK-NOT:     kosan.entry
; CHECK:         ret void
; CHECK-LABEL: define ptx_kernel void @late_alloca__kosan(
; CHECK-NOT:     kosan.entry
; CHECK:         ret void
; CHECK-LABEL: define ptx_kernel void @in_loop__kosan(
; CHECK-NOT:     kosan.entry
; CHECK:         ret void

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@sh = external addrspace(3) global [0 x float], align 4

declare void @llvm.nvvm.barrier0() convergent
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

define void @halo(ptr %out, ptr %in, i32 %n) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bd = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %mul = mul i32 %bid, %bd
  %g = add i32 %mul, %tid
  %g64 = sext i32 %g to i64
  %p = getelementptr float, ptr %in, i64 %g64
  %v = load float, ptr %p, align 4
  %l = add nuw nsw i32 %tid, 1
  %l64 = zext i32 %l to i64
  %s = getelementptr float, ptr addrspace(3) @sh, i64 %l64
  store float %v, ptr addrspace(3) %s, align 4
  %edge = icmp ult i32 %tid, 2
  br i1 %edge, label %right, label %sync

right:
  %r = add i32 %l, %bd
  %r64 = zext i32 %r to i64
  %rs = getelementptr float, ptr addrspace(3) @sh, i64 %r64
  store float 0.0, ptr addrspace(3) %rs, align 4
  %first = icmp ult i32 %tid, 1
  br i1 %first, label %left, label %sync

left:
  %gl = add i32 %g, -1
  %gl64 = sext i32 %gl to i64
  %pl = getelementptr float, ptr %in, i64 %gl64
  %vl = load float, ptr %pl, align 4
  store float %vl, ptr addrspace(3) @sh, align 4
  br label %sync

sync:
  call void @llvm.nvvm.barrier0()
  %q = getelementptr float, ptr %out, i64 %g64
  store float %v, ptr %q, align 4
  ret void
}

define void @gather(ptr %out, ptr %x, ptr %idx) {
entry:
  %tid = call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %pi = getelementptr i32, ptr %idx, i64 %t64
  %i = load i32, ptr %pi, align 4
  %i64 = sext i32 %i to i64
  %px = getelementptr float, ptr %x, i64 %i64
  %v = load float, ptr %px, align 4
  %q = getelementptr float, ptr %out, i64 %t64
  store float %v, ptr %q, align 4
  ret void
}

define void @square(ptr %out) {
entry:
  %tid = call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %sq = mul nuw nsw i32 %tid, %tid
  %s64 = zext i32 %sq to i64
  %q = getelementptr float, ptr %out, i64 %s64
  store float 1.0, ptr %q, align 4
  ret void
}

define void @late_alloca(ptr %out) {
entry:
  %tid = call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %q = getelementptr float, ptr %out, i64 %t64
  store float 1.0, ptr %q, align 4
  %slot = alloca float, align 4
  store volatile float 2.0, ptr %slot, align 4
  ret void
}

define void @in_loop(ptr %out, i32 %n) {
entry:
  %tid = call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %q = getelementptr float, ptr %out, i64 %t64
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %i64 = zext i32 %i to i64
  %at = getelementptr float, ptr %q, i64 %i64
  store float 0.0, ptr %at, align 4
  %next = add nuw nsw i32 %i, 1
  %more = icmp ult i32 %next, %n
  br i1 %more, label %loop, label %done

done:
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3, !4}
!0 = !{ptr @halo, !"kernel", i32 1}
!1 = !{ptr @gather, !"kernel", i32 1}
!2 = !{ptr @square, !"kernel", i32 1}
!3 = !{ptr @in_loop, !"kernel", i32 1}
!4 = !{ptr @late_alloca, !"kernel", i32 1}
