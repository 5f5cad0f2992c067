; Regression tests for the select-based fast path (redirect to a sink), one
; kernel per bug it once had:
;
; @selfstore  The select replaces the access's pointer operand by its index
;             (operand 1 of a store, 0 of an atomicrmw), not the first operand
;             that happens to equal the pointer: `store ptr %p, ptr %p` once
;             had its stored value redirected and its address left alone.
; @chase      Each access re-reads its pointer from the instruction right
;             before it is instrumented: through q = pp[i] (a redirected
;             load, whose users now see %q, null when pp[i] was bad),
;             *q is checked at the address it really accesses, %q, not
;             at the raw loaded %q.
; @meta       A redirected load loses what it promised about the memory it
;             read (!range, !noundef, !nonnull, !align, !dereferenceable,
;             !dereferenceable_or_null, !invariant.load), which does not hold
;             for the sink (other threads write it; the shared sink is undef).
;             Other metadata (!tbaa) stays, and a load that keeps the old
;             control flow (align 128, more than the sink) keeps everything:
;             it only ever reads the memory it names. The original kernel is
;             not touched.
; (-kosan-uninit=0: the uninit compare after each global load has its own
; test, uninit.ll, and would only interleave with the checks here;
; -kosan-group-checks=0: each access its own check, the path these pin;
; groups_unrolled.ll tests the grouped one.)

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 -kosan-link-runtime=false -kosan-uninit=0 \
; RUN:   -kosan-group-checks=0 -S < %s | FileCheck %s --implicit-check-not=__kosan_shared_sink
; The original kernels (which come first) are left as they were.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 -kosan-link-runtime=false -kosan-uninit=0 -S < %s \
; RUN:   | FileCheck %s --check-prefix=ORIG

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK: @__kosan_sink = internal addrspace(1) global [8 x i64] zeroinitializer, align 64

; struct node { node *next; } *a; a[i].next = &a[i]; atomicExch(&a[i].next, &a[i])
define void @selfstore(ptr %a, i64 %i) {
entry:
  %p = getelementptr inbounds ptr, ptr %a, i64 %i
  store ptr %p, ptr %p, align 8
  %old = atomicrmw xchg ptr %p, ptr %p monotonic, align 8
  ret void
}

; ORIG-LABEL: define void @selfstore(
; ORIG-NEXT:  entry:
; ORIG-NEXT:    %p = getelementptr inbounds ptr, ptr %a, i64 %i
; ORIG-NEXT:    store ptr %p, ptr %p, align 8
; ORIG-NEXT:    %old = atomicrmw xchg ptr %p, ptr %p monotonic, align 8
; ORIG-NEXT:    ret void

; CHECK-LABEL: define ptx_kernel void @selfstore__kosan(
; CHECK:         %p = getelementptr inbounds ptr, ptr %a, i64 %i
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %p to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 8
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 %kosan.bad, %kosan.pitched
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %p
; The address is redirected; the value stored is still %p itself.
; CHECK-NEXT:    store ptr %p, ptr %kosan.safe, align 8
; CHECK-NEXT:    br i1 [[REPORT]], label %kosan.report, label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY:![0-9]+]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.report:
; CHECK-NEXT:    getelementptr inbounds i8, ptr %kosan.launch_info, i64 80
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64
; CHECK:         trunc i64 [[SHAPE]] to i32
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD14:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD14]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 8, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 0
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    %kosan.addr1 = ptrtoint ptr %p to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr1, 8
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr1, %kosan.arg0.begin
; CHECK-NEXT:    [[BAD:%kosan.bad[0-9]+]] = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    [[PITCHED:%kosan.pitched[0-9]+]] = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 [[BAD]], [[PITCHED]]
; CHECK-NEXT:    [[SAFE:%kosan.safe[0-9]+]] = select i1 [[BAD]], ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %p
; atomicrmw: the pointer is operand 0, the new value (also %p) stays.
; CHECK-NEXT:    %old = atomicrmw xchg ptr [[SAFE]], ptr %p monotonic, align 8
; CHECK-NEXT:    br i1 [[REPORT]], label %[[RB:kosan.report[0-9]+]], label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[RB]]:
; CHECK-NEXT:    getelementptr inbounds i8, ptr %kosan.launch_info, i64 80
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64
; CHECK:         trunc i64 [[SHAPE]] to i32
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD15:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD15]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr1, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 8, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 1
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    ret void
; CHECK-NEXT:  }

; float **pp: q = pp[i]; *q = *q + 1; *(float *)pp = *q + 1
define void @chase(ptr %pp, i64 %i) {
entry:
  %a = getelementptr inbounds ptr, ptr %pp, i64 %i
  %q = load ptr, ptr %a, align 8
  %x = load float, ptr %q, align 4
  %y = fadd float %x, 1.0
  store float %y, ptr %q, align 4
  store float %y, ptr %pp, align 4
  ret void
}
; pp[i]: against argument 0, redirected; its value is zero (null) when bad.
; CHECK-LABEL: define ptx_kernel void @chase__kosan(
; CHECK:         %a = getelementptr inbounds ptr, ptr %pp, i64 %i
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %a to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 8
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 %kosan.bad, %kosan.pitched
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %a
; CHECK-NEXT:    %q = load ptr, ptr %kosan.safe, align 8
; CHECK-NEXT:    br i1 [[REPORT]], label %kosan.report, label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY:![0-9]+]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.report:
; CHECK:         trunc i64 {{%.*}} to i32
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD16:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD16]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 8, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 2
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; *q: a loaded pointer is of unknown provenance, checked against the table,
; at the address of %q, which the load then uses.
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    %kosan.addr1 = ptrtoint ptr %q to i64
; CHECK-NEXT:    br label %kosan.slow
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.access:
; CHECK-NEXT:    %x = load float, ptr %q, align 4
; CHECK-NEXT:    br label %kosan.cont
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.slow:
; CHECK-NEXT:    [[OK:%.*]] = call i1 @__kosan_oob_check_table(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 3, i64 %kosan.addr1, i32 4)
; CHECK-NEXT:    br i1 [[OK]], label %kosan.access, label %kosan.skip, !prof [[LIKELY:![0-9]+]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.skip:
; CHECK-NEXT:    br label %kosan.cont
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.cont:
; CHECK-NEXT:    %x.kosan = phi float [ %x, %kosan.access ], [ 0.000000e+00, %kosan.skip ]
; CHECK-NEXT:    %y = fadd float %x.kosan, 1.000000e+00
; *q = ...: the same for a store, whose pointer is operand 1.
; CHECK-NEXT:    %kosan.addr2 = ptrtoint ptr %q to i64
; CHECK-NEXT:    br label %[[SLOW:kosan.slow[0-9]+]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[ACCESS:kosan.access[0-9]+]]:
; CHECK-NEXT:    store float %y, ptr %q, align 4
; CHECK-NEXT:    br label %[[SCONT:kosan.cont[0-9]+]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[SLOW]]:
; CHECK-NEXT:    [[OK:%.*]] = call i1 @__kosan_oob_check_table(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 4, i64 %kosan.addr2, i32 4)
; CHECK-NEXT:    br i1 [[OK]], label %[[ACCESS]], label %[[SKIP:kosan.skip[0-9]+]], !prof [[LIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[SKIP]]:
; CHECK-NEXT:    br label %[[SCONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[SCONT]]:
; *(float *)pp: argument 0 again, redirected.
; CHECK-NEXT:    [[ADDR:%kosan.addr[0-9]+]] = ptrtoint ptr %pp to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 [[ADDR]], 4
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 [[ADDR]], %kosan.arg0.begin
; CHECK-NEXT:    [[BAD:%kosan.bad[0-9]+]] = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    [[PITCHED:%kosan.pitched[0-9]+]] = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 [[BAD]], [[PITCHED]]
; CHECK-NEXT:    [[SAFE:%kosan.safe[0-9]+]] = select i1 [[BAD]], ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %pp
; CHECK-NEXT:    store float %y, ptr [[SAFE]], align 4
; CHECK-NEXT:    br i1 [[REPORT]], label %[[RB:kosan.report[0-9]+]], label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY]]
; CHECK:         trunc i64 {{%.*}} to i32
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD17:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD17]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 [[ADDR]], ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 4, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 5
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    ret void
; CHECK-NEXT:  }

; bool c = b[i]; void *q = pp[i] (nonnull, 16-aligned, 64 dereferenceable
; bytes, invariant), void *r = pp[i] (null or 64 dereferenceable bytes);
; int w = ((int *)b)[i], 128-aligned, invariant and in [0, 100).
define void @meta(ptr %b, i64 %i) {
entry:
  %a = getelementptr inbounds i8, ptr %b, i64 %i
  %v = load i8, ptr %a, align 1, !range !10, !noundef !11, !tbaa !20
  %c = trunc i8 %v to i1
  %pa = getelementptr inbounds ptr, ptr %b, i64 %i
  %q = load ptr, ptr %pa, align 8, !nonnull !11, !align !12, !dereferenceable !13, !noundef !11, !invariant.load !11
  %r = load ptr, ptr %pa, align 8, !dereferenceable_or_null !13
  %wa = getelementptr inbounds i32, ptr %b, i64 %i
  %w = load i32, ptr %wa, align 128, !range !14, !noundef !11, !invariant.load !11
  ret void
}
; The original keeps every promise.
; ORIG-LABEL: define void @meta(
; ORIG:         %v = load i8, ptr %a, align 1, !tbaa [[TBAA:![0-9]+]], !range [[R8:![0-9]+]], !noundef [[EMPTY:![0-9]+]]{{$}}
; ORIG:         %q = load ptr, ptr %pa, align 8, !invariant.load [[EMPTY]], !nonnull [[EMPTY]], !dereferenceable [[D64:![0-9]+]], !align [[A16:![0-9]+]], !noundef [[EMPTY]]{{$}}
; ORIG-NEXT:    %r = load ptr, ptr %pa, align 8, !dereferenceable_or_null [[D64]]{{$}}
; ORIG:         %w = load i32, ptr %wa, align 128, !range [[R100:![0-9]+]], !invariant.load [[EMPTY]], !noundef [[EMPTY]]{{$}}
; ORIG-DAG: [[EMPTY]] = !{}
; ORIG-DAG: [[R8]] = !{i8 0, i8 2}
; ORIG-DAG: [[A16]] = !{i64 16}
; ORIG-DAG: [[D64]] = !{i64 64}
; ORIG-DAG: [[R100]] = !{i32 0, i32 100}

; CHECK-LABEL: define ptx_kernel void @meta__kosan(
; CHECK:         %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %a
; CHECK-NEXT:    %v = load i8, ptr %kosan.safe, align 1, !tbaa [[TBAA:![0-9]+]]{{$}}
; CHECK:         %c = trunc i8 %v to i1
; CHECK:         [[SAFE:%kosan.safe[0-9]+]] = select i1 %kosan.bad{{[0-9]+}}, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %pa
; CHECK-NEXT:    %q = load ptr, ptr [[SAFE]], align 8{{$}}
; CHECK:         [[SAFE:%kosan.safe[0-9]+]] = select i1 %kosan.bad{{[0-9]+}}, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %pa
; CHECK-NEXT:    %r = load ptr, ptr [[SAFE]], align 8{{$}}
; CHECK:       kosan.access:
; CHECK-NEXT:    %w = load i32, ptr %wa, align 128, !range [[R100:![0-9]+]], !invariant.load [[EMPTY:![0-9]+]], !noundef [[EMPTY]]{{$}}
; CHECK-NEXT:    br label %kosan.cont
; CHECK:       kosan.slow:
; CHECK-NEXT:    getelementptr inbounds i8, ptr %kosan.launch_info, i64 80
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64
; CHECK:         trunc i64 [[SHAPE]] to i32
; CHECK:         [[OK:%kosan.ok[0-9]*]] = xor i1 [[RBAD18:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD18]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr{{[0-9]+}}, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 4, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 9
; CHECK:         call void @llvm.trap()
; CHECK:         br i1 [[OK]], label %kosan.access, label %kosan.skip, !prof [[LIKELY:![0-9]+]]

; CHECK-DAG: [[UNLIKELY]] = !{!"branch_weights", i32 1, i32 1048575}
; CHECK-DAG: [[LIKELY]] = !{!"branch_weights", i32 1048575, i32 1}
; CHECK-DAG: [[EMPTY]] = !{}
; CHECK-DAG: [[R100]] = !{i32 0, i32 100}
; CHECK-DAG: [[TBAA]] = !{![[BOOL:[0-9]+]], ![[BOOL]], i64 0}

!10 = !{i8 0, i8 2}
!11 = !{}
!12 = !{i64 16}
!13 = !{i64 64}
!14 = !{i32 0, i32 100}
!20 = !{!21, !21, i64 0}
!21 = !{!"bool", !22, i64 0}
!22 = !{!"omnipotent char", !23, i64 0}
!23 = !{!"Simple C++ TBAA"}
!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @selfstore, !"kernel", i32 1}
!1 = !{ptr @chase, !"kernel", i32 1}
!2 = !{ptr @meta, !"kernel", i32 1}
