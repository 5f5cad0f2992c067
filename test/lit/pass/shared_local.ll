; Accesses to objects whose size the compiler knows are checked against that
; object, not against any buffer: a static __shared__ array against
; [&array, &array + sizeof array), an extern __shared__ array against the
; launch's dynamic shared memory (launch_info offset 16), a local array
; against its alloca. An access at a constant offset that is provably in
; bounds is not instrumented at all; one provably out of bounds still is.
;
; Static objects have no pitch: the report branch is taken on %kosan.bad
; alone, and the report gets pitch 0 and shape 0. A bad access through a
; shared pointer is redirected to @__kosan_shared_sink (addrspace(3), 64
; bytes, 64-byte aligned, undef); one through a generic pointer whose object
; is in shared memory to that same shared sink cast to generic (so that the
; backend can still infer the shared space and emit ld.shared/st.shared); one
; through a generic pointer into any other object (a local array here) to
; @__kosan_sink (addrspace(1), 64-byte aligned) cast to generic. An access
; through a local (addrspace(5)) pointer is not redirected: it keeps
; kosan.slow/kosan.access/kosan.skip/kosan.cont. Each sink exists only when
; some checked access needs it.

; No access to a static object reads or tests a pitch.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 -kosan-link-runtime=false -S < %s \
; RUN:   | FileCheck %s --implicit-check-not=pitch
; Only @local (a generic pointer into an alloca): the global sink, no shared one.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob -kosan-misaligned=0 -kosan-link-runtime=false -kosan-debug-func=local -S < %s \
; RUN:   | FileCheck %s --check-prefix=GLOBALSINK --implicit-check-not=__kosan_shared_sink
; Only @shared_dyn (a shared pointer): the shared sink, no global one.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob -kosan-misaligned=0 -kosan-link-runtime=false -kosan-debug-func=shared_dyn -S < %s \
; RUN:   | FileCheck %s --check-prefix=SHAREDSINK --implicit-check-not=__kosan_sink
; Only @shared_var or only @shared_dyn_generic (generic pointers into shared
; memory among them): the shared sink alone, no global one either.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob -kosan-misaligned=0 -kosan-link-runtime=false -kosan-debug-func=shared_var -S < %s \
; RUN:   | FileCheck %s --check-prefix=GENSHARED --implicit-check-not=__kosan_sink
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob -kosan-misaligned=0 -kosan-link-runtime=false -kosan-debug-func=shared_dyn_generic -S < %s \
; RUN:   | FileCheck %s --check-prefix=GENSHARED --implicit-check-not=__kosan_sink
; Only @local5 (a checked access through a local pointer) or only
; @shared_safe (no checked access at all): no sink.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob -kosan-misaligned=0 -kosan-link-runtime=false -kosan-debug-func=local5 -S < %s \
; RUN:   | FileCheck %s --check-prefix=NOSINK --implicit-check-not=sink
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob -kosan-misaligned=0 -kosan-link-runtime=false -kosan-debug-func=shared_safe -S < %s \
; RUN:   | FileCheck %s --check-prefix=NOSINK --implicit-check-not=sink

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; __shared__ float tile[256];            (1024 bytes)
@tile = internal addrspace(3) global [256 x float] undef, align 4
; extern __shared__ float dyn[];
@dyn = external addrspace(3) global [0 x float], align 4

; CHECK-DAG: @__kosan_shared_sink = internal addrspace(3) global [8 x i64] undef, align 64
; CHECK-DAG: @__kosan_zero_sink = internal addrspace(1) global [1024 x i64] zeroinitializer, align 64
; GLOBALSINK: @__kosan_zero_sink = internal addrspace(1) global [1024 x i64] zeroinitializer, align 64
; GLOBALSINK: define ptx_kernel void @local__kosan(
; GLOBALSINK: select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %p
; SHAREDSINK: @__kosan_shared_sink = internal addrspace(3) global [8 x i64] undef, align 64
; SHAREDSINK: define ptx_kernel void @shared_dyn__kosan(
; SHAREDSINK: select i1 %kosan.bad, ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %p
; GENSHARED: @__kosan_shared_sink = internal addrspace(3) global [8 x i64] undef, align 64
; GENSHARED: define ptx_kernel void @{{shared_var|shared_dyn_generic}}__kosan(
; GENSHARED: select i1 %kosan.bad{{[0-9]*}}, ptr addrspacecast (ptr addrspace(3) @__kosan_shared_sink to ptr), ptr %q
; NOSINK: define ptx_kernel void @{{local5|shared_safe}}__kosan(

define void @shared_var(i32 %i) {
entry:
  %idx = sext i32 %i to i64
  ; tile[i] = 1.0f
  %p = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %idx
  store float 1.0, ptr addrspace(3) %p, align 4
  ; through a generic pointer: (float *)tile + i
  %g = addrspacecast ptr addrspace(3) @tile to ptr
  %q = getelementptr inbounds float, ptr %g, i64 %idx
  %v = load float, ptr %q, align 4
  ; tile[255]: provably in bounds
  %c = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 255
  store float %v, ptr addrspace(3) %c, align 4
  ; tile[256]: provably out of bounds, still checked
  %o = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 256
  store float %v, ptr addrspace(3) %o, align 4
  ret void
}
; CHECK-LABEL: define ptx_kernel void @shared_var__kosan(
; CHECK:         %p = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %idx
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr addrspace(3) %p to i64
; CHECK-NEXT:    %kosan.offset = sub i64 %kosan.addr, ptrtoint (ptr addrspace(3) @tile to i64)
; CHECK-NEXT:    %kosan.bad = icmp ugt i64 %kosan.offset, 1020
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %p
; CHECK-NEXT:    store float 1.000000e+00, ptr addrspace(3) %kosan.safe, align 4
; No pitch: the report branch is on %kosan.bad itself.
; CHECK-NEXT:    br i1 %kosan.bad, label %kosan.report, label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY:![0-9]+]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.report:
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD27:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD27]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 ptrtoint (ptr addrspace(3) @tile to i64), ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 add (i64 ptrtoint (ptr addrspace(3) @tile to i64), i64 1024), ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 0, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 4, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 0
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; Through a generic pointer into a shared object, the address is cast back
; to the shared window and compared there, against the object's shared
; bounds (so the backend keeps shared accesses); the sink is the shared one,
; cast to generic (not the global sink).
; CHECK-NEXT:    %g = addrspacecast ptr addrspace(3) @tile to ptr
; CHECK-NEXT:    %q = getelementptr inbounds float, ptr %g, i64 %idx
; CHECK-NEXT:    [[QS:%.*]] = addrspacecast ptr %q to ptr addrspace(3)
; CHECK-NEXT:    %kosan.addr1 = ptrtoint ptr addrspace(3) [[QS]] to i64
; CHECK-NEXT:    [[OFF:%kosan.offset[0-9]+]] = sub i64 %kosan.addr1, ptrtoint (ptr addrspace(3) @tile to i64)
; CHECK-NEXT:    [[BAD:%kosan.bad[0-9]+]] = icmp ugt i64 [[OFF]], 1020
; CHECK-NEXT:    [[SAFE:%kosan.safe[0-9]+]] = select i1 [[BAD]], ptr addrspacecast (ptr addrspace(3) @__kosan_shared_sink to ptr), ptr %q
; CHECK-NEXT:    %v = load float, ptr [[SAFE]], align 4
; CHECK-NEXT:    %v.kosan = select i1 [[BAD]], float 0.000000e+00, float %v
; CHECK-NEXT:    br i1 [[BAD]], label %[[RB:kosan.report[0-9]+]], label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[RB]]:
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD28:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD28]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr1, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 ptrtoint (ptr addrspace(3) @tile to i64), ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 add (i64 ptrtoint (ptr addrspace(3) @tile to i64), i64 1024), ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 0, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 4, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 1
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; tile[255] is stored without a check (the value stored is the selected one)...
; CHECK-NEXT:    %c = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 255
; CHECK-NEXT:    store float %v.kosan, ptr addrspace(3) %c, align 4
; ...tile[256] with one.
; CHECK-NEXT:    %o = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 256
; CHECK-NEXT:    [[ADDR:%kosan.addr[0-9]+]] = ptrtoint ptr addrspace(3) %o to i64
; CHECK-NEXT:    [[OFF:%kosan.offset[0-9]+]] = sub i64 [[ADDR]], ptrtoint (ptr addrspace(3) @tile to i64)
; CHECK-NEXT:    [[BAD:%kosan.bad[0-9]+]] = icmp ugt i64 [[OFF]], 1020
; CHECK-NEXT:    [[SAFE:%kosan.safe[0-9]+]] = select i1 [[BAD]], ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %o
; CHECK-NEXT:    store float %v.kosan, ptr addrspace(3) [[SAFE]], align 4
; CHECK-NEXT:    br i1 [[BAD]], label %[[RB:kosan.report[0-9]+]], label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[RB]]:
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD29:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD29]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 [[ADDR]], ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 ptrtoint (ptr addrspace(3) @tile to i64), ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 add (i64 ptrtoint (ptr addrspace(3) @tile to i64), i64 1024), ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 0, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 4, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 2
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    ret void
; CHECK-NEXT:  }

define void @shared_dyn(i32 %i) {
entry:
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds [0 x float], ptr addrspace(3) @dyn, i64 0, i64 %idx
  store float 1.0, ptr addrspace(3) %p, align 4
  ret void
}
; CHECK-LABEL: define ptx_kernel void @shared_dyn__kosan(
; CHECK:         [[DSP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 16
; CHECK-NEXT:    %kosan.dyn_smem = load i64, ptr [[DSP]], align 8, !nosanitize
; CHECK-NEXT:    %idx = sext i32 %i to i64
; CHECK-NEXT:    %p = getelementptr inbounds [0 x float], ptr addrspace(3) @dyn, i64 0, i64 %idx
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr addrspace(3) %p to i64
; CHECK-NEXT:    %kosan.end = add i64 ptrtoint (ptr addrspace(3) @dyn to i64), %kosan.dyn_smem
; CHECK-NEXT:    [[LIMIT:%.*]] = sub i64 %kosan.dyn_smem, 4
; CHECK-NEXT:    [[SMALL:%.*]] = icmp ult i64 %kosan.dyn_smem, 4
; CHECK-NEXT:    %kosan.offset = sub i64 %kosan.addr, ptrtoint (ptr addrspace(3) @dyn to i64)
; CHECK-NEXT:    [[OVER:%.*]] = icmp ugt i64 %kosan.offset, [[LIMIT]]
; CHECK-NEXT:    %kosan.bad = or i1 [[OVER]], [[SMALL]]
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %p
; CHECK-NEXT:    store float 1.000000e+00, ptr addrspace(3) %kosan.safe, align 4
; CHECK-NEXT:    br i1 %kosan.bad, label %kosan.report, label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.report:
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD30:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD30]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 ptrtoint (ptr addrspace(3) @dyn to i64), ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 0, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 4, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 3
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    ret void

define void @local(i32 %i) {
entry:
  %arr = alloca [16 x i32], align 4
  ; arr[3] = 5: in bounds, not checked
  %c0 = getelementptr inbounds [16 x i32], ptr %arr, i64 0, i64 3
  store i32 5, ptr %c0, align 4
  ; arr[i]: checked against the 64-byte alloca
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds [16 x i32], ptr %arr, i64 0, i64 %idx
  %v = load i32, ptr %p, align 4
  ; arr[15]: in bounds, not checked
  %c1 = getelementptr inbounds [16 x i32], ptr %arr, i64 0, i64 15
  %w = load i32, ptr %c1, align 4
  ret void
}
; The pointer into the alloca is generic here: redirected to the global sink.
; %v has no use, so no value select.
; CHECK-LABEL: define ptx_kernel void @local__kosan(
; CHECK:         %kosan.dyn_smem = load i64
; CHECK-NEXT:    %c0 = getelementptr inbounds [16 x i32], ptr %arr, i64 0, i64 3
; CHECK-NEXT:    store i32 5, ptr %c0, align 4
; CHECK-NEXT:    %idx = sext i32 %i to i64
; CHECK-NEXT:    %p = getelementptr inbounds [16 x i32], ptr %arr, i64 0, i64 %idx
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %p to i64
; CHECK-NEXT:    %kosan.begin = ptrtoint ptr %arr to i64
; CHECK-NEXT:    %kosan.end = add i64 %kosan.begin, 64
; CHECK-NEXT:    %kosan.offset = sub i64 %kosan.addr, %kosan.begin
; CHECK-NEXT:    %kosan.bad = icmp ugt i64 %kosan.offset, 60
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %p
; CHECK-NEXT:    %v = load i32, ptr %kosan.safe, align 4
; CHECK-NEXT:    br i1 %kosan.bad, label %kosan.report, label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.report:
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD31:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD31]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 0, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 4, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 4
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    %c1 = getelementptr inbounds [16 x i32], ptr %arr, i64 0, i64 15
; CHECK-NEXT:    %w = load i32, ptr %c1, align 4
; CHECK-NEXT:    ret void

; arr[i] through a local (addrspace(5)) pointer: the old control flow; a
; dropped load yields zero through the phi.
define void @local5(i32 %i) {
entry:
  %arr = alloca [16 x i32], align 4
  %l = addrspacecast ptr %arr to ptr addrspace(5)
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds [16 x i32], ptr addrspace(5) %l, i64 0, i64 %idx
  %v = load i32, ptr addrspace(5) %p, align 4
  %w = add i32 %v, 1
  ret void
}
; CHECK-LABEL: define ptx_kernel void @local5__kosan(
; CHECK:         %p = getelementptr inbounds [16 x i32], ptr addrspace(5) %l, i64 0, i64 %idx
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr addrspace(5) %p to i64
; CHECK-NEXT:    [[BASE:%.*]] = addrspacecast ptr %arr to ptr addrspace(5)
; CHECK-NEXT:    %kosan.begin = ptrtoint ptr addrspace(5) [[BASE]] to i64
; CHECK-NEXT:    %kosan.end = add i64 %kosan.begin, 64
; CHECK-NEXT:    %kosan.offset = sub i64 %kosan.addr, %kosan.begin
; CHECK-NEXT:    %kosan.bad = icmp ugt i64 %kosan.offset, 60
; CHECK-NEXT:    br i1 %kosan.bad, label %kosan.slow, label %kosan.access, !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.access:
; CHECK-NEXT:    %v = load i32, ptr addrspace(5) %p, align 4
; CHECK-NEXT:    br label %kosan.cont
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.slow:
; CHECK:         [[OK:%kosan.ok[0-9]*]] = xor i1 [[RBAD32:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD32]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 0, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 4, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 5
; CHECK:         call void @llvm.trap()
; CHECK:         br i1 [[OK]], label %kosan.access, label %kosan.skip, !prof [[LIKELY:![0-9]+]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.skip:
; CHECK-NEXT:    br label %kosan.cont
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.cont:
; CHECK-NEXT:    %v.kosan = phi i32 [ %v, %kosan.access ], [ 0, %kosan.skip ]
; CHECK-NEXT:    %w = add i32 %v.kosan, 1
; CHECK-NEXT:    ret void

; atomicAdd(&tile[i], 1.0f): redirected to the shared sink, its result zero
; when bad.
define void @shared_atomic(i32 %i) {
entry:
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %idx
  %old = atomicrmw fadd ptr addrspace(3) %p, float 1.0 monotonic, align 4
  %w = fadd float %old, 1.0
  ret void
}
; CHECK-LABEL: define ptx_kernel void @shared_atomic__kosan(
; CHECK:         %kosan.bad = icmp ugt i64 %kosan.offset, 1020
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %p
; CHECK-NEXT:    %old = atomicrmw fadd ptr addrspace(3) %kosan.safe, float 1.000000e+00 monotonic, align 4
; CHECK-NEXT:    %old.kosan = select i1 %kosan.bad, float 0.000000e+00, float %old
; CHECK-NEXT:    br i1 %kosan.bad, label %kosan.report, label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.report:
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD33:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD33]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 ptrtoint (ptr addrspace(3) @tile to i64), ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 add (i64 ptrtoint (ptr addrspace(3) @tile to i64), i64 1024), ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 0, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 4, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 6
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    %w = fadd float %old.kosan, 1.000000e+00

; tile[3] only: nothing to check.
define void @shared_safe() {
entry:
  %c = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 3
  store float 1.0, ptr addrspace(3) %c, align 4
  ret void
}
; CHECK-LABEL: define ptx_kernel void @shared_safe__kosan(
; CHECK:         %c = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 3
; CHECK-NEXT:    store float 1.000000e+00, ptr addrspace(3) %c, align 4
; CHECK-NEXT:    ret void

; (float *)dyn + i, a generic pointer into the extern __shared__ array: checked
; against the dynamic shared memory in the shared window, and redirected to the
; shared sink cast to generic.
define void @shared_dyn_generic(i32 %i) {
entry:
  %idx = sext i32 %i to i64
  %g = addrspacecast ptr addrspace(3) @dyn to ptr
  %q = getelementptr inbounds float, ptr %g, i64 %idx
  %v = load float, ptr %q, align 4
  %w = fadd float %v, 1.0
  ret void
}
; CHECK-LABEL: define ptx_kernel void @shared_dyn_generic__kosan(
; CHECK:         %q = getelementptr inbounds float, ptr %g, i64 %idx
; CHECK-NEXT:    [[QS:%.*]] = addrspacecast ptr %q to ptr addrspace(3)
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr addrspace(3) [[QS]] to i64
; CHECK-NEXT:    %kosan.end = add i64 ptrtoint (ptr addrspace(3) @dyn to i64), %kosan.dyn_smem
; CHECK-NEXT:    [[LIMIT:%.*]] = sub i64 %kosan.dyn_smem, 4
; CHECK-NEXT:    [[SMALL:%.*]] = icmp ult i64 %kosan.dyn_smem, 4
; CHECK-NEXT:    %kosan.offset = sub i64 %kosan.addr, ptrtoint (ptr addrspace(3) @dyn to i64)
; CHECK-NEXT:    [[OVER:%.*]] = icmp ugt i64 %kosan.offset, [[LIMIT]]
; CHECK-NEXT:    %kosan.bad = or i1 [[OVER]], [[SMALL]]
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(3) @__kosan_shared_sink to ptr), ptr %q
; CHECK-NEXT:    %v = load float, ptr %kosan.safe, align 4
; CHECK-NEXT:    %v.kosan = select i1 %kosan.bad, float 0.000000e+00, float %v
; CHECK-NEXT:    br i1 %kosan.bad, label %kosan.report, label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.report:
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD34:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD34]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 ptrtoint (ptr addrspace(3) @dyn to i64), ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 0, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 4, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 7
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    %w = fadd float %v.kosan, 1.000000e+00
; CHECK-NEXT:    ret void

; CHECK-DAG: [[UNLIKELY]] = !{!"branch_weights", i32 1, i32 1048575}
; CHECK-DAG: [[LIKELY]] = !{!"branch_weights", i32 1048575, i32 1}

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5, !6}
!0 = !{ptr @shared_var, !"kernel", i32 1}
!1 = !{ptr @shared_dyn, !"kernel", i32 1}
!2 = !{ptr @local, !"kernel", i32 1}
!3 = !{ptr @local5, !"kernel", i32 1}
!4 = !{ptr @shared_atomic, !"kernel", i32 1}
!5 = !{ptr @shared_safe, !"kernel", i32 1}
!6 = !{ptr @shared_dyn_generic, !"kernel", i32 1}
