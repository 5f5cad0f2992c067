; checks=precision on nvptx64 IR: every f32 value gets an fp64 shadow
; computed by the same operations; phis get shadow phis, selects shadow
; selects; loads and parameters seed their shadow from the real value; the
; stored value, the atomically added value and every narrowing conversion
; go to the runtime with their shadow; an operation that can turn finite
; operands into Inf/NaN checks for it (cold path).
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -pass-remarks=kosan-precision -disable-output < %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARK
; Without precision, none of it.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefix=OOB

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; sum += x[i] * 0.5 over n elements, then out = sum (narrowed to f16 too).
define void @dot(ptr %x, ptr %out, ptr %hout, i32 %n, float %scale) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %sum = phi float [ 0.0, %entry ], [ %sum.next, %loop ]
  %p = getelementptr inbounds float, ptr %x, i32 %i
  %v = load float, ptr %p, align 4
  %m = fmul float %v, 5.000000e-01
  %sum.next = fadd float %sum, %m
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  %big = fcmp ogt float %sum.next, %scale
  %r = select i1 %big, float %scale, float %sum.next
  %e = call float @llvm.nvvm.ex2.approx.f(float %r)
  store float %e, ptr %out, align 4
  %h = fptrunc float %r to half
  store half %h, ptr %hout, align 2
  %old = atomicrmw fadd ptr %out, float %r monotonic, align 4
  ret void
}

declare float @llvm.nvvm.ex2.approx.f(float)

; A copy: the stored value is the loaded one, exact by construction, so the
; runtime is not called for it (and no shadow is made).
define void @copy(ptr %in, ptr %out) {
  %v = load float, ptr %in, align 4
  store float %v, ptr %out, align 4
  ret void
}

; A running maximum of magnitudes (softmax's first pass): fmaxf and fabsf
; of finite operands are finite, so neither tests for an Inf/NaN birth;
; their shadows are still computed, and the store still recorded.
define void @running_max(ptr %x, ptr %out, i32 %n) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %m = phi float [ 0.0, %entry ], [ %m.next, %loop ]
  %p = getelementptr inbounds float, ptr %x, i32 %i
  %v = load float, ptr %p, align 4
  %a = call float @llvm.fabs.f32(float %v)
  %m.next = call float @llvm.maxnum.f32(float %m, float %a)
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  store float %m.next, ptr %out, align 4
  ret void
}

declare float @llvm.fabs.f32(float)
declare float @llvm.maxnum.f32(float, float)

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @dot, !"kernel", i32 1}
!1 = !{ptr @copy, !"kernel", i32 1}
!2 = !{ptr @running_max, !"kernel", i32 1}

; The slot base global the host fills in (out of range until it does).
; CHECK: @__kosan_prec_base = addrspace(1) externally_initialized global i32 -2147483648

; The original kernel is untouched; the clone carries the shadow.
; CHECK-LABEL: define void @dot(
; CHECK-NOT:     __kosan_prec
; CHECK:       ret void

; CHECK-LABEL: define ptx_kernel void @dot__kosan(
; CHECK:         %kosan.prec_base = load i32, ptr addrspace(1) @__kosan_prec_base
; The loop: a shadow phi next to the real one, the load seeded, fmul and
; fadd repeated in double.
; CHECK:       loop:
; CHECK:         %sum.shadow = phi double [ 0.000000e+00, %entry ], [ [[SUMS:%[0-9]+]], %{{.*}} ]
; Its root-cause tag rides along in a phi of its own (0: none yet).
; CHECK-NEXT:    %sum.cause = phi i32 [ 0, %entry ], [ [[CAUSE:%kosan.cause]], %{{.*}} ]
; CHECK:         %v = load float
; CHECK-NEXT:    [[VS:%[0-9]+]] = fpext float %v to double
; CHECK:         %m = fmul float %v, 5.000000e-01
; CHECK-NEXT:    [[MS:%[0-9]+]] = fmul double [[VS]], 5.000000e-01
; CHECK-NOT:     fabs.f32(float %m)
; CHECK-NOT:     fabs.f32(float %v)
; The multiply and the add stay in one block (no branch between them), so
; the backend fuses them into an fma exactly as in the plain kernel.
; CHECK-NOT:     br
; CHECK:         %sum.next = fadd float %sum, %m
; CHECK-NEXT:    [[SUMS]] = fadd double %sum.shadow, [[MS]]
; Its local error (Herbgrind): the f32 addition of the operands' shadows
; rounded to f32, against the exact sum; the multiply by 0.5 has none of
; its own and rounds nothing. The addition is done in f32 itself (not in
; fp64 and rounded: the same bits, one conversion less).
; CHECK-NEXT:    [[A:%[0-9]+]] = fptrunc double %sum.shadow to float
; CHECK-NEXT:    [[B:%[0-9]+]] = fptrunc double [[MS]] to float
; CHECK-NEXT:    [[ONRF:%[0-9]+]] = fadd float [[A]], [[B]]
; CHECK-NEXT:    [[ONRD:%[0-9]+]] = fpext float [[ONRF]] to double
; The actual error, and the local error; the addition introduced the error
; when eight times its local error reaches the actual one.
; CHECK-NEXT:    [[ACT:%[0-9]+]] = fpext float %sum.next to double
; CHECK-NEXT:    [[ED:%[0-9]+]] = fsub double [[ACT]], [[SUMS]]
; CHECK-NEXT:    [[E:%[0-9]+]] = call double @llvm.fabs.f64(double [[ED]])
; CHECK-NEXT:    [[LD:%[0-9]+]] = fsub double [[ONRD]], [[SUMS]]
; CHECK-NEXT:    [[L:%[0-9]+]] = call double @llvm.fabs.f64(double [[LD]])
; CHECK-NEXT:    [[NZ:%[0-9]+]] = fcmp one double [[L]], 0.000000e+00
; CHECK-NEXT:    [[L8:%[0-9]+]] = fmul double [[L]], 8.000000e+00
; CHECK-NEXT:    [[GE:%[0-9]+]] = fcmp oge double [[L8]], [[E]]
; CHECK-NEXT:    %kosan.introduced = and i1 [[GE]], [[NZ]]
; The cause code: exponent field of the local error less the result's,
; both masked (the local error's taken from the difference itself, so that
; its magnitude is only ever a modifier of the compares), + 2048, in
; [1, 4095] by construction (no clamp), above the operation's site id (0,
; its NaN/Inf site: the multiply by 0.5 has none, a finite value halved
; stays finite). The fields stay in place in the high words (bits 20-30,
; where the code goes): the key is their difference + (2048 << 20 | site).
; CHECK:         [[SB:%[0-9]+]] = bitcast double [[SUMS]] to i64
; CHECK-NEXT:    [[SX:%[0-9]+]] = lshr i64 [[SB]], 32
; CHECK-NEXT:    [[SH:%[0-9]+]] = trunc i64 [[SX]] to i32
; CHECK-NEXT:    [[SE:%[0-9]+]] = and i32 [[SH]], 2146435072
; CHECK-NEXT:    [[LB:%[0-9]+]] = bitcast double [[LD]] to i64
; CHECK-NEXT:    [[LX:%[0-9]+]] = lshr i64 [[LB]], 32
; CHECK-NEXT:    [[LH:%[0-9]+]] = trunc i64 [[LX]] to i32
; CHECK-NEXT:    [[LE:%[0-9]+]] = and i32 [[LH]], 2146435072
; CHECK-NEXT:    [[DIFF:%[0-9]+]] = sub i32 [[LE]], [[SE]]
; CHECK-NOT:     smax
; CHECK-NEXT:    %kosan.local = add i32 [[DIFF]], -2147483648
; CHECK-NEXT:    [[MAX:%[0-9]+]] = call i32 @llvm.umax.i32(i32 %kosan.local, i32 %sum.cause)
; CHECK-NEXT:    [[CAUSE]] = select i1 %kosan.introduced, i32 [[MAX]], i32 %sum.cause
; Inf/NaN born here? Each operation folds its test into the block's "first
; birth" values; one branch at the end of the block reports it. The
; addition's operands are tested (the product too: it was not).
; CHECK:         [[ABS:%[0-9]+]] = call float @llvm.fabs.f32(float %sum.next)
; CHECK-NEXT:    fcmp olt float [[ABS]], 0x7FF0000000000000
; CHECK:         call float @llvm.fabs.f32(float %m)
; The first birth's site is kept + 1 (0: none), which the branch tests.
; CHECK:         [[SITE:%[0-9]+]] = select i1 [[TAKE:%[0-9]+]], i32 1, i32 0
; The real result rides as the float it is (one register, no conversion
; per operation), widened only for the report.
; CHECK:         [[REAL:%[0-9]+]] = select i1 [[TAKE]], float %sum.next, float {{.*}}
; CHECK-NEXT:    [[SHADOW:%[0-9]+]] = select i1 [[TAKE]], double [[SUMS]], double {{.*}}
; CHECK:         %kosan.born = icmp ne i32 [[SITE]], 0
; CHECK-NEXT:    br i1 %kosan.born, label %{{[0-9]+}}, label %{{[0-9]+}}, !prof
; CHECK:         [[SITE0:%[0-9]+]] = sub i32 [[SITE]], 1
; CHECK-NEXT:    [[SLOT:%[0-9]+]] = add i32 %kosan.prec_base, [[SITE0]]
; CHECK-NEXT:    [[REALD:%[0-9]+]] = fpext float [[REAL]] to double
; CHECK-NEXT:    call void @__kosan_prec_nonfinite(i64 %kosan.state, i32 %kosan.launch_id, i32 [[SLOT]], double [[REALD]], double [[SHADOW]])
; CHECK:       exit:
; CHECK:         [[RS:%[0-9]+]] = select i1 %big, double {{%[0-9]+}}, double [[SUMS]]
; Selects select the tag too (a parameter's is 0).
; CHECK-NEXT:    [[RT:%[0-9]+]] = select i1 %big, i32 0, i32 [[CAUSE]]
; ex2.approx is shadowed by the exact fp64 exp2 of the runtime.
; CHECK:         %e = call float @llvm.nvvm.ex2.approx.f(float %r)
; CHECK-NEXT:    [[ES:%[0-9]+]] = call double @__kosan_shadow_exp2(double [[RS]])
; Its local error: the approximation itself on its operand's shadow rounded
; to f32 (rounded once: nothing else is computed of it).
; CHECK-NEXT:    [[RSF:%[0-9]+]] = fptrunc double [[RS]] to float
; CHECK-NEXT:    [[AGAIN:%[0-9]+]] = call float @llvm.nvvm.ex2.approx.f(float [[RSF]])
; CHECK:         %kosan.local{{[0-9]+}} = add i32 %{{[0-9]+}}, -2147483647
; CHECK:         [[ET:%kosan.cause[0-9]+]] = select i1 %kosan.introduced{{[0-9]+}}, i32 %{{[0-9]+}}, i32 [[RT]]
; The store: real value and shadow, f32 (dtype 2), and the root cause its
; tag names: the code, and the slot of the operation's site.
; CHECK:         %kosan.cause_code = lshr i32 [[ET]], 20
; CHECK-NEXT:    [[ID:%[0-9]+]] = and i32 [[ET]], 1048575
; CHECK-NEXT:    %kosan.cause_slot = add i32 %kosan.prec_base, [[ID]]
; CHECK:         call void @__kosan_prec_value(i64 %kosan.state, i32 %kosan.launch_id, i32 %{{[0-9]+}}, double %{{[0-9]+}}, double [[ES]], i32 2, i32 %kosan.cause_code, i32 %kosan.cause_slot)
; CHECK-NEXT:    store float %e
; The narrowing to f16 (dtype 3) logs input and output.
; CHECK:         %h = fptrunc float %r to half
; CHECK:         call void @__kosan_prec_narrow(i64 %kosan.state, i32 %kosan.launch_id, i32 %{{[0-9]+}}, double %{{[0-9]+}}, double %{{[0-9]+}}, i32 3)
; The f16 store keeps the f32 shadow: its error includes the rounding.
; Its tag is the narrowing's when the rounding introduced the error.
; CHECK:         call void @__kosan_prec_value({{.*}}, double [[RS]], i32 3, i32 %kosan.cause_code{{[0-9]+}}, i32 %kosan.cause_slot{{[0-9]+}})
; CHECK-NEXT:    store half %h
; CHECK:         call void @__kosan_prec_value({{.*}}, double [[RS]], i32 2, i32 %kosan.cause_code{{[0-9]+}}, i32 %kosan.cause_slot{{[0-9]+}})
; CHECK-NEXT:    atomicrmw fadd ptr {{.*}}, float %r

; CHECK-LABEL: define ptx_kernel void @copy__kosan(
; CHECK-NOT:     fpext
; CHECK-NOT:     __kosan_prec_value
; CHECK:         ret void

; CHECK-LABEL: define ptx_kernel void @running_max__kosan(
; CHECK:         call double @llvm.fabs.f64(
; CHECK:         call double @llvm.maxnum.f64(
; CHECK-NOT:     __kosan_prec_nonfinite
; CHECK:         call void @__kosan_prec_value(
; CHECK-NOT:     __kosan_prec_nonfinite
; CHECK:         ret void

; REMARK: remark: <unknown>:0:0: kernel 'dot': 3 operations shadowed in fp64 (0 half/bf16 inline-asm operations), 3 stores and atomics and 1 narrowing conversions recorded, 2 shadows seeded from loads, parameters or calls
; REMARK: remark: <unknown>:0:0: kernel 'copy': 0 operations shadowed in fp64 (0 half/bf16 inline-asm operations), 0 stores and atomics and 0 narrowing conversions recorded, 0 shadows seeded from loads, parameters or calls, 1 stores of copied values left out (exact)

; OOB-NOT: __kosan_prec
; OOB-NOT: shadow
