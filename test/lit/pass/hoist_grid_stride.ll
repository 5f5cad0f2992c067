; A loop stepped by a loop-invariant amount that is not a constant (a
; grid-stride loop: for (i = start; i < n; i += blockDim.x * gridDim.x)) has
; no trip count ScalarEvolution can bound, but its own test bounds its
; induction variable: every value i takes is start or one that passed
; i < n. When the step is positive and max(start, n - 1) + step does not
; wrap, i stays in [start, max(start, n - 1)], and an access at
; base + scale * ext(i) in [address(start), address(high)]. The loop's
; preheader tests exactly that (kosan.iv.high, kosan.iv.wraps, the step's
; sign, the range against the argument's bounds); a thread whose test fails
; takes the checked copies, as for a constant stride (hoist.ll).
;
; Stay checked in every iteration: a step read in the loop (data-dependent),
; a loop whose test is on i before the step (i < n, then i += s: the next i
; is not bounded), a descending loop (i >= 0; i -= s), an unsigned loop
; whose index is sign-extended, a 64-bit induction variable, and a loop
; that leaves through a test in its header (its latch goes round always).
; A zero or negative step at run time fails the preheader's test.

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-version-loops=0 -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -pass-remarks=kosan-oob -S < %s 2>%t.remarks \
; RUN:   | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; With uninit=1 the loop's test fails for launches with the uninit flag:
; the hoisted loads need no branch on it, their checked copies test the fill.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-version-loops=0 -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=1 -kosan-debug-func=saxpy -S < %s \
; RUN:   | FileCheck %s --check-prefix=UNINIT
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-version-loops=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -kosan-debug-func=saxpy -S < %s \
; RUN:   | FileCheck %s --check-prefix=ALIGN

; REMARK: kernel 'saxpy': 3 accesses checked {{.*}} by 1 checks, 0 of them in 0 groups at constant distances, 3 hoisted out of 1 loops, 0 checked one by one,
; REMARK: kernel 'unsigned_zext': 1 accesses checked {{.*}} 1 hoisted out of 1 loops, 0 checked one by one,
; REMARK: kernel 'signed_zext': 1 accesses checked {{.*}} 1 hoisted out of 1 loops, 0 checked one by one,
; REMARK: kernel 'row_offset': 2 accesses checked {{.*}} 1 hoisted out of 1 loops, 1 checked one by one,
; REMARK: kernel 'early_exit': 2 accesses checked {{.*}} 2 hoisted out of 1 loops, 0 checked one by one,
; REMARK: kernel 'loaded_step': 2 accesses checked {{.*}} 0 hoisted out of 0 loops, 2 checked one by one,
; REMARK: kernel 'test_before_step': 1 accesses checked {{.*}} 0 hoisted out of 0 loops, 1 checked one by one,
; REMARK: kernel 'descending': 1 accesses checked {{.*}} 0 hoisted out of 0 loops, 1 checked one by one,
; REMARK: kernel 'unsigned_sext': 1 accesses checked {{.*}} 0 hoisted out of 0 loops, 1 checked one by one,
; REMARK: kernel 'wide_iv': 1 accesses checked {{.*}} 0 hoisted out of 0 loops, 1 checked one by one,
; REMARK: kernel 'header_exit': 1 accesses checked {{.*}} 0 hoisted out of 0 loops, 1 checked one by one,
; REMARK: kernel 'barrier_between': 2 accesses checked {{.*}} 2 hoisted out of 1 loops, 0 checked one by one,
; REMARK: kernel 'gather': 3 accesses checked {{.*}} 2 hoisted out of 1 loops, 1 checked one by one,
; REMARK: kernel 'tile_row': 1 accesses checked {{.*}} 1 hoisted out of 1 loops, 0 checked one by one,
; REMARK: kernel 'strided_row': 1 accesses checked {{.*}} 1 hoisted out of 1 loops, 0 checked one by one,
; REMARK: kernel 'loaded_offset': 1 accesses checked {{.*}} 0 hoisted out of 0 loops, 1 checked one by one,

; saxpy: high = smax(start, n - 1); high + stride must not wrap, the stride
; must be positive; x[start..high] and y[start..high] in their arguments
; (y's load and store share one test).
; CHECK-LABEL: define ptx_kernel void @saxpy__kosan(
; CHECK:       preheader:
; CHECK:         %stride = mul i32 %g, %d
; CHECK-NEXT:    [[LAST:%.*]] = sub i32 %n, 1
; CHECK-NEXT:    %kosan.iv.high = call i32 @llvm.smax.i32(i32 %start, i32 [[LAST]])
; CHECK-NEXT:    [[OV:%.*]] = call { i32, i1 } @llvm.sadd.with.overflow.i32(i32 %kosan.iv.high, i32 %stride)
; CHECK-NEXT:    %kosan.iv.wraps = extractvalue { i32, i1 } [[OV]], 1
; CHECK-NEXT:    [[FWD:%.*]] = icmp sgt i32 %stride, 0
; CHECK-NEXT:    [[BASE:%.*]] = ptrtoint ptr %x to i64
; CHECK-NEXT:    [[S:%.*]] = sext i32 %start to i64
; CHECK-NEXT:    [[SB:%.*]] = mul i64 [[S]], 4
; CHECK-NEXT:    %kosan.hoist.first = add i64 [[BASE]], [[SB]]
; CHECK-NEXT:    [[H:%.*]] = sext i32 %kosan.iv.high to i64
; CHECK-NEXT:    [[HB:%.*]] = mul i64 [[H]], 4
; CHECK-NEXT:    %kosan.hoist.last = add i64 [[BASE]], [[HB]]
; CHECK-NEXT:    [[END:%.*]] = add i64 %kosan.hoist.last, 4
; CHECK-NEXT:    [[NOWRAP:%.*]] = xor i1 %kosan.iv.wraps, true
; CHECK-NEXT:    [[ORDER:%.*]] = icmp ule i64 %kosan.hoist.first, %kosan.hoist.last
; CHECK-NEXT:    [[ENDOK:%.*]] = icmp ult i64 %kosan.hoist.last, [[END]]
; CHECK-NEXT:    [[LO:%.*]] = icmp uge i64 %kosan.hoist.first, %kosan.arg1.begin
; CHECK-NEXT:    [[HI:%.*]] = icmp ule i64 [[END]], %kosan.arg1.end
; CHECK-NEXT:    [[FLAT:%.*]] = icmp eq i64 %kosan.arg1.pitch, 0
; CHECK:         %kosan.hoist.ok = and i1
; CHECK:         ptrtoint ptr %y to i64
; CHECK:         icmp uge i64 %kosan.hoist.first{{[0-9]+}}, %kosan.arg0.begin
; CHECK:         %kosan.loop.ok = and i1 %kosan.hoist.ok, %kosan.hoist.ok{{[0-9]+}}
; CHECK-NEXT:    br label %loop
; CHECK:       loop:
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted
; One branch for the loop's three accesses: the stretch as it was, or its
; copy with each access checked.
; CHECK:       kosan.hoisted:
; CHECK-NEXT:    %vx = load float, ptr %px, align 4
; CHECK-NEXT:    %py = getelementptr inbounds float, ptr %y, i64 %i64
; CHECK-NEXT:    %vy = load float, ptr %py, align 4
; CHECK-NEXT:    %r = call float @llvm.fma.f32(float %a, float %vx, float %vy)
; CHECK-NEXT:    store float %r, ptr %py, align 4
; CHECK-NEXT:    br label
; CHECK:       kosan.unhoisted:
; CHECK:         %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %px
; CHECK:         select i1 %kosan.bad{{[0-9]+}}, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %py
; CHECK:         select i1 %kosan.bad{{[0-9]+}}, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %py
; CHECK-NOT:     br i1 %kosan.loop.ok
; CHECK:       exit:

; unsigned_zext: umax, uadd.with.overflow, a step that is not zero.
; CHECK-LABEL: define ptx_kernel void @unsigned_zext__kosan(
; CHECK:         %kosan.iv.high = call i32 @llvm.umax.i32(i32 %start, i32 {{%.*}})
; CHECK-NEXT:    call { i32, i1 } @llvm.uadd.with.overflow.i32(i32 %kosan.iv.high, i32 %s)
; CHECK-NEXT:    %kosan.iv.wraps = extractvalue
; CHECK-NEXT:    icmp ne i32 %s, 0
; CHECK:         zext i32 %start to i64
; CHECK:         zext i32 %kosan.iv.high to i64
; CHECK:         %kosan.loop.ok = and i1

; signed_zext: a signed loop, a zero-extended index: start >= 0 as well.
; CHECK-LABEL: define ptx_kernel void @signed_zext__kosan(
; CHECK:         %kosan.iv.high = call i32 @llvm.smax.i32
; CHECK:         zext i32 %start to i64
; CHECK:         [[NONNEG:%.*]] = icmp sge i32 %start, 0
; CHECK:         %kosan.loop.ok = and i1 {{.*}}[[NONNEG]]

; row_offset: the loop-invariant part of the address (row * cols) is part
; of the base.
; CHECK-LABEL: define ptx_kernel void @row_offset__kosan(
; CHECK:         [[B:%.*]] = ptrtoint ptr %in to i64
; CHECK-NEXT:    [[OFF:%.*]] = mul i64 %rowoff, 4
; CHECK-NEXT:    add i64 [[B]], [[OFF]]

; loaded_step: the step is read in the loop: no test before it.
; CHECK-LABEL: define ptx_kernel void @loaded_step__kosan(
; CHECK-NOT:     kosan.iv.high
; CHECK-NOT:     kosan.loop.ok
; CHECK:       exit:

; CHECK-LABEL: define ptx_kernel void @test_before_step__kosan(
; CHECK-NOT:     kosan.loop.ok
; CHECK:       exit:
; CHECK-LABEL: define ptx_kernel void @descending__kosan(
; CHECK-NOT:     kosan.loop.ok
; CHECK:       exit:
; CHECK-LABEL: define ptx_kernel void @unsigned_sext__kosan(
; CHECK-NOT:     kosan.loop.ok
; CHECK:       exit:
; CHECK-LABEL: define ptx_kernel void @wide_iv__kosan(
; CHECK-NOT:     kosan.loop.ok
; CHECK:       exit:
; CHECK-LABEL: define ptx_kernel void @header_exit__kosan(
; CHECK-NOT:     kosan.loop.ok
; CHECK:       exit:

; A stretch never takes a barrier into its two versions (threads whose
; tests differ would wait at different barriers): a branch on each side.
; CHECK-LABEL: define ptx_kernel void @barrier_between__kosan(
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted
; CHECK:         call void @llvm.nvvm.barrier0()
; CHECK-NOT:     call void @llvm.nvvm.barrier0()
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted{{[0-9]+}}, label %kosan.unhoisted
; CHECK:       exit:

; Nor an access checked in place (x[idx[i]]): it would have an unchecked
; copy. idx[i] and y[i] get a branch each, x[idx[i]] its check, once.
; CHECK-LABEL: define ptx_kernel void @gather__kosan(
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted, label %kosan.unhoisted
; CHECK:         %j.kosan = phi i32
; CHECK:         %px = getelementptr inbounds float, ptr %x, i64 %j64
; CHECK-NEXT:    %kosan.addr{{[0-9]*}} = ptrtoint ptr %px to i64
; CHECK:         select i1 %kosan.bad{{[0-9]*}}, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %px
; CHECK-NOT:     ptr %px
; CHECK:         br i1 %kosan.loop.ok, label %kosan.hoisted{{[0-9]+}}, label %kosan.unhoisted
; CHECK:       exit:

; tile_row: a[zext(c + t)], t from 0 by 32 while t < n (matmul's
; a[row * n + t + tx]). The range ends at the last t the loop takes,
; top = start + step * ((high - start) / step) (a step the test rejects
; divides by one), not at n - 1: c carries it past the bound. c + top must
; not wrap (zero-extended: the top end only; start >= 0 keeps the rest).
; CHECK-LABEL: define ptx_kernel void @tile_row__kosan(
; CHECK:         %kosan.iv.high = call i32 @llvm.smax.i32(i32 0, i32 {{%.*}})
; CHECK:         [[SPAN:%.*]] = sub i32 %kosan.iv.high, 0
; CHECK-NEXT:    [[TRIPS:%.*]] = udiv i32 [[SPAN]], 32
; CHECK-NEXT:    [[STEPS:%.*]] = mul i32 [[TRIPS]], 32
; CHECK-NEXT:    %kosan.iv.top = add i32 0, [[STEPS]]
; CHECK-NEXT:    [[OV:%.*]] = call { i32, i1 } @llvm.uadd.with.overflow.i32(i32 %kosan.iv.top, i32 %c)
; CHECK-NEXT:    [[WRAP:%.*]] = extractvalue { i32, i1 } [[OV]], 1
; CHECK-NEXT:    [[FIRSTI:%.*]] = add i32 0, %c
; CHECK-NEXT:    [[LASTI:%.*]] = add i32 %kosan.iv.top, %c
; CHECK:         zext i32 [[FIRSTI]] to i64
; CHECK:         zext i32 [[LASTI]] to i64
; CHECK:         [[NOWRAP:%.*]] = xor i1 [[WRAP]], true
; CHECK:         %kosan.loop.ok = and i1 {{%.*}}, [[NOWRAP]]

; strided_row: a[c + t] as an i32 GEP index (sign-extended), t from lane
; by s: the division by s when s > 0 (else by 1), and c + t must wrap at
; neither end.
; CHECK-LABEL: define ptx_kernel void @strided_row__kosan(
; CHECK:         [[FWD:%.*]] = icmp sgt i32 %s, 0
; CHECK-NEXT:    [[DIV:%.*]] = select i1 [[FWD]], i32 %s, i32 1
; CHECK-NEXT:    [[SPAN:%.*]] = sub i32 %kosan.iv.high, %lane
; CHECK-NEXT:    [[TRIPS:%.*]] = udiv i32 [[SPAN]], [[DIV]]
; CHECK-NEXT:    [[STEPS:%.*]] = mul i32 [[TRIPS]], %s
; CHECK-NEXT:    %kosan.iv.top = add i32 %lane, [[STEPS]]
; CHECK-NEXT:    call { i32, i1 } @llvm.sadd.with.overflow.i32(i32 %kosan.iv.top, i32 %c)
; CHECK-NEXT:    extractvalue
; CHECK-NEXT:    call { i32, i1 } @llvm.sadd.with.overflow.i32(i32 %lane, i32 %c)
; CHECK:         sext i32 {{%.*}} to i64
; CHECK:         %kosan.loop.ok = and i1

; loaded_offset: the offset is read in the loop: checked in every iteration.
; CHECK-LABEL: define ptx_kernel void @loaded_offset__kosan(
; CHECK-NOT:     kosan.loop.ok
; CHECK:       exit:

; UNINIT-LABEL: define ptx_kernel void @saxpy__kosan(
; UNINIT:         %kosan.uninit.on = icmp ne i32
; UNINIT:       preheader:
; UNINIT:         %kosan.uninit.off = xor i1 %kosan.uninit.on, true
; UNINIT:         %kosan.loop.ok = and i1 {{.*}}, %kosan.uninit.off
; UNINIT:       kosan.hoisted:
; UNINIT-NEXT:    %vx = load float, ptr %px, align 4
; UNINIT-NEXT:    %py = getelementptr inbounds float, ptr %y, i64 %i64
; UNINIT-NEXT:    %vy = load float, ptr %py, align 4
; UNINIT-NEXT:    %r = call float @llvm.fma.f32(float %a, float %vx, float %vy)
; UNINIT-NEXT:    store float %r, ptr %py, align 4
; UNINIT-NEXT:    br label
; UNINIT:       kosan.unhoisted:
; UNINIT:         br i1 %kosan.uninit.on, label %kosan.uninit.test
; UNINIT:       exit:

; ALIGN-LABEL: define ptx_kernel void @saxpy__kosan(
; ALIGN:         %kosan.hoist.first = add i64
; ALIGN:         [[LOW:%.*]] = and i64 %kosan.hoist.first, 3
; ALIGN-NEXT:    [[ALIGNED:%.*]] = icmp eq i64 [[LOW]], 0
; ALIGN:         %kosan.hoist.ok = and i1 {{.*}}, [[ALIGNED]]

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare float @llvm.fma.f32(float, float, float)

; for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
;   y[i] = a * x[i] + y[i];
define void @saxpy(ptr %y, ptr %x, float %a, i32 %n) {
entry:
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %d = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bd = mul i32 %b, %d
  %start = add i32 %bd, %t
  %guard = icmp slt i32 %start, %n
  br i1 %guard, label %preheader, label %exit
preheader:
  %g = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %stride = mul i32 %g, %d
  br label %loop
loop:
  %i = phi i32 [ %start, %preheader ], [ %i.next, %loop ]
  %i64 = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr %x, i64 %i64
  %vx = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i64
  %vy = load float, ptr %py, align 4
  %r = call float @llvm.fma.f32(float %a, float %vx, float %vy)
  store float %r, ptr %py, align 4
  %i.next = add i32 %i, %stride
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; for (unsigned i = start; i < n; i += s) a[i] = 0;
define void @unsigned_zext(ptr %a, i32 %start, i32 %n, i32 %s) {
entry:
  %guard = icmp ult i32 %start, %n
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %i = phi i32 [ %start, %preheader ], [ %i.next, %loop ]
  %i64 = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %a, i64 %i64
  store float 0.0, ptr %p, align 4
  %i.next = add i32 %i, %s
  %c = icmp ult i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; for (int i = start; i < n; i += s) a[(unsigned)i] = 0;
define void @signed_zext(ptr %a, i32 %start, i32 %n, i32 %s) {
entry:
  %guard = icmp slt i32 %start, %n
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %i = phi i32 [ %start, %preheader ], [ %i.next, %loop ]
  %i64 = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %a, i64 %i64
  store float 0.0, ptr %p, align 4
  %i.next = add i32 %i, %s
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; const float *r = in + rowoff; for (int c = lane; c < cols; c += s) sum += r[c];
define void @row_offset(ptr %out, ptr %in, i64 %rowoff, i32 %lane, i32 %cols, i32 %s) {
entry:
  %r = getelementptr inbounds float, ptr %in, i64 %rowoff
  %guard = icmp slt i32 %lane, %cols
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %c = phi i32 [ %lane, %preheader ], [ %c.next, %loop ]
  %acc = phi float [ 0.0, %preheader ], [ %acc.next, %loop ]
  %c64 = sext i32 %c to i64
  %p = getelementptr inbounds float, ptr %r, i64 %c64
  %v = load float, ptr %p, align 4
  %acc.next = fadd float %acc, %v
  %c.next = add i32 %c, %s
  %more = icmp slt i32 %c.next, %cols
  br i1 %more, label %loop, label %done
done:
  store float %acc.next, ptr %out, align 4
  br label %exit
exit:
  ret void
}

; for (i = start; i < n; i += s) { if (a[i] < 0) break; b[i] = a[i]; }
; An early exit only leaves out trips: still hoisted.
define void @early_exit(ptr %b, ptr %a, i32 %start, i32 %n, i32 %s) {
entry:
  br label %preheader
preheader:
  br label %loop
loop:
  %i = phi i32 [ %start, %preheader ], [ %i.next, %latch ]
  %i64 = sext i32 %i to i64
  %pa = getelementptr inbounds float, ptr %a, i64 %i64
  %v = load float, ptr %pa, align 4
  %neg = fcmp olt float %v, 0.0
  br i1 %neg, label %exit, label %latch
latch:
  %pb = getelementptr inbounds float, ptr %b, i64 %i64
  store float %v, ptr %pb, align 4
  %i.next = add i32 %i, %s
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; for (i = start; i < n; i += step[i]) a[i] = 0;  -- the step is data.
define void @loaded_step(ptr %a, ptr %step, i32 %start, i32 %n) {
entry:
  br label %preheader
preheader:
  br label %loop
loop:
  %i = phi i32 [ %start, %preheader ], [ %i.next, %loop ]
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %a, i64 %i64
  store float 0.0, ptr %p, align 4
  %ps = getelementptr inbounds i32, ptr %step, i64 %i64
  %s = load i32, ptr %ps, align 4
  %i.next = add i32 %i, %s
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; do { a[i] = 0; c = i < n; i += s; } while (c);  -- the test is on i, the
; next i is one step past it.
define void @test_before_step(ptr %a, i32 %start, i32 %n, i32 %s) {
entry:
  br label %preheader
preheader:
  br label %loop
loop:
  %i = phi i32 [ %start, %preheader ], [ %i.next, %loop ]
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %a, i64 %i64
  store float 0.0, ptr %p, align 4
  %i.next = add i32 %i, %s
  %c = icmp slt i32 %i, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; for (i = start; i >= 0; i -= s) a[i] = 0;
define void @descending(ptr %a, i32 %start, i32 %s) {
entry:
  br label %preheader
preheader:
  %neg = sub i32 0, %s
  br label %loop
loop:
  %i = phi i32 [ %start, %preheader ], [ %i.next, %loop ]
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %a, i64 %i64
  store float 0.0, ptr %p, align 4
  %i.next = add i32 %i, %neg
  %c = icmp sge i32 %i.next, 0
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; for (unsigned i = start; i < n; i += s) a[(int)i] = 0;
define void @unsigned_sext(ptr %a, i32 %start, i32 %n, i32 %s) {
entry:
  br label %preheader
preheader:
  br label %loop
loop:
  %i = phi i32 [ %start, %preheader ], [ %i.next, %loop ]
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %a, i64 %i64
  store float 0.0, ptr %p, align 4
  %i.next = add i32 %i, %s
  %c = icmp ult i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; for (long i = start; i < n; i += s) a[i] = 0;
define void @wide_iv(ptr %a, i64 %start, i64 %n, i64 %s) {
entry:
  br label %preheader
preheader:
  br label %loop
loop:
  %i = phi i64 [ %start, %preheader ], [ %i.next, %loop ]
  %p = getelementptr inbounds float, ptr %a, i64 %i
  store float 0.0, ptr %p, align 4
  %i.next = add i64 %i, %s
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; for (;;) { if (i >= n) break; a[i] = 0; i += s; }  -- the latch always
; goes round; the exit is in the header.
define void @header_exit(ptr %a, i32 %start, i32 %n, i32 %s) {
entry:
  br label %preheader
preheader:
  br label %loop
loop:
  %i = phi i32 [ %start, %preheader ], [ %i.next, %body ]
  %out = icmp sge i32 %i, %n
  br i1 %out, label %exit, label %body
body:
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %a, i64 %i64
  store float 0.0, ptr %p, align 4
  %i.next = add i32 %i, %s
  br label %loop
exit:
  ret void
}

declare void @llvm.nvvm.barrier0()

; for (i = start; i < n; i += s) { v = a[i]; __syncthreads(); b[i] = v; }
define void @barrier_between(ptr %b, ptr %a, i32 %start, i32 %n, i32 %s) {
entry:
  br label %preheader
preheader:
  br label %loop
loop:
  %i = phi i32 [ %start, %preheader ], [ %i.next, %loop ]
  %i64 = sext i32 %i to i64
  %pa = getelementptr inbounds float, ptr %a, i64 %i64
  %v = load float, ptr %pa, align 4
  call void @llvm.nvvm.barrier0()
  %pb = getelementptr inbounds float, ptr %b, i64 %i64
  store float %v, ptr %pb, align 4
  %i.next = add i32 %i, %s
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; for (i = start; i < n; i += s) y[i] = x[idx[i]];
define void @gather(ptr %y, ptr %x, ptr %idx, i32 %start, i32 %n, i32 %s) {
entry:
  br label %preheader
preheader:
  br label %loop
loop:
  %i = phi i32 [ %start, %preheader ], [ %i.next, %loop ]
  %i64 = sext i32 %i to i64
  %pi = getelementptr inbounds i32, ptr %idx, i64 %i64
  %j = load i32, ptr %pi, align 4
  %j64 = sext i32 %j to i64
  %px = getelementptr inbounds float, ptr %x, i64 %j64
  %v = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i64
  store float %v, ptr %py, align 4
  %i.next = add i32 %i, %s
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; for (t = 0; t < n; t += 32) a[c + t] = 0;  -- unsigned index arithmetic
define void @tile_row(ptr %a, i32 %c, i32 %n) {
entry:
  %guard = icmp sgt i32 %n, 0
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %t = phi i32 [ 0, %preheader ], [ %t.next, %loop ]
  %sum = add i32 %c, %t
  %idx = zext i32 %sum to i64
  %p = getelementptr inbounds float, ptr %a, i64 %idx
  store float 0.0, ptr %p, align 4
  %t.next = add nuw nsw i32 %t, 32
  %more = icmp slt i32 %t.next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

; for (t = lane; t < n; t += s) a[c + t] = 0;
define void @strided_row(ptr %a, i32 %c, i32 %lane, i32 %n, i32 %s) {
entry:
  br label %preheader
preheader:
  br label %loop
loop:
  %t = phi i32 [ %lane, %preheader ], [ %t.next, %loop ]
  %sum = add i32 %c, %t
  %p = getelementptr inbounds float, ptr %a, i32 %sum
  store float 0.0, ptr %p, align 4
  %t.next = add i32 %t, %s
  %more = icmp slt i32 %t.next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

; for (t = 0; t < n; t += 32) a[off[t] + t] = 0;
define void @loaded_offset(ptr %a, ptr addrspace(4) %off, i32 %n) {
entry:
  br label %preheader
preheader:
  br label %loop
loop:
  %t = phi i32 [ 0, %preheader ], [ %t.next, %loop ]
  %t64 = zext i32 %t to i64
  %po = getelementptr inbounds i32, ptr addrspace(4) %off, i64 %t64
  %c = load i32, ptr addrspace(4) %po, align 4
  %sum = add i32 %c, %t
  %idx = zext i32 %sum to i64
  %p = getelementptr inbounds float, ptr %a, i64 %idx
  store float 0.0, ptr %p, align 4
  %t.next = add nuw nsw i32 %t, 32
  %more = icmp slt i32 %t.next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5, !6, !7, !8, !9, !10, !11, !12, !13, !14, !15}
!15 = !{ptr @strided_row, !"kernel", i32 1}
!13 = !{ptr @tile_row, !"kernel", i32 1}
!14 = !{ptr @loaded_offset, !"kernel", i32 1}
!11 = !{ptr @barrier_between, !"kernel", i32 1}
!12 = !{ptr @gather, !"kernel", i32 1}
!0 = !{ptr @saxpy, !"kernel", i32 1}
!1 = !{ptr @unsigned_zext, !"kernel", i32 1}
!2 = !{ptr @signed_zext, !"kernel", i32 1}
!3 = !{ptr @row_offset, !"kernel", i32 1}
!4 = !{ptr @early_exit, !"kernel", i32 1}
!5 = !{ptr @loaded_step, !"kernel", i32 1}
!6 = !{ptr @test_before_step, !"kernel", i32 1}
!7 = !{ptr @descending, !"kernel", i32 1}
!8 = !{ptr @unsigned_sext, !"kernel", i32 1}
!9 = !{ptr @wide_iv, !"kernel", i32 1}
!10 = !{ptr @header_exit, !"kernel", i32 1}
