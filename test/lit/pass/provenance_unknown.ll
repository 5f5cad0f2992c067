; A pointer whose object the pass cannot name (loaded from memory, computed
; from an integer, or choosing between two different buffers) is checked
; against the runtime's table of every known buffer: no inline compare, an
; unconditional call to __kosan_oob_check_table(state, launch, flags, site,
; addr, size). A select or phi between pointers into the same argument is
; still that argument, with its cheap launch-info bounds.
; (-kosan-uninit=0: the uninit compare after each global load has its own
; test, uninit.ll, and would only interleave with the checks here.)

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob -kosan-misaligned=0 -kosan-link-runtime=false -kosan-uninit=0 -S < %s | FileCheck %s
; Table checks keep their control flow and redirect nothing: a module whose
; only checked access goes to the table gets no sink.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob -kosan-misaligned=0 -kosan-link-runtime=false -kosan-uninit=0 -kosan-debug-func=from_struct -S < %s \
; RUN:   | FileCheck %s --check-prefix=TABLEONLY --implicit-check-not=sink
; TABLEONLY: define ptx_kernel void @from_struct__kosan(
; TABLEONLY: call i1 @__kosan_oob_check_table(

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.Params = type { ptr, ptr, i32 }
@gp = addrspace(1) global ptr null, align 8

; struct Params { float *in, *out; int n; } passed by value: the pointer
; field is loaded from the parameter, so its buffer is unknown. The load of
; the field itself is at a constant offset inside the byval parameter and
; needs no check.
define void @from_struct(ptr byval(%struct.Params) align 8 %prm, i64 %i) {
entry:
  %f1 = getelementptr inbounds %struct.Params, ptr %prm, i64 0, i32 1
  %data = load ptr, ptr %f1, align 8
  %p = getelementptr inbounds float, ptr %data, i64 %i
  store float 1.0, ptr %p, align 4
  ret void
}
; CHECK-LABEL: define ptx_kernel void @from_struct__kosan(
; CHECK:         %data = load ptr, ptr %f1, align 8
; CHECK-NEXT:    %p = getelementptr inbounds float, ptr %data, i64 %i
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %p to i64
; CHECK-NEXT:    br label %kosan.slow
; CHECK:       kosan.access:
; CHECK-NEXT:    store float 1.000000e+00, ptr %p, align 4
; CHECK:       kosan.slow:
; CHECK-NEXT:    [[OK:%.*]] = call i1 @__kosan_oob_check_table(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 0, i64 %kosan.addr, i32 4)
; CHECK-NEXT:    br i1 [[OK]], label %kosan.access, label %kosan.skip
; CHECK-NOT:     kosan.record
; CHECK:         ret void

; select(c, a, b) of two different arguments: either buffer may be meant.
; The other access, through a alone, keeps its argument bounds.
define void @select_two(ptr %a, ptr %b, i1 %c, i64 %i) {
entry:
  %s = select i1 %c, ptr %a, ptr %b
  %p = getelementptr inbounds i32, ptr %s, i64 %i
  %v = load i32, ptr %p, align 4
  %q = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 %v, ptr %q, align 4
  ret void
}
; CHECK-LABEL: define ptx_kernel void @select_two__kosan(
; CHECK:         %s = select i1 %c, ptr %a, ptr %b
; CHECK-NEXT:    %p = getelementptr inbounds i32, ptr %s, i64 %i
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %p to i64
; CHECK-NEXT:    br label %kosan.slow
; CHECK:         call i1 @__kosan_oob_check_table(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 1, i64 %kosan.addr, i32 4)
; A load checked against the table still yields zero when dropped.
; CHECK:         %v.kosan = phi i32 [ %v, %kosan.access ], [ 0, %kosan.skip ]
; CHECK:         icmp ult i64 %kosan.addr1, %kosan.arg0.begin
; CHECK:         [[SAFE:%kosan.safe[0-9]*]] = select i1 %kosan.bad{{[0-9]*}}, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %q
; CHECK-NEXT:    store i32 %v.kosan, ptr [[SAFE]], align 4
; CHECK:         kosan.record.write{{[0-9]*}}:
; CHECK:         store i64 %kosan.addr1, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 4, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 2
; CHECK:         call void @llvm.trap()
; CHECK-NOT:     %kosan.arg1.
; CHECK:         ret void

; The same with a phi.
define void @phi_two(ptr %a, ptr %b, i1 %c) {
entry:
  br i1 %c, label %t, label %f
t:
  br label %j
f:
  br label %j
j:
  %p = phi ptr [ %a, %t ], [ %b, %f ]
  store i8 0, ptr %p, align 1
  ret void
}
; CHECK-LABEL: define ptx_kernel void @phi_two__kosan(
; CHECK:         %p = phi ptr [ %a, %t ], [ %b, %f ]
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %p to i64
; CHECK-NEXT:    br label %kosan.slow
; CHECK:         call i1 @__kosan_oob_check_table({{.*}}, i32 3, i64 %kosan.addr, i32 1)
; CHECK-NOT:     kosan.record
; CHECK:         ret void

; A phi of a and a + i is argument 0.
define void @phi_same(ptr %a, i1 %c, i64 %i) {
entry:
  br i1 %c, label %t, label %f
t:
  %ai = getelementptr inbounds i8, ptr %a, i64 %i
  br label %j
f:
  br label %j
j:
  %p = phi ptr [ %ai, %t ], [ %a, %f ]
  store i8 0, ptr %p, align 1
  ret void
}
; CHECK-LABEL: define ptx_kernel void @phi_same__kosan(
; CHECK:         %p = phi ptr [ %ai, %t ], [ %a, %f ]
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %p to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 1
; CHECK-NEXT:    icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK:         kosan.record.write{{[0-9]*}}:
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 1, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 4
; CHECK:         call void @llvm.trap()
; CHECK-NOT:     @__kosan_oob_check_table
; CHECK:         ret void

; A pointer read from a __device__ variable.
define void @from_global(i64 %i) {
entry:
  %data = load ptr, ptr addrspace(1) @gp, align 8
  %p = getelementptr inbounds double, ptr %data, i64 %i
  %v = load double, ptr %p, align 8
  ret void
}
; CHECK-LABEL: define ptx_kernel void @from_global__kosan(
; CHECK:         %data = load ptr, ptr addrspace(1) @gp, align 8
; CHECK-NEXT:    %p = getelementptr inbounds double, ptr %data, i64 %i
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %p to i64
; CHECK-NEXT:    br label %kosan.slow
; CHECK:         call i1 @__kosan_oob_check_table({{.*}}, i32 5, i64 %kosan.addr, i32 8)
; CHECK:         ret void

; A pointer made from an integer.
define void @from_int(i64 %addr) {
entry:
  %p = inttoptr i64 %addr to ptr
  store i16 1, ptr %p, align 2
  ret void
}
; CHECK-LABEL: define ptx_kernel void @from_int__kosan(
; CHECK:         %p = inttoptr i64 %addr to ptr
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %p to i64
; CHECK-NEXT:    br label %kosan.slow
; CHECK:         call i1 @__kosan_oob_check_table({{.*}}, i32 6, i64 %kosan.addr, i32 2)
; CHECK:         ret void

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5}
!0 = !{ptr @from_struct, !"kernel", i32 1}
!1 = !{ptr @select_two, !"kernel", i32 1}
!2 = !{ptr @phi_two, !"kernel", i32 1}
!3 = !{ptr @phi_same, !"kernel", i32 1}
!4 = !{ptr @from_global, !"kernel", i32 1}
!5 = !{ptr @from_int, !"kernel", i32 1}
