; -Rpass=kosan-oob (opt: -pass-remarks=kosan-oob) says, per instrumented
; function, how many accesses were checked and how: against a kernel
; argument's bounds (two compares), against a static object, against the
; table (a runtime call), proven in bounds (nothing), or not checked because
; they read constant/parameter memory; and by how many checks, when some
; are checked once per group of accesses at constant distances (saxpy's
; load and store of y[i]). Users read these counts to see what the
; instrumentation costs; each category is exercised once here.

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -passes=kosan-oob -kosan-link-runtime=false \
; RUN:   -pass-remarks=kosan-oob -disable-output < %s 2>&1 | FileCheck %s
; Without the flag, nothing is printed.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -passes=kosan-oob -kosan-link-runtime=false \
; RUN:   -disable-output < %s 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
; QUIET-NOT: remark

; Real CUDA through clang: the remark points at the kernel's line.
; RUN: %clangxx -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudainc -nocudalib \
; RUN:   -Wno-unknown-cuda-version -O2 -gline-tables-only -emit-llvm -S -o /dev/null \
; RUN:   -fplugin=%kosan_plugin -Rpass=kosan-oob %S/Inputs/kernels.cu 2>&1 | FileCheck %s --check-prefix=CUDA

; CHECK: remark: <unknown>:0:0: kernel 'k': 5 accesses checked (2 against kernel arguments, 2 against shared/local/global objects, 1 against the table of all buffers) by 5 checks, 0 of them in 0 groups at constant distances, 0 hoisted out of 0 loops, 5 checked one by one, 1 proven in bounds, 1 to constant/parameter memory
; CHECK: remark: <unknown>:0:0: device function 'helper': 1 accesses checked (0 against kernel arguments, 0 against shared/local/global objects, 1 against the table of all buffers) by 1 checks, 0 of them in 0 groups at constant distances, 0 hoisted out of 0 loops, 1 checked one by one, 0 proven in bounds, 0 to constant/parameter memory
; CHECK-NOT: remark

; Straight-line kernels whose every address is linear in the thread's
; index are tested once at their entry for the whole block and copied
; whole: saxpy's load and store of y[i] share one test, as do reverse's
; load and store of data[t].
; CUDA: kernels.cu:10:1: remark: kernel 'saxpy(float, float const*, float*, int)': 3 accesses checked (3 against kernel arguments, 0 against shared/local/global objects, 0 against the table of all buffers) by 2 checks, 0 of them in 0 groups at constant distances, 0 hoisted out of 0 loops, 0 checked one by one, 0 proven in bounds, 0 to constant/parameter memory; 0 of the groups at symbolic distances; of the hoisted, 0 at loop-invariant addresses (in 0 groups), 0 at symbolic strides; 0 of the loops copied whole; 3 outside loops tested at the entry by 2 tests (the kernel copied whole; the host decides them per launch) [-Rpass=kosan-oob]
; CUDA: kernels.cu:18:1: remark: kernel 'offset(int*, int)': 1 accesses checked (1 against kernel arguments, 0 against shared/local/global objects, 0 against the table of all buffers) by 1 checks, 0 of them in 0 groups at constant distances, 0 hoisted out of 0 loops, 0 checked one by one, 0 proven in bounds, 0 to constant/parameter memory; 0 of the groups at symbolic distances; of the hoisted, 0 at loop-invariant addresses (in 0 groups), 0 at symbolic strides; 0 of the loops copied whole; 1 outside loops tested at the entry by 1 tests (the kernel copied whole; the host decides them per launch) [-Rpass=kosan-oob]
; CUDA: kernels.cu:24:1: remark: kernel 'reverse(float*)': 4 accesses checked (2 against kernel arguments, 2 against shared/local/global objects, 0 against the table of all buffers) by 3 checks, 0 of them in 0 groups at constant distances, 0 hoisted out of 0 loops, 0 checked one by one, 0 proven in bounds, 0 to constant/parameter memory; 0 of the groups at symbolic distances; of the hoisted, 0 at loop-invariant addresses (in 0 groups), 0 at symbolic strides; 0 of the loops copied whole; 4 outside loops tested at the entry by 3 tests (the kernel copied whole; the host decides them per launch) [-Rpass=kosan-oob]

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [64 x i32] undef, align 4
@coef = internal addrspace(4) constant [4 x float] zeroinitializer, align 4
@gp = addrspace(1) global ptr null, align 8

define void @k(ptr %in, ptr %out, i64 %i) {
entry:
  ; argument: 2
  %pi = getelementptr inbounds i32, ptr %in, i64 %i
  %v = load i32, ptr %pi, align 4
  %po = getelementptr inbounds i32, ptr %out, i64 %i
  store i32 %v, ptr %po, align 4
  ; static: 2 (shared tile[i], local arr[i])
  %ps = getelementptr inbounds [64 x i32], ptr addrspace(3) @tile, i64 0, i64 %i
  store i32 %v, ptr addrspace(3) %ps, align 4
  %arr = alloca [8 x i32], align 4
  %pl = getelementptr inbounds [8 x i32], ptr %arr, i64 0, i64 %i
  store i32 %v, ptr %pl, align 4
  ; proven in bounds: 1 (the 8-byte load of @gp itself)
  %q = load ptr, ptr addrspace(1) @gp, align 8
  ; table: 1
  store i32 %v, ptr %q, align 4
  ; constant memory: 1
  %pc = getelementptr inbounds [4 x float], ptr addrspace(4) @coef, i64 0, i64 %i
  %c = load float, ptr addrspace(4) %pc, align 4
  ret void
}

define void @helper(ptr %p) {
  store i8 0, ptr %p, align 1
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
