; Atomics and memory intrinsics write (and read) memory as surely as plain
; stores do: atomicrmw and cmpxchg are checked with the size of their value,
; memset against its destination, memcpy twice (destination, then source)
; with its length, which need not be a constant.
;
; atomicrmw takes the fast path of loads and stores: its pointer is redirected
; to the sink with a select when the access is bad, its result replaced by
; zero, and only the report is behind a branch. cmpxchg and every memory
; intrinsic keep the old control flow: kosan.slow asks the runtime,
; kosan.access performs the operation, kosan.skip drops it (a failed check of
; either memcpy operand skips the whole copy) and a dropped cmpxchg yields
; zero through a phi in kosan.cont. memset is never redirected, nor is a
; memcpy or memmove of a length that is not 1, 2, 4, 8 or 16 bytes; those
; short copies become a load and a store (cpy16, below).

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 -kosan-link-runtime=false -S < %s \
; RUN:   | FileCheck %s --implicit-check-not=__kosan_shared_sink

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK: @__kosan_sink = internal addrspace(1) global [8 x i64] zeroinitializer, align 64

; old = atomicAdd(&cnt[i], 1); atomicCAS(&lock[i], 0, 1); atomicAdd(&dlock[i], 1.0)
define void @atomics(ptr %cnt, ptr %lock, i64 %i) {
entry:
  %p = getelementptr inbounds i32, ptr %cnt, i64 %i
  %old = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  %next = add i32 %old, 1
  %q = getelementptr inbounds i64, ptr %lock, i64 %i
  %pair = cmpxchg ptr %q, i64 0, i64 1 acq_rel monotonic, align 8
  %won = extractvalue { i64, i1 } %pair, 1
  %r = getelementptr inbounds double, ptr %lock, i64 %i
  %f = atomicrmw fadd ptr %r, double 1.0 monotonic, align 8
  ret void
}
; CHECK-LABEL: define ptx_kernel void @atomics__kosan(
; atomicrmw add: redirected, its result zero when bad.
; CHECK:         %p = getelementptr inbounds i32, ptr %cnt, i64 %i
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %p to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 4
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 %kosan.bad, %kosan.pitched
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %p
; CHECK-NEXT:    %old = atomicrmw add ptr %kosan.safe, i32 1 seq_cst, align 4
; CHECK-NEXT:    %old.kosan = select i1 %kosan.bad, i32 0, i32 %old
; CHECK-NEXT:    br i1 [[REPORT]], label %kosan.report, label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY:![0-9]+]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.report:
; CHECK-NEXT:    [[SP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 80
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64, ptr [[SP]], align 8, !nosanitize
; CHECK:         trunc i64 [[SHAPE]] to i32
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD19:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD19]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 4, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 0
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    %next = add i32 %old.kosan, 1
; cmpxchg: the old structure, entered when bad or pitched.
; CHECK-NEXT:    %q = getelementptr inbounds i64, ptr %lock, i64 %i
; CHECK-NEXT:    %kosan.addr1 = ptrtoint ptr %q to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr1, 8
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg1.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr1, %kosan.arg1.begin
; CHECK-NEXT:    [[BAD:%kosan.bad[0-9]+]] = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    [[PITCHED:%kosan.pitched[0-9]+]] = icmp ne i64 %kosan.arg1.pitch, 0
; CHECK-NEXT:    [[SLOWC:%.*]] = or i1 [[BAD]], [[PITCHED]]
; CHECK-NEXT:    br i1 [[SLOWC]], label %kosan.slow, label %kosan.access, !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.access:
; CHECK-NEXT:    %pair = cmpxchg ptr %q, i64 0, i64 1 acq_rel monotonic, align 8
; CHECK-NEXT:    br label %kosan.cont
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.slow:
; CHECK-NEXT:    [[SP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 112
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64, ptr [[SP]], align 8, !nosanitize
; CHECK:         trunc i64 [[SHAPE]] to i32
; CHECK:         [[OK:%kosan.ok[0-9]*]] = xor i1 [[RBAD20:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD20]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr1, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg1.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg1.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg1.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 8, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 1
; CHECK:         call void @llvm.trap()
; CHECK:         br i1 [[OK]], label %kosan.access, label %kosan.skip, !prof [[LIKELY:![0-9]+]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.skip:
; CHECK-NEXT:    br label %kosan.cont
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.cont:
; CHECK-NEXT:    %pair.kosan = phi { i64, i1 } [ %pair, %kosan.access ], [ zeroinitializer, %kosan.skip ]
; CHECK-NEXT:    %won = extractvalue { i64, i1 } %pair.kosan, 1
; atomicrmw fadd: redirected; its result has no use, so no value select.
; CHECK-NEXT:    %r = getelementptr inbounds double, ptr %lock, i64 %i
; CHECK-NEXT:    [[ADDR:%kosan.addr[0-9]+]] = ptrtoint ptr %r to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 [[ADDR]], 8
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg1.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 [[ADDR]], %kosan.arg1.begin
; CHECK-NEXT:    [[BAD:%kosan.bad[0-9]+]] = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    [[PITCHED:%kosan.pitched[0-9]+]] = icmp ne i64 %kosan.arg1.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 [[BAD]], [[PITCHED]]
; CHECK-NEXT:    [[SAFE:%kosan.safe[0-9]+]] = select i1 [[BAD]], ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %r
; CHECK-NEXT:    %f = atomicrmw fadd ptr [[SAFE]], double 1.000000e+00 monotonic, align 8
; CHECK-NEXT:    br i1 [[REPORT]], label %[[RB:kosan.report[0-9]+]], label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[RB]]:
; CHECK-NEXT:    [[SP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 112
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64, ptr [[SP]], align 8, !nosanitize
; CHECK:         trunc i64 [[SHAPE]] to i32
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD21:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD21]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 [[ADDR]], ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg1.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg1.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg1.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 8, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 2
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    ret void
; CHECK-NEXT:  }

; memcpy(dst, src, n), n unknown at compile time: the old structure, twice.
define void @copy(ptr %dst, ptr %src, i64 %n) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %dst, ptr align 4 %src, i64 %n, i1 false)
  ret void
}
; CHECK-LABEL: define ptx_kernel void @copy__kosan(
; The destination [dst, dst + n) against argument 0...
; CHECK:         %kosan.addr = ptrtoint ptr %dst to i64
; CHECK-NEXT:    [[DSIZE:%.*]] = trunc i64 %n to i32
; CHECK-NEXT:    [[DLAST:%.*]] = add i64 %kosan.addr, %n
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[DLAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[SLOWC:%.*]] = or i1 %kosan.bad, %kosan.pitched
; CHECK-NEXT:    br i1 [[SLOWC]], label %kosan.slow, label %kosan.access, !prof [[UNLIKELY]]
; ...then, once it passed, the source [src, src + n) against argument 1...
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.access:
; CHECK-NEXT:    %kosan.addr1 = ptrtoint ptr %src to i64
; CHECK-NEXT:    [[SSIZE:%.*]] = trunc i64 %n to i32
; CHECK-NEXT:    [[SLAST:%.*]] = add i64 %kosan.addr1, %n
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[SLAST]], %kosan.arg1.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr1, %kosan.arg1.begin
; CHECK-NEXT:    %kosan.bad2 = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    %kosan.pitched3 = icmp ne i64 %kosan.arg1.pitch, 0
; CHECK-NEXT:    [[SLOWC:%.*]] = or i1 %kosan.bad2, %kosan.pitched3
; CHECK-NEXT:    br i1 [[SLOWC]], label %[[SSLOW:kosan.slow[0-9]+]], label %[[COPY:kosan.access[0-9]+]], !prof [[UNLIKELY]]
; ...and only then the copy, of the original pointers.
; CHECK-EMPTY:
; CHECK-NEXT:  [[COPY]]:
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr align 4 %dst, ptr align 4 %src, i64 %n, i1 false)
; CHECK-NEXT:    br label %[[SCONT:kosan.cont[0-9]+]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[SSLOW]]:
; CHECK-NEXT:    getelementptr inbounds i8, ptr %kosan.launch_info, i64 112
; CHECK-NEXT:    [[SSHAPE:%.*]] = load i64
; CHECK:         trunc i64 [[SSHAPE]] to i32
; CHECK:         [[OK:%kosan.ok[0-9]*]] = xor i1 [[RBAD22:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD22]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr1, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg1.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg1.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg1.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 [[SSIZE]], ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 4
; CHECK:         call void @llvm.trap()
; CHECK:         br i1 [[OK]], label %[[COPY]], label %[[SSKIP:kosan.skip[0-9]+]], !prof [[LIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[SSKIP]]:
; CHECK-NEXT:    br label %[[SCONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[SCONT]]:
; CHECK-NEXT:    br label %kosan.cont
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.slow:
; CHECK-NEXT:    getelementptr inbounds i8, ptr %kosan.launch_info, i64 80
; CHECK-NEXT:    [[DSHAPE:%.*]] = load i64
; CHECK:         trunc i64 [[DSHAPE]] to i32
; CHECK:         [[OK:%kosan.ok[0-9]*]] = xor i1 [[RBAD23:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD23]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 [[DSIZE]], ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 3
; CHECK:         call void @llvm.trap()
; CHECK:         br i1 [[OK]], label %kosan.access, label %kosan.skip, !prof [[LIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.skip:
; CHECK-NEXT:    br label %kosan.cont
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.cont:
; CHECK-NEXT:    ret void
; CHECK-NEXT:  }

; memset(dst + i, 0, 32): one check, against the destination only. The 32
; bytes would fit the sink, but a memset is not redirected: the old control
; flow, the memset of the original pointer in kosan.access, and no select
; anywhere.
define void @fill(ptr %dst, i32 %i) {
entry:
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds i8, ptr %dst, i64 %idx
  call void @llvm.memset.p0.i64(ptr align 1 %p, i8 0, i64 32, i1 false)
  ret void
}
; CHECK-LABEL: define ptx_kernel void @fill__kosan(
; CHECK:         %p = getelementptr inbounds i8, ptr %dst, i64 %idx
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %p to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 32
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[SLOWC:%.*]] = or i1 %kosan.bad, %kosan.pitched
; CHECK-NEXT:    br i1 [[SLOWC]], label %kosan.slow, label %kosan.access, !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.access:
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr align 1 %p, i8 0, i64 32, i1 false)
; CHECK-NEXT:    br label %kosan.cont
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.slow:
; CHECK-NEXT:    [[SP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 80
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64, ptr [[SP]], align 8, !nosanitize
; CHECK:         trunc i64 [[SHAPE]] to i32
; CHECK:         [[OK:%kosan.ok[0-9]*]] = xor i1 [[RBAD24:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD24]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 32, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 5
; CHECK:         call void @llvm.trap()
; CHECK:         br i1 [[OK]], label %kosan.access, label %kosan.skip, !prof [[LIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.skip:
; CHECK-NEXT:    br label %kosan.cont
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.cont:
; CHECK-NEXT:    ret void
; CHECK-NEXT:  }

; A 16-byte struct copy, *dst = src[i] (memcpy of a constant 16 bytes): a
; load and a store, as the backend emits it, each checked as loads and
; stores are (redirected to the sink, no control flow around them) and
; marked kosan.copy so that their reports say memcpy. A bad source reads
; zero (the select after the load), never the sink's contents; a bad
; destination writes the sink.
define void @cpy16(ptr %dst, ptr %src, i64 %i) {
entry:
  %s = getelementptr inbounds [4 x i32], ptr %src, i64 %i
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %dst, ptr align 4 %s, i64 16, i1 false)
  ret void
}
; CHECK-LABEL: define ptx_kernel void @cpy16__kosan(
; CHECK-NOT:     @llvm.memcpy
; CHECK:         %s = getelementptr inbounds [4 x i32], ptr %src, i64 %i
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %s to i64
; CHECK-NEXT:    [[SLAST:%.*]] = add i64 %kosan.addr, 16
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[SLAST]], %kosan.arg1.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr, %kosan.arg1.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg1.pitch, 0
; CHECK-NEXT:    [[SREPORT:%.*]] = or i1 %kosan.bad, %kosan.pitched
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %s
; CHECK-NEXT:    %kosan.copy = load <4 x i32>, ptr %kosan.safe, align 4, !kosan.copy
; CHECK-NEXT:    br i1 [[SREPORT]], label %kosan.report, label %[[SCONT:[0-9]+]], !prof [[UNLIKELY]]
; CHECK:         call void @llvm.trap()
; CHECK:       [[SCONT]]:
; CHECK-NEXT:    %kosan.addr1 = ptrtoint ptr %dst to i64
; CHECK-NEXT:    [[DLAST:%.*]] = add i64 %kosan.addr1, 16
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[DLAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr1, %kosan.arg0.begin
; CHECK-NEXT:    %kosan.bad2 = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    %kosan.pitched3 = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[DREPORT:%.*]] = or i1 %kosan.bad2, %kosan.pitched3
; CHECK-NEXT:    %kosan.safe4 = select i1 %kosan.bad2, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %dst
; CHECK-NEXT:    store <4 x i32> %kosan.copy, ptr %kosan.safe4, align 4, !kosan.copy
; CHECK-NEXT:    br i1 [[DREPORT]], label %kosan.report5, label %[[DCONT:[0-9]+]], !prof [[UNLIKELY]]
; CHECK:         call void @llvm.trap()
; CHECK:       [[DCONT]]:
; CHECK-NEXT:    ret void
; CHECK-NEXT:  }

; CHECK-DAG: [[UNLIKELY]] = !{!"branch_weights", i32 1, i32 1048575}
; CHECK-DAG: [[LIKELY]] = !{!"branch_weights", i32 1048575, i32 1}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

!nvvm.annotations = !{!0, !1, !2, !3}
!0 = !{ptr @atomics, !"kernel", i32 1}
!1 = !{ptr @copy, !"kernel", i32 1}
!2 = !{ptr @fill, !"kernel", i32 1}
!3 = !{ptr @cpy16, !"kernel", i32 1}
