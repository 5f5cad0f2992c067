; The OOB check's failing checks all call one report function of the module,
; __kosan_oob_report, defined once, instead of each carrying the record of
; the event inline: two kernels and a device function share it. A check's
; cold path is the call alone: it passes its own test of the bounds (bit 0
; of `what`), and the function tests the row of a pitched argument itself
; and answers whether the access may go ahead. With uninit=1 a load's test
; of the fill shares that cold path and call (bit 1 of `what`): the branch
; to it also tests the launch's uninit flag, never the loaded value. The
; record: claim an index with one atomic, write the 72-byte event if the
; log has room (address, bounds, pitch, size, block, thread, then the key
; after a system fence), set the host's dirty word, and trap on
; halt_on_error or past the event budget. -kosan-shared-report=0 puts the
; same record inline at each check (no call, no function).
;
; Short copies: a memmove of 16 bytes inside one shared array (the
; asynchronous copies of kosan's compatibility header, a struct copy) is
; a load of the whole source, then the store: overlapping operands keep
; memmove's meaning, and the two are checked as loads and stores; a 12-byte
; memcpy keeps its memcpy and its guarded checks.

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -passes=kosan-oob,verify -kosan-misaligned=0 -kosan-uninit=0 -kosan-link-runtime=false -S < %s \
; RUN:   | FileCheck %s
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -passes=kosan-oob,verify -kosan-misaligned=0 -kosan-uninit=0 -kosan-link-runtime=false -kosan-shared-report=0 -S < %s \
; RUN:   | FileCheck %s --check-prefix=INLINE
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -passes=kosan-oob,verify -kosan-misaligned=0 -kosan-link-runtime=false -S < %s \
; RUN:   | FileCheck %s --check-prefix=UNINIT
; -kosan-reload-after-report=0: the loaded value stays live across the call.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -passes=kosan-oob,verify -kosan-misaligned=0 -kosan-link-runtime=false -kosan-reload-after-report=0 -S < %s \
; RUN:   | FileCheck %s --check-prefix=NORELOAD
; NORELOAD-LABEL: define ptx_kernel void @first__kosan(
; NORELOAD:         %v = load float, ptr %kosan.safe, align 4
; NORELOAD-NOT:     .reload
; NORELOAD:         store float %v, ptr

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [64 x i32] undef, align 16

; y[i] = x[i]
define void @first(ptr %x, ptr %y, i64 %i) {
entry:
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %v = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %v, ptr %py, align 4
  ret void
}
; The cold path of a check against a kernel argument: the argument's row
; bytes (the launch info's shape) and the call, no row test inline.
; CHECK-LABEL: define ptx_kernel void @first__kosan(
; CHECK:       kosan.report:
; CHECK-NEXT:    [[SHAPE0:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 80
; CHECK-NEXT:    [[ROW0:%.*]] = load i64, ptr [[SHAPE0]], align 8, !nosanitize
; CHECK-NEXT:    %kosan.what = zext i1 %kosan.bad to i32
; CHECK-NEXT:    %kosan.ok = call i1 @__kosan_oob_report(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 0, i64 %kosan.addr, i32 4, i64 %kosan.arg0.begin, i64 %kosan.arg0.end, i64 %kosan.arg0.pitch, i64 [[ROW0]], i32 %kosan.what)
; CHECK-NOT:     urem
; CHECK:       kosan.report{{[0-9]+}}:
; CHECK:         call i1 @__kosan_oob_report(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 1, i64 %kosan.addr{{[0-9]+}}, i32 4, i64 %kosan.arg1.begin, i64 %kosan.arg1.end, i64 %kosan.arg1.pitch, i64 {{%.*}}, i32 %kosan.what{{[0-9]+}})
; CHECK-NOT:     atomicrmw
; CHECK:       }

; uninit=1: the load of x takes its cold path when the launch has the flag
; too; there its value is compared with the fill, and one call reports
; either finding (and tests the row). The store of y has no uninit test.
; UNINIT-LABEL: define ptx_kernel void @first__kosan(
; UNINIT:         %kosan.bad = or i1
; UNINIT:         %kosan.pitched = icmp ne i64 %kosan.arg0.pitch, 0
; UNINIT-NEXT:    [[BP:%.*]] = or i1 %kosan.bad, %kosan.pitched
; UNINIT-NEXT:    [[TAKE:%.*]] = or i1 [[BP]], %kosan.uninit.on
; A bad load reads the zero sink, which nothing writes: no select of its value.
; UNINIT:         %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %px
; UNINIT-NEXT:    %v = load float, ptr %kosan.safe, align 4
; UNINIT-NEXT:    br i1 [[TAKE]], label %kosan.report, label
; UNINIT:       kosan.report:
; UNINIT:         [[BAD:%.*]] = zext i1 %kosan.bad to i32
; UNINIT-NEXT:    [[BITS:%.*]] = bitcast float %v to i32
; UNINIT-NEXT:    [[EQ:%.*]] = icmp eq i32 [[BITS]], -655371
; UNINIT-NEXT:    %kosan.uninit = and i1 %kosan.uninit.on, [[EQ]]
; UNINIT-NEXT:    [[FILL:%.*]] = zext i1 %kosan.uninit to i32
; UNINIT-NEXT:    [[FILL2:%.*]] = shl i32 [[FILL]], 1
; UNINIT-NEXT:    %kosan.what = or i32 [[BAD]], [[FILL2]]
; UNINIT-NEXT:    [[ANY:%.*]] = icmp ne i32 %kosan.what, 0
; UNINIT-NEXT:    [[PITCHED:%.*]] = icmp ne i64 %kosan.arg0.pitch, 0
; UNINIT-NEXT:    [[NEED:%.*]] = or i1 [[ANY]], [[PITCHED]]
; UNINIT-NEXT:    br i1 [[NEED]], label %kosan.record, label
; UNINIT:       kosan.record:
; UNINIT-NEXT:    call i1 @__kosan_oob_report(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 0, i64 %kosan.addr, i32 4, i64 %kosan.arg0.begin, i64 %kosan.arg0.end, i64 %kosan.arg0.pitch, i64 {{%.*}}, i32 %kosan.what)
; The value is read again after the call (ptxas no longer spills the loaded
; value on the path that finds nothing to keep it across the call); the
; store takes the value that reaches it.
; UNINIT-NEXT:    %v.kosan.reload = load float, ptr %kosan.safe, align 4, !nosanitize
; UNINIT:         [[AFTER:%v.kosan[0-9]+]] = phi float [ %v, %kosan.report ], [ %v.kosan.reload, %kosan.record ]
; UNINIT:         %v.kosan = phi float [ %v, %entry ], [ [[AFTER]], %{{[0-9]+}} ]
; UNINIT-NOT:     kosan.uninit.test
; UNINIT:         store float %v.kosan
; UNINIT-NOT:     icmp eq i32 {{.*}}, -655371
; UNINIT:       }

; INLINE-LABEL: define ptx_kernel void @first__kosan(
; INLINE-NOT:    call void @__kosan_oob_report
; INLINE:        atomicrmw add ptr {{%.*}}, i32 1 monotonic, align 4
; INLINE:        call void @llvm.trap()
; INLINE:        atomicrmw add ptr {{%.*}}, i32 1 monotonic, align 4
; INLINE:        call void @llvm.trap()
; INLINE:      }
; INLINE-NOT:  @__kosan_oob_report

; tile[t .. t+3] = tile[t+1 .. t+4] (memmove, overlapping); a 12-byte memcpy
; from a kernel argument; a call of a device function.
define void @second(ptr %a, i32 %t) {
entry:
  %idx = zext i32 %t to i64
  %dst = getelementptr inbounds i32, ptr addrspace(3) @tile, i64 %idx
  %src = getelementptr inbounds i32, ptr addrspace(3) %dst, i64 1
  call void @llvm.memmove.p3.p3.i64(ptr addrspace(3) align 4 %dst, ptr addrspace(3) align 4 %src, i64 16, i1 false)
  %pa = getelementptr inbounds i32, ptr %a, i64 %idx
  call void @llvm.memcpy.p3.p0.i64(ptr addrspace(3) align 4 %dst, ptr align 4 %pa, i64 12, i1 false)
  call void @helper(ptr %a, i64 %idx)
  ret void
}
; The memmove's load and store, 4 bytes apart in one array, are one group:
; one check of [dst, src + 16) before the load, the store after it.
; CHECK-LABEL: define ptx_kernel void @second__kosan(
; CHECK-NOT:     @llvm.memmove
; CHECK:         %kosan.group = ptrtoint ptr addrspace(3) %src to i64
; CHECK-NEXT:    [[LO:%.*]] = add i64 %kosan.group, -4
; CHECK-NEXT:    [[HI:%.*]] = add i64 %kosan.group, 16
; CHECK:         %kosan.safe = select i1 %kosan.bad, ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %src
; CHECK-NEXT:    %kosan.copy = load <4 x i32>, ptr addrspace(3) %kosan.safe, align 4, !kosan.copy
; CHECK-NEXT:    %kosan.copy.kosan = select i1 %kosan.bad, <4 x i32> zeroinitializer, <4 x i32> %kosan.copy
; After the report call the load reads its value again (nosanitize: not
; checked twice), so that the value it read is not live across the call;
; the store takes the one that reaches it.
; CHECK:         call i1 @__kosan_oob_report(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 %kosan.member.site, i64 %kosan.member.addr, i32 %kosan.member.size, {{.*}}, i64 0, i64 0, i32 1)
; CHECK-NEXT:    %kosan.copy.kosan.reload = load <4 x i32>, ptr addrspace(3) %kosan.safe, align 4, !nosanitize
; CHECK-NEXT:    [[RELOADED:%.*]] = select i1 %kosan.bad, <4 x i32> zeroinitializer, <4 x i32> %kosan.copy.kosan.reload
; CHECK:         [[AFTER:%kosan.copy.kosan[0-9]+]] = phi <4 x i32> [ %kosan.copy.kosan, %kosan.group.found ], [ [[RELOADED]], %kosan.record ]
; CHECK:         [[JOINED:%kosan.copy.kosan[0-9]+]] = phi <4 x i32> [ %kosan.copy.kosan, %entry ], [ [[AFTER]], %{{[0-9]+}} ]
; CHECK:         %kosan.safe{{[0-9]+}} = select i1 %kosan.bad, ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %dst
; CHECK-NEXT:    store <4 x i32> [[JOINED]], ptr addrspace(3) %kosan.safe{{[0-9]+}}, align 4, !kosan.copy
; The 12-byte copy: still a memcpy, behind its checks; the report
; function's answer decides whether it goes ahead.
; CHECK:       kosan.access{{[0-9]+}}:
; CHECK-NEXT:    call void @llvm.memcpy.p3.p0.i64(ptr addrspace(3) align 4 %dst, ptr align 4 %pa, i64 12, i1 false)
; CHECK:         [[OK:%kosan.ok[0-9]*]] = call i1 @__kosan_oob_report(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 {{[0-9]+}}, i64 %kosan.addr{{[0-9]+}}, i32 12,
; CHECK-NEXT:    br i1 [[OK]], label %kosan.access{{[0-9]*}}, label %kosan.skip
; CHECK:         call void @helper__kosan(

; tile[i] = 0
define void @helper(ptr %p, i64 %i) {
entry:
  %q = getelementptr inbounds i32, ptr addrspace(3) @tile, i64 %i
  store i32 0, ptr addrspace(3) %q, align 4
  ret void
}
; A device function calls it with the launch context its caller passed on.
; CHECK-LABEL: define void @helper__kosan(ptr %p, i64 %i, i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i64 %kosan.dyn_smem) {
; CHECK:         call i1 @__kosan_oob_report(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 {{[0-9]+}}, i64 %kosan.addr, i32 4,
; CHECK:       }

; The one report function, after the clones that call it: the caller's
; finding (what & 1), else the row test (a 32-bit remainder), else the
; uninit finding (what & 2), recorded at the site with its top bit set and
; no bounds; the access may go ahead unless bounds or row failed.
; CHECK-LABEL: define internal zeroext i1 @__kosan_oob_report(i64 %state, i32 %launch, i32 %flags, i32 %site, i64 %addr, i32 %size, i64 %begin, i64 %end, i64 %pitch, i64 %shape, i32 %what)
; CHECK-SAME:    #[[ATTRS:[0-9]+]] {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[B1:%.*]] = and i32 %what, 1
; CHECK-NEXT:    [[BAD:%.*]] = icmp ne i32 [[B1]], 0
; CHECK-NEXT:    br i1 [[BAD]], label %record, label %row
; CHECK:       row:
; CHECK:         urem i32
; CHECK:         br i1 {{%.*}}, label %record, label %fill
; CHECK:       fill:
; CHECK-NEXT:    [[B2:%.*]] = and i32 %what, 2
; CHECK-NEXT:    [[FILL:%.*]] = icmp ne i32 [[B2]], 0
; CHECK-NEXT:    br i1 [[FILL]], label %record.uninit, label %pass
; CHECK:       pass:
; CHECK-NEXT:    ret i1 true
; CHECK:       record:
; CHECK-NEXT:    [[STATE:%.*]] = inttoptr i64 %state to ptr
; CHECK:         [[INDEX:%.*]] = atomicrmw add ptr {{%.*}}, i32 1 monotonic, align 4
; CHECK:         icmp ult i32 [[INDEX]],
; CHECK:         mul i64 {{%.*}}, 72
; CHECK:         store i64 %addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 %size, ptr {{%.*}}, align 4
; CHECK:         call void @llvm.nvvm.membar.sys()
; CHECK-NEXT:    zext i32 %site to i64
; CHECK-NEXT:    zext i32 %launch to i64
; CHECK:         store volatile i32 1, ptr
; CHECK:         and i32 %flags, 1
; CHECK:         call void @llvm.trap()
; CHECK-NEXT:    unreachable
; CHECK:         ret i1 false
; CHECK:       record.uninit:
; CHECK-NEXT:    [[USITE:%.*]] = or i32 %site, -2147483648
; CHECK:         atomicrmw add ptr {{%.*}}, i32 1 monotonic, align 4
; CHECK:         store i64 %addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 0, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 0, ptr {{%.*}}, align 8
; CHECK:         zext i32 [[USITE]] to i64
; CHECK:         ret i1 true
; CHECK-NOT:   define {{.*}}@__kosan_oob_report
; CHECK:       attributes #[[ATTRS]] = { cold noinline norecurse nounwind }

declare void @llvm.memmove.p3.p3.i64(ptr addrspace(3), ptr addrspace(3), i64, i1)
declare void @llvm.memcpy.p3.p0.i64(ptr addrspace(3), ptr, i64, i1)

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @first, !"kernel", i32 1}
!1 = !{ptr @second, !"kernel", i32 1}
