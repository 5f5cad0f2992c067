; Accesses to objects whose size the compiler knows are checked against that
; object, not against any buffer: a static __shared__ array against
; [&array, &array + sizeof array), an extern __shared__ array against the
; launch's dynamic shared memory (launch_info offset 16), a local array
; against its alloca. An access at a constant offset that is provably in
; bounds is not instrumented at all; one provably out of bounds still is.

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -S < %s | FileCheck %s

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; __shared__ float tile[256];            (1024 bytes)
@tile = internal addrspace(3) global [256 x float] undef, align 4
; extern __shared__ float dyn[];
@dyn = external addrspace(3) global [0 x float], align 4

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
; CHECK-LABEL: define void @shared_var__kosan(
; CHECK:         %p = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %idx
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr addrspace(3) %p to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 4
; CHECK-NEXT:    icmp ugt i64 [[LAST]], add (i64 ptrtoint (ptr addrspace(3) @tile to i64), i64 1024)
; CHECK-NEXT:    icmp ult i64 %kosan.addr, ptrtoint (ptr addrspace(3) @tile to i64)
; CHECK:       kosan.slow:
; Static objects have no pitch or shape.
; CHECK-NEXT:    call i1 @__kosan_oob_report(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 0, i64 %kosan.addr, i32 4, i64 ptrtoint (ptr addrspace(3) @tile to i64), i64 add (i64 ptrtoint (ptr addrspace(3) @tile to i64), i64 1024), i64 0, i64 0)
; Through a generic pointer, the bounds are generic addresses too.
; CHECK:         %kosan.addr1 = ptrtoint ptr %q to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr1, 4
; CHECK-NEXT:    icmp ugt i64 [[LAST]], add (i64 ptrtoint (ptr addrspacecast (ptr addrspace(3) @tile to ptr) to i64), i64 1024)
; CHECK-NEXT:    icmp ult i64 %kosan.addr1, ptrtoint (ptr addrspacecast (ptr addrspace(3) @tile to ptr) to i64)
; CHECK:         %v.kosan = phi float
; tile[255] is stored without a check...
; CHECK-NEXT:    %c = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 255
; CHECK-NEXT:    store float %v.kosan, ptr addrspace(3) %c, align 4
; ...tile[256] with one.
; CHECK-NEXT:    %o = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 256
; CHECK-NEXT:    %kosan.addr{{[0-9]+}} = ptrtoint ptr addrspace(3) %o to i64
; CHECK:         store float %v.kosan, ptr addrspace(3) %o, align 4
; CHECK:         call i1 @__kosan_oob_report({{.*}}, i32 2, {{.*}}, i32 4, i64 ptrtoint (ptr addrspace(3) @tile to i64), i64 add (i64 ptrtoint (ptr addrspace(3) @tile to i64), i64 1024), i64 0, i64 0)
; CHECK-NOT:     call
; CHECK:         ret void

define void @shared_dyn(i32 %i) {
entry:
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds [0 x float], ptr addrspace(3) @dyn, i64 0, i64 %idx
  store float 1.0, ptr addrspace(3) %p, align 4
  ret void
}
; CHECK-LABEL: define void @shared_dyn__kosan(
; CHECK:         [[DSP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 16
; CHECK-NEXT:    %kosan.dyn_smem = load i64, ptr [[DSP]], {{.*}}!nosanitize
; CHECK:         %kosan.addr = ptrtoint ptr addrspace(3) %p to i64
; CHECK-NEXT:    %kosan.end = add i64 ptrtoint (ptr addrspace(3) @dyn to i64), %kosan.dyn_smem
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 4
; CHECK-NEXT:    icmp ugt i64 [[LAST]], %kosan.end
; CHECK-NEXT:    icmp ult i64 %kosan.addr, ptrtoint (ptr addrspace(3) @dyn to i64)
; CHECK:         call i1 @__kosan_oob_report({{.*}}, i32 3, i64 %kosan.addr, i32 4, i64 ptrtoint (ptr addrspace(3) @dyn to i64), i64 %kosan.end, i64 0, i64 0)

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
; CHECK-LABEL: define void @local__kosan(
; CHECK:         %arr = alloca [16 x i32], align 4
; CHECK-NEXT:    %c0 = getelementptr inbounds [16 x i32], ptr %arr, i64 0, i64 3
; CHECK-NEXT:    store i32 5, ptr %c0, align 4
; CHECK-NEXT:    %idx = sext i32 %i to i64
; CHECK-NEXT:    %p = getelementptr inbounds [16 x i32], ptr %arr, i64 0, i64 %idx
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %p to i64
; CHECK-NEXT:    %kosan.begin = ptrtoint ptr %arr to i64
; CHECK-NEXT:    %kosan.end = add i64 %kosan.begin, 64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 4
; CHECK-NEXT:    icmp ugt i64 [[LAST]], %kosan.end
; CHECK-NEXT:    icmp ult i64 %kosan.addr, %kosan.begin
; CHECK:         call i1 @__kosan_oob_report({{.*}}, i32 4, i64 %kosan.addr, i32 4, i64 %kosan.begin, i64 %kosan.end, i64 0, i64 0)
; CHECK:       kosan.cont:
; CHECK-NEXT:    %c1 = getelementptr inbounds [16 x i32], ptr %arr, i64 0, i64 15
; CHECK-NEXT:    %w = load i32, ptr %c1, align 4
; CHECK-NEXT:    ret void

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @shared_var, !"kernel", i32 1}
!1 = !{ptr @shared_dyn, !"kernel", i32 1}
!2 = !{ptr @local, !"kernel", i32 1}
