; checks=race: every load and store of shared memory in a clone calls
; __kosan_race_access before it (state, launch flags, launch id, site, the
; shared offset, size, 1 for a store, the granule's log2), every block
; barrier is followed by __kosan_race_barrier and every __syncwarp by
; __kosan_race_warp_sync, and a kernel clone that touches shared memory
; starts with __kosan_race_enter (flags, the launch info's race_layout at
; offset 24). The granule is the module's smallest shared access: 2 bytes
; here (the half store in @halves). Global accesses are not checked; a
; kernel without shared accesses or calls gets nothing, and no race flag
; in the site table. The originals are left as they were.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-race -kosan-link-runtime=false -S < %s \
; RUN:   | FileCheck %s
; Linked: the entries are inlined (no call to them is left), and the
; module compiles to PTX that reads the launch's dynamic shared memory size.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-race -S < %s | FileCheck %s --check-prefix=LINK
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-race < %s \
; RUN:   | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_80 -o - | FileCheck %s --check-prefix=PTX
; Without the race check nothing of it is there.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -S < %s \
; RUN:   | FileCheck %s --check-prefix=NORACE --implicit-check-not=__kosan_race

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@sdata = internal addrspace(3) global [256 x float] undef, align 4
@hbuf = internal addrspace(3) global [64 x half] undef, align 2

; sdata[t] = in[t]; __syncthreads(); out[t] = sdata[t ^ 1]; __syncwarp();
define void @reduce(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %src = getelementptr inbounds float, ptr addrspace(1) %in, i64 %i
  %v = load float, ptr addrspace(1) %src, align 4
  %s = getelementptr inbounds [256 x float], ptr addrspace(3) @sdata, i64 0, i64 %i
  store float %v, ptr addrspace(3) %s, align 4
  call void @llvm.nvvm.barrier0()
  %j = xor i64 %i, 1
  %s2 = getelementptr inbounds [256 x float], ptr addrspace(3) @sdata, i64 0, i64 %j
  %w = load float, ptr addrspace(3) %s2, align 4
  call void @llvm.nvvm.bar.warp.sync(i32 -1)
  %dst = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %w, ptr addrspace(1) %dst, align 4
  ret void
}

define void @halves(half %x) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %h = getelementptr inbounds [64 x half], ptr addrspace(3) @hbuf, i64 0, i64 %i
  store half %x, ptr addrspace(3) %h, align 2
  call void @llvm.nvvm.barrier.sync(i32 0)
  ret void
}

define void @global_only(ptr addrspace(1) %out) {
entry:
  store float 1.0, ptr addrspace(1) %out, align 4
  ret void
}

; CHECK-LABEL: define void @reduce(
; CHECK-NOT: __kosan_race
; CHECK: ret void

; CHECK-LABEL: define ptx_kernel void @reduce__kosan(
; CHECK: %kosan.dyn_smem = load i64
; CHECK-NEXT: [[LP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 24
; CHECK-NEXT: %kosan.race_layout = load i64, ptr [[LP]], align 8, !nosanitize
; CHECK-NEXT: call void @__kosan_race_enter(i32 %kosan.flags, i64 %kosan.race_layout)
; CHECK: load float, ptr addrspace(1)
; CHECK: [[ADDR:%.*]] = ptrtoint ptr addrspace(3) %s to i64
; CHECK-NEXT: call void @__kosan_race_access(i64 %kosan.state, i32 %kosan.flags, i32 %kosan.launch_id, i32 [[SITE1:[0-9]+]], i64 [[ADDR]], i32 4, i32 1, i32 1, i64 %kosan.race_layout)
; CHECK-NEXT: store float %v, ptr addrspace(3) %s
; CHECK-NEXT: call void @llvm.nvvm.barrier0()
; CHECK-NEXT: call void @__kosan_race_barrier(i32 %kosan.flags)
; CHECK: [[ADDR2:%.*]] = ptrtoint ptr addrspace(3) %s2 to i64
; CHECK-NEXT: call void @__kosan_race_access(i64 %kosan.state, i32 %kosan.flags, i32 %kosan.launch_id, i32 {{[0-9]+}}, i64 [[ADDR2]], i32 4, i32 0, i32 1, i64 %kosan.race_layout)
; CHECK-NEXT: %w = load float, ptr addrspace(3) %s2
; CHECK-NEXT: call void @llvm.nvvm.bar.warp.sync(i32 -1)
; CHECK-NEXT: call void @__kosan_race_warp_sync(i32 %kosan.flags)
; CHECK-NOT: __kosan_race_access
; CHECK: ret void

; CHECK-LABEL: define ptx_kernel void @halves__kosan(
; CHECK: call void @__kosan_race_enter(
; CHECK: call void @__kosan_race_access(i64 %kosan.state, i32 %kosan.flags, i32 %kosan.launch_id, i32 {{[0-9]+}}, i64 %{{.*}}, i32 2, i32 1, i32 1, i64 %kosan.race_layout)
; The clone's cg::sync (barrier.sync 0), which every warp reaches
; converged, is written as bar.sync 0 (core/Barriers.h) and counted.
; CHECK: call void @llvm.nvvm.barrier0()
; CHECK-NEXT: call void @__kosan_race_barrier(i32 %kosan.flags)

; CHECK-LABEL: define ptx_kernel void @global_only__kosan(
; CHECK-NOT: __kosan_race
; CHECK: ret void

; LINK-NOT: call void @__kosan_race_
; LINK: define ptx_kernel void @reduce__kosan(
; LINK-NOT: call void @__kosan_race_
; LINK: @__kosan_race_dynamic_smem
; LINK-NOT: call void @__kosan_race_
; LINK-NOT: define internal void @__kosan_race_access(

; PTX: .extern .shared .align {{[0-9]+}} .b8 __kosan_race_dynamic_smem[];
; PTX-LABEL: .entry reduce__kosan(
; PTX: %dynamic_smem_size
; PTX: bar.sync 0;

; NORACE-LABEL: define ptx_kernel void @reduce__kosan(

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()
declare void @llvm.nvvm.barrier.sync(i32)
declare void @llvm.nvvm.bar.warp.sync(i32)

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @reduce, !"kernel", i32 1}
!1 = !{ptr @halves, !"kernel", i32 1}
!2 = !{ptr @global_only, !"kernel", i32 1}
