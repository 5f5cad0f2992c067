; Each name of KOSAN_CHECKS (abi.h) is a pass name, kosan-<name>, that
; instruments its check alone, whatever -kosan-checks says: kosan-oob the
; bounds checks, kosan-precision the fp64 shadow, kosan-order the
; fingerprints, kosan-order-ops the fingerprints and the operation log;
; `kosan` is what clang runs, all checks of -kosan-checks on one clone.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false \
; RUN:   -S < %s | FileCheck %s --check-prefixes=ALL,OOB --implicit-check-not=__kosan_prec --implicit-check-not=__kosan_order
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision -kosan-link-runtime=false \
; RUN:   -S < %s | FileCheck %s --check-prefixes=ALL,PREC --implicit-check-not=__kosan_oob --implicit-check-not=__kosan_order
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-order -kosan-link-runtime=false \
; RUN:   -S < %s | FileCheck %s --check-prefixes=ALL,ORDER --implicit-check-not=__kosan_oob --implicit-check-not=__kosan_prec
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-checks=precision,order -kosan-link-runtime=false \
; RUN:   -S < %s | FileCheck %s --check-prefixes=ALL,OOB --implicit-check-not=__kosan_prec --implicit-check-not=__kosan_order
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-order-ops -kosan-link-runtime=false \
; RUN:   -S < %s | FileCheck %s --check-prefixes=ALL,ORDER,OPS --implicit-check-not=__kosan_oob --implicit-check-not=__kosan_prec
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan -kosan-checks=all -kosan-link-runtime=false \
; RUN:   -S < %s | FileCheck %s --check-prefixes=ALL,OOB,PREC,ORDER
;
; The order check's static analysis runs once per kernel, on the kernel as
; written, with the dominator tree and loops the analysis manager serves:
; one remark per kernel, none for the clone.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan -kosan-checks=all -kosan-link-runtime=false \
; RUN:   -pass-remarks=kosan-order -debug-pass-manager -disable-output < %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=ONCE
;
; Each check's remarks have the check's name.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan -kosan-checks=all -kosan-link-runtime=false \
; RUN:   -pass-remarks='kosan-.*' -pass-remarks-analysis='kosan-.*' -disable-output < %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARKS

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @sum(ptr %x, ptr %out, i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr inbounds float, ptr %x, i32 %i
  %v = load float, ptr %p, align 4
  %acc.next = fadd float %acc, %v
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  store float %r, ptr %out, align 4
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @sum, !"kernel", i32 1}

; ALL-LABEL: define void @sum(
; ALL-NOT: __kosan
; ALL-LABEL: define ptx_kernel void @sum__kosan(
; OOB-DAG: kosan.bad
; PREC-DAG: call void @__kosan_prec_value(
; ORDER-DAG: call void @__kosan_order_store(
; OPS-DAG: call void @__kosan_order_op(

; ONCE: Running analysis: DominatorTreeAnalysis on sum
; ONCE: Running analysis: LoopAnalysis on sum
; ONCE: remark: {{.*}}kernel 'sum': launch-dependent reduction loops at loop (trip count from argument 'n')
; ONCE-NOT: OrderRisks
; ONCE-NOT: Running analysis: LoopAnalysis on sum{{$}}
; The bounds check's proofs and groups analyse the clone once, before they
; change it, and drop what they computed.
; ONCE: Running analysis: ScalarEvolutionAnalysis on sum__kosan
; ONCE: Running analysis: LazyValueAnalysis on sum__kosan
; ONCE: Invalidating analysis: ScalarEvolutionAnalysis on sum__kosan
; ONCE: Invalidating analysis: LazyValueAnalysis on sum__kosan
; ONCE-NOT: Running analysis: {{.*}} on sum

; REMARKS-DAG: remark: {{.*}}kernel 'sum': launch-dependent reduction loops
; REMARKS-DAG: remark: {{.*}}kernel 'sum': fingerprints for
; REMARKS-DAG: remark: {{.*}}kernel 'sum': {{[0-9]+}} operations shadowed in fp64
; REMARKS-DAG: remark: {{.*}}kernel 'sum': {{[0-9]+}} accesses checked
