; A clone of a kernel without launch bounds is limited to 64 registers, so
; that it launches with any block size its original does. When the original
; holds few values at once (at most 24 32-bit values live at any point) and
; every check of the clone needs few registers of its own (the OOB check),
; the limit is 32, which keeps the original's occupancy: an SM holds 2048
; threads only at 32 registers each, and a streaming kernel at 64 runs a
; one-wave grid in two waves (saxpy in bench/kernels.cu, 2.3x).
; heavy holds 40 loaded values at once: 64. With the precision check (fp64
; shadows) every clone keeps 64. Launch bounds leave the limit to ptxas.
; A clone whose every loop with a checked access is copied whole (its loops
; run as compiled) is fitted by what its loops carry from one trip to the
; next instead: tile_sum loads 40 values of a shared tile at once in each
; trip but carries its sum alone (and addresses at constant offsets from one
; another count once; at most 16 values carried): 32; tile_accumulators carries 40 sums: 64, as it does
; with the whole copies off.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false \
; RUN:   -kosan-version-loops=0 -S < %s | FileCheck %s --check-prefix=STRETCH

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
; OOB-DAG: !{ptr @tile_sum__kosan, !"maxnreg", i32 32}
; OOB-DAG: !{ptr @tile_accumulators__kosan, !"maxnreg", i32 64}
; STRETCH-DAG: !{ptr @tile_sum__kosan, !"maxnreg", i32 64}
; STRETCH-DAG: !{ptr @tile_accumulators__kosan, !"maxnreg", i32 64}
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

@tile = internal addrspace(3) global [8 x [40 x float]] undef, align 4

define void @tile_sum(ptr %out, i64 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = zext i32 %t to i64
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %i = phi i64 [ 0, %preheader ], [ %i.next, %loop ]
  %acc = phi float [ 0.0, %preheader ], [ %sum39, %loop ]
  %p0 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 0
  %v0 = load float, ptr addrspace(3) %p0, align 4
  %p1 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 1
  %v1 = load float, ptr addrspace(3) %p1, align 4
  %p2 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 2
  %v2 = load float, ptr addrspace(3) %p2, align 4
  %p3 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 3
  %v3 = load float, ptr addrspace(3) %p3, align 4
  %p4 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 4
  %v4 = load float, ptr addrspace(3) %p4, align 4
  %p5 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 5
  %v5 = load float, ptr addrspace(3) %p5, align 4
  %p6 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 6
  %v6 = load float, ptr addrspace(3) %p6, align 4
  %p7 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 7
  %v7 = load float, ptr addrspace(3) %p7, align 4
  %p8 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 8
  %v8 = load float, ptr addrspace(3) %p8, align 4
  %p9 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 9
  %v9 = load float, ptr addrspace(3) %p9, align 4
  %p10 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 10
  %v10 = load float, ptr addrspace(3) %p10, align 4
  %p11 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 11
  %v11 = load float, ptr addrspace(3) %p11, align 4
  %p12 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 12
  %v12 = load float, ptr addrspace(3) %p12, align 4
  %p13 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 13
  %v13 = load float, ptr addrspace(3) %p13, align 4
  %p14 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 14
  %v14 = load float, ptr addrspace(3) %p14, align 4
  %p15 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 15
  %v15 = load float, ptr addrspace(3) %p15, align 4
  %p16 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 16
  %v16 = load float, ptr addrspace(3) %p16, align 4
  %p17 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 17
  %v17 = load float, ptr addrspace(3) %p17, align 4
  %p18 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 18
  %v18 = load float, ptr addrspace(3) %p18, align 4
  %p19 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 19
  %v19 = load float, ptr addrspace(3) %p19, align 4
  %p20 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 20
  %v20 = load float, ptr addrspace(3) %p20, align 4
  %p21 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 21
  %v21 = load float, ptr addrspace(3) %p21, align 4
  %p22 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 22
  %v22 = load float, ptr addrspace(3) %p22, align 4
  %p23 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 23
  %v23 = load float, ptr addrspace(3) %p23, align 4
  %p24 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 24
  %v24 = load float, ptr addrspace(3) %p24, align 4
  %p25 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 25
  %v25 = load float, ptr addrspace(3) %p25, align 4
  %p26 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 26
  %v26 = load float, ptr addrspace(3) %p26, align 4
  %p27 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 27
  %v27 = load float, ptr addrspace(3) %p27, align 4
  %p28 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 28
  %v28 = load float, ptr addrspace(3) %p28, align 4
  %p29 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 29
  %v29 = load float, ptr addrspace(3) %p29, align 4
  %p30 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 30
  %v30 = load float, ptr addrspace(3) %p30, align 4
  %p31 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 31
  %v31 = load float, ptr addrspace(3) %p31, align 4
  %p32 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 32
  %v32 = load float, ptr addrspace(3) %p32, align 4
  %p33 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 33
  %v33 = load float, ptr addrspace(3) %p33, align 4
  %p34 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 34
  %v34 = load float, ptr addrspace(3) %p34, align 4
  %p35 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 35
  %v35 = load float, ptr addrspace(3) %p35, align 4
  %p36 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 36
  %v36 = load float, ptr addrspace(3) %p36, align 4
  %p37 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 37
  %v37 = load float, ptr addrspace(3) %p37, align 4
  %p38 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 38
  %v38 = load float, ptr addrspace(3) %p38, align 4
  %p39 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 39
  %v39 = load float, ptr addrspace(3) %p39, align 4
  %sum0 = fadd float %acc, %v0
  %sum1 = fadd float %sum0, %v1
  %sum2 = fadd float %sum1, %v2
  %sum3 = fadd float %sum2, %v3
  %sum4 = fadd float %sum3, %v4
  %sum5 = fadd float %sum4, %v5
  %sum6 = fadd float %sum5, %v6
  %sum7 = fadd float %sum6, %v7
  %sum8 = fadd float %sum7, %v8
  %sum9 = fadd float %sum8, %v9
  %sum10 = fadd float %sum9, %v10
  %sum11 = fadd float %sum10, %v11
  %sum12 = fadd float %sum11, %v12
  %sum13 = fadd float %sum12, %v13
  %sum14 = fadd float %sum13, %v14
  %sum15 = fadd float %sum14, %v15
  %sum16 = fadd float %sum15, %v16
  %sum17 = fadd float %sum16, %v17
  %sum18 = fadd float %sum17, %v18
  %sum19 = fadd float %sum18, %v19
  %sum20 = fadd float %sum19, %v20
  %sum21 = fadd float %sum20, %v21
  %sum22 = fadd float %sum21, %v22
  %sum23 = fadd float %sum22, %v23
  %sum24 = fadd float %sum23, %v24
  %sum25 = fadd float %sum24, %v25
  %sum26 = fadd float %sum25, %v26
  %sum27 = fadd float %sum26, %v27
  %sum28 = fadd float %sum27, %v28
  %sum29 = fadd float %sum28, %v29
  %sum30 = fadd float %sum29, %v30
  %sum31 = fadd float %sum30, %v31
  %sum32 = fadd float %sum31, %v32
  %sum33 = fadd float %sum32, %v33
  %sum34 = fadd float %sum33, %v34
  %sum35 = fadd float %sum34, %v35
  %sum36 = fadd float %sum35, %v36
  %sum37 = fadd float %sum36, %v37
  %sum38 = fadd float %sum37, %v38
  %sum39 = fadd float %sum38, %v39
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  store float %sum39, ptr %out, align 4
  br label %exit
exit:
  ret void
}

define void @tile_accumulators(ptr %out, i64 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = zext i32 %t to i64
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %preheader, label %exit
preheader:
  br label %loop
loop:
  %i = phi i64 [ 0, %preheader ], [ %i.next, %loop ]
  %acc0 = phi float [ 0.0, %preheader ], [ %s0, %loop ]
  %acc1 = phi float [ 0.0, %preheader ], [ %s1, %loop ]
  %acc2 = phi float [ 0.0, %preheader ], [ %s2, %loop ]
  %acc3 = phi float [ 0.0, %preheader ], [ %s3, %loop ]
  %acc4 = phi float [ 0.0, %preheader ], [ %s4, %loop ]
  %acc5 = phi float [ 0.0, %preheader ], [ %s5, %loop ]
  %acc6 = phi float [ 0.0, %preheader ], [ %s6, %loop ]
  %acc7 = phi float [ 0.0, %preheader ], [ %s7, %loop ]
  %acc8 = phi float [ 0.0, %preheader ], [ %s8, %loop ]
  %acc9 = phi float [ 0.0, %preheader ], [ %s9, %loop ]
  %acc10 = phi float [ 0.0, %preheader ], [ %s10, %loop ]
  %acc11 = phi float [ 0.0, %preheader ], [ %s11, %loop ]
  %acc12 = phi float [ 0.0, %preheader ], [ %s12, %loop ]
  %acc13 = phi float [ 0.0, %preheader ], [ %s13, %loop ]
  %acc14 = phi float [ 0.0, %preheader ], [ %s14, %loop ]
  %acc15 = phi float [ 0.0, %preheader ], [ %s15, %loop ]
  %acc16 = phi float [ 0.0, %preheader ], [ %s16, %loop ]
  %acc17 = phi float [ 0.0, %preheader ], [ %s17, %loop ]
  %acc18 = phi float [ 0.0, %preheader ], [ %s18, %loop ]
  %acc19 = phi float [ 0.0, %preheader ], [ %s19, %loop ]
  %acc20 = phi float [ 0.0, %preheader ], [ %s20, %loop ]
  %acc21 = phi float [ 0.0, %preheader ], [ %s21, %loop ]
  %acc22 = phi float [ 0.0, %preheader ], [ %s22, %loop ]
  %acc23 = phi float [ 0.0, %preheader ], [ %s23, %loop ]
  %acc24 = phi float [ 0.0, %preheader ], [ %s24, %loop ]
  %acc25 = phi float [ 0.0, %preheader ], [ %s25, %loop ]
  %acc26 = phi float [ 0.0, %preheader ], [ %s26, %loop ]
  %acc27 = phi float [ 0.0, %preheader ], [ %s27, %loop ]
  %acc28 = phi float [ 0.0, %preheader ], [ %s28, %loop ]
  %acc29 = phi float [ 0.0, %preheader ], [ %s29, %loop ]
  %acc30 = phi float [ 0.0, %preheader ], [ %s30, %loop ]
  %acc31 = phi float [ 0.0, %preheader ], [ %s31, %loop ]
  %acc32 = phi float [ 0.0, %preheader ], [ %s32, %loop ]
  %acc33 = phi float [ 0.0, %preheader ], [ %s33, %loop ]
  %acc34 = phi float [ 0.0, %preheader ], [ %s34, %loop ]
  %acc35 = phi float [ 0.0, %preheader ], [ %s35, %loop ]
  %acc36 = phi float [ 0.0, %preheader ], [ %s36, %loop ]
  %acc37 = phi float [ 0.0, %preheader ], [ %s37, %loop ]
  %acc38 = phi float [ 0.0, %preheader ], [ %s38, %loop ]
  %acc39 = phi float [ 0.0, %preheader ], [ %s39, %loop ]
  %p0 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 0
  %v0 = load float, ptr addrspace(3) %p0, align 4
  %p1 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 1
  %v1 = load float, ptr addrspace(3) %p1, align 4
  %p2 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 2
  %v2 = load float, ptr addrspace(3) %p2, align 4
  %p3 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 3
  %v3 = load float, ptr addrspace(3) %p3, align 4
  %p4 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 4
  %v4 = load float, ptr addrspace(3) %p4, align 4
  %p5 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 5
  %v5 = load float, ptr addrspace(3) %p5, align 4
  %p6 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 6
  %v6 = load float, ptr addrspace(3) %p6, align 4
  %p7 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 7
  %v7 = load float, ptr addrspace(3) %p7, align 4
  %p8 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 8
  %v8 = load float, ptr addrspace(3) %p8, align 4
  %p9 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 9
  %v9 = load float, ptr addrspace(3) %p9, align 4
  %p10 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 10
  %v10 = load float, ptr addrspace(3) %p10, align 4
  %p11 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 11
  %v11 = load float, ptr addrspace(3) %p11, align 4
  %p12 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 12
  %v12 = load float, ptr addrspace(3) %p12, align 4
  %p13 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 13
  %v13 = load float, ptr addrspace(3) %p13, align 4
  %p14 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 14
  %v14 = load float, ptr addrspace(3) %p14, align 4
  %p15 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 15
  %v15 = load float, ptr addrspace(3) %p15, align 4
  %p16 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 16
  %v16 = load float, ptr addrspace(3) %p16, align 4
  %p17 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 17
  %v17 = load float, ptr addrspace(3) %p17, align 4
  %p18 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 18
  %v18 = load float, ptr addrspace(3) %p18, align 4
  %p19 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 19
  %v19 = load float, ptr addrspace(3) %p19, align 4
  %p20 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 20
  %v20 = load float, ptr addrspace(3) %p20, align 4
  %p21 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 21
  %v21 = load float, ptr addrspace(3) %p21, align 4
  %p22 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 22
  %v22 = load float, ptr addrspace(3) %p22, align 4
  %p23 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 23
  %v23 = load float, ptr addrspace(3) %p23, align 4
  %p24 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 24
  %v24 = load float, ptr addrspace(3) %p24, align 4
  %p25 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 25
  %v25 = load float, ptr addrspace(3) %p25, align 4
  %p26 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 26
  %v26 = load float, ptr addrspace(3) %p26, align 4
  %p27 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 27
  %v27 = load float, ptr addrspace(3) %p27, align 4
  %p28 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 28
  %v28 = load float, ptr addrspace(3) %p28, align 4
  %p29 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 29
  %v29 = load float, ptr addrspace(3) %p29, align 4
  %p30 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 30
  %v30 = load float, ptr addrspace(3) %p30, align 4
  %p31 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 31
  %v31 = load float, ptr addrspace(3) %p31, align 4
  %p32 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 32
  %v32 = load float, ptr addrspace(3) %p32, align 4
  %p33 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 33
  %v33 = load float, ptr addrspace(3) %p33, align 4
  %p34 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 34
  %v34 = load float, ptr addrspace(3) %p34, align 4
  %p35 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 35
  %v35 = load float, ptr addrspace(3) %p35, align 4
  %p36 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 36
  %v36 = load float, ptr addrspace(3) %p36, align 4
  %p37 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 37
  %v37 = load float, ptr addrspace(3) %p37, align 4
  %p38 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 38
  %v38 = load float, ptr addrspace(3) %p38, align 4
  %p39 = getelementptr inbounds [8 x [40 x float]], ptr addrspace(3) @tile, i64 0, i64 %ty, i64 39
  %v39 = load float, ptr addrspace(3) %p39, align 4
  %s0 = fadd float %acc0, %v0
  %s1 = fadd float %acc1, %v1
  %s2 = fadd float %acc2, %v2
  %s3 = fadd float %acc3, %v3
  %s4 = fadd float %acc4, %v4
  %s5 = fadd float %acc5, %v5
  %s6 = fadd float %acc6, %v6
  %s7 = fadd float %acc7, %v7
  %s8 = fadd float %acc8, %v8
  %s9 = fadd float %acc9, %v9
  %s10 = fadd float %acc10, %v10
  %s11 = fadd float %acc11, %v11
  %s12 = fadd float %acc12, %v12
  %s13 = fadd float %acc13, %v13
  %s14 = fadd float %acc14, %v14
  %s15 = fadd float %acc15, %v15
  %s16 = fadd float %acc16, %v16
  %s17 = fadd float %acc17, %v17
  %s18 = fadd float %acc18, %v18
  %s19 = fadd float %acc19, %v19
  %s20 = fadd float %acc20, %v20
  %s21 = fadd float %acc21, %v21
  %s22 = fadd float %acc22, %v22
  %s23 = fadd float %acc23, %v23
  %s24 = fadd float %acc24, %v24
  %s25 = fadd float %acc25, %v25
  %s26 = fadd float %acc26, %v26
  %s27 = fadd float %acc27, %v27
  %s28 = fadd float %acc28, %v28
  %s29 = fadd float %acc29, %v29
  %s30 = fadd float %acc30, %v30
  %s31 = fadd float %acc31, %v31
  %s32 = fadd float %acc32, %v32
  %s33 = fadd float %acc33, %v33
  %s34 = fadd float %acc34, %v34
  %s35 = fadd float %acc35, %v35
  %s36 = fadd float %acc36, %v36
  %s37 = fadd float %acc37, %v37
  %s38 = fadd float %acc38, %v38
  %s39 = fadd float %acc39, %v39
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  %po0 = getelementptr inbounds float, ptr %out, i64 0
  store float %s0, ptr %po0, align 4
  %po1 = getelementptr inbounds float, ptr %out, i64 1
  store float %s1, ptr %po1, align 4
  %po2 = getelementptr inbounds float, ptr %out, i64 2
  store float %s2, ptr %po2, align 4
  %po3 = getelementptr inbounds float, ptr %out, i64 3
  store float %s3, ptr %po3, align 4
  %po4 = getelementptr inbounds float, ptr %out, i64 4
  store float %s4, ptr %po4, align 4
  %po5 = getelementptr inbounds float, ptr %out, i64 5
  store float %s5, ptr %po5, align 4
  %po6 = getelementptr inbounds float, ptr %out, i64 6
  store float %s6, ptr %po6, align 4
  %po7 = getelementptr inbounds float, ptr %out, i64 7
  store float %s7, ptr %po7, align 4
  %po8 = getelementptr inbounds float, ptr %out, i64 8
  store float %s8, ptr %po8, align 4
  %po9 = getelementptr inbounds float, ptr %out, i64 9
  store float %s9, ptr %po9, align 4
  %po10 = getelementptr inbounds float, ptr %out, i64 10
  store float %s10, ptr %po10, align 4
  %po11 = getelementptr inbounds float, ptr %out, i64 11
  store float %s11, ptr %po11, align 4
  %po12 = getelementptr inbounds float, ptr %out, i64 12
  store float %s12, ptr %po12, align 4
  %po13 = getelementptr inbounds float, ptr %out, i64 13
  store float %s13, ptr %po13, align 4
  %po14 = getelementptr inbounds float, ptr %out, i64 14
  store float %s14, ptr %po14, align 4
  %po15 = getelementptr inbounds float, ptr %out, i64 15
  store float %s15, ptr %po15, align 4
  %po16 = getelementptr inbounds float, ptr %out, i64 16
  store float %s16, ptr %po16, align 4
  %po17 = getelementptr inbounds float, ptr %out, i64 17
  store float %s17, ptr %po17, align 4
  %po18 = getelementptr inbounds float, ptr %out, i64 18
  store float %s18, ptr %po18, align 4
  %po19 = getelementptr inbounds float, ptr %out, i64 19
  store float %s19, ptr %po19, align 4
  %po20 = getelementptr inbounds float, ptr %out, i64 20
  store float %s20, ptr %po20, align 4
  %po21 = getelementptr inbounds float, ptr %out, i64 21
  store float %s21, ptr %po21, align 4
  %po22 = getelementptr inbounds float, ptr %out, i64 22
  store float %s22, ptr %po22, align 4
  %po23 = getelementptr inbounds float, ptr %out, i64 23
  store float %s23, ptr %po23, align 4
  %po24 = getelementptr inbounds float, ptr %out, i64 24
  store float %s24, ptr %po24, align 4
  %po25 = getelementptr inbounds float, ptr %out, i64 25
  store float %s25, ptr %po25, align 4
  %po26 = getelementptr inbounds float, ptr %out, i64 26
  store float %s26, ptr %po26, align 4
  %po27 = getelementptr inbounds float, ptr %out, i64 27
  store float %s27, ptr %po27, align 4
  %po28 = getelementptr inbounds float, ptr %out, i64 28
  store float %s28, ptr %po28, align 4
  %po29 = getelementptr inbounds float, ptr %out, i64 29
  store float %s29, ptr %po29, align 4
  %po30 = getelementptr inbounds float, ptr %out, i64 30
  store float %s30, ptr %po30, align 4
  %po31 = getelementptr inbounds float, ptr %out, i64 31
  store float %s31, ptr %po31, align 4
  %po32 = getelementptr inbounds float, ptr %out, i64 32
  store float %s32, ptr %po32, align 4
  %po33 = getelementptr inbounds float, ptr %out, i64 33
  store float %s33, ptr %po33, align 4
  %po34 = getelementptr inbounds float, ptr %out, i64 34
  store float %s34, ptr %po34, align 4
  %po35 = getelementptr inbounds float, ptr %out, i64 35
  store float %s35, ptr %po35, align 4
  %po36 = getelementptr inbounds float, ptr %out, i64 36
  store float %s36, ptr %po36, align 4
  %po37 = getelementptr inbounds float, ptr %out, i64 37
  store float %s37, ptr %po37, align 4
  %po38 = getelementptr inbounds float, ptr %out, i64 38
  store float %s38, ptr %po38, align 4
  %po39 = getelementptr inbounds float, ptr %out, i64 39
  store float %s39, ptr %po39, align 4
  br label %exit
exit:
  ret void
}

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

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5, !6, !7}
!0 = !{ptr @light, !"kernel", i32 1}
!1 = !{ptr @heavy, !"kernel", i32 1}
!2 = !{ptr @bounded, !"kernel", i32 1}
!3 = !{ptr @bounded, !"maxntidx", i32 256}
!4 = !{ptr @own_limit, !"kernel", i32 1}
!5 = !{ptr @own_limit, !"maxnreg", i32 64}
!6 = !{ptr @tile_sum, !"kernel", i32 1}
!7 = !{ptr @tile_accumulators, !"kernel", i32 1}
