; -kosan-debug-func=NAME (-fplugin-arg-kosan-debug-func=NAME from clang)
; instruments only the kernel NAME, to bisect a miscompile or a false report
; down to one kernel: the others get no clone (the runtime launches them
; uninstrumented), and device functions are not cloned either, so NAME's clone
; calls them as compiled.

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob -kosan-misaligned=0 -kosan-link-runtime=false -S < %s \
; RUN:   | FileCheck %s --check-prefix=ALL
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob -kosan-misaligned=0 -kosan-link-runtime=false -kosan-debug-func=k1 -S < %s \
; RUN:   | FileCheck %s --check-prefix=K1
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob -kosan-misaligned=0 -kosan-link-runtime=false -kosan-debug-func=k2 -S < %s \
; RUN:   | FileCheck %s --check-prefix=K2
; A name that matches nothing instruments nothing (and adds no site table).
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob -kosan-misaligned=0 -kosan-link-runtime=false -kosan-debug-func=nosuch -S < %s \
; RUN:   | FileCheck %s --check-prefix=NONE

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @f(ptr %p) {
  store i32 1, ptr %p, align 4
  ret void
}

define void @k1(ptr %a) {
  call void @f(ptr %a)
  store i32 2, ptr %a, align 4
  ret void
}

define void @k2(ptr %b) {
  store i32 3, ptr %b, align 4
  ret void
}

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @k1, !"kernel", i32 1}
!1 = !{ptr @k2, !"kernel", i32 1}

; ALL-LABEL: define ptx_kernel void @k1__kosan(
; ALL:         call void @f__kosan(ptr %a,
; ALL:         store i32 2, ptr %kosan.safe, align 4
; ALL-LABEL: define ptx_kernel void @k2__kosan(
; ALL:         store i32 3, ptr %kosan.safe, align 4
; f's pointer is unknown in f: checked against the table, with the old
; control flow and no sink.
; ALL-LABEL: define void @f__kosan(
; ALL-NEXT:    %kosan.addr = ptrtoint ptr %p to i64
; ALL-NEXT:    br label %kosan.slow
; ALL-EMPTY:
; ALL-NEXT:  kosan.access:
; ALL-NEXT:    store i32 1, ptr %p, align 4
; ALL-NEXT:    br label %kosan.cont
; ALL-EMPTY:
; ALL-NEXT:  kosan.slow:
; ALL-NEXT:    [[OK:%.*]] = call i1 @__kosan_oob_check_table(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 2, i64 %kosan.addr, i32 4)
; ALL-NEXT:    br i1 [[OK]], label %kosan.access, label %kosan.skip
; ALL-NOT:     sink
; ALL:         ret void

; K1:         @__kosan_sink = internal addrspace(1) global [8 x i64] zeroinitializer, align 64
; K1:         @__kosan_site_table =
; K1-LABEL:   define ptx_kernel void @k1__kosan(
; K1:           call void @f(ptr %a)
; K1-NEXT:      %kosan.addr = ptrtoint ptr %a to i64
; K1:           %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %a
; K1-NEXT:      store i32 2, ptr %kosan.safe, align 4
; K1-NEXT:      br i1 {{%.*}}, label %kosan.report,
; K1:         kosan.report:
; K1-NEXT:      getelementptr inbounds i8, ptr %kosan.launch_info, i64 80
; K1-NEXT:      load i64
; The event is recorded inline: address, size, and the key of site 0.
; K1:           %kosan.ok = xor i1
; K1:         kosan.record.write:
; K1:           store i64 %kosan.addr, ptr {{%.*}}, align 8
; K1:           store i32 4, ptr {{%.*}}, align 4
; K1:           or i64 {{%.*}}, 0
; K1:           call void @llvm.trap()
; K1-NOT:     define ptx_kernel void @k2__kosan(
; K1-NOT:     define void @f__kosan(
; K1:         !nvvm.annotations = !{!0, !1, ![[K1C:[0-9]+]], ![[K1R:[0-9]+]]}
; K1:         ![[K1C]] = !{ptr @k1__kosan, !"kernel", i32 1}
; K1:         ![[K1R]] = !{ptr @k1__kosan, !"maxnreg", i32 32}

; K2-NOT:     define ptx_kernel void @k1__kosan(
; K2-NOT:     define void @f__kosan(
; K2-LABEL:   define ptx_kernel void @k2__kosan(
; K2:           %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %b
; K2-NEXT:      store i32 3, ptr %kosan.safe, align 4
; K2-NEXT:      br i1 {{%.*}}, label %kosan.report,
; K2:         kosan.record.write:
; K2:           store i64 %kosan.addr, ptr {{%.*}}, align 8
; K2:           store i32 4, ptr {{%.*}}, align 4
; K2:           or i64 {{%.*}}, 0
; K2:           call void @llvm.trap()
; K2-NOT:     define ptx_kernel void @k1__kosan(
; K2-NOT:     define void @f__kosan(

; NONE-NOT:   __kosan
; NONE:       define void @k2(ptr %b)
; NONE-NOT:   __kosan
