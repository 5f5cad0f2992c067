; checks=precision: the fast intrinsics (__expf, __logf, __fdividef, rsqrtf,
; __sinf, __cosf, __powf, and math intrinsics allowed to be approximated,
; afn) get the exact fp64 function of their operands' shadows as their
; shadow, with the f32 constant they scale by (log2(e), ln(2)) exact in it;
; their local error is measured (the intrinsic again on the rounded shadows
; of its operands), and their site is named as the program calls them,
; "__expf (ex2.approx.f)": by the toolkit wrapper the debug information
; shows it was inlined from, or else by the IR around it.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-precision \
; RUN:   -kosan-link-runtime=false -S < %s | FileCheck %s

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @fast(ptr %x, ptr %y, ptr %out) {
  %a = load float, ptr %x, align 4
  %b = load float, ptr %y, align 4
  ; __expf(a)
  %t = fmul float %a, 0x3FF7154760000000
  %e = call float @llvm.nvvm.ex2.approx.f(float %t)
  store float %e, ptr %out, align 4
  ; -__logf(a): the negation folded into the constant
  %l2 = call float @llvm.nvvm.lg2.approx.f(float %a)
  %l = fmul float %l2, 0xBFE62E4300000000
  %o1 = getelementptr inbounds float, ptr %out, i32 1
  store float %l, ptr %o1, align 4
  ; __fdividef(a, b)
  %d = call float @llvm.nvvm.div.approx.f(float %a, float %b)
  %o2 = getelementptr inbounds float, ptr %out, i32 2
  store float %d, ptr %o2, align 4
  ; rsqrtf(a)
  %r = call float @llvm.nvvm.rsqrt.approx.f(float %a)
  %o3 = getelementptr inbounds float, ptr %out, i32 3
  store float %r, ptr %o3, align 4
  ; __sinf(a) + __cosf(b)
  %s = call float @llvm.nvvm.sin.approx.f(float %a)
  %c = call float @llvm.nvvm.cos.approx.f(float %b)
  %sc = fadd float %s, %c
  %o4 = getelementptr inbounds float, ptr %out, i32 4
  store float %sc, ptr %o4, align 4
  ; __powf(a, b)
  %pl = call float @llvm.nvvm.lg2.approx.f(float %a)
  %pm = fmul float %b, %pl
  %p = call float @llvm.nvvm.ex2.approx.f(float %pm)
  %o5 = getelementptr inbounds float, ptr %out, i32 5
  store float %p, ptr %o5, align 4
  ; expf under -ffast-math: llvm.exp with afn
  %x2 = call afn float @llvm.exp.f32(float %a)
  %o6 = getelementptr inbounds float, ptr %out, i32 6
  store float %x2, ptr %o6, align 4
  ret void
}

; Named by the debug information: ex2.approx inlined from the toolkit's
; __expf into the program's line 12, which is where the site is.
define void @named(ptr %x, ptr %out) !dbg !10 {
  %a = load float, ptr %x, align 4, !dbg !14
  %t = fmul float %a, 0x3FF7154760000000, !dbg !15
  %e = call float @llvm.nvvm.ex2.approx.ftz.f(float %t), !dbg !15
  store float %e, ptr %out, align 4, !dbg !14
  ret void, !dbg !14
}

declare float @llvm.nvvm.ex2.approx.f(float)
declare float @llvm.nvvm.ex2.approx.ftz.f(float)
declare float @llvm.nvvm.lg2.approx.f(float)
declare float @llvm.nvvm.div.approx.f(float, float)
declare float @llvm.nvvm.rsqrt.approx.f(float)
declare float @llvm.nvvm.sin.approx.f(float)
declare float @llvm.nvvm.cos.approx.f(float)
declare float @llvm.exp.f32(float)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!nvvm.annotations = !{!4, !5}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "clang", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "slope.cu", directory: "/src")
!2 = !DIFile(filename: "/usr/lib/llvm-19/lib/clang/19/include/__clang_cuda_device_functions.h", directory: "")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{ptr @fast, !"kernel", i32 1}
!5 = !{ptr @named, !"kernel", i32 1}
!10 = distinct !DISubprogram(name: "named", scope: !1, file: !1, line: 10, type: !11, scopeLine: 10, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!11 = !DISubroutineType(types: !{})
!12 = distinct !DISubprogram(name: "__expf", scope: !2, file: !2, line: 175, type: !11, scopeLine: 175, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!14 = !DILocation(line: 12, column: 10, scope: !10)
!15 = !DILocation(line: 175, column: 45, scope: !12, inlinedAt: !14)

; The sites' operations, as the site table's strings name them: the
; intrinsic as called, then its approximation. The lg2.approx of __powf is
; named __powf too; @named's by the debug information.
; CHECK: @__kosan_site_table = {{.*}}\00__expf (ex2.approx.f)\00store\00__logf (lg2.approx.f)\00__fdividef (div.approx.f)\00rsqrtf (rsqrt.approx.f)\00__sinf (sin.approx.f)\00__cosf (cos.approx.f)\00fadd\00__powf (lg2.approx.f)\00__powf (ex2.approx.f)\00expf (exp.f32, afn)\00{{.*}}slope.cu\00named\00__expf (ex2.approx.ftz.f)\00

; CHECK-LABEL: define ptx_kernel void @fast__kosan(
; CHECK:         %a = load float, ptr %x, align 4
; CHECK-NEXT:    [[A:%[0-9]+]] = fpext float %a to double
; CHECK-NEXT:    %b = load float, ptr %y, align 4
; CHECK-NEXT:    [[B:%[0-9]+]] = fpext float %b to double
; __expf: the shadow of its argument scales by log2(e) exact, not by its
; f32 rounding; the shadow of ex2.approx is the exact exp2 of that.
; CHECK-NEXT:    %t = fmul float %a, 0x3FF7154760000000
; CHECK-NEXT:    [[T:%[0-9]+]] = fmul double [[A]], 0x3FF71547652B82FE
; CHECK:         %e = call float @llvm.nvvm.ex2.approx.f(float %t)
; CHECK-NEXT:    [[ES:%[0-9]+]] = call double @__kosan_shadow_exp2(double [[T]])
; Its local error: ex2.approx again, on its argument's shadow rounded to f32
; (which the argument's own rounding is part of).
; CHECK:         [[TR:%[0-9]+]] = fptrunc double [[T]] to float
; CHECK-NEXT:    [[AGAIN:%[0-9]+]] = call float @llvm.nvvm.ex2.approx.f(float [[TR]])
; CHECK-NEXT:    [[AGAIND:%[0-9]+]] = fpext float [[AGAIN]] to double
; CHECK:         [[LOCAL:%[0-9]+]] = fsub double [[AGAIND]], [[ES]]
; Site 1, under the bias (2048 << 20): 0x80000001.
; CHECK:         %kosan.local = add i32 %{{[0-9]+}}, -2147483647
; CHECK:         %kosan.cause = select i1 %kosan.introduced, i32 %{{[0-9]+}}, i32 0
; CHECK:         call void @__kosan_prec_value({{.*}}, double [[ES]], i32 2, i32 %kosan.cause_code, i32 %kosan.cause_slot)
; -__logf: lg2.approx shadowed by the exact log2, its -ln(2) exact.
; CHECK:         %l2 = call float @llvm.nvvm.lg2.approx.f(float %a)
; CHECK-NEXT:    [[LS:%[0-9]+]] = call double @__kosan_shadow_log2(double [[A]])
; CHECK:         call float @llvm.nvvm.lg2.approx.f(float
; CHECK:         %l = fmul float %l2, 0xBFE62E4300000000
; CHECK-NEXT:    fmul double [[LS]], 0xBFE62E42FEFA39EF
; __fdividef: the exact quotient (precision_division.ll: without
; div.rn.f64); div.approx again for its local error.
; CHECK:         %d = call float @llvm.nvvm.div.approx.f(float %a, float %b)
; CHECK-NEXT:    fneg double [[B]]
; CHECK-NEXT:    call double @llvm.nvvm.rcp.approx.ftz.d(double [[B]])
; CHECK:         %kosan.div{{[0-9]*}} = select
; CHECK:         call float @llvm.nvvm.div.approx.f(float %{{[0-9]+}}, float %{{[0-9]+}})
; rsqrtf: 1 / sqrt.
; CHECK:         %r = call float @llvm.nvvm.rsqrt.approx.f(float %a)
; CHECK-NEXT:    [[SQ:%[0-9]+]] = call double @llvm.sqrt.f64(double [[A]])
; CHECK-NEXT:    fneg double [[SQ]]
; CHECK-NEXT:    call double @llvm.nvvm.rcp.approx.ftz.d(double [[SQ]])
; CHECK:         call float @llvm.nvvm.rsqrt.approx.f(float
; __sinf, __cosf.
; CHECK:         %s = call float @llvm.nvvm.sin.approx.f(float %a)
; CHECK-NEXT:    call double @__kosan_shadow_sin(double [[A]])
; CHECK:         call float @llvm.nvvm.sin.approx.f(float
; CHECK:         %c = call float @llvm.nvvm.cos.approx.f(float %b)
; CHECK-NEXT:    call double @__kosan_shadow_cos(double [[B]])
; CHECK:         call float @llvm.nvvm.cos.approx.f(float
; __powf: exp2 of b * log2(a), exact.
; CHECK:         %pl = call float @llvm.nvvm.lg2.approx.f(float %a)
; CHECK-NEXT:    [[PL:%[0-9]+]] = call double @__kosan_shadow_log2(double [[A]])
; CHECK:         %pm = fmul float %b, %pl
; CHECK-NEXT:    [[PM:%[0-9]+]] = fmul double [[B]], [[PL]]
; CHECK:         %p = call float @llvm.nvvm.ex2.approx.f(float %pm)
; CHECK-NEXT:    call double @__kosan_shadow_exp2(double [[PM]])
; expf allowed to be approximated (afn): the exact exponential; the call
; again, with its flags, for its local error.
; CHECK:         %x2 = call afn float @llvm.exp.f32(float %a)
; CHECK-NEXT:    [[X2:%[0-9]+]] = fmul double [[A]], 0x3FF71547652B82FE
; CHECK-NEXT:    call double @__kosan_shadow_exp2(double [[X2]])
; CHECK:         call afn float @llvm.exp.f32(float %{{[0-9]+}})
; CHECK:         %kosan.introduced{{[0-9]+}} = and i1

; CHECK-LABEL: define ptx_kernel void @named__kosan(
; CHECK:         %t = fmul float %a, 0x3FF7154760000000, !dbg [[LOC:![0-9]+]]
; CHECK-NEXT:    fmul double %{{[0-9]+}}, 0x3FF71547652B82FE, !dbg [[LOC]]
; CHECK:         call float @llvm.nvvm.ex2.approx.ftz.f(float %{{[0-9]+}}), !dbg [[LOC]]
