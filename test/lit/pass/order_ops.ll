; --kosan-checks=order-ops: the order check, plus a call to the runtime's
; operation log at every fingerprinted operation, with the operands as the
; fingerprint combines them (sorted for fadd and fmul), the operation's code
; and a site that names it (KOSAN_ACCESS_ORDER_OP = 11, object: the name).
; The kernel entry says the clone logs operations (flag 64).
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-order-ops \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-order-ops \
; RUN:   -kosan-link-runtime=false -pass-remarks-analysis=kosan-order -disable-output < %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARK
; The codes are kosan_fp_op (FNV-1a 64) of the names, as the host reads them.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-order-ops \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefix=CODES
; The order check alone logs nothing.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-order \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefix=PLAIN
; Its kernel entry (name at 7, flags, params from 0, 2 params, sites from 0,
; 1 site) has flag 32 (fingerprints) without 64, and no operation sites.
; PLAIN: c"KSIT{{.*}}\07\00\00\00 \00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00
; PLAIN-NOT: __kosan_order_op

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; out[0] = fma(x[0], x[1], x[0] + x[1]) - x[2]
define void @ops(ptr %x, ptr %out) {
  %p1 = getelementptr inbounds float, ptr %x, i32 1
  %p2 = getelementptr inbounds float, ptr %x, i32 2
  %a = load float, ptr %x, align 4
  %b = load float, ptr %p1, align 4
  %c = load float, ptr %p2, align 4
  %s = fadd float %a, %b
  %f = call float @llvm.fma.f32(float %a, float %b, float %s)
  %d = fsub float %f, %c
  store float %d, ptr %out, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @ops__kosan(
; The add: operands sorted, logged as sorted, then combined into S.
; CHECK:         %s = fadd float %a, %b
; CHECK-NEXT:    [[LT:%.*]] = icmp ult i64 [[FA:%.*]], [[FB:%.*]]
; CHECK-NEXT:    [[LO:%.*]] = select i1 [[LT]], i64 [[FA]], i64 [[FB]]
; CHECK-NEXT:    [[HI:%.*]] = select i1 [[LT]], i64 [[FB]], i64 [[FA]]
; CHECK-NEXT:    call void @__kosan_order_op(i64 [[STATE:%.*]], i64 [[LO]], i64 [[HI]], i64 -1213939481831638464, i32 0)
; CHECK:         [[S:%.*]] = mul i64 {{%.*}}, -7046029254386353131
; fma: its product (the sum of the operands' fingerprints: logged as
; fma.mul, not hashed), then the fma of the product and S, each logged.
; CHECK:         %f = call float @llvm.fma.f32(
; CHECK-NEXT:    call void @__kosan_order_op(i64 [[STATE]], i64 [[FA]], i64 [[FB]], i64 3282535674580616939, i32 1)
; CHECK-NEXT:    [[PROD:%.*]] = add i64 [[FA]], [[FB]]
; CHECK-NEXT:    call void @__kosan_order_op(i64 [[STATE]], i64 [[PROD]], i64 [[S]], i64 -2545766234644546009, i32 2)
; CHECK:         [[F:%.*]] = mul i64 {{%.*}}, -7046029254386353131
; fsub: not sorted, the minuend first.
; CHECK:         %d = fsub float %f, %c
; CHECK-NEXT:    call void @__kosan_order_op(i64 [[STATE]], i64 [[F]], i64 {{%.*}}, i64 8411345835248308457, i32 3)
; CHECK:         call void @__kosan_order_store(
; CHECK:       declare void @__kosan_order_op(i64, i64, i64, i64, i32)

; REMARK: remark: <unknown>:0:0: kernel 'ops': fingerprints for 3 operations, 3 loads from kernel arguments, 0 shared-memory accesses, 0 shuffles; 1 stores and 0 float atomics recorded; 0 values of other origin labelled by their bits; 4 operations logged (order-ops)

; The site table: 5 sites, operation sites of kind 11 ("\0B"), the kernel
; entry's flags 96 (fingerprints and operations), and the operations' names.
; CODES: @__kosan_site_table = {{.*}}c"KSIT\09\00\00\00\05\00\00\00{{.*}}\0B\00\00\00{{.*}}\06\00\00\00`\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\05\00\00\00{{.*}}\00fadd\00ops\00fma.mul\00fma\00fsub\00store\00
; CODES: call void @__kosan_order_op(i64 {{%.*}}, i64 {{%.*}}, i64 {{%.*}}, i64 -1213939481831638464, i32
; CODES: call void @__kosan_order_op(i64 {{%.*}}, i64 {{%.*}}, i64 {{%.*}}, i64 3282535674580616939, i32
; CODES: call void @__kosan_order_op(i64 {{%.*}}, i64 {{%.*}}, i64 {{%.*}}, i64 -2545766234644546009, i32
; CODES: call void @__kosan_order_op(i64 {{%.*}}, i64 {{%.*}}, i64 {{%.*}}, i64 8411345835248308457, i32

declare float @llvm.fma.f32(float, float, float)

!nvvm.annotations = !{!0}
!0 = !{ptr @ops, !"kernel", i32 1}
