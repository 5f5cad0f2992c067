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

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @dot, !"kernel", i32 1}
!1 = !{ptr @copy, !"kernel", i32 1}

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
; CHECK:         %v = load float
; CHECK-NEXT:    [[VS:%[0-9]+]] = fpext float %v to double
; CHECK:         %m = fmul float %v, 5.000000e-01
; CHECK-NEXT:    [[MS:%[0-9]+]] = fmul double [[VS]], 5.000000e-01
; The multiply and the add stay in one block (no branch between them), so
; the backend fuses them into an fma exactly as in the plain kernel.
; CHECK-NOT:     br
; CHECK:         %sum.next = fadd float %sum, %m
; CHECK-NEXT:    [[SUMS]] = fadd double %sum.shadow, [[MS]]
; Inf/NaN born here? Each operation folds its test into the block's "first
; birth" values; one branch at the end of the block reports it.
; CHECK:         [[ABS:%[0-9]+]] = call float @llvm.fabs.f32(float %sum.next)
; CHECK-NEXT:    fcmp olt float [[ABS]], 0x7FF0000000000000
; CHECK:         [[SITE:%[0-9]+]] = select i1 [[TAKE:%[0-9]+]], i32 1, i32 %{{[0-9]+}}
; CHECK:         [[REAL:%[0-9]+]] = select i1 [[TAKE]], double %{{[0-9]+}}, double %{{[0-9]+}}
; CHECK-NEXT:    [[SHADOW:%[0-9]+]] = select i1 [[TAKE]], double [[SUMS]], double %{{[0-9]+}}
; CHECK-NEXT:    [[ANY:%[0-9]+]] = or i1
; CHECK:         br i1 [[ANY]], label %{{[0-9]+}}, label %{{[0-9]+}}, !prof
; CHECK:         [[SLOT:%[0-9]+]] = add i32 %kosan.prec_base, [[SITE]]
; CHECK-NEXT:    call void @__kosan_prec_nonfinite(i64 %kosan.state, i32 %kosan.launch_id, i32 [[SLOT]], double [[REAL]], double [[SHADOW]])
; CHECK:       exit:
; CHECK:         [[RS:%[0-9]+]] = select i1 %big, double {{%[0-9]+}}, double [[SUMS]]
; ex2.approx is shadowed by the exact fp64 exp2 of the runtime.
; CHECK:         %e = call float @llvm.nvvm.ex2.approx.f(float %r)
; CHECK-NEXT:    [[ES:%[0-9]+]] = call double @__kosan_shadow_exp2(double [[RS]])
; The store: real value and shadow, f32 (dtype 2).
; CHECK:         call void @__kosan_prec_value(i64 %kosan.state, i32 %kosan.launch_id, i32 %{{[0-9]+}}, double %{{[0-9]+}}, double [[ES]], i32 2)
; CHECK-NEXT:    store float %e
; The narrowing to f16 (dtype 3) logs input and output.
; CHECK:         %h = fptrunc float %r to half
; CHECK:         call void @__kosan_prec_narrow(i64 %kosan.state, i32 %kosan.launch_id, i32 %{{[0-9]+}}, double %{{[0-9]+}}, double %{{[0-9]+}}, i32 3)
; The f16 store keeps the f32 shadow: its error includes the rounding.
; CHECK:         call void @__kosan_prec_value({{.*}}, double [[RS]], i32 3)
; CHECK-NEXT:    store half %h
; CHECK:         call void @__kosan_prec_value({{.*}}, double [[RS]], i32 2)
; CHECK-NEXT:    atomicrmw fadd ptr {{.*}}, float %r

; CHECK-LABEL: define ptx_kernel void @copy__kosan(
; CHECK-NOT:     fpext
; CHECK-NOT:     __kosan_prec_value
; CHECK:         ret void

; REMARK: remark: <unknown>:0:0: kernel 'dot': 3 operations shadowed in fp64 (0 half/bf16 inline-asm operations), 3 stores and atomics and 1 narrowing conversions recorded, 2 shadows seeded from loads, parameters or calls
; REMARK: remark: <unknown>:0:0: kernel 'copy': 0 operations shadowed in fp64 (0 half/bf16 inline-asm operations), 0 stores and atomics and 0 narrowing conversions recorded, 0 shadows seeded from loads, parameters or calls, 1 stores of copied values left out (exact)

; OOB-NOT: __kosan_prec
; OOB-NOT: shadow
