; A kernel clone calls the device runtime, whose warp-level operations keep
; ptxas from proving that warps reach a non-aligned barrier (barrier.sync:
; cooperative groups' thread_block::sync) converged; it then compiles the
; barrier with a path for diverged warps, which the original does not have
; (test/gpu/precision_shared_reduce.cu computed other results with it). The
; clone writes a barrier that every warp reaches converged as bar.sync
; (barrier0, as __syncthreads); one that a thread-dependent branch decides
; stays as written, as do the originals.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision -kosan-link-runtime=false \
; RUN:   -S < %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false \
; RUN:   -S < %s | FileCheck %s
; Off for bisection: the clones keep barrier.sync.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision -kosan-link-runtime=false \
; RUN:   -kosan-align-barriers=0 -S < %s | FileCheck %s --check-prefix=OFF
; What llc emits: bar.sync 0 in the clone, barrier.sync 0 in the original.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision -kosan-link-runtime=false \
; RUN:   < %s | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx80 | FileCheck %s --check-prefix=PTX

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@partial = internal addrspace(3) global [1024 x float] undef, align 4

; The shape of precision_shared_reduce.cu: a loop over blocks (blockIdx is
; the same for a warp), per-thread loops (threadIdx) before the barriers,
; a tree whose width halves, a store by thread 0 after the last barrier.
define void @tree(ptr %out, float %x, i32 %n) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %nb = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %first = icmp ult i32 %bid, %n
  br i1 %first, label %vector, label %done

vector:
  %v = phi i32 [ %bid, %entry ], [ %v.next, %stored ]
  br label %fill

fill:
  %a = phi i32 [ %tid, %vector ], [ %a.next, %fill ]
  %pa = getelementptr inbounds [1024 x float], ptr addrspace(3) @partial, i32 0, i32 %a
  %s = fmul float %x, %x
  store float %s, ptr addrspace(3) %pa, align 4
  %a.next = add i32 %a, %ntid
  %more = icmp ult i32 %a.next, 1024
  br i1 %more, label %fill, label %level

level:
  %width = phi i32 [ 512, %fill ], [ %half, %reduced ]
  call void @llvm.nvvm.barrier.sync(i32 0)
  %active = icmp ult i32 %tid, %width
  br i1 %active, label %add, label %reduced

add:
  %b = phi i32 [ %tid, %level ], [ %b.next, %add ]
  %pb = getelementptr inbounds [1024 x float], ptr addrspace(3) @partial, i32 0, i32 %b
  %wb = add i32 %b, %width
  %pw = getelementptr inbounds [1024 x float], ptr addrspace(3) @partial, i32 0, i32 %wb
  %l = load float, ptr addrspace(3) %pb, align 4
  %r = load float, ptr addrspace(3) %pw, align 4
  %sum = fadd float %l, %r
  store float %sum, ptr addrspace(3) %pb, align 4
  %b.next = add i32 %b, %ntid
  %again = icmp ult i32 %b.next, %width
  br i1 %again, label %add, label %reduced

reduced:
  %half = lshr i32 %width, 1
  %last = icmp ult i32 %width, 2
  br i1 %last, label %result, label %level

result:
  call void @llvm.nvvm.barrier.sync(i32 1)
  %zero = icmp eq i32 %tid, 0
  br i1 %zero, label %store, label %stored

store:
  %p0 = load float, ptr addrspace(3) @partial, align 4
  %po = getelementptr inbounds float, ptr %out, i32 %v
  store float %p0, ptr %po, align 4
  br label %stored

stored:
  %v.next = add i32 %v, %nb
  %next = icmp ult i32 %v.next, %n
  br i1 %next, label %vector, label %done

done:
  ret void
}

; Barriers that a thread-dependent branch decides: under threadIdx.x < 64,
; in a loop whose trip count depends on threadIdx.x, and after a value of
; such a loop decided the way (a loop-carried count read after the loop).
define void @guarded(ptr %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lo = icmp ult i32 %tid, 64
  br i1 %lo, label %half, label %loop

half:
  call void @llvm.nvvm.barrier.sync(i32 2)
  br label %loop

loop:
  %i = phi i32 [ %tid, %entry ], [ %tid, %half ], [ %i.next, %body ]
  %k = phi i32 [ 0, %entry ], [ 0, %half ], [ %k.next, %body ]
  %in = icmp ult i32 %i, %n
  br i1 %in, label %body, label %after

body:
  call void @llvm.nvvm.barrier.sync(i32 3)
  %i.next = add i32 %i, 32
  %k.next = add i32 %k, 1
  br label %loop

after:
  %odd = trunc i32 %k to i1
  br i1 %odd, label %late, label %exit

late:
  call void @llvm.nvvm.barrier.sync(i32 4)
  br label %exit

exit:
  store i32 %k, ptr %out, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare void @llvm.nvvm.barrier.sync(i32)

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @tree, !"kernel", i32 1}
!1 = !{ptr @guarded, !"kernel", i32 1}

; CHECK-LABEL: define void @tree(
; CHECK: call void @llvm.nvvm.barrier.sync(i32 0)
; CHECK: call void @llvm.nvvm.barrier.sync(i32 1)
; CHECK-LABEL: define void @guarded(
; CHECK-LABEL: define ptx_kernel void @tree__kosan(
; CHECK: level:
; CHECK-NEXT: %width = phi
; CHECK-NEXT: call void @llvm.nvvm.barrier0()
; CHECK: result:
; CHECK-NEXT: call void @llvm.nvvm.barrier.n(i32 1)
; CHECK-NOT: @llvm.nvvm.barrier.sync(
; CHECK-LABEL: define ptx_kernel void @guarded__kosan(
; CHECK: half:
; CHECK-NEXT: call void @llvm.nvvm.barrier.sync(i32 2)
; CHECK: body:
; CHECK-NEXT: call void @llvm.nvvm.barrier.sync(i32 3)
; CHECK: late:
; CHECK-NEXT: call void @llvm.nvvm.barrier.sync(i32 4)
; OFF-LABEL: define ptx_kernel void @tree__kosan(
; OFF: call void @llvm.nvvm.barrier.sync(i32 0)
; OFF: call void @llvm.nvvm.barrier.sync(i32 1)
; PTX-LABEL: .entry tree(
; PTX-DAG: barrier.sync 1;
; PTX-DAG: barrier.sync 0;
; PTX-LABEL: .entry guarded(
; PTX-LABEL: .entry tree__kosan(
; PTX-NOT: barrier.sync
; PTX: bar.sync 0;
; PTX-NOT: barrier.sync
; PTX-LABEL: .entry guarded__kosan(
