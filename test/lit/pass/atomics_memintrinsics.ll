; Atomics and memory intrinsics write (and read) memory as surely as plain
; stores do: atomicrmw and cmpxchg are checked with the size of their value,
; memset against its destination, memcpy twice (destination, then source)
; with its length, which need not be a constant. A failed check of either
; memcpy operand skips the whole copy.

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -S < %s | FileCheck %s

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; atomicAdd(&cnt[i], 1); atomicCAS(&lock[i], 0, 1); atomicAdd(&dlock[i], 1.0)
define void @atomics(ptr %cnt, ptr %lock, i64 %i) {
entry:
  %p = getelementptr inbounds i32, ptr %cnt, i64 %i
  %old = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  %q = getelementptr inbounds i64, ptr %lock, i64 %i
  %pair = cmpxchg ptr %q, i64 0, i64 1 acq_rel monotonic, align 8
  %r = getelementptr inbounds double, ptr %lock, i64 %i
  %f = atomicrmw fadd ptr %r, double 1.0 monotonic, align 8
  ret void
}
; CHECK-LABEL: define void @atomics__kosan(
; CHECK:         %kosan.addr = ptrtoint ptr %p to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 4
; CHECK-NEXT:    icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK:       kosan.access:
; CHECK-NEXT:    %old = atomicrmw add ptr %p, i32 1 seq_cst, align 4
; CHECK:         call i1 @__kosan_oob_report({{.*}}, i32 0, i64 %kosan.addr, i32 4, i64 %kosan.arg0.begin, i64 %kosan.arg0.end,
; CHECK:         %kosan.addr1 = ptrtoint ptr %q to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr1, 8
; CHECK-NEXT:    icmp ugt i64 [[LAST]], %kosan.arg1.end
; CHECK-NEXT:    icmp ult i64 %kosan.addr1, %kosan.arg1.begin
; CHECK:         %pair = cmpxchg ptr %q, i64 0, i64 1 acq_rel monotonic, align 8
; CHECK:         call i1 @__kosan_oob_report({{.*}}, i32 1, i64 %kosan.addr1, i32 8, i64 %kosan.arg1.begin, i64 %kosan.arg1.end,
; CHECK:         %kosan.addr{{[0-9]+}} = ptrtoint ptr %r to i64
; CHECK-NEXT:    add i64 %kosan.addr{{[0-9]+}}, 8
; CHECK:         %f = atomicrmw fadd ptr %r, double 1.000000e+00 monotonic, align 8
; CHECK:         call i1 @__kosan_oob_report({{.*}}, i32 2, i64 %kosan.addr{{[0-9]+}}, i32 8, i64 %kosan.arg1.begin, i64 %kosan.arg1.end,
; CHECK:         ret void

; memcpy(dst, src, n), n unknown at compile time.
define void @copy(ptr %dst, ptr %src, i64 %n) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %dst, ptr align 4 %src, i64 %n, i1 false)
  ret void
}
; CHECK-LABEL: define void @copy__kosan(
; The destination [dst, dst + n) against argument 0...
; CHECK:         %kosan.addr = ptrtoint ptr %dst to i64
; CHECK-NEXT:    [[DSIZE:%.*]] = trunc i64 %n to i32
; CHECK-NEXT:    [[DLAST:%.*]] = add i64 %kosan.addr, %n
; CHECK-NEXT:    icmp ugt i64 [[DLAST]], %kosan.arg0.end
; CHECK-NEXT:    icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK:         br i1 %kosan.bad, label %kosan.slow, label %kosan.access
; ...then, once it passed, the source [src, src + n) against argument 1...
; CHECK:       kosan.access:
; CHECK-NEXT:    %kosan.addr1 = ptrtoint ptr %src to i64
; CHECK-NEXT:    [[SSIZE:%.*]] = trunc i64 %n to i32
; CHECK-NEXT:    [[SLAST:%.*]] = add i64 %kosan.addr1, %n
; CHECK-NEXT:    icmp ugt i64 [[SLAST]], %kosan.arg1.end
; CHECK-NEXT:    icmp ult i64 %kosan.addr1, %kosan.arg1.begin
; CHECK:         br i1 %kosan.bad2, label %[[SSLOW:.*]], label %[[COPY:.*]], !prof
; ...and only then the copy.
; CHECK:       [[COPY]]:
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr align 4 %dst, ptr align 4 %src, i64 %n, i1 false)
; CHECK:       [[SSLOW]]:
; CHECK:         [[OK:%.*]] = call i1 @__kosan_oob_report({{.*}}, i32 4, i64 %kosan.addr1, i32 [[SSIZE]], i64 %kosan.arg1.begin, i64 %kosan.arg1.end,
; CHECK-NEXT:    br i1 [[OK]], label %[[COPY]], label %[[SSKIP:.*]], !prof
; CHECK:       kosan.slow:
; CHECK:         [[OK:%.*]] = call i1 @__kosan_oob_report({{.*}}, i32 3, i64 %kosan.addr, i32 [[DSIZE]], i64 %kosan.arg0.begin, i64 %kosan.arg0.end,
; CHECK-NEXT:    br i1 [[OK]], label %kosan.access, label %kosan.skip
; CHECK:         ret void

; memset(dst + i, 0, 32)
define void @fill(ptr %dst, i32 %i) {
entry:
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds i8, ptr %dst, i64 %idx
  call void @llvm.memset.p0.i64(ptr align 1 %p, i8 0, i64 32, i1 false)
  ret void
}
; CHECK-LABEL: define void @fill__kosan(
; CHECK:         %kosan.addr = ptrtoint ptr %p to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 32
; CHECK-NEXT:    icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK:       kosan.access:
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr align 1 %p, i8 0, i64 32, i1 false)
; CHECK:         call i1 @__kosan_oob_report({{.*}}, i32 5, i64 %kosan.addr, i32 32, i64 %kosan.arg0.begin, i64 %kosan.arg0.end,
; Only one check: memset has no source.
; CHECK-NOT:     @__kosan_oob_report
; CHECK:         ret void

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @atomics, !"kernel", i32 1}
!1 = !{ptr @copy, !"kernel", i32 1}
!2 = !{ptr @fill, !"kernel", i32 1}
