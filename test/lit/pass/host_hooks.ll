; Host code is rewritten at compile time so that it calls kosan's host
; runtime instead of the CUDA runtime (this works with the static cudart,
; where symbol interposition cannot): allocations, frees, launches,
; synchronisations and copies go to __kosan_<same name>, with the same
; signature. Each allocation is preceded by __kosan_alloc_site("file:line",
; "variable"), so reports can name the buffer and where it was allocated;
; for cuda_runtime.h's template wrapper the site is its caller's.
;
; No link line names the runtime (libkosan_rt.so): each __kosan_* callee is
; defined in the module as a hidden, linkonce_odr forwarder that asks the
; loader (linked in as bitcode) for the runtime's function once and falls
; back to the CUDA function itself without a runtime. A global constructor
; calls the versioned entry, so the runtime is loaded at start-up and one of
; another ABI version is refused there.

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-host -S < %s | FileCheck %s
; The runtime the objects look for first is the one beside the plugin.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-host -S < %s | FileCheck %s --check-prefix=LOADER
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-host -S < %s | FileCheck %s --check-prefix=BESIDE -DPLUGIN_DIR=%kosan_plugin_dir
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-host -kosan-runtime-path=/opt/kosan/lib/libkosan_rt.so -S < %s | FileCheck %s --check-prefix=PATH
; The dispatcher (what clang's pipeline runs) does the same on a host module...
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan -S < %s | FileCheck %s
; ...unless every check is off.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan -kosan-checks=none -S < %s | FileCheck %s --check-prefix=OFF

; A module without CUDA calls is left exactly as it was: no ctor, no
; declaration of the alloc-site hook.
; RUN: %opt -S < %S/Inputs/host_plain.ll > %t.plain.ll
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-host -S < %S/Inputs/host_plain.ll > %t.plain.kosan.ll
; RUN: diff %t.plain.ll %t.plain.kosan.ll
; RUN: FileCheck %s --check-prefix=PLAIN < %t.plain.kosan.ll

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@stub = external global i8

define i32 @main() !dbg !5 {
entry:
  %d_x = alloca ptr, align 8
  %d_y = alloca ptr, align 8
  %h = alloca [256 x float], align 16
  ; float *d_x; cudaMalloc((void **)&d_x, 1024);     (app.cu:12)
  %r0 = call i32 @cudaMalloc(ptr %d_x, i64 1024), !dbg !8
  ; float *d_y; cudaMalloc(&d_y, 1024);  the template  (app.cu:13)
  %r1 = call i32 @_Z10cudaMallocIfE9cudaErrorPPT_m(ptr %d_y, i64 1024), !dbg !9
  %x = load ptr, ptr %d_x, align 8
  %r2 = call i32 @cudaMemcpy(ptr %x, ptr %h, i64 1024, i32 1), !dbg !10
  %r3 = call i32 @cudaLaunchKernel(ptr @stub, i64 1, i32 1, i64 256, i32 1, ptr null, i64 0, ptr null), !dbg !10
  %r4 = call i32 @cudaDeviceSynchronize(), !dbg !10
  %r5 = call i32 @cudaFree(ptr %x), !dbg !10
  ret i32 0
}

; cuda_runtime.h's template <class T> cudaMalloc(T **devPtr, size_t size).
define linkonce_odr i32 @_Z10cudaMallocIfE9cudaErrorPPT_m(ptr %devPtr, i64 %size) {
entry:
  %r = call i32 @cudaMalloc(ptr %devPtr, i64 %size)
  ret i32 %r
}

declare i32 @cudaMalloc(ptr, i64)
declare i32 @cudaMemcpy(ptr, ptr, i64, i32)
declare i32 @cudaLaunchKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)
declare i32 @cudaDeviceSynchronize()
declare i32 @cudaFree(ptr)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "app.cu", directory: "/src")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "main", scope: !1, file: !1, line: 10, type: !6, scopeLine: 10, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{}
!8 = !DILocation(line: 12, column: 3, scope: !5)
!9 = !DILocation(line: 13, column: 3, scope: !5)
!10 = !DILocation(line: 20, column: 3, scope: !5)

; CHECK-DAG: [[SITE_X:@kosan.alloc.site[.0-9]*]] = private unnamed_addr constant [10 x i8] c"app.cu:12\00"
; CHECK-DAG: [[NAME_X:@kosan.alloc.name[.0-9]*]] = private unnamed_addr constant [4 x i8] c"d_x\00"
; CHECK-DAG: [[SITE_Y:@kosan.alloc.site[.0-9]*]] = private unnamed_addr constant [10 x i8] c"app.cu:13\00"
; CHECK-DAG: [[NAME_Y:@kosan.alloc.name[.0-9]*]] = private unnamed_addr constant [4 x i8] c"d_y\00"
; CHECK-DAG: [[SITE_FREE:@kosan.alloc.site[.0-9]*]] = private unnamed_addr constant [10 x i8] c"app.cu:20\00"
; CHECK-DAG: [[NAME_FREE:@kosan.alloc.name[.0-9]*]] = private unnamed_addr constant [1 x i8] zeroinitializer
; CHECK-DAG: @llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 1, ptr @kosan.module_ctor, ptr null }]

; CHECK-LABEL: define i32 @main()
; CHECK:         call void @__kosan_alloc_site(ptr [[SITE_X]], ptr [[NAME_X]]), !dbg
; CHECK-NEXT:    %r0 = call i32 @__kosan_cudaMalloc(ptr %d_x, i64 1024)
; CHECK-NEXT:    call void @__kosan_alloc_site(ptr [[SITE_Y]], ptr [[NAME_Y]]), !dbg
; CHECK-NEXT:    %r1 = call i32 @_Z10cudaMallocIfE9cudaErrorPPT_m(ptr %d_y, i64 1024)
; CHECK:         %r2 = call i32 @__kosan_cudaMemcpy(ptr %x, ptr %h, i64 1024, i32 1)
; CHECK-NEXT:    %r3 = call i32 @__kosan_cudaLaunchKernel(ptr @stub, i64 1, i32 1, i64 256, i32 1, ptr null, i64 0, ptr null)
; CHECK-NEXT:    %r4 = call i32 @__kosan_cudaDeviceSynchronize()
; The free's site, for use-after-free reports; no variable is filled.
; CHECK-NEXT:    call void @__kosan_alloc_site(ptr [[SITE_FREE]], ptr [[NAME_FREE]]), !dbg
; CHECK-NEXT:    %r5 = call i32 @__kosan_cudaFree(ptr %x)
; CHECK-NEXT:    ret i32 0

; Inside the wrapper: redirected, but no second alloc-site call.
; CHECK-LABEL: define linkonce_odr i32 @_Z10cudaMallocIfE9cudaErrorPPT_m(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %r = call i32 @__kosan_cudaMalloc(ptr %devPtr, i64 %size)
; CHECK-NEXT:    ret i32 %r

; No direct call to the CUDA runtime remains.
; CHECK-NOT:   call {{.*}}@cuda{{[A-Za-z_]*}}(

; The forwarders.
; CHECK-LABEL: define linkonce_odr hidden void @__kosan_alloc_site(ptr %0, ptr %1)
; CHECK:         %fn = load atomic ptr, ptr @__kosan_loader_slot.__kosan_alloc_site acquire
; CHECK:         call ptr @__kosan_loader_resolve(ptr @kosan.entry{{[.0-9]*}}, ptr @kosan.noop{{[.0-9]*}}, ptr @__kosan_loader_slot.__kosan_alloc_site)
; CHECK:         tail call void %{{[0-9]+}}(ptr %0, ptr %1)
; CHECK-LABEL: define linkonce_odr hidden i32 @__kosan_cudaMalloc(ptr %0, i64 %1)
; CHECK:         %fn = load atomic ptr, ptr @__kosan_loader_slot.__kosan_cudaMalloc acquire
; CHECK-NEXT:    [[NULL:%[0-9]+]] = icmp eq ptr %fn, null
; CHECK-NEXT:    br i1 [[NULL]], label %resolve, label %call
; CHECK:       resolve:
; CHECK-NEXT:    [[GOT:%[0-9]+]] = call ptr @__kosan_loader_resolve(ptr @kosan.entry{{[.0-9]*}}, ptr @cudaMalloc, ptr @__kosan_loader_slot.__kosan_cudaMalloc)
; CHECK:       call:
; CHECK-NEXT:    [[FN:%[0-9]+]] = phi ptr [ %fn, %entry ], [ [[GOT]], %resolve ]
; CHECK-NEXT:    [[R:%[0-9]+]] = tail call i32 [[FN]](ptr %0, i64 %1)
; CHECK-NEXT:    ret i32 [[R]]
; CHECK-LABEL: define linkonce_odr hidden i32 @__kosan_cudaLaunchKernel(ptr %0, i64 %1, i32 %2, i64 %3, i32 %4, ptr %5, i64 %6, ptr %7)
; CHECK:         call ptr @__kosan_loader_resolve(ptr @kosan.entry{{[.0-9]*}}, ptr @cudaLaunchKernel,
; CHECK:         tail call i32 %{{[0-9]+}}(ptr %0, i64 %1, i32 %2, i64 %3, i32 %4, ptr %5, i64 %6, ptr %7)
; CHECK-LABEL: define linkonce_odr hidden void @__kosan_version_mismatch_check_v{{[0-9]+}}()
; CHECK:         call ptr @__kosan_loader_resolve(ptr @kosan.entry{{[.0-9]*}}, ptr @kosan.noop{{[.0-9]*}}, ptr @__kosan_loader_slot.__kosan_version_mismatch_check_v{{[0-9]+}})
; CHECK-LABEL: define internal void @kosan.module_ctor() {
; CHECK-NEXT:    call void @__kosan_version_mismatch_check_v{{[0-9]+}}()
; CHECK-NEXT:    ret void

; The loader: its state shared by the program's objects, the public API kept.
; LOADER-DAG:   @__kosan_loader_handle = linkonce_odr hidden {{.*}}global ptr null
; LOADER-DAG:   @__kosan_loader_cudart = linkonce_odr hidden constant {{.*}} ptr @cudaGetFuncBySymbol,
; LOADER-DAG:   define linkonce_odr hidden {{.*}}ptr @__kosan_loader_resolve(
; LOADER-DAG:   define weak_odr hidden {{.*}}i32 @kosan_register_buffer(

; BESIDE: @__kosan_loader_built_path = linkonce_odr hidden constant [{{[0-9]+}} x i8] c"[[PLUGIN_DIR]]/libkosan_rt.so\00"
; PATH:   @__kosan_loader_built_path = linkonce_odr hidden constant [{{[0-9]+}} x i8] c"/opt/kosan/lib/libkosan_rt.so\00"

; OFF-NOT: __kosan
; OFF-NOT: global_ctors
; OFF:     call i32 @cudaMalloc(ptr %d_x, i64 1024)
; OFF-NOT: __kosan

; PLAIN-NOT: __kosan
; PLAIN-NOT: global_ctors
; PLAIN:     define i32 @main()
; PLAIN-NOT: __kosan
