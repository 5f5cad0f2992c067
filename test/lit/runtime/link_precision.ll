; The plugin links the precision entry points a module calls, and only
; those: internal, built for the module's target, with the pieces of
; libdevice they need (internal too), and the result compiles to PTX. A
; module calling none of them links none (runtime_link.ll and
; runtime_link_none.ll in test/lit/pass).

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -S < %s -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=ABSENT < %t.ll
; RUN: llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx80 %t.ll -o %t.ptx
; RUN: FileCheck %s --check-prefix=PTX < %t.ptx
; RUN: FileCheck %s --check-prefix=PTXABSENT < %t.ptx

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare void @__kosan_prec_value(i64, i32, i32, double, double, i32, i32, i32)
declare void @__kosan_prec_narrow(i64, i32, i32, double, double, i32)
declare double @__kosan_shadow_sin(double)

define void @k(ptr %a, ptr %h, i64 %state) #0 {
entry:
  %x = load float, ptr %a, align 4
  %xd = fpext float %x to double
  %s = call double @__kosan_shadow_sin(double %xd)
  %y = call float @llvm.nvvm.sin.approx.f(float %x)
  %yd = fpext float %y to double
  call void @__kosan_prec_value(i64 %state, i32 1, i32 0, double %yd, double %s, i32 2, i32 0, i32 0)
  %n = fptrunc float %y to half
  %nd = fpext half %n to double
  call void @__kosan_prec_narrow(i64 %state, i32 1, i32 1, double %yd, double %nd, i32 3)
  store half %n, ptr %h, align 2
  ret void
}
declare float @llvm.nvvm.sin.approx.f(float)
attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx80,+sm_90" }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}

; CHECK-DAG: define internal void @__kosan_prec_value(i64 {{.*}}) #[[RT:[0-9]+]]
; CHECK-DAG: define internal void @__kosan_prec_narrow(i64 {{.*}}) #[[RT]]
; CHECK-DAG: define internal double @__kosan_shadow_sin(double {{.*}}) #[[RT2:[0-9]+]]
; CHECK-DAG: attributes #[[RT]] = { {{.*}}"target-cpu"="sm_90" "target-features"="+ptx80,+sm_90" }
; CHECK-DAG: attributes #[[RT2]] = { {{.*}}"target-cpu"="sm_90" "target-features"="+ptx80,+sm_90" }

; Entry points the module does not call stay out; nothing of libdevice is
; left to resolve.
; ABSENT-NOT: declare {{.*}}@__kosan_
; ABSENT-NOT: @__kosan_prec_nonfinite
; ABSENT-NOT: @__kosan_shadow_cos
; ABSENT-NOT: @__kosan_oob_check_table
; ABSENT-NOT: __nvvm_reflect
; ABSENT-NOT: declare {{.*}}@__nv_

; Internal: .func, never .visible; warp-aggregated with match.any.sync.
; PTX-DAG: .func __kosan_prec_value(
; PTX-DAG: .func __kosan_prec_narrow(
; PTX-DAG: .func  (.param .b64 func_retval0) __kosan_shadow_sin(
; PTX-DAG: match.any.sync.b32
; PTX-DAG: atom.add.u64
; PTX-DAG: atom.max.u64
; No fp64 division (its slow path is a call; the errors multiply by a
; reciprocal or by powers of two).
; PTXABSENT-NOT: div.rn.f64
; PTXABSENT-NOT: .visible .func
; PTXABSENT-NOT: .extern .func
