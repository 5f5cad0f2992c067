; checks=order on nvptx64 IR: every f32 value gets a 64-bit fingerprint of
; how it was computed. Loads from kernel arguments are leaves labelled by
; (argument, byte offset) or, when the launch asks (flags bit 1), by the bits
; read; fadd sorts its operands (a+b and b+a have the same bits), fsub does
; not; phis get fingerprint phis, selects select fingerprints, shuffles move
; them, shared memory keeps them in a shadow array; stores to global memory
; and float atomics hand them to the runtime.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-order \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-order \
; RUN:   -kosan-link-runtime=false -pass-remarks-analysis=kosan-order -disable-output < %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARK
; The pass's arithmetic is the host's (include/kosan/order.h): constants fold
; to the fingerprints kosan-fp computes.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-order,instcombine \
; RUN:   -kosan-link-runtime=false -S < %s > %t.folded
; RUN: %kosan-fp --label SUB op fsub comm fadd f32 1.0 f32 2.0 f32 0.5 > %t.expected
; RUN: %kosan-fp --label FMA fma f32 3.0 f32 2.0 f32 1.0 >> %t.expected
; RUN: %kosan-fp --label SWAP op fsub comm fadd f32 2.0 f32 1.0 f32 0.5 >> %t.expected
; RUN: cat %t.expected %t.folded | FileCheck %s --check-prefix=FOLD
; Without order, none of it.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefix=OOB

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [256 x float] undef, align 4
@dyn = external addrspace(3) global [0 x float], align 4

; out = (x[0] + ... + x[n-1]), then max'ed with `cap`.
define void @sum(ptr %x, ptr %out, i32 %n, float %cap) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr inbounds float, ptr %x, i32 %i
  %v = load float, ptr %p, align 4
  %acc.next = fadd float %acc, %v
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  %big = fcmp ogt float %acc.next, %cap
  %r = select i1 %big, float %cap, float %acc.next
  %q = getelementptr inbounds float, ptr %out, i32 3
  store float %r, ptr %q, align 4
  ret void
}

; A warp's sum by shuffles, a block's through shared memory, an atomic.
define void @trees(ptr %x, ptr %out, i32 %t) {
  %p = getelementptr inbounds float, ptr %x, i32 %t
  %v = load float, ptr %p, align 4
  %down = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %v, i32 16, i32 31)
  %w = fadd float %v, %down
  %s = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i32 0, i32 %t
  store float %w, ptr addrspace(3) %s, align 4
  %t1 = add i32 %t, 1
  %s1 = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i32 0, i32 %t1
  %u = load float, ptr addrspace(3) %s1, align 4
  %d = getelementptr inbounds float, ptr addrspace(3) @dyn, i32 %t
  store float %u, ptr addrspace(3) %d, align 4
  %old = atomicrmw fadd ptr %out, float %u monotonic, align 4
  ret void
}

; Constants only: the fingerprints fold.
define void @consts(ptr %out) {
  %a = fadd float 1.0, 2.0
  %b = fsub float %a, 0.5
  store float %b, ptr %out, align 4
  %f = call float @llvm.fma.f32(float 3.0, float 2.0, float 1.0)
  %o1 = getelementptr inbounds float, ptr %out, i32 1
  store float %f, ptr %o1, align 4
  %a2 = fadd float 2.0, 1.0
  %b2 = fsub float %a2, 0.5
  %o2 = getelementptr inbounds float, ptr %out, i32 2
  store float %b2, ptr %o2, align 4
  ret void
}

; cuda_fp16.h's atomicAdd on a half: inline PTX on i16 registers.
define void @half_atomic(ptr %out, i16 %h) {
  %old = call i16 asm sideeffect "{ atom.add.noftz.f16 $0,[$1],$2; }\0A", "=h,l,h,~{memory}"(ptr %out, i16 %h)
  ret void
}

; A float and a double stored through one parameter: the shift is the
; host's, read with the shadow.
define void @mixed(ptr %out, float %f, double %d) {
  store float %f, ptr %out, align 4
  %o8 = getelementptr inbounds i8, ptr %out, i64 8
  store double %d, ptr %o8, align 8
  ret void
}

declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32)
declare float @llvm.fma.f32(float, float, float)

!nvvm.annotations = !{!0, !1, !2, !3, !4}
!0 = !{ptr @sum, !"kernel", i32 1}
!1 = !{ptr @trees, !"kernel", i32 1}
!2 = !{ptr @consts, !"kernel", i32 1}
!3 = !{ptr @half_atomic, !"kernel", i32 1}
!4 = !{ptr @mixed, !"kernel", i32 1}

; The shadow of the static tile: one i64 per float.
; CHECK: @tile.kosan_fp = internal addrspace(3) global [256 x i64] undef, align 8

; CHECK-LABEL: define void @sum(
; CHECK-NOT:     __kosan_order
; CHECK:       ret void

; CHECK-LABEL: define ptx_kernel void @sum__kosan(
; CHECK:         %kosan.value_leaves = icmp ne i32 {{%[0-9]+}}, 0
; With a trace (KOSAN_LAUNCH_ORDER_STORES = 4) the clone reads the shadow of
; out (entry 1 of the table of output shadows the order state points to:
; address and elements; all of out's stores are 4-byte floats, so the shift
; is a constant 2) once, at its entry.
; CHECK:         %kosan.order_shadows = icmp ne i32 {{%[0-9]+}}, 0
; CHECK-NEXT:    br i1 %kosan.order_shadows, label %[[READ:[0-9]+]], label %[[GO:[0-9]+]]
; CHECK:       [[READ]]:
; CHECK:         %kosan.order_state = load i64, ptr addrspace(1) {{%[0-9]+}}, align 8, !invariant.load
; CHECK:         %kosan.order_dense = load i64, ptr addrspace(1) {{%[0-9]+}}, align 8, !invariant.load
; CHECK:         getelementptr inbounds i8, ptr addrspace(1) {{%[0-9]+}}, i64 24
; CHECK-NOT:     load i32
; CHECK:       [[GO]]:
; CHECK-NEXT:    %kosan.order_out1.elements = phi i64 [ {{%[0-9]+}}, %[[READ]] ], [ 0, %entry ]
; CHECK-NEXT:    %kosan.order_out1.shadow = phi i64 [ {{%[0-9]+}}, %[[READ]] ], [ 0, %entry ]
; CHECK:       loop:
; CHECK:         %acc.fp = phi i64 [ {{-?[0-9]+}}, %[[GO]] ], [ [[ACCFP:%[0-9]+]], %loop ]
; The leaf of x[i]: its byte offset from x, scrambled with x's salt, or its bits.
; CHECK:         %v = load float
; CHECK-NEXT:    [[XI:%[0-9]+]] = ptrtoint ptr %x to i64
; CHECK-NEXT:    [[PI:%[0-9]+]] = ptrtoint ptr %p to i64
; CHECK-NEXT:    [[OFF:%[0-9]+]] = sub i64 [[PI]], [[XI]]
; The launch picks the word (offset ^ salt, or bits ^ salt), one scramble follows.
; CHECK:         [[WORD:%[0-9]+]] = select i1 %kosan.value_leaves, i64 {{%[0-9]+}}, i64 {{%[0-9]+}}
; CHECK-NEXT:    [[M:%[0-9]+]] = mul i64 [[WORD]], -4658895280553007687
; CHECK-NEXT:    [[SH:%[0-9]+]] = lshr i64 [[M]], 29
; CHECK-NEXT:    [[LEAF:%[0-9]+]] = xor i64 [[M]], [[SH]]
; fadd: operands sorted, then rotate, xor, multiply.
; CHECK:         %acc.next = fadd float %acc, %v
; CHECK-NEXT:    [[LT:%[0-9]+]] = icmp ult i64 %acc.fp, [[LEAF]]
; CHECK-NEXT:    [[LO:%[0-9]+]] = select i1 [[LT]], i64 %acc.fp, i64 [[LEAF]]
; CHECK-NEXT:    [[HI:%[0-9]+]] = select i1 [[LT]], i64 [[LEAF]], i64 %acc.fp
; CHECK-NEXT:    [[ROT:%[0-9]+]] = call i64 @llvm.fshl.i64(i64 [[LO]], i64 [[LO]], i64 23)
; CHECK-NEXT:    [[X1:%[0-9]+]] = xor i64 [[ROT]], [[HI]]
; CHECK-NEXT:    [[X2:%[0-9]+]] = xor i64 [[X1]], {{-?[0-9]+}}
; CHECK-NEXT:    [[ACCFP]] = mul i64 [[X2]], -7046029254386353131
; CHECK:       exit:
; The select picks the fingerprint of the value it picks; cap is a parameter,
; labelled by its bits.
; CHECK:         [[RFP:%[0-9]+]] = select i1 %big, i64 {{%[0-9]+}}, i64 [[ACCFP]]
; The store is logged when the launch asks (KOSAN_LAUNCH_ORDER_STORES = 4):
; argument 1 in the top 16 bits (1 << 48), the byte offset below.
; CHECK:         [[ON:%[0-9]+]] = and i32 %kosan.flags, 4
; CHECK-NEXT:    %kosan.log_stores = icmp ne i32 [[ON]], 0
; CHECK-NEXT:    br i1 %kosan.log_stores, label %[[LOG:[0-9]+]], label %[[STORE:[0-9]+]]
; CHECK:       [[LOG]]:
; CHECK:         [[WHERE:%[0-9]+]] = or i64 {{%[0-9]+}}, 281474976710656
; The element's index in out's shadow: its byte offset shifted by the
; element's size; within the shadow the clone writes the fingerprint there.
; CHECK-NEXT:    [[OFF:%[0-9]+]] = and i64 [[WHERE]], 281474976710655
; CHECK-NEXT:    [[IDX:%[0-9]+]] = lshr i64 [[OFF]], 2
; CHECK-NEXT:    %kosan.in_shadow = icmp ult i64 [[IDX]], %kosan.order_out1.elements
; CHECK-NEXT:    br i1 %kosan.in_shadow, label %[[WRITE:[0-9]+]], label %[[CALL:[0-9]+]]
; CHECK:       [[WRITE]]:
; CHECK-NEXT:    [[BASE:%[0-9]+]] = inttoptr i64 %kosan.order_out1.shadow to ptr addrspace(1)
; CHECK-NEXT:    [[SLOT:%[0-9]+]] = getelementptr i64, ptr addrspace(1) [[BASE]], i64 [[IDX]]
; CHECK-NEXT:    store i64 [[RFP]], ptr addrspace(1) [[SLOT]], align 8, !nosanitize
; Past the shadow, or without one: the device runtime logs it.
; CHECK:       [[CALL]]:
; CHECK-NEXT:    call void @__kosan_order_store(i64 %kosan.state, i64 [[WHERE]], i64 [[RFP]])
; CHECK:       [[STORE]]:
; CHECK-NEXT:    store float %r

; CHECK-LABEL: define ptx_kernel void @trees__kosan(
; The shuffle moves the fingerprint in two 32-bit halves, with the same lanes.
; CHECK:         %down = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %v, i32 16, i32 31)
; CHECK:         call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 {{%[0-9]+}}, i32 16, i32 31)
; CHECK:         call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 {{%[0-9]+}}, i32 16, i32 31)
; CHECK:         [[WFP:%[0-9]+]] = mul i64
; Shared memory: the fingerprint goes to the tile's shadow and comes back.
; Its slot: the element's byte offset in the tile (the GEP's own arithmetic,
; which the code generator folds into the access), times 8 / 4.
; CHECK:         %s = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i32 0, i32 %t
; CHECK:         [[OFF:%[a-z.0-9]+]] = mul nsw i64 {{%[a-z.0-9]+}}, 4
; CHECK-NEXT:    [[SCALED:%[0-9]+]] = shl i64 [[OFF]], 1
; CHECK-NEXT:    [[SLOT:%[0-9]+]] = getelementptr i8, ptr addrspace(3) @tile.kosan_fp, i64 [[SCALED]]
; CHECK-NEXT:    store i64 [[WFP]], ptr addrspace(3) [[SLOT]], align 8, !nosanitize
; CHECK-NEXT:    store float %w, ptr addrspace(3) %s
; CHECK:         %u = load float, ptr addrspace(3) %s1
; CHECK:         [[UFP:%[0-9]+]] = load i64, ptr addrspace(3) {{%[0-9]+}}, align 8, !nosanitize
; Dynamic shared memory: the shadow starts at the first multiple of 8 after
; the launch's own bytes.
; CHECK:         [[D7:%[0-9]+]] = add i64 %kosan.dyn_smem, 7
; CHECK-NEXT:    [[DA:%[0-9]+]] = and i64 [[D7]], -8
; CHECK-NEXT:    [[DB:%[0-9]+]] = getelementptr i8, ptr addrspace(3) @dyn, i64 [[DA]]
; CHECK:         store i64 [[UFP]], ptr addrspace(3) {{%[0-9]+}}, align 8, !nosanitize
; The atomic: its contribution's fingerprint, what it found and what it added.
; CHECK:         %old = atomicrmw fadd ptr %out, float %u monotonic
; CHECK:         call void @__kosan_order_atomic(i64 %kosan.state, i64 {{%[0-9]+}}, i64 [[UFP]], i64 {{%[0-9]+}}, i64 {{%[0-9]+}})

; CHECK-LABEL: define ptx_kernel void @half_atomic__kosan(
; The half's bits label it (dtype f16 = 3); what it found is the asm's result.
; CHECK:         %old = call i16 asm sideeffect "{ atom.add.noftz.f16
; CHECK:         [[HB:%[0-9]+]] = zext i16 %h to i64
; CHECK:         [[OB:%[0-9]+]] = zext i16 %old to i64
; CHECK-NEXT:    call void @__kosan_order_atomic(i64 %kosan.state, i64 {{%[0-9]+}}, i64 {{%[0-9]+}}, i64 [[OB]], i64 [[HB]])

; CHECK-LABEL: define ptx_kernel void @mixed__kosan(
; CHECK:         [[SHIFT32:%[0-9]+]] = load i32, ptr addrspace(1) {{%[0-9]+}}, align 4, !invariant.load
; CHECK:         %kosan.order_out0.shift = phi i64
; CHECK:         lshr i64 {{%[0-9]+}}, %kosan.order_out0.shift
; CHECK:         store float %f
; CHECK:         lshr i64 {{%[0-9]+}}, %kosan.order_out0.shift
; CHECK:         store double %d

; FOLD: SUB [[SUB:-?[0-9]+]]
; FOLD: FMA [[FMA:-?[0-9]+]]
; FOLD: SWAP [[SUB]]
; FOLD-LABEL: define ptx_kernel void @consts__kosan(
; FOLD:         call void @__kosan_order_store(i64 %kosan.state, i64 0, i64 [[SUB]])
; FOLD:         call void @__kosan_order_store({{.*}}, i64 [[FMA]])
; a+b and b+a: one fingerprint.
; FOLD:         call void @__kosan_order_store({{.*}}, i64 [[SUB]])

; REMARK: remark: <unknown>:0:0: kernel 'sum': fingerprints for 1 operations, 1 loads from kernel arguments, 0 shared-memory accesses, 0 shuffles; 1 stores and 0 float atomics recorded; 1 values of other origin labelled by their bits
; REMARK: remark: <unknown>:0:0: kernel 'trees': fingerprints for 1 operations, 1 loads from kernel arguments, 3 shared-memory accesses, 1 shuffles; 0 stores and 1 float atomics recorded; 1 values of other origin labelled by their bits

; OOB-NOT: __kosan_order
; OOB-NOT: kosan_fp
