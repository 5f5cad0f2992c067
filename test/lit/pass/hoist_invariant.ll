; Checks made once before a loop beyond a constant stride (hoist.ll,
; hoist_grid_stride.ll):
;
; - an address that is the same in every trip (a shared tile indexed by the
;   thread alone, a kernel argument's out[0]): [address, address + size)
;   against its object (the static object's own bounds, a kernel
;   argument's) in the preheader; with -kosan-hoist-groups a group at such
;   an address too (its range; its checked copy is checked as a group);
; - {start,+,stride} with a loop-invariant stride that is not a constant
;   (a[i * s]) and bounded trips M: first and first + M * stride, the
;   product's overflow (smul.with.overflow) and the last address's wrap
;   failing the test, the lower and higher of the two against the bounds;
; - matmul's b[(t + ty) * n + col]: a zero-extended (i + c) * m + d in
;   32-bit unsigned arithmetic under the loop's own test of i: (top + c)
;   and (top + c) * m + d, in 64 bits, below 2^32 at i's last value.
;
; The preheader computes only the flag: a loop that runs no trip (sym_stride
; and tile_column are guarded by n > 0; tiles is not) reports nothing, and a
; thread whose test fails takes the checked copies in each trip, which
; report exactly. Stay checked in every trip: a sign-extended 32-bit product
; without nsw (may_wrap: it may wrap between trips) and a stride read in the
; loop (stride_in_loop: a[i * strides[i]]; strides[i] itself is hoisted).

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-version-loops=0 -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -pass-remarks=kosan-oob -S < %s 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob,verify -kosan-version-loops=0 -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -kosan-hoist-groups -pass-remarks=kosan-oob \
; RUN:   -S < %s 2>%t.groups.remarks | FileCheck %s --check-prefix=GROUPS
; RUN: FileCheck %s --check-prefix=GROUPS-REMARK < %t.groups.remarks

; REMARK: kernel 'tiles': 6 accesses checked (1 against kernel arguments, 5 against shared/local/global objects, 0 against the table of all buffers) by 3 checks, 4 of them in 1 groups at constant distances, 1 hoisted out of 1 loops, 1 checked one by one, {{.*}}; of the hoisted, 1 at loop-invariant addresses (in 0 groups), 0 at symbolic strides
; REMARK: kernel 'sym_stride': 2 accesses checked {{.*}} by 1 checks, 0 of them in 0 groups at constant distances, 2 hoisted out of 1 loops, 0 checked one by one, {{.*}}; of the hoisted, 1 at loop-invariant addresses (in 0 groups), 1 at symbolic strides
; REMARK: kernel 'tile_column': 2 accesses checked {{.*}} by 2 checks, 0 of them in 0 groups at constant distances, 1 hoisted out of 1 loops, 1 checked one by one,
; REMARK: kernel 'may_wrap': 1 accesses checked {{.*}} by 1 checks, 0 of them in 0 groups at constant distances, 0 hoisted out of 0 loops, 1 checked one by one,
; REMARK: kernel 'stride_in_loop': 2 accesses checked {{.*}} by 2 checks, 0 of them in 0 groups at constant distances, 1 hoisted out of 1 loops, 1 checked one by one, {{.*}} 0 at symbolic strides
; GROUPS-REMARK: kernel 'tiles': 6 accesses checked {{.*}} by 2 checks, 0 of them in 0 groups at constant distances, 5 hoisted out of 1 loops, 1 checked one by one, {{.*}}; of the hoisted, 5 at loop-invariant addresses (in 1 groups), 0 at symbolic strides

; The store's address less the tile's, 128 * ty + 4 * tx, tested against
; the tile's 4096 bytes (a static object's test is in its own offsets; no
; address of the shared window is formed); the group of four loads stays
; checked in the loop.
; CHECK-LABEL: define ptx_kernel void @tiles__kosan(
; CHECK:         %[[ROW:[0-9]+]] = shl nsw i64 %ty, 7
; CHECK-NEXT:    %[[COL:[0-9]+]] = shl nsw i64 %tx, 2
; CHECK-NEXT:    %[[OFF:[0-9]+]] = add nsw i64 %[[ROW]], %[[COL]]
; CHECK-NEXT:    %[[LO:[0-9]+]] = add i64 %[[OFF]], 0
; CHECK-NEXT:    icmp sge i64 %[[LO]], 0
; CHECK-NEXT:    %[[HI:[0-9]+]] = add i64 %[[OFF]], 4
; CHECK-NEXT:    icmp sle i64 %[[HI]], 4096
; CHECK:         %kosan.loop.ok = and i1
; CHECK-NEXT:    br label %loop
; CHECK:       loop:
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted
; CHECK:       kosan.hoisted:
; CHECK-NEXT:    store float 1.000000e+00, ptr addrspace(3) %st, align 4
; CHECK:       kosan.unhoisted:
; CHECK:         select i1 %kosan.bad, ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %st
; CHECK:         call void @llvm.nvvm.barrier0()
; CHECK-NEXT:    %p0 = getelementptr
; CHECK-NEXT:    %kosan.group = ptrtoint ptr addrspace(3) %p0 to i64

; GROUPS-LABEL: define ptx_kernel void @tiles__kosan(
; The group's range: its four loads, 16 bytes from tile[ty][0].
; GROUPS:         %[[ROW:[0-9]+]] = shl nsw i64 %ty, 7
; GROUPS:         %[[GLO:[0-9]+]] = add i64 %[[ROW]], 0
; GROUPS-NEXT:    icmp sge i64 %[[GLO]], 0
; GROUPS-NEXT:    %[[GHI:[0-9]+]] = add i64 %[[ROW]], 16
; GROUPS-NEXT:    icmp sle i64 %[[GHI]], 4096
; GROUPS:         %kosan.loop.ok = and i1 %kosan.hoist.ok, %kosan.hoist.ok{{[0-9]+}}
; GROUPS:         call void @llvm.nvvm.barrier0()
; GROUPS-NEXT:    %p0 = getelementptr
; GROUPS-NEXT:    br i1 %kosan.loop.ok, label %kosan.hoisted{{[0-9]*}}, label %kosan.unhoisted{{[0-9]*}}
; GROUPS:       kosan.hoisted{{[0-9]*}}:
; GROUPS-NEXT:    %v0 = load float, ptr addrspace(3) %p0, align 4
; GROUPS:       kosan.unhoisted{{[0-9]*}}:
; GROUPS:         %kosan.group = ptrtoint ptr addrspace(3) %p0{{[0-9]*}} to i64
; GROUPS:       kosan.group.scan:

; Nothing but the flag before the loop, which may run no trip.
; CHECK-LABEL: define ptx_kernel void @sym_stride__kosan(
; CHECK:       loop.preheader:
; CHECK-NEXT:    %kosan.hoist.first = ptrtoint ptr %a to i64
; CHECK-NEXT:    %[[M:[0-9]+]] = add i64 %n, -1
; CHECK-NEXT:    %[[STRIDE:[0-9]+]] = shl i64 %s, 2
; CHECK-NEXT:    %[[PRODUCT:[0-9]+]] = call { i64, i1 } @llvm.smul.with.overflow.i64(i64 %[[M]], i64 %[[STRIDE]])
; CHECK-NEXT:    %[[SPAN:[0-9]+]] = extractvalue { i64, i1 } %[[PRODUCT]], 0
; CHECK-NEXT:    %kosan.hoist.last = add i64 %kosan.hoist.first, %[[SPAN]]
; CHECK-NEXT:    %[[DOWN:[0-9]+]] = icmp slt i64 %[[STRIDE]], 0
; CHECK-NEXT:    %[[LOW:[0-9]+]] = select i1 %[[DOWN]], i64 %kosan.hoist.last, i64 %kosan.hoist.first
; CHECK-NEXT:    %[[HIGH:[0-9]+]] = select i1 %[[DOWN]], i64 %kosan.hoist.first, i64 %kosan.hoist.last
; CHECK-NEXT:    %[[END:[0-9]+]] = add i64 %[[HIGH]], 4
; CHECK-NEXT:    icmp sge i64 %[[M]], 0
; CHECK-NEXT:    %[[OVERFLOW:[0-9]+]] = extractvalue { i64, i1 } %[[PRODUCT]], 1
; CHECK-NEXT:    xor i1 %[[OVERFLOW]], true
; CHECK-NEXT:    icmp ult i64 %[[LOW]], %[[END]]
; CHECK-NEXT:    icmp uge i64 %[[LOW]], %kosan.arg1.begin
; CHECK-NEXT:    icmp ule i64 %[[END]], %kosan.arg1.end
; CHECK-NOT:     call
; CHECK:         %kosan.loop.ok = and i1 %kosan.hoist.ok, %kosan.hoist.ok{{[0-9]+}}
; CHECK-NEXT:    br label %loop
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted

; CHECK-LABEL: define ptx_kernel void @tile_column__kosan(
; CHECK:         %kosan.iv.top = add i32 0,
; CHECK:         icmp ugt i64 %{{[0-9]+}}, 4294967295
; CHECK-NEXT:    icmp ugt i64 %{{[0-9]+}}, 4294967295
; CHECK:         %kosan.loop.ok = and i1
; CHECK-NEXT:    br label %loop
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted

; CHECK-LABEL: define ptx_kernel void @may_wrap__kosan(
; CHECK-NOT:     kosan.loop.ok
; CHECK:         %kosan.bad = or i1
; CHECK:         ret void
; CHECK-LABEL: define ptx_kernel void @stride_in_loop__kosan(
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted
; CHECK:       kosan.hoisted:
; CHECK-NEXT:    %s = load i64, ptr %sp, align 8
; CHECK:         %kosan.bad{{[0-9]*}} = or i1
; CHECK:         store float 0.000000e+00, ptr %kosan.safe

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [32 x [32 x float]] undef, align 4

declare void @llvm.nvvm.barrier0()

; tile[ty][tx] = 1; sync; acc += tile[ty][0..3]; sync, while t < n: the
; store's address and the group's are the same in every trip.
define void @tiles(ptr %out, i64 %ty, i64 %tx, i64 %n) {
entry:
  br label %loop
loop:
  %t = phi i64 [ 0, %entry ], [ %t.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc3, %loop ]
  %st = getelementptr inbounds [32 x [32 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 %tx
  store float 1.0, ptr addrspace(3) %st, align 4
  call void @llvm.nvvm.barrier0()
  %p0 = getelementptr inbounds [32 x [32 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 0
  %v0 = load float, ptr addrspace(3) %p0, align 4
  %p1 = getelementptr inbounds [32 x [32 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 1
  %v1 = load float, ptr addrspace(3) %p1, align 4
  %p2 = getelementptr inbounds [32 x [32 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 2
  %v2 = load float, ptr addrspace(3) %p2, align 4
  %p3 = getelementptr inbounds [32 x [32 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 3
  %v3 = load float, ptr addrspace(3) %p3, align 4
  %acc0 = fadd float %acc, %v0
  %acc1 = fadd float %acc0, %v1
  %acc2 = fadd float %acc1, %v2
  %acc3 = fadd float %acc2, %v3
  call void @llvm.nvvm.barrier0()
  %t.next = add nuw nsw i64 %t, 32
  %more = icmp ult i64 %t.next, %n
  br i1 %more, label %loop, label %exit
exit:
  store float %acc3, ptr %out, align 4
  ret void
}

; a[i * s], i = 0 .. n - 1 (the loop may run no trip): a loop-invariant
; stride of 4 * s bytes; out[0], the same address in every trip.
define void @sym_stride(ptr %out, ptr %a, i64 %s, i64 %n) {
entry:
  %any = icmp sgt i64 %n, 0
  br i1 %any, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %idx = mul nsw i64 %i, %s
  %p = getelementptr inbounds float, ptr %a, i64 %idx
  %v = load float, ptr %p, align 4
  store float %v, ptr %out, align 4
  %i.next = add nuw nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

; matmul's b[(t + ty) * n + col], t += 8 while t < n: unsigned 32-bit
; arithmetic, zero-extended, no trip count; bounded by the loop's test.
define void @tile_column(ptr %out, ptr %b, i32 %ty, i32 %col, i32 %n) {
entry:
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %exit
loop:
  %t = phi i32 [ 0, %entry ], [ %t.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc1, %loop ]
  %row = add nuw i32 %t, %ty
  %m = mul i32 %row, %n
  %idx32 = add i32 %m, %col
  %idx = zext i32 %idx32 to i64
  %p = getelementptr inbounds float, ptr %b, i64 %idx
  %v = load float, ptr %p, align 4
  %acc1 = fadd float %acc, %v
  %t.next = add nuw nsw i32 %t, 8
  %more = icmp slt i32 %t.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %r = phi float [ 0.0, %entry ], [ %acc1, %loop ]
  store float %r, ptr %out, align 4
  ret void
}

; Stay checked in every trip: a 32-bit product i * s without nsw,
; sign-extended (it may wrap between trips), and a stride read in the loop.
define void @may_wrap(ptr %a, i32 %s, i32 %n) {
entry:
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %idx32 = mul i32 %i, %s
  %idx = sext i32 %idx32 to i64
  %p = getelementptr inbounds float, ptr %a, i64 %idx
  store float 0.0, ptr %p, align 4
  %i.next = add nuw nsw i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

define void @stride_in_loop(ptr %a, ptr %strides, i64 %n) {
entry:
  %any = icmp sgt i64 %n, 0
  br i1 %any, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %sp = getelementptr inbounds i64, ptr %strides, i64 %i
  %s = load i64, ptr %sp, align 8
  %idx = mul nsw i64 %i, %s
  %p = getelementptr inbounds float, ptr %a, i64 %idx
  store float 0.0, ptr %p, align 4
  %i.next = add nuw nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3, !4}
!0 = !{ptr @tiles, !"kernel", i32 1}
!1 = !{ptr @sym_stride, !"kernel", i32 1}
!2 = !{ptr @tile_column, !"kernel", i32 1}
!3 = !{ptr @may_wrap, !"kernel", i32 1}
!4 = !{ptr @stride_in_loop, !"kernel", i32 1}
