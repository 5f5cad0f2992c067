; A clone of a kernel without launch bounds is limited to 64 registers, so
; that it launches with any block size its original does. When the original
; holds few values at once (at most 24 32-bit values live at any point) and
; every check of the clone needs few registers of its own (the OOB check),
; the limit is 32, which keeps the original's occupancy: an SM holds 2048
; threads only at 32 registers each, and a streaming kernel at 64 runs a
; one-wave grid in two waves (saxpy in bench/kernels.cu, 2.3x).
; heavy holds 40 loaded values at once: 64. With the precision check (fp64
; shadows) every clone keeps 64. Launch bounds leave the limit to ptxas.

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -S < %s \
; RUN:   | FileCheck %s --check-prefix=OOB
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -S < %s \
; RUN:   | FileCheck %s --check-prefix=BOUNDED
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan -kosan-checks=oob,precision \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefix=BOTH
; -kosan-clone-registers sets the limit in place of 64; light clones keep 32.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-clone-registers=48 \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefix=SET
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan -kosan-checks=oob,precision \
; RUN:   -kosan-clone-registers=48 -kosan-link-runtime=false -S < %s \
; RUN:   | FileCheck %s --check-prefix=SET-BOTH

; OOB-DAG: !{ptr @light__kosan, !"maxnreg", i32 32}
; OOB-DAG: !{ptr @heavy__kosan, !"maxnreg", i32 64}
; BOUNDED-NOT: !{ptr @bounded__kosan, !"maxnreg"
; BOUNDED-NOT: !{ptr @own_limit__kosan, !"maxnreg", i32 32}
; A limit of the program's own stays as it is.
; OOB-DAG: !{ptr @own_limit__kosan, !"maxnreg", i32 64}
; BOTH-DAG: !{ptr @light__kosan, !"maxnreg", i32 64}
; BOTH-DAG: !{ptr @heavy__kosan, !"maxnreg", i32 64}
; SET-DAG: !{ptr @light__kosan, !"maxnreg", i32 32}
; SET-DAG: !{ptr @heavy__kosan, !"maxnreg", i32 48}
; SET-BOTH-DAG: !{ptr @light__kosan, !"maxnreg", i32 48}
; SET-BOTH-DAG: !{ptr @heavy__kosan, !"maxnreg", i32 48}

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define void @light(ptr %y, ptr %x, float %a) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %py = getelementptr inbounds float, ptr %y, i64 %i
  %vx = load float, ptr %px, align 4
  %vy = load float, ptr %py, align 4
  %m = fmul float %a, %vx
  %s = fadd float %m, %vy
  store float %s, ptr %py, align 4
  ret void
}

define void @own_limit(ptr %y) {
  store float 1.0, ptr %y, align 4
  ret void
}

define void @bounded(ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float 1.0, ptr %py, align 4
  ret void
}

define void @heavy(ptr %y, ptr %x) {
  %p0 = getelementptr inbounds float, ptr %x, i64 0
  %v0 = load volatile float, ptr %p0, align 4
  %p1 = getelementptr inbounds float, ptr %x, i64 64
  %v1 = load volatile float, ptr %p1, align 4
  %p2 = getelementptr inbounds float, ptr %x, i64 128
  %v2 = load volatile float, ptr %p2, align 4
  %p3 = getelementptr inbounds float, ptr %x, i64 192
  %v3 = load volatile float, ptr %p3, align 4
  %p4 = getelementptr inbounds float, ptr %x, i64 256
  %v4 = load volatile float, ptr %p4, align 4
  %p5 = getelementptr inbounds float, ptr %x, i64 320
  %v5 = load volatile float, ptr %p5, align 4
  %p6 = getelementptr inbounds float, ptr %x, i64 384
  %v6 = load volatile float, ptr %p6, align 4
  %p7 = getelementptr inbounds float, ptr %x, i64 448
  %v7 = load volatile float, ptr %p7, align 4
  %p8 = getelementptr inbounds float, ptr %x, i64 512
  %v8 = load volatile float, ptr %p8, align 4
  %p9 = getelementptr inbounds float, ptr %x, i64 576
  %v9 = load volatile float, ptr %p9, align 4
  %p10 = getelementptr inbounds float, ptr %x, i64 640
  %v10 = load volatile float, ptr %p10, align 4
  %p11 = getelementptr inbounds float, ptr %x, i64 704
  %v11 = load volatile float, ptr %p11, align 4
  %p12 = getelementptr inbounds float, ptr %x, i64 768
  %v12 = load volatile float, ptr %p12, align 4
  %p13 = getelementptr inbounds float, ptr %x, i64 832
  %v13 = load volatile float, ptr %p13, align 4
  %p14 = getelementptr inbounds float, ptr %x, i64 896
  %v14 = load volatile float, ptr %p14, align 4
  %p15 = getelementptr inbounds float, ptr %x, i64 960
  %v15 = load volatile float, ptr %p15, align 4
  %p16 = getelementptr inbounds float, ptr %x, i64 1024
  %v16 = load volatile float, ptr %p16, align 4
  %p17 = getelementptr inbounds float, ptr %x, i64 1088
  %v17 = load volatile float, ptr %p17, align 4
  %p18 = getelementptr inbounds float, ptr %x, i64 1152
  %v18 = load volatile float, ptr %p18, align 4
  %p19 = getelementptr inbounds float, ptr %x, i64 1216
  %v19 = load volatile float, ptr %p19, align 4
  %p20 = getelementptr inbounds float, ptr %x, i64 1280
  %v20 = load volatile float, ptr %p20, align 4
  %p21 = getelementptr inbounds float, ptr %x, i64 1344
  %v21 = load volatile float, ptr %p21, align 4
  %p22 = getelementptr inbounds float, ptr %x, i64 1408
  %v22 = load volatile float, ptr %p22, align 4
  %p23 = getelementptr inbounds float, ptr %x, i64 1472
  %v23 = load volatile float, ptr %p23, align 4
  %p24 = getelementptr inbounds float, ptr %x, i64 1536
  %v24 = load volatile float, ptr %p24, align 4
  %p25 = getelementptr inbounds float, ptr %x, i64 1600
  %v25 = load volatile float, ptr %p25, align 4
  %p26 = getelementptr inbounds float, ptr %x, i64 1664
  %v26 = load volatile float, ptr %p26, align 4
  %p27 = getelementptr inbounds float, ptr %x, i64 1728
  %v27 = load volatile float, ptr %p27, align 4
  %p28 = getelementptr inbounds float, ptr %x, i64 1792
  %v28 = load volatile float, ptr %p28, align 4
  %p29 = getelementptr inbounds float, ptr %x, i64 1856
  %v29 = load volatile float, ptr %p29, align 4
  %p30 = getelementptr inbounds float, ptr %x, i64 1920
  %v30 = load volatile float, ptr %p30, align 4
  %p31 = getelementptr inbounds float, ptr %x, i64 1984
  %v31 = load volatile float, ptr %p31, align 4
  %p32 = getelementptr inbounds float, ptr %x, i64 2048
  %v32 = load volatile float, ptr %p32, align 4
  %p33 = getelementptr inbounds float, ptr %x, i64 2112
  %v33 = load volatile float, ptr %p33, align 4
  %p34 = getelementptr inbounds float, ptr %x, i64 2176
  %v34 = load volatile float, ptr %p34, align 4
  %p35 = getelementptr inbounds float, ptr %x, i64 2240
  %v35 = load volatile float, ptr %p35, align 4
  %p36 = getelementptr inbounds float, ptr %x, i64 2304
  %v36 = load volatile float, ptr %p36, align 4
  %p37 = getelementptr inbounds float, ptr %x, i64 2368
  %v37 = load volatile float, ptr %p37, align 4
  %p38 = getelementptr inbounds float, ptr %x, i64 2432
  %v38 = load volatile float, ptr %p38, align 4
  %p39 = getelementptr inbounds float, ptr %x, i64 2496
  %v39 = load volatile float, ptr %p39, align 4
  %s0 = fadd float %v0, %v1
  %s1 = fadd float %s0, %v2
  %s2 = fadd float %s1, %v3
  %s3 = fadd float %s2, %v4
  %s4 = fadd float %s3, %v5
  %s5 = fadd float %s4, %v6
  %s6 = fadd float %s5, %v7
  %s7 = fadd float %s6, %v8
  %s8 = fadd float %s7, %v9
  %s9 = fadd float %s8, %v10
  %s10 = fadd float %s9, %v11
  %s11 = fadd float %s10, %v12
  %s12 = fadd float %s11, %v13
  %s13 = fadd float %s12, %v14
  %s14 = fadd float %s13, %v15
  %s15 = fadd float %s14, %v16
  %s16 = fadd float %s15, %v17
  %s17 = fadd float %s16, %v18
  %s18 = fadd float %s17, %v19
  %s19 = fadd float %s18, %v20
  %s20 = fadd float %s19, %v21
  %s21 = fadd float %s20, %v22
  %s22 = fadd float %s21, %v23
  %s23 = fadd float %s22, %v24
  %s24 = fadd float %s23, %v25
  %s25 = fadd float %s24, %v26
  %s26 = fadd float %s25, %v27
  %s27 = fadd float %s26, %v28
  %s28 = fadd float %s27, %v29
  %s29 = fadd float %s28, %v30
  %s30 = fadd float %s29, %v31
  %s31 = fadd float %s30, %v32
  %s32 = fadd float %s31, %v33
  %s33 = fadd float %s32, %v34
  %s34 = fadd float %s33, %v35
  %s35 = fadd float %s34, %v36
  %s36 = fadd float %s35, %v37
  %s37 = fadd float %s36, %v38
  %s38 = fadd float %s37, %v39
  store float %s38, ptr %y, align 4
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5}
!0 = !{ptr @light, !"kernel", i32 1}
!1 = !{ptr @heavy, !"kernel", i32 1}
!2 = !{ptr @bounded, !"kernel", i32 1}
!3 = !{ptr @bounded, !"maxntidx", i32 256}
!4 = !{ptr @own_limit, !"kernel", i32 1}
!5 = !{ptr @own_limit, !"maxnreg", i32 64}
