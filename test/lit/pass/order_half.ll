; checks=order through cuda_fp16.h/cuda_bf16.h: their conversions and half
; arithmetic are inline PTX on i16/i32 registers, and get fingerprints by the
; rules of the IR operations they stand for. cvt.rn to a half is fptrunc
; (one-operand: combine(op, fa, salt)), a widening cvt keeps its operand's
; fingerprint, add.f16 is fadd, fma.rn.f16x2 fma lane by lane; other roundings
; are operations of their own. A half read from a kernel parameter is a leaf
; as a float is, and a half stored to global memory is recorded with its
; type (f16, bf16), lane by lane for a packed pair.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-order \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s
; Constants fold to what kosan-fp computes with the host's arithmetic.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-order,instcombine \
; RUN:   -kosan-link-runtime=false -S < %s > %t.folded
; RUN: %kosan-fp --label NARROW unary fptrunc.f16 f32 1.5 > %t.expected
; RUN: %kosan-fp --label RZ unary cvt.rz.f16.f32 f32 1.5 >> %t.expected
; RUN: %kosan-fp --label BF unary fptrunc.bf16 f32 1.5 >> %t.expected
; RUN: %kosan-fp --label HADD comm fadd f16 0x3c00 f16 0x4000 >> %t.expected
; RUN: %kosan-fp --label WIDE comm fadd f16 0x3c00 f32 2.0 >> %t.expected
; RUN: cat %t.expected %t.folded | FileCheck %s --check-prefix=FOLD
; The whole pipeline, all checks: the module stays valid.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='default<O2>' \
; RUN:   -kosan-checks=oob,precision,order -kosan-link-runtime=false -disable-output < %s

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; y[i] = __float2half(x[i] * 2.0f)
define void @narrow(ptr %x, ptr %y, i32 %i) {
  %px = getelementptr inbounds float, ptr %x, i32 %i
  %v = load float, ptr %px, align 4
  %m = fmul float %v, 2.000000e+00
  %h = call i16 asm "{  cvt.rn.f16.f32 $0, $1;}\0A", "=h,f"(float %m)
  %py = getelementptr inbounds i16, ptr %y, i32 %i
  store i16 %h, ptr %py, align 2
  ret void
}

; out[i] = __half2float(x[i]) + __half2float(x[i + 1])
define void @widen(ptr %x, ptr %out, i32 %i) {
  %p0 = getelementptr inbounds i16, ptr %x, i32 %i
  %h0 = load i16, ptr %p0, align 2
  %f0 = call float asm "{  cvt.f32.f16 $0, $1;}\0A", "=f,h"(i16 %h0)
  %i1 = add i32 %i, 1
  %p1 = getelementptr inbounds i16, ptr %x, i32 %i1
  %h1 = load i16, ptr %p1, align 2
  %f1 = call float asm "{  cvt.f32.f16 $0, $1;}\0A", "=f,h"(i16 %h1)
  %s = fadd float %f0, %f1
  %po = getelementptr inbounds float, ptr %out, i32 %i
  store float %s, ptr %po, align 4
  ret void
}

; acc = __hadd(acc, x[k]) for k < n; y[0] = acc (bf16)
define void @hsum(ptr %x, ptr %y, i32 %n) {
entry:
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %k.next, %loop ]
  %acc = phi i16 [ 0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr inbounds i16, ptr %x, i32 %k
  %v = load i16, ptr %p, align 2
  %acc.next = call i16 asm "{ add.bf16 $0,$1,$2;\0A}\0A", "=h,h,h"(i16 %acc, i16 %v)
  %k.next = add i32 %k, 1
  %done = icmp eq i32 %k.next, %n
  br i1 %done, label %exit, label %loop

exit:
  store i16 %acc.next, ptr %y, align 2
  ret void
}

; out[i] = __floats2half2_rn(a[i], b[i]): two halves in one store
define void @pack(ptr %a, ptr %b, ptr %out, i32 %i) {
  %pa = getelementptr inbounds float, ptr %a, i32 %i
  %va = load float, ptr %pa, align 4
  %pb = getelementptr inbounds float, ptr %b, i32 %i
  %vb = load float, ptr %pb, align 4
  %h2 = call i32 asm "{ cvt.rn.f16x2.f32 $0, $2, $1; }\0A", "=r,f,f"(float %va, float %vb)
  %po = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %h2, ptr %po, align 4
  ret void
}

; An i16 that no half operation touches is not a float: no record.
define void @shorts(ptr %x, ptr %y) {
  %v = load i16, ptr %x, align 2
  %w = add i16 %v, 1
  store i16 %w, ptr %y, align 2
  ret void
}

; Constants only: the fingerprints fold.
define void @consts(ptr %y, ptr %out) {
  %h = call i16 asm "{  cvt.rn.f16.f32 $0, $1;}\0A", "=h,f"(float 1.500000e+00)
  store i16 %h, ptr %y, align 2
  ; fptrunc in the IR: the same operation, the same fingerprint
  %t = fptrunc float 1.500000e+00 to half
  %y1 = getelementptr inbounds half, ptr %y, i32 1
  store half %t, ptr %y1, align 2
  %z = call i16 asm "{  cvt.rz.f16.f32 $0, $1;}\0A", "=h,f"(float 1.500000e+00)
  %y2 = getelementptr inbounds i16, ptr %y, i32 2
  store i16 %z, ptr %y2, align 2
  %b = call i16 asm "{  cvt.rn.bf16.f32 $0, $1;}\0A", "=h,f"(float 1.500000e+00)
  %y3 = getelementptr inbounds i16, ptr %y, i32 3
  store i16 %b, ptr %y3, align 2
  ; __hadd(1, 2), and fadd half in the IR
  %s = call i16 asm "{ add.f16 $0,$1,$2;\0A}\0A", "=h,h,h"(i16 15360, i16 16384)
  %y4 = getelementptr inbounds i16, ptr %y, i32 4
  store i16 %s, ptr %y4, align 2
  %si = fadd half 0xH3C00, 0xH4000
  %y5 = getelementptr inbounds half, ptr %y, i32 5
  store half %si, ptr %y5, align 2
  ; __half2float(1) + 2: widening is exact
  %w = call float asm "{  cvt.f32.f16 $0, $1;}\0A", "=f,h"(i16 15360)
  %wa = fadd float %w, 2.000000e+00
  store float %wa, ptr %out, align 4
  ret void
}

; atomicAdd(&out[0], __float2half(x[i])): the contribution's fingerprint is
; the conversion's.
define void @hatomic(ptr %x, ptr %out, i32 %i) {
  %px = getelementptr inbounds float, ptr %x, i32 %i
  %v = load float, ptr %px, align 4
  %h = call i16 asm "{  cvt.rn.f16.f32 $0, $1;}\0A", "=h,f"(float %v)
  %old = call i16 asm sideeffect "{ atom.add.noftz.f16 $0,[$1],$2; }\0A", "=h,l,h,~{memory}"(ptr %out, i16 %h)
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5, !6}
!0 = !{ptr @narrow, !"kernel", i32 1}
!1 = !{ptr @widen, !"kernel", i32 1}
!2 = !{ptr @hsum, !"kernel", i32 1}
!3 = !{ptr @pack, !"kernel", i32 1}
!4 = !{ptr @shorts, !"kernel", i32 1}
!5 = !{ptr @consts, !"kernel", i32 1}
!6 = !{ptr @hatomic, !"kernel", i32 1}

; Store sites (access 9, global, then the element type): y of @narrow f16
; (3), out of @widen f32 (2), y of @hsum bf16 (4), out of @pack f16.
; CHECK: @__kosan_site_table = {{.*}}\09\00\00\00\00\00\00\00\03\00\00\00{{.*}}\09\00\00\00\00\00\00\00\02\00\00\00{{.*}}\09\00\00\00\00\00\00\00\04\00\00\00{{.*}}\09\00\00\00\00\00\00\00\03\00\00\00

; The leaf of x[i], then the fmul's fingerprint; cvt.rn.f16.f32 is one
; operation on it: rotate, xor the salt and fptrunc.f16's code, multiply.
; CHECK-LABEL: define ptx_kernel void @narrow__kosan(
; CHECK:         %m = fmul float %v, 2.000000e+00
; CHECK:         [[MFP:%[0-9]+]] = mul i64 {{%[0-9]+}}, -7046029254386353131
; CHECK-NEXT:    %h = call i16 asm "{  cvt.rn.f16.f32 $0, $1;}\0A", "=h,f"(float %m)
; CHECK-NEXT:    [[ROT:%[0-9]+]] = call i64 @llvm.fshl.i64(i64 [[MFP]], i64 [[MFP]], i64 23)
; CHECK-NEXT:    [[S:%[0-9]+]] = xor i64 [[ROT]], 2685821657736338717
; CHECK-NEXT:    [[O:%[0-9]+]] = xor i64 [[S]], {{-?[0-9]+}}
; CHECK-NEXT:    [[HFP:%[0-9]+]] = mul i64 [[O]], -7046029254386353131
; The i16 store is recorded: argument 1, the half's fingerprint, in the
; output's shadow, or past it through the runtime.
; CHECK:         [[WHERE:%[0-9]+]] = or i64 {{%[0-9]+}}, 281474976710656
; CHECK:         store i64 [[HFP]], ptr addrspace(1) {{%[0-9]+}}, align 8, !nosanitize
; CHECK:         call void @__kosan_order_store(i64 %kosan.state, i64 [[WHERE]], i64 [[HFP]])
; CHECK:         store i16 %h, ptr %py, align 2

; A half read from a kernel parameter is a leaf (its offset, or its bits with
; f16's salt); cvt.f32.f16 passes the leaf on: the fadd sorts the two leaves.
; CHECK-LABEL: define ptx_kernel void @widen__kosan(
; CHECK:         %h0 = load i16, ptr %p0, align 2
; CHECK-NEXT:    [[X0:%[0-9]+]] = ptrtoint ptr %x to i64
; CHECK-NEXT:    [[P0:%[0-9]+]] = ptrtoint ptr %p0 to i64
; CHECK-NEXT:    [[OFF0:%[0-9]+]] = sub i64 [[P0]], [[X0]]
; CHECK-NEXT:    [[POS0:%[0-9]+]] = xor i64 [[OFF0]], 7905728728188956330
; CHECK-NEXT:    [[B0:%[0-9]+]] = zext i16 %h0 to i64
; CHECK-NEXT:    [[V0:%[0-9]+]] = xor i64 [[B0]], -7507419510996921877
; CHECK-NEXT:    [[W0:%[0-9]+]] = select i1 %kosan.value_leaves, i64 [[V0]], i64 [[POS0]]
; CHECK-NEXT:    [[M0:%[0-9]+]] = mul i64 [[W0]], -4658895280553007687
; CHECK-NEXT:    [[SH0:%[0-9]+]] = lshr i64 [[M0]], 29
; CHECK-NEXT:    [[L0:%[0-9]+]] = xor i64 [[M0]], [[SH0]]
; CHECK-NEXT:    %f0 = call float asm "{  cvt.f32.f16 $0, $1;}\0A", "=f,h"(i16 %h0)
; CHECK-NEXT:    %i1 = add i32 %i, 1
; CHECK:         [[L1:%[0-9]+]] = xor i64 [[M1:%[0-9]+]], {{%[0-9]+}}
; CHECK-NEXT:    %f1 = call float asm
; CHECK-NEXT:    %s = fadd float %f0, %f1
; CHECK-NEXT:    {{%[0-9]+}} = icmp ult i64 [[L0]], [[L1]]

; A half accumulator: a fingerprint phi beside the i16 phi, add.bf16 is fadd,
; the bf16 leaf has bf16's salt; the store of the sum is recorded.
; CHECK-LABEL: define ptx_kernel void @hsum__kosan(
; CHECK:         %acc = phi i16 [ 0, [[PRE:%[0-9a-z]+]] ], [ %acc.next, %loop ]
; CHECK-NEXT:    %acc.fp = phi i64 [ {{-?[0-9]+}}, [[PRE]] ], [ [[ACC:%[0-9]+]], %loop ]
; CHECK:         xor i64 {{%[0-9]+}}, -8011822669262417429
; CHECK:         %acc.next = call i16 asm "{ add.bf16 $0,$1,$2;\0A}\0A", "=h,h,h"(i16 %acc, i16 %v)
; CHECK-NEXT:    {{%[0-9]+}} = icmp ult i64 %acc.fp, [[VFP:%[0-9]+]]
; CHECK:         [[ACC]] = mul i64
; CHECK:       exit:
; CHECK:         call void @__kosan_order_store(i64 %kosan.state, i64 {{%[0-9]+}}, i64 [[ACC]])
; CHECK-NEXT:    br label

; cvt.rn.f16x2.f32 $0, $2, $1: lane 0 (the low half) is %va's; two records,
; two bytes apart.
; CHECK-LABEL: define ptx_kernel void @pack__kosan(
; CHECK:         [[LA:%[0-9]+]] = xor i64 [[MA:%[0-9]+]], {{%[0-9]+}}
; CHECK-NEXT:    %pb = getelementptr
; CHECK:         [[LB:%[0-9]+]] = xor i64 [[MB:%[0-9]+]], {{%[0-9]+}}
; CHECK-NEXT:    %h2 = call i32 asm
; CHECK-NEXT:    [[V0:%[0-9]+]] = insertelement <2 x i64> poison, i64 [[LA]], i64 0
; CHECK-NEXT:    [[V1:%[0-9]+]] = insertelement <2 x i64> [[V0]], i64 [[LB]], i64 1
; CHECK-NEXT:    call <2 x i64> @llvm.fshl.v2i64(<2 x i64> [[V1]], <2 x i64> [[V1]], <2 x i64> <i64 23, i64 23>)
; CHECK:         [[PFP:%[0-9]+]] = mul <2 x i64>
; CHECK:         [[PW:%[0-9]+]] = or i64 {{%[0-9]+}}, 562949953421312
; CHECK-NEXT:    [[E0:%[0-9]+]] = extractelement <2 x i64> [[PFP]], i64 0
; CHECK:         store i64 [[E0]], ptr addrspace(1)
; CHECK:         call void @__kosan_order_store(i64 %kosan.state, i64 [[PW]], i64 [[E0]])
; CHECK:         [[PW2:%[0-9]+]] = add i64 [[PW]], 2
; CHECK-NEXT:    [[E1:%[0-9]+]] = extractelement <2 x i64> [[PFP]], i64 1
; CHECK:         store i64 [[E1]], ptr addrspace(1)
; CHECK:         call void @__kosan_order_store(i64 %kosan.state, i64 [[PW2]], i64 [[E1]])
; CHECK:         store i32 %h2

; CHECK-LABEL: define ptx_kernel void @shorts__kosan(
; CHECK-NOT:     __kosan_order_store
; CHECK:         ret void

; CHECK-LABEL: define ptx_kernel void @hatomic__kosan(
; CHECK:         %h = call i16 asm
; CHECK:         [[AFP:%[0-9]+]] = mul i64 {{%[0-9]+}}, -7046029254386353131
; CHECK-NEXT:    %old = call i16 asm sideeffect "{ atom.add.noftz.f16
; CHECK:         call void @__kosan_order_atomic(i64 %kosan.state, i64 {{%[0-9]+}}, i64 [[AFP]], i64 {{%[0-9]+}}, i64 {{%[0-9]+}})

; FOLD: NARROW [[NARROW:-?[0-9]+]]
; FOLD: RZ [[RZ:-?[0-9]+]]
; FOLD: BF [[BF:-?[0-9]+]]
; FOLD: HADD [[HADD:-?[0-9]+]]
; FOLD: WIDE [[WIDE:-?[0-9]+]]
; FOLD-LABEL: define ptx_kernel void @consts__kosan(
; cvt.rn.f16.f32 and fptrunc: one fingerprint; cvt.rz another.
; FOLD:         call void @__kosan_order_store(i64 %kosan.state, i64 0, i64 [[NARROW]])
; FOLD:         call void @__kosan_order_store(i64 %kosan.state, i64 2, i64 [[NARROW]])
; FOLD:         call void @__kosan_order_store(i64 %kosan.state, i64 4, i64 [[RZ]])
; FOLD:         call void @__kosan_order_store(i64 %kosan.state, i64 6, i64 [[BF]])
; add.f16 and fadd half: one fingerprint.
; FOLD:         call void @__kosan_order_store(i64 %kosan.state, i64 8, i64 [[HADD]])
; FOLD:         call void @__kosan_order_store(i64 %kosan.state, i64 10, i64 [[HADD]])
; __half2float(1) + 2: fadd of the half's label and 2.
; FOLD:         call void @__kosan_order_store(i64 %kosan.state, i64 281474976710656, i64 [[WIDE]])
