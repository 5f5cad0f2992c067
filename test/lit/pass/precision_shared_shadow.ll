; checks=precision: a static __shared__ array that a computed value is
; stored to gets a shadow array in shared memory, one {double shadow, i32
; cause tag, i32 copy of the value's bits} per element (and one more that
; out-of-range indices land on). Its stores write the value's shadow, cause
; and bits there; its loads read them back and keep the shadow where the
; copy still matches the value read (else the shadow starts from the value,
; as without one). An array that only receives copies of loaded values gets
; none. A narrowing stored to a shadowed array is not marked as going to
; shared memory: its rounding is followed to where it is stored to global
; memory.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -pass-remarks=kosan-precision -disable-output < %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARK

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [32 x half] undef, align 2
@stage = internal addrspace(3) global [32 x float] undef, align 4
@sum = internal addrspace(3) global [64 x float] undef, align 4

; An fp32 value narrowed into an fp16 tile, read back by another thread,
; widened, added to and stored.
define void @through_shared(ptr %x, ptr %out, i32 %i, i32 %j) {
  %v = load float, ptr %x, align 4
  %m = fmul float %v, 3.0
  %h = fptrunc float %m to half
  %p = getelementptr inbounds [32 x half], ptr addrspace(3) @tile, i32 0, i32 %i
  store half %h, ptr addrspace(3) %p, align 2
  call void @llvm.nvvm.barrier0()
  %q = getelementptr inbounds [32 x half], ptr addrspace(3) @tile, i32 0, i32 %j
  %r = load half, ptr addrspace(3) %q, align 2
  %w = fpext half %r to float
  %s = fadd float %w, 1.0
  store float %s, ptr %out, align 4
  ret void
}

; Staging: values loaded from global memory (or zero, past the end) are
; copied to @stage as they are (or the larger of them and a constant), and
; come back as exact as they went in: no shadow for @stage.
define void @staging(ptr %x, ptr %out, i32 %i, i1 %inside) {
  %v = load float, ptr %x, align 4
  %p = getelementptr inbounds [32 x float], ptr addrspace(3) @stage, i32 0, i32 %i
  %z = select i1 %inside, float %v, float 0.0
  %big = call float @llvm.maxnum.f32(float %z, float -1.0)
  store float %big, ptr addrspace(3) %p, align 4
  call void @llvm.nvvm.barrier0()
  %r = load float, ptr addrspace(3) %p, align 4
  %s = fmul float %r, 2.0
  store float %s, ptr %out, align 4
  ret void
}

; A reduction step through a generic pointer into @sum.
define void @generic(ptr %out, i32 %i) {
  %g = addrspacecast ptr addrspace(3) @sum to ptr
  %p = getelementptr inbounds float, ptr %g, i32 %i
  %a = load float, ptr %p, align 4
  %q = getelementptr inbounds float, ptr %p, i32 32
  %b = load float, ptr %q, align 4
  %c = fadd float %a, %b
  store float %c, ptr %p, align 4
  ret void
}

declare void @llvm.nvvm.barrier0()
declare float @llvm.maxnum.f32(float, float)

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @through_shared, !"kernel", i32 1}
!1 = !{ptr @staging, !"kernel", i32 1}
!2 = !{ptr @generic, !"kernel", i32 1}

; Shadows for @tile (f16: 32 elements and the one for stray indices) and
; @sum (f32), none for @stage.
; CHECK-NOT:   @stage.kosan_prec
; CHECK:       @tile.kosan_prec = internal addrspace(3) global [33 x { double, i32, i32 }] undef, align 16
; CHECK-NEXT:  @sum.kosan_prec = internal addrspace(3) global [65 x { double, i32, i32 }] undef, align 16
; CHECK-NOT:   @stage.kosan_prec
; The narrowing is a plain one (arg_index 2: from f32), not marked as going
; to shared memory (0x102): its site record, access 7 (narrow), size 3 (f16).
; CHECK:       @__kosan_site_table = {{.*}}\07\00\00\00\00\00\00\00\03\00\00\00{{(\\[0-9A-F][0-9A-F]|.)}}\00\00\00\02\00\00\00

; CHECK-LABEL: define ptx_kernel void @through_shared__kosan(
; CHECK:         %m = fmul float %v, 3.000000e+00
; CHECK-NEXT:    [[MS:%[0-9]+]] = fmul double %{{[0-9]+}}, 3.000000e+00
; CHECK:         %h = fptrunc float %m to half
; CHECK:         %kosan.cause = select i1 %kosan.introduced
; The store writes the element's shadow (the unrounded product), the
; narrowing's cause and the value's bits, at the element's index (clamped
; to the extra element), before the program's store.
; CHECK:         %p = getelementptr inbounds [32 x half], ptr addrspace(3) @tile, i32 0, i32 %i
; CHECK-NEXT:    [[PI:%[0-9]+]] = ptrtoint ptr addrspace(3) %p to i64
; CHECK-NEXT:    [[OFF:%[0-9]+]] = sub i64 [[PI]], ptrtoint (ptr addrspace(3) @tile to i64)
; CHECK-NEXT:    [[OFF32:%[0-9]+]] = trunc i64 [[OFF]] to i32
; CHECK-NEXT:    [[IDX:%[0-9]+]] = lshr i32 [[OFF32]], 1
; CHECK-NEXT:    %kosan.shared_index = call i32 @llvm.umin.i32(i32 [[IDX]], i32 32)
; CHECK-NEXT:    [[HB:%[0-9]+]] = bitcast half %h to i16
; CHECK-NEXT:    [[HBITS:%[0-9]+]] = zext i16 [[HB]] to i32
; CHECK-NEXT:    [[S0:%[0-9]+]] = getelementptr inbounds [33 x { double, i32, i32 }], ptr addrspace(3) @tile.kosan_prec, i32 0, i32 %kosan.shared_index, i32 0
; CHECK-NEXT:    store double [[MS]], ptr addrspace(3) [[S0]], align 8, !nosanitize
; CHECK-NEXT:    [[S1:%[0-9]+]] = getelementptr inbounds [33 x { double, i32, i32 }], ptr addrspace(3) @tile.kosan_prec, i32 0, i32 %kosan.shared_index, i32 1
; CHECK-NEXT:    store i32 %kosan.cause, ptr addrspace(3) [[S1]], align 4, !nosanitize
; CHECK-NEXT:    [[S2:%[0-9]+]] = getelementptr inbounds [33 x { double, i32, i32 }], ptr addrspace(3) @tile.kosan_prec, i32 0, i32 %kosan.shared_index, i32 2
; CHECK-NEXT:    store i32 [[HBITS]], ptr addrspace(3) [[S2]], align 4, !nosanitize
; CHECK-NEXT:    store half %h, ptr addrspace(3) %p, align 2
; The load reads them back; the shadow and cause hold where the bits match.
; CHECK:         %r = load half, ptr addrspace(3) %q, align 2
; CHECK:         %kosan.shared_index1 = call i32 @llvm.umin.i32(i32 %{{[0-9]+}}, i32 32)
; CHECK-NEXT:    [[L0:%[0-9]+]] = getelementptr inbounds [33 x { double, i32, i32 }], ptr addrspace(3) @tile.kosan_prec, i32 0, i32 %kosan.shared_index1, i32 0
; CHECK-NEXT:    [[SH:%[0-9]+]] = load double, ptr addrspace(3) [[L0]], align 8, !nosanitize
; CHECK-NEXT:    [[L1:%[0-9]+]] = getelementptr inbounds {{.*}} @tile.kosan_prec, i32 0, i32 %kosan.shared_index1, i32 1
; CHECK-NEXT:    [[TAG:%[0-9]+]] = load i32, ptr addrspace(3) [[L1]], align 4, !nosanitize
; CHECK-NEXT:    [[L2:%[0-9]+]] = getelementptr inbounds {{.*}} @tile.kosan_prec, i32 0, i32 %kosan.shared_index1, i32 2
; CHECK-NEXT:    [[COPY:%[0-9]+]] = load i32, ptr addrspace(3) [[L2]], align 4, !nosanitize
; CHECK-NEXT:    [[RB:%[0-9]+]] = bitcast half %r to i16
; CHECK-NEXT:    [[RBITS:%[0-9]+]] = zext i16 [[RB]] to i32
; CHECK-NEXT:    %kosan.shadow_valid = icmp eq i32 [[COPY]], [[RBITS]]
; CHECK-NEXT:    [[SEED:%[0-9]+]] = fpext half %r to double
; CHECK-NEXT:    %kosan.shared_shadow = select i1 %kosan.shadow_valid, double [[SH]], double [[SEED]]
; CHECK-NEXT:    %kosan.shared_cause = select i1 %kosan.shadow_valid, i32 [[TAG]], i32 0
; The sum is computed on that shadow, inherits that cause, and is recorded
; at its store to global memory.
; CHECK:         %s = fadd float %w, 1.000000e+00
; CHECK-NEXT:    [[SS:%[0-9]+]] = fadd double %kosan.shared_shadow, 1.000000e+00
; CHECK:         %kosan.cause4 = select i1 %kosan.introduced2, i32 %{{[0-9]+}}, i32 %kosan.shared_cause
; CHECK:         call void @__kosan_prec_value({{.*}}, double [[SS]], i32 2, i32 %kosan.cause_code, i32 %kosan.cause_slot)
; CHECK-NEXT:    store float %s, ptr %out, align 4

; Staging: the program's store and load alone.
; CHECK-LABEL: define ptx_kernel void @staging__kosan(
; CHECK:         store float %big, ptr addrspace(3) %p, align 4
; CHECK-NEXT:    call void @llvm.nvvm.barrier0()
; CHECK-NEXT:    %r = load float, ptr addrspace(3) %p, align 4
; CHECK-NEXT:    fpext float %r to double

; Through a generic pointer: offsets from @sum's generic address; the f32's
; bits need no widening.
; CHECK-LABEL: define ptx_kernel void @generic__kosan(
; CHECK:         %a = load float, ptr %p, align 4
; CHECK-NEXT:    [[GP:%[0-9]+]] = ptrtoint ptr %p to i64
; CHECK-NEXT:    sub i64 [[GP]], ptrtoint (ptr addrspacecast (ptr addrspace(3) @sum to ptr) to i64)
; CHECK:         %kosan.shadow_valid = icmp eq i32 %{{[0-9]+}}, %{{[0-9]+}}
; CHECK:         %c = fadd float %a, %b
; CHECK-NEXT:    [[CS:%[0-9]+]] = fadd double %kosan.shared_shadow, %kosan.shared_shadow3
; CHECK:         store double [[CS]], ptr addrspace(3) %{{[0-9]+}}, align 8, !nosanitize
; CHECK:         store float %c, ptr %p, align 4

; REMARK: kernel 'through_shared': {{.*}}, 1 shared-memory stores and 1 loads carrying shadows
; REMARK: kernel 'staging': {{.*}} seeded from loads, parameters or calls{{$}}
; REMARK: kernel 'generic': {{.*}}, 1 shared-memory stores and 2 loads carrying shadows
