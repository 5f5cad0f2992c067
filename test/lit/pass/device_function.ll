; Device functions are cloned too, so that the original kernel, and every
; function it calls, stays exactly as compiled. F__kosan takes the launch
; context as four trailing parameters (state: i64, launch id: i32, flags: i32,
; dynamic shared memory bytes: i64); every call from an instrumented clone
; goes to the callee's clone and passes the context along. A device function
; does not know which kernel argument its pointer parameters came from, so
; accesses through them are checked against the table.

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob -kosan-link-runtime=false -S < %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefix=ORIG

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define internal float @f(ptr %p, i64 %i) #0 {
entry:
  %q = getelementptr inbounds float, ptr %p, i64 %i
  %v = load float, ptr %q, align 4
  %r = call float @g(ptr %q)
  %s = fadd float %v, %r
  ret float %s
}

define float @g(ptr %p) #0 {
  %v = load float, ptr %p, align 4
  ret float %v
}

define void @k(ptr %a, ptr %out, i64 %i) {
entry:
  %v = call float @f(ptr noundef %a, i64 %i) #1
  store float %v, ptr %out, align 4
  ret void
}

attributes #0 = { noinline nounwind memory(argmem: read) willreturn nosync }
attributes #1 = { nounwind memory(argmem: read) }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}

; The originals are untouched: f still calls g, k still calls f.
; ORIG-LABEL: define internal float @f(ptr %p, i64 %i)
; ORIG-NEXT:  entry:
; ORIG-NEXT:    %q = getelementptr inbounds float, ptr %p, i64 %i
; ORIG-NEXT:    %v = load float, ptr %q, align 4
; ORIG-NEXT:    %r = call float @g(ptr %q)
; ORIG-NEXT:    %s = fadd float %v, %r
; ORIG-NEXT:    ret float %s
; ORIG-LABEL: define float @g(ptr %p)
; ORIG-NEXT:    %v = load float, ptr %p, align 4
; ORIG-NEXT:    ret float %v
; ORIG-LABEL: define void @k(ptr %a, ptr %out, i64 %i)
; ORIG-NEXT:  entry:
; ORIG-NEXT:    %v = call float @f(ptr noundef %a, i64 %i)
; ORIG-NEXT:    store float %v, ptr %out, align 4
; ORIG-NEXT:    ret void

; The kernel clone calls f's clone with the context it read from the launch
; info; argument attributes stay, the call's memory() promise goes.
; CHECK-LABEL: define ptx_kernel void @k__kosan(ptr %a, ptr %out, i64 %i, ptr byval([19 x i64]) align 8 %kosan.launch_info)
; CHECK:         %kosan.state = load i64
; CHECK:         %kosan.launch_id = load i32
; CHECK:         %kosan.flags = load i32
; CHECK:         %kosan.dyn_smem = load i64
; CHECK:         %v = call float @f__kosan(ptr noundef %a, i64 %i, i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i64 %kosan.dyn_smem) #[[CALLATTR:[0-9]+]]
; CHECK-NOT:     call float @f(
; The store in the kernel itself still uses argument 1's bounds.
; CHECK:         kosan.record.write{{[0-9]*}}:
; CHECK:         getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg1.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg1.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 {{.*}}, ptr {{%.*}}, align 4
; CHECK:         call void @llvm.trap()
; CHECK:         ret void

; CHECK-LABEL: define internal float @f__kosan(ptr %p, i64 %i, i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i64 %kosan.dyn_smem)
; CHECK-SAME:    #[[FNATTR:[0-9]+]]
; CHECK:         %q = getelementptr inbounds float, ptr %p, i64 %i
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %q to i64
; CHECK-NEXT:    br label %kosan.slow
; CHECK:         call i1 @__kosan_oob_check_table(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 {{[0-9]+}}, i64 %kosan.addr, i32 4)
; CHECK-NOT:     kosan.record
; Calls between device functions go clone to clone, with the same context.
; CHECK:         %r = call float @g__kosan(ptr %q, i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i64 %kosan.dyn_smem)
; CHECK:         ret float %s

; CHECK-LABEL: define float @g__kosan(ptr %p, i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i64 %kosan.dyn_smem)
; CHECK-SAME:    #[[FNATTR]]
; CHECK:         %kosan.addr = ptrtoint ptr %p to i64
; CHECK-NEXT:    br label %kosan.slow
; CHECK:         call i1 @__kosan_oob_check_table(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 {{[0-9]+}}, i64 %kosan.addr, i32 4)

; The clones lose memory(), nosync and willreturn: they call the runtime.
; CHECK-DAG:   attributes #[[FNATTR]] = { noinline nounwind }
; CHECK-DAG:   attributes #[[CALLATTR]] = { nounwind }
