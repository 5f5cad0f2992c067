; The instrumented kernel is a clone: a launch with checks off must run exactly
; the code an uninstrumented build would have, so the original kernel keeps
; its name and body, and K__kosan takes one extra by-value parameter, the
; kosan_launch_info (32 bytes) followed by one kosan_arg_bounds (32 bytes) per
; original parameter, as an array of i64: N = (32 + 32 * nparams) / 8.

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob -kosan-link-runtime=false -S < %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefix=ORIG
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefix=ATTRS
; The clone is valid IR that the rest of the pipeline can take.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-link-runtime=false -disable-output < %s

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Three parameters: (32 + 3 * 32) / 8 = 16.
define void @k(ptr %a, i32 %n, ptr %b) #0 {
entry:
  %v = load float, ptr %a, align 4
  store float %v, ptr %b, align 4
  ret void
}

; No parameters: the launch info alone, (32 + 0) / 8 = 4.
define void @k0() #0 {
entry:
  ret void
}

; A function that is not annotated as a kernel gets no launch info.
define void @not_a_kernel(ptr %p) {
  ret void
}

attributes #0 = { memory(argmem: readwrite) nosync nounwind "target-cpu"="sm_90" }

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @k, !"kernel", i32 1}
!1 = !{ptr @k0, !"kernel", i32 1}
!2 = !{ptr @k, !"maxntidx", i32 256}

; The original kernel: same signature, same body, no kosan call anywhere.
; ORIG:       define void @k(ptr %a, i32 %n, ptr %b) #[[ORIGATTR:[0-9]+]] {
; ORIG-NEXT:  entry:
; ORIG-NEXT:    %v = load float, ptr %a, align 4
; ORIG-NEXT:    store float %v, ptr %b, align 4
; ORIG-NEXT:    ret void
; ORIG-NEXT:  }
; ORIG:       define void @k0() #[[ORIGATTR]] {
; ORIG-NEXT:  entry:
; ORIG-NEXT:    ret void
; ORIG-NEXT:  }
; ORIG-LABEL: define void @not_a_kernel(ptr %p) {
; ORIG-NEXT:    ret void
; ORIG-NEXT:  }

; The clones, with the trailing launch info sized by the parameter count.
; CHECK:       define ptx_kernel void @k__kosan(ptr %a, i32 %n, ptr %b, ptr byval([19 x i64]) align 8 %kosan.launch_info) #[[CLONEATTR:[0-9]+]] {
; CHECK:         call void @llvm.nvvm.membar.sys()
; CHECK:       define ptx_kernel void @k0__kosan(ptr byval([7 x i64]) align 8 %kosan.launch_info) #[[CLONEATTR]] {
; A device function gets context parameters, never a launch info.
; CHECK-LABEL: define void @not_a_kernel__kosan(ptr %p, i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i64 %kosan.dyn_smem)
; CHECK-NOT:   launch_info

; Every kernel clone is itself a kernel, and keeps the original's other
; annotations (launch bounds). A clone of a kernel without launch bounds
; gets at most 64 registers, so that it launches with 1024 threads as the
; original may; 32 when the original holds few values and the checks need
; few registers (the OOB check alone, here; register_limit.ll).
; CHECK:      !nvvm.annotations = !{![[K:[0-9]+]], ![[K0:[0-9]+]], ![[KMAX:[0-9]+]], ![[KC:[0-9]+]], ![[KMAXC:[0-9]+]], ![[K0C:[0-9]+]], ![[K0R:[0-9]+]]}
; CHECK-DAG:  ![[K]] = !{ptr @k, !"kernel", i32 1}
; CHECK-DAG:  ![[K0]] = !{ptr @k0, !"kernel", i32 1}
; CHECK-DAG:  ![[KC]] = !{ptr @k__kosan, !"kernel", i32 1}
; CHECK-DAG:  ![[KMAXC]] = !{ptr @k__kosan, !"maxntidx", i32 256}
; CHECK-DAG:  ![[K0C]] = !{ptr @k0__kosan, !"kernel", i32 1}
; CHECK-DAG:  ![[K0R]] = !{ptr @k0__kosan, !"maxnreg", i32 32}
; CHECK-NOT:  !{ptr @k__kosan, !"maxnreg"

; The original keeps its promises; the clone calls into a runtime that writes
; memory and synchronises, so memory() and nosync are dropped from it.
; ATTRS-LABEL: define void @k(
; ATTRS-SAME:    #[[ORIGA:[0-9]+]]
; ATTRS-LABEL: define ptx_kernel void @k__kosan(
; ATTRS-SAME:    #[[CLONEA:[0-9]+]]
; ATTRS-DAG:   attributes #[[ORIGA]] = { nosync nounwind memory(argmem: readwrite) "target-cpu"="sm_90" }
; ATTRS-DAG:   attributes #[[CLONEA]] = { nounwind "target-cpu"="sm_90" }
