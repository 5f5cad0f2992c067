; checks=race cannot follow a barrier that waits for part of the block
; (bar.sync with a thread count: warp-specialised code): the module is not
; checked for races, with a warning, rather than reported for races that
; are not there.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-race -kosan-link-runtime=false -S < %s \
; RUN:   2> %t.err | FileCheck %s --implicit-check-not=__kosan_race
; RUN: FileCheck %s --check-prefix=WARN < %t.err

; Relocatable device code is not race-checked either (another unit's device
; functions would index the shadow by their own granule).
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-race -kosan-rdc -kosan-link-runtime=false -S < %s \
; RUN:   2> %t.rdc | FileCheck %s --implicit-check-not=__kosan_race
; RUN: FileCheck %s --check-prefix=RDC < %t.rdc
; RDC: kosan: warning: the race check does not support relocatable device code (-fgpu-rdc); {{.*}} is not checked for races

; WARN: kosan: warning: 'producer' waits at a barrier for part of the block (a thread count, a cluster barrier or inline assembly), which the race check cannot follow; {{.*}} is not checked for races

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@buf = internal addrspace(3) global [256 x float] undef, align 4

define void @producer(float %v) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %p = getelementptr inbounds [256 x float], ptr addrspace(3) @buf, i64 0, i64 %i
  store float %v, ptr addrspace(3) %p, align 4
  call void @llvm.nvvm.barrier.sync.cnt(i32 1, i32 64)
  ret void
}
; CHECK: define ptx_kernel void @producer__kosan(

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.sync.cnt(i32, i32)

!nvvm.annotations = !{!0}
!0 = !{ptr @producer, !"kernel", i32 1}
