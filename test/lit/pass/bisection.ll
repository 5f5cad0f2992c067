; -kosan-debug-func=NAME (-fplugin-arg-kosan-debug-func=NAME from clang)
; instruments only the kernel NAME, to bisect a miscompile or a false report
; down to one kernel: the others get no clone (the runtime launches them
; uninstrumented), and device functions are not cloned either, so NAME's clone
; calls them as compiled.

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -S < %s \
; RUN:   | FileCheck %s --check-prefix=ALL
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -kosan-debug-func=k1 -S < %s \
; RUN:   | FileCheck %s --check-prefix=K1
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -kosan-debug-func=k2 -S < %s \
; RUN:   | FileCheck %s --check-prefix=K2
; A name that matches nothing instruments nothing (and adds no site table).
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -kosan-debug-func=nosuch -S < %s \
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

; ALL-DAG: define void @k1__kosan(
; ALL-DAG: define void @k2__kosan(
; ALL-DAG: define void @f__kosan(
; ALL-DAG: call void @f__kosan(ptr %a,

; K1:         @__kosan_site_table =
; K1-LABEL:   define void @k1__kosan(
; K1:           call void @f(ptr %a)
; K1:           store i32 2, ptr %a, align 4
; K1:           call i1 @__kosan_oob_report(
; K1-NOT:     define void @k2__kosan(
; K1-NOT:     define void @f__kosan(
; K1:         !nvvm.annotations = !{!0, !1, ![[K1C:[0-9]+]]}
; K1:         ![[K1C]] = !{ptr @k1__kosan, !"kernel", i32 1}

; K2-NOT:     define void @k1__kosan(
; K2-NOT:     define void @f__kosan(
; K2-LABEL:   define void @k2__kosan(
; K2:           store i32 3, ptr %b, align 4
; K2:           call i1 @__kosan_oob_report(
; K2-NOT:     define void @k1__kosan(
; K2-NOT:     define void @f__kosan(

; NONE-NOT:   __kosan
; NONE:       define void @k2(ptr %b)
; NONE-NOT:   __kosan
