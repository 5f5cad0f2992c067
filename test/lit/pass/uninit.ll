; uninit=1 (KOSAN_OPTIONS): every global load through a kernel argument or a
; pointer of unknown provenance compares what it read with the fill of fresh
; allocations (KOSAN_UNINIT_PATTERN 0xfff5fff5, in each 2-, 4- or 8-byte
; element: -11 as i16, -655371 as i32, -2814792717434891 as i64; a vector
; load any of its lanes), and when it matches and the launch has
; KOSAN_LAUNCH_UNINIT (flags & 8) records an event at the load's site with
; bit 31 set in the site id (KOSAN_SITE_UNINIT_BIT). The branch right after
; the load tests the flag alone, never the loaded value, so that the loads
; after it need not wait for this one's data (a branch on the value would
; serialise a thread's loads when uninit is off); the compare is behind it.
; Kernels record inline;
; device functions that stay out of line call __kosan_oob_record. One-byte
; loads are not checked. -kosan-uninit=0 leaves all of it out.

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-link-runtime=false -S < %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-link-runtime=false -kosan-uninit=0 -S < %s | FileCheck %s --check-prefix=OFF

; OFF-NOT: kosan.uninit
; OFF-NOT: __kosan_oob_record

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @loads(ptr %f32, ptr %f16, ptr %v4, ptr %i64, ptr %bytes, ptr %out, i64 %i) {
entry:
  %pa = getelementptr inbounds float, ptr %f32, i64 %i
  %a = load float, ptr %pa, align 4
  %pb = getelementptr inbounds half, ptr %f16, i64 %i
  %b = load half, ptr %pb, align 2
  %pc = getelementptr inbounds <4 x float>, ptr %v4, i64 %i
  %c = load <4 x float>, ptr %pc, align 16
  %pd = getelementptr inbounds i64, ptr %i64, i64 %i
  %d = load i64, ptr %pd, align 8
  %pe = getelementptr inbounds i8, ptr %bytes, i64 %i
  %e = load i8, ptr %pe, align 1
  %bx = fpext half %b to float
  %c0 = extractelement <4 x float> %c, i32 0
  %s1 = fadd float %a, %bx
  %s2 = fadd float %s1, %c0
  %df = sitofp i64 %d to float
  %s3 = fadd float %s2, %df
  %ef = uitofp i8 %e to float
  %s4 = fadd float %s3, %ef
  %po = getelementptr inbounds float, ptr %out, i64 %i
  store float %s4, ptr %po, align 4
  %r = call float @helper(ptr %f32, i64 %i)
  store float %r, ptr %out, align 4
  ret void
}

define float @helper(ptr %p, i64 %i) noinline {
entry:
  %q = getelementptr inbounds float, ptr %p, i64 %i
  %v = load float, ptr %q, align 4
  ret float %v
}

!nvvm.annotations = !{!0}
!0 = !{ptr @loads, !"kernel", i32 1}

; CHECK-LABEL: define ptx_kernel void @loads__kosan(
; The launch's flag, tested once at the entry.
; CHECK:       %kosan.flags = load i32
; CHECK-NEXT:  [[FA:%[0-9]+]] = and i32 %kosan.flags, 8
; CHECK-NEXT:  %kosan.uninit.on = icmp ne i32 [[FA]], 0
; The f32 load: a branch on the flag alone, then its bits against the pattern.
; CHECK:       %a = load float, ptr %kosan.safe
; CHECK-NEXT:  br i1 %kosan.uninit.on, label %kosan.uninit.test, label
; CHECK:     kosan.uninit.test:
; CHECK-NEXT:  [[A:%[0-9]+]] = bitcast float %a to i32
; CHECK-NEXT:  %kosan.uninit = icmp eq i32 [[A]], -655371
; CHECK-NEXT:  {{%[0-9]+}} = ptrtoint ptr %kosan.safe to i64
; CHECK:       br i1 %kosan.uninit, label %kosan.record{{[0-9]*}}, label
; The event's key: launch << 32 | (site | 0x80000000), plus one.
; CHECK:       or i64 {{%[0-9]+}}, 2147483648
; CHECK:       %b = load half
; CHECK:       bitcast half %b to i16
; CHECK-NEXT:  icmp eq i16 {{%[0-9]+}}, -11
; CHECK:       %c = load <4 x float>
; CHECK:       [[C:%[0-9]+]] = bitcast <4 x float> %c to <4 x i32>
; CHECK-NEXT:  [[EQC:%[0-9]+]] = icmp eq <4 x i32> [[C]], <i32 -655371, i32 -655371, i32 -655371, i32 -655371>
; CHECK-NEXT:  call i1 @llvm.vector.reduce.or.v4i1(<4 x i1> [[EQC]])
; CHECK:       %d = load i64
; CHECK:     kosan.uninit.test{{[0-9]+}}:
; CHECK-NEXT:  %kosan.uninit{{[0-9]+}} = icmp eq i64 %d, -2814792717434891
; The byte load is bounds-checked only.
; CHECK:       %e = load i8
; CHECK-NOT:   icmp eq i8
; CHECK:       ret void

; CHECK-LABEL: define float @helper__kosan(
; CHECK-NEXT:  entry:
; CHECK-NEXT:  [[FH:%[0-9]+]] = and i32 %kosan.flags, 8
; CHECK-NEXT:  %kosan.uninit.on = icmp ne i32 [[FH]], 0
; CHECK:       %v = load float
; CHECK-NEXT:  br i1 %kosan.uninit.on, label %kosan.uninit.test, label
; CHECK:     kosan.uninit.test:
; CHECK:       %kosan.uninit = icmp eq i32 {{%[0-9]+}}, -655371
; CHECK:       br i1 %kosan.uninit, label %kosan.record, label
; CHECK:     kosan.record:
; CHECK-NEXT:  call void @__kosan_oob_record(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 {{-[0-9]+}}, i64 {{%[0-9]+}}, i32 4)
