; Every checked access also tests that its address is aligned as the GPU
; needs for the instruction the backend emits (it faults with "misaligned
; address" otherwise): the access size capped at 16 bytes (ld.v4.f32), lowered
; to the alignment the IR promises (a <4 x float> load with align 4 is four
; scalar loads). A misaligned access goes to the sink, as an out-of-bounds one
; does, and is reported (the host calls an event inside its bounds
; misaligned-access). Where what the access adds to a kernel argument keeps
; the alignment (x + 16*i), the argument alone decides: tested once at entry.
; Addresses proven aligned (a shared array and a scaled index), one-byte
; accesses and -kosan-misaligned=0 get no test.

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -passes=kosan-oob,verify -kosan-link-runtime=false -kosan-uninit=0 -S < %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -passes=kosan-oob,verify -kosan-link-runtime=false -kosan-uninit=0 -kosan-misaligned=0 -S < %s | FileCheck %s --check-prefix=OFF

; OFF-NOT: misaligned

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [256 x float] undef, align 16

define void @k(ptr %x, ptr %y, ptr %bytes, ptr %v2, i64 %i, i64 %off) {
entry:
  %px = getelementptr inbounds <4 x float>, ptr %x, i64 %i
  %a = load <4 x float>, ptr %px, align 16
  %py = getelementptr inbounds <4 x float>, ptr %y, i64 %i
  store <4 x float> %a, ptr %py, align 16
  %pb = getelementptr inbounds i8, ptr %bytes, i64 %off
  store float 1.0, ptr %pb, align 4
  %pe = getelementptr inbounds i8, ptr %bytes, i64 %i
  store i8 1, ptr %pe, align 1
  %pv = getelementptr inbounds <4 x float>, ptr %v2, i64 %i
  %w = load <4 x float>, ptr %pv, align 4
  store <4 x float> %w, ptr %py, align 4
  %ps = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %i
  %s = load float, ptr addrspace(3) %ps, align 4
  store float %s, ptr %y, align 4
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}

; CHECK-LABEL: define ptx_kernel void @k__kosan(
; At entry, once per argument and alignment: y for 4 and 16 bytes, v2 for 4
; (its <4 x float> access promises only 4), x for 16.
; CHECK-DAG:   [[Y4:%[0-9]+]] = ptrtoint ptr %y to i64
; CHECK-DAG:   [[Y4A:%[0-9]+]] = and i64 [[Y4]], 3
; CHECK-DAG:   %[[YMIS4:kosan.arg.misaligned[0-9]*]] = icmp ne i64 [[Y4A]], 0
; CHECK-DAG:   [[V:%[0-9]+]] = ptrtoint ptr %v2 to i64
; CHECK-DAG:   [[VA:%[0-9]+]] = and i64 [[V]], 3
; CHECK-DAG:   %[[VMIS:kosan.arg.misaligned[0-9]*]] = icmp ne i64 [[VA]], 0
; CHECK-DAG:   [[X:%[0-9]+]] = ptrtoint ptr %x to i64
; CHECK-DAG:   [[XA:%[0-9]+]] = and i64 [[X]], 15
; CHECK-DAG:   %[[XMIS:kosan.arg.misaligned[0-9]*]] = icmp ne i64 [[XA]], 0
; CHECK-DAG:   [[Y16:%[0-9]+]] = and i64 {{%[0-9]+}}, 15
; The float4 load of x: bad when out of bounds or x is misaligned.
; CHECK:       %kosan.bad.or.misaligned = or i1 %kosan.bad, %[[XMIS]]
; CHECK:       %kosan.safe = select i1 %kosan.bad.or.misaligned, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %px
; CHECK-NEXT:  %a = load <4 x float>, ptr %kosan.safe, align 16
; The report records the event when the access is misaligned too: the
; report function takes the test, misalignment included.
; CHECK:       kosan.report:
; CHECK:       %kosan.what = zext i1 %kosan.bad.or.misaligned to i32
; CHECK-NEXT:  %kosan.ok = call i1 @__kosan_oob_report({{.*}}, i32 %kosan.what)
; A float at a byte offset the pass cannot see: its own address is tested.
; CHECK:       %kosan.addr{{[0-9]+}} = ptrtoint ptr %pb to i64
; CHECK:       [[PB:%[0-9]+]] = and i64 %kosan.addr{{[0-9]+}}, 3
; CHECK-NEXT:  %kosan.misaligned = icmp ne i64 [[PB]], 0
; CHECK-NEXT:  %kosan.bad.or.misaligned{{[0-9]+}} = or i1 %kosan.bad{{[0-9]+}}, %kosan.misaligned
; One byte: bounds only.
; CHECK:       %kosan.safe{{[0-9]+}} = select i1 %kosan.bad{{[0-9]+}}, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %pe
; CHECK:       %kosan.bad.or.misaligned{{[0-9]+}} = or i1 %kosan.bad{{[0-9]+}}, %[[VMIS]]
; CHECK:       %kosan.safe{{[0-9]+}} = select i1 %kosan.bad.or.misaligned{{[0-9]+}}, {{.*}}, ptr %pv
; The shared tile is aligned by construction: bounds only.
; CHECK:       %kosan.safe{{[0-9]+}} = select i1 %kosan.bad{{[0-9]+}}, ptr addrspace(3) @__kosan_shared_sink, ptr addrspace(3) %ps
