; Accesses of one kernel argument in one stretch whose addresses differ by
; multiples of one run-time value D form a group at a symbolic distance
; (an unrolled loop over rows: in[(y + j) * n + x], j = 0, 8, 16 lie at
; 0, 32 * n and 64 * n bytes from the first). The offsets are written as
; polynomials in the IR's values (nsw products and sums expanded under a
; sign extension), so (y + 8) * n less y * n is 8 * n, which
; ScalarEvolution keeps as two unrelated products. Every member is the
; leader plus k * D (D = %kosan.group.unit, k in the table's offset column)
; with the leader's size, so the lowest and the highest address are
; members' own whatever D's sign: the leader tests [lo, hi + size) once,
; lo and hi selected by D's sign, and a bad group's report scans the table
; for the first member bad on its own (address = leader + k * D). Loads
; select the never-written zero sink each, so their values need no select.
;
; Never grouped so: products or sums that may wrap in 32 bits (no nsw: the
; distance is not k * D), members of different buffers, and a member whose
; distance has a constant part besides k * D (the ends would not be
; members' own).

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -pass-remarks=kosan-oob -S < %s 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -passes=kosan-oob,verify -kosan-misaligned=0 \
; RUN:   -kosan-link-runtime=false -kosan-uninit=0 -kosan-group-checks=0 -pass-remarks=kosan-oob \
; RUN:   -S < %s 2>&1 >/dev/null | FileCheck %s --check-prefix=OFF

; REMARK: kernel 'columns': 4 accesses checked {{.*}} by 2 checks, 3 of them in 1 groups at constant distances, {{.*}}; 1 of the groups at symbolic distances;
; REMARK: kernel 'wraps': 3 accesses checked {{.*}} by 3 checks, 0 of them in 0 groups {{.*}}; 0 of the groups at symbolic distances;
; REMARK: kernel 'two_buffers': 3 accesses checked {{.*}} by 3 checks, 0 of them in 0 groups {{.*}}; 0 of the groups at symbolic distances;
; REMARK: kernel 'offset_too': 3 accesses checked {{.*}} by 3 checks, 0 of them in 0 groups {{.*}}; 0 of the groups at symbolic distances;
; REMARK: kernel 'two_terms': 6 accesses checked {{.*}} by 3 checks, 5 of them in 2 groups at constant distances, {{.*}}; 1 of the groups at symbolic distances;
; OFF: kernel 'columns': 4 accesses checked {{.*}} by 4 checks, 0 of them in 0 groups {{.*}}; 0 of the groups at symbolic distances;

; The table: k * 4 bytes for j = 0, 8, 16 (D = n), sizes, sites.
; CHECK: @__kosan_group = internal addrspace(1) constant [3 x { i64, i32, i32 }] [{ i64, i32, i32 } { i64 0, i32 4, i32 0 }, { i64, i32, i32 } { i64 32, i32 4, i32 1 }, { i64, i32, i32 } { i64 64, i32 4, i32 2 }]

; two_terms: D = a - b, so k = 0, -32, -64 (the group of its two loads of dims first).
; CHECK: @__kosan_group2 = internal addrspace(1) constant [3 x { i64, i32, i32 }] [{ i64, i32, i32 } { i64 0, i32 4, i32 {{[0-9]+}} }, { i64, i32, i32 } { i64 -32, i32 4, i32 {{[0-9]+}} }, { i64, i32, i32 } { i64 -64, i32 4, i32 {{[0-9]+}} }]

; CHECK-LABEL: define ptx_kernel void @columns__kosan(
; CHECK:         %kosan.group = ptrtoint ptr %p0 to i64
; CHECK-NEXT:    %kosan.group.unit = sext i32 %n to i64
; CHECK-NEXT:    %[[MAX:[0-9]+]] = mul i64 %kosan.group.unit, 64
; CHECK-NEXT:    %[[DOWN:[0-9]+]] = icmp slt i64 %kosan.group.unit, 0
; CHECK-NEXT:    %[[LO:[0-9]+]] = select i1 %[[DOWN]], i64 %[[MAX]], i64 0
; CHECK-NEXT:    %kosan.group.lo = add i64 %kosan.group, %[[LO]]
; CHECK-NEXT:    %[[HI:[0-9]+]] = select i1 %[[DOWN]], i64 0, i64 %[[MAX]]
; CHECK-NEXT:    %[[HIADDR:[0-9]+]] = add i64 %kosan.group, %[[HI]]
; CHECK-NEXT:    %kosan.group.hi = add i64 %[[HIADDR]], 4
; CHECK-NEXT:    %[[OVER:[0-9]+]] = icmp ugt i64 %kosan.group.hi, %kosan.arg1.end
; CHECK-NEXT:    %[[UNDER:[0-9]+]] = icmp ult i64 %kosan.group.lo, %kosan.arg1.begin
; CHECK-NEXT:    %kosan.bad = or i1 %[[UNDER]], %[[OVER]]
; CHECK-NEXT:    %kosan.safe.base = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %p0
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg1.pitch, 0
; CHECK-NEXT:    %[[REPORT:[0-9]+]] = or i1 %kosan.bad, %kosan.pitched
; CHECK-NEXT:    %v0 = load float, ptr %kosan.safe.base, align 4
; CHECK-NEXT:    br i1 %[[REPORT]], label %kosan.report
; CHECK:       kosan.group.scan:
; CHECK:         load i64, ptr addrspace(1) %{{[0-9]+}}, align 8, !nosanitize
; CHECK-NEXT:    %[[DIST:[0-9]+]] = mul i64 %{{[0-9]+}}, %kosan.group.unit
; CHECK-NEXT:    add i64 %kosan.group, %[[DIST]]
; CHECK:         %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %p1
; CHECK-NEXT:    %v1 = load float, ptr %kosan.safe, align 4
; CHECK-NEXT:    %y2 = add nsw i32 %y, 16
; CHECK:         %kosan.safe{{[0-9]+}} = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %p2
; CHECK-NEXT:    %v2 = load float, ptr %kosan.safe{{[0-9]+}}, align 4
; CHECK-NEXT:    %s1 = fadd float %v0, %v1

; CHECK-LABEL: define ptx_kernel void @wraps__kosan(
; CHECK-NOT:     kosan.group
; CHECK:         ret void
; CHECK-LABEL: define ptx_kernel void @two_buffers__kosan(
; CHECK-NOT:     kosan.group
; CHECK:         ret void
; CHECK-LABEL: define ptx_kernel void @offset_too__kosan(
; CHECK-NOT:     kosan.group
; CHECK:         ret void

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; in[(y + j) * n + x], j = 0, 8, 16: 32-bit arithmetic with nsw, as clang
; emits it for int indices.
define void @columns(ptr %out, ptr %in, i32 %y, i32 %x, i32 %n) {
entry:
  %m0 = mul nsw i32 %y, %n
  %i0 = add nsw i32 %m0, %x
  %e0 = sext i32 %i0 to i64
  %p0 = getelementptr inbounds float, ptr %in, i64 %e0
  %v0 = load float, ptr %p0, align 4
  %y1 = add nsw i32 %y, 8
  %m1 = mul nsw i32 %y1, %n
  %i1 = add nsw i32 %m1, %x
  %e1 = sext i32 %i1 to i64
  %p1 = getelementptr inbounds float, ptr %in, i64 %e1
  %v1 = load float, ptr %p1, align 4
  %y2 = add nsw i32 %y, 16
  %m2 = mul nsw i32 %y2, %n
  %i2 = add nsw i32 %m2, %x
  %e2 = sext i32 %i2 to i64
  %p2 = getelementptr inbounds float, ptr %in, i64 %e2
  %v2 = load float, ptr %p2, align 4
  %s1 = fadd float %v0, %v1
  %s2 = fadd float %s1, %v2
  store float %s2, ptr %out, align 4
  ret void
}

; The same without nsw on the products: (y + 8) * n may wrap in 32 bits,
; so the distance is not 8 * n: each load keeps its check.
define void @wraps(ptr %out, ptr %in, i32 %y, i32 %x, i32 %n) {
entry:
  %m0 = mul i32 %y, %n
  %i0 = add nsw i32 %m0, %x
  %e0 = sext i32 %i0 to i64
  %p0 = getelementptr inbounds float, ptr %in, i64 %e0
  %v0 = load float, ptr %p0, align 4
  %y1 = add nsw i32 %y, 8
  %m1 = mul i32 %y1, %n
  %i1 = add nsw i32 %m1, %x
  %e1 = sext i32 %i1 to i64
  %p1 = getelementptr inbounds float, ptr %in, i64 %e1
  %v1 = load float, ptr %p1, align 4
  %s1 = fadd float %v0, %v1
  store float %s1, ptr %out, align 4
  ret void
}

; Members of different buffers never group.
define void @two_buffers(ptr %out, ptr %in, ptr %in2, i32 %y, i32 %x, i32 %n) {
entry:
  %m0 = mul nsw i32 %y, %n
  %i0 = add nsw i32 %m0, %x
  %e0 = sext i32 %i0 to i64
  %p0 = getelementptr inbounds float, ptr %in, i64 %e0
  %v0 = load float, ptr %p0, align 4
  %y1 = add nsw i32 %y, 8
  %m1 = mul nsw i32 %y1, %n
  %i1 = add nsw i32 %m1, %x
  %e1 = sext i32 %i1 to i64
  %p1 = getelementptr inbounds float, ptr %in2, i64 %e1
  %v1 = load float, ptr %p1, align 4
  %s1 = fadd float %v0, %v1
  store float %s1, ptr %out, align 4
  ret void
}

; A member at 8 * n + 4 bytes: the lowest and highest addresses would not
; both be members' own, so it does not join.
define void @offset_too(ptr %out, ptr %in, i32 %y, i32 %x, i32 %n) {
entry:
  %m0 = mul nsw i32 %y, %n
  %i0 = add nsw i32 %m0, %x
  %e0 = sext i32 %i0 to i64
  %p0 = getelementptr inbounds float, ptr %in, i64 %e0
  %v0 = load float, ptr %p0, align 4
  %y1 = add nsw i32 %y, 8
  %m1 = mul nsw i32 %y1, %n
  %i1 = add nsw i32 %m1, %x
  %e1 = sext i32 %i1 to i64
  %q1 = getelementptr inbounds float, ptr %in, i64 %e1
  %p1 = getelementptr inbounds float, ptr %q1, i64 1
  %v1 = load float, ptr %p1, align 4
  %s1 = fadd float %v0, %v1
  store float %s1, ptr %out, align 4
  ret void
}

; in[(y + j) * b - (y + j) * a + x], a and b loaded (instructions): D has
; two terms, 8 * b - 8 * a bytes per 8 rows. Its sign follows the
; function's order of the values, not where they lie in memory: a comes
; first, so D = a - b and the members lie at k = -32 and -64 times D, the
; same from run to run.
; CHECK-LABEL: define ptx_kernel void @two_terms__kosan(
; CHECK:         %[[A:[0-9]+]] = sext i32 %a to i64
; CHECK-NEXT:    %[[B:[0-9]+]] = sext i32 %b to i64
; CHECK-NEXT:    %[[NEGB:[0-9]+]] = mul i64 -1, %[[B]]
; CHECK-NEXT:    %kosan.group.unit = add i64 %[[A]], %[[NEGB]]

define void @two_terms(ptr %out, ptr %in, ptr %dims, i32 %y, i32 %x) {
entry:
  %a = load i32, ptr %dims, align 4
  %bp = getelementptr inbounds i32, ptr %dims, i64 1
  %b = load i32, ptr %bp, align 4
  %ma0 = mul nsw i32 %y, %a
  %mb0 = mul nsw i32 %y, %b
  %d0 = sub nsw i32 %mb0, %ma0
  %i0 = add nsw i32 %d0, %x
  %e0 = sext i32 %i0 to i64
  %p0 = getelementptr inbounds float, ptr %in, i64 %e0
  %v0 = load float, ptr %p0, align 4
  %y1 = add nsw i32 %y, 8
  %ma1 = mul nsw i32 %y1, %a
  %mb1 = mul nsw i32 %y1, %b
  %d1 = sub nsw i32 %mb1, %ma1
  %i1 = add nsw i32 %d1, %x
  %e1 = sext i32 %i1 to i64
  %p1 = getelementptr inbounds float, ptr %in, i64 %e1
  %v1 = load float, ptr %p1, align 4
  %y2 = add nsw i32 %y, 16
  %ma2 = mul nsw i32 %y2, %a
  %mb2 = mul nsw i32 %y2, %b
  %d2 = sub nsw i32 %mb2, %ma2
  %i2 = add nsw i32 %d2, %x
  %e2 = sext i32 %i2 to i64
  %p2 = getelementptr inbounds float, ptr %in, i64 %e2
  %v2 = load float, ptr %p2, align 4
  %s1 = fadd float %v0, %v1
  %s2 = fadd float %s1, %v2
  store float %s2, ptr %out, align 4
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3, !4}
!0 = !{ptr @columns, !"kernel", i32 1}
!1 = !{ptr @wraps, !"kernel", i32 1}
!2 = !{ptr @two_buffers, !"kernel", i32 1}
!3 = !{ptr @offset_too, !"kernel", i32 1}
!4 = !{ptr @two_terms, !"kernel", i32 1}
