; A kernel whose checked accesses all lie outside loops, each against a
; kernel argument or a shared or static object at an address computable at
; the end of its entry block, is copied whole there (stencil-like kernels,
; the `if (i < n) y[i] = ...` of elementwise kernels): at the end of the
; entry block, for each access, "if its block runs, it is in bounds" (its
; block's dominating branch conditions, computed there, imply the range
; test of a hoisted access), and-ed; one branch on it goes to a copy of the
; body as compiled (kosan.kernel.fast: nothing of kosan's in it) or to the
; body, whose accesses are checked one by one and report their own sites
; (kosan.kernel.checked). A condition that cannot be computed at the entry
; is left out (the test then fails more often, never less). Thread indices
; read later are read at the entry. With __syncthreads the whole block takes
; one copy (barrier0.and at the entry, where the whole block is). Not copied:
; a kernel with a checked access in a loop (its loop is copied instead), or
; one checked against the table of all buffers. -kosan-version-kernels=0
; turns it off.
;
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify \
; RUN:   -kosan-misaligned=0 -kosan-link-runtime=false -kosan-uninit=0 -pass-remarks=kosan-oob \
; RUN:   -S < %s 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify \
; RUN:   -kosan-misaligned=0 -kosan-link-runtime=false -kosan-uninit=0 -kosan-version-kernels=0 \
; RUN:   -S < %s | FileCheck %s --check-prefix=OFF

; REMARK: kernel 'guarded': {{.*}}, and the kernel's body
; REMARK: kernel 'halo': {{.*}}, and the kernel's body
; REMARK-NOT: kernel 'indirect': {{.*}}, and the kernel's body
; REMARK-NOT: kernel 'looped': {{.*}}, and the kernel's body

; OFF-NOT: kosan.kernel.fast

; guarded: if (i < n) y[i] = x[i];
; CHECK-LABEL: define ptx_kernel void @guarded__kosan(
; CHECK:       entry:
; CHECK:         %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK:         %in = icmp slt i32 %i, %n
; CHECK:         %kosan.hoist.ok = and i1
; CHECK:         [[NOT:%.*]] = xor i1 %in, true
; CHECK-NEXT:    [[T1:%.*]] = or i1 [[NOT]], %kosan.hoist.ok
; CHECK:         %kosan.kernel.ok = and i1 [[T1]],
; CHECK-NEXT:    br i1 %kosan.kernel.ok, label %kosan.kernel.fast, label %kosan.kernel.checked, !prof
; CHECK:       kosan.kernel.checked:
; CHECK-NEXT:    br i1 %in, label %then, label %exit
; CHECK:       then:
; CHECK:         select i1 %kosan.bad{{[0-9]*}}, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr)
; CHECK:       kosan.kernel.fast:
; CHECK-NEXT:    br i1 %in, label %then.kosan.fast, label %exit.kosan.fast
; CHECK:       then.kosan.fast:
; CHECK-NEXT:    %i64.kosan.fast = sext i32 %i to i64
; CHECK-NEXT:    %px.kosan.fast = getelementptr inbounds float, ptr %x, i64 %i64.kosan.fast
; CHECK-NEXT:    %v.kosan.fast = load float, ptr %px.kosan.fast, align 4
; CHECK-NEXT:    %py.kosan.fast = getelementptr inbounds float, ptr %y, i64 %i64.kosan.fast
; CHECK-NEXT:    store float %v.kosan.fast, ptr %py.kosan.fast, align 4
; CHECK-NEXT:    br label %exit.kosan.fast

; halo: the block agrees at the entry; tid < 3, computed in a later block,
; is computed at the entry for the access it guards.
; CHECK-LABEL: define ptx_kernel void @halo__kosan(
; CHECK:       entry:
; CHECK:         [[SMALL:%.*]] = icmp ult i32 %t, 3
; CHECK:         %kosan.kernel.ok = and i1
; CHECK-NEXT:    [[OK:%.*]] = zext i1 %kosan.kernel.ok to i32
; CHECK-NEXT:    %kosan.loop.ok.all = call i32 @llvm.nvvm.barrier0.and(i32 [[OK]])
; CHECK-NEXT:    %kosan.loop.ok.block = icmp ne i32 %kosan.loop.ok.all, 0
; CHECK-NEXT:    br i1 %kosan.loop.ok.block, label %kosan.kernel.fast, label %kosan.kernel.checked

; indirect: y[idx[i]], idx[i] loaded: not computable at the entry.
; CHECK-LABEL: define ptx_kernel void @indirect__kosan(
; CHECK-NOT:     kosan.kernel.fast
; CHECK-LABEL: define ptx_kernel void @looped__kosan(
; CHECK-NOT:     kosan.kernel.fast
; CHECK:         kosan.loop.fast

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [256 x float] undef, align 4

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0() convergent

define void @guarded(ptr %y, ptr %x, i32 %n) {
entry:
  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %in = icmp slt i32 %i, %n
  br i1 %in, label %then, label %exit
then:
  %i64 = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr %x, i64 %i64
  %v = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i64
  store float %v, ptr %py, align 4
  br label %exit
exit:
  ret void
}

; tile[t] = in[t]; if (t < 3) tile[t + 128] = 0; __syncthreads(); out[t] = tile[t + 1];
define void @halo(ptr %out, ptr %in, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ok = icmp slt i32 %t, %n
  br i1 %ok, label %load, label %exit
load:
  %t64 = zext i32 %t to i64
  %pi = getelementptr inbounds float, ptr %in, i64 %t64
  %v = load float, ptr %pi, align 4
  %pt = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %t64
  store float %v, ptr addrspace(3) %pt, align 4
  %small = icmp ult i32 %t, 3
  br i1 %small, label %edge, label %sync
edge:
  %t128 = add nuw nsw i64 %t64, 128
  %pe = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %t128
  store float 0.0, ptr addrspace(3) %pe, align 4
  br label %sync
sync:
  call void @llvm.nvvm.barrier0()
  %t1 = add nuw nsw i64 %t64, 1
  %pn = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %t1
  %w = load float, ptr addrspace(3) %pn, align 4
  %po = getelementptr inbounds float, ptr %out, i64 %t64
  store float %w, ptr %po, align 4
  br label %exit
exit:
  ret void
}

define void @indirect(ptr %y, ptr %idx, i32 %n) {
entry:
  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %in = icmp slt i32 %i, %n
  br i1 %in, label %then, label %exit
then:
  %i64 = sext i32 %i to i64
  %pi = getelementptr inbounds i32, ptr %idx, i64 %i64
  %j = load i32, ptr %pi, align 4
  %j64 = sext i32 %j to i64
  %py = getelementptr inbounds float, ptr %y, i64 %j64
  store float 1.0, ptr %py, align 4
  br label %exit
exit:
  ret void
}

define void @looped(ptr %a, i64 %n) {
entry:
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %i = phi i64 [ 0, %preheader ], [ %i.next, %loop ]
  %p = getelementptr inbounds float, ptr %a, i64 %i
  store float 0.0, ptr %p, align 4
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3}
!0 = !{ptr @guarded, !"kernel", i32 1}
!1 = !{ptr @halo, !"kernel", i32 1}
!2 = !{ptr @indirect, !"kernel", i32 1}
!3 = !{ptr @looped, !"kernel", i32 1}
