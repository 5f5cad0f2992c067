; By default the device runtime (embedded in the plugin as nvptx64 bitcode)
; is linked into every instrumented device module, so that a CUDA build needs
; no extra device library: its entry points become definitions, internal so
; that two translation units cannot clash, and compiled for the module's own
; target-cpu/-features so that one PTX target covers the module. It is linked
; after instrumentation and is never instrumented itself. The site table is a
; device global in addrspace(1) that the host reads by name, kept alive by
; @llvm.used.

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -S < %s | FileCheck %s --check-prefixes=CHECK,LINK
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=true -S < %s | FileCheck %s --check-prefixes=CHECK,LINK
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefixes=CHECK,NOLINK
; The linked module is valid and compiles to PTX.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob < %s | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_80 -o - | FileCheck %s --check-prefix=PTX

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k(ptr %a, i64 %i) #0 {
entry:
  %p = getelementptr inbounds float, ptr %a, i64 %i
  store float 0.0, ptr %p, align 4
  ret void
}
attributes #0 = { "target-cpu"="sm_80" "target-features"="+ptx77,+sm_80" }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}

; The table starts with its header: magic "KSIT", ABI version 1, one site.
; CHECK:  @__kosan_site_table = addrspace(1) constant [{{[0-9]+}} x i8] c"KSIT\01\00\00\00\01\00\00\00{{.*}}", align 8
; CHECK:  @llvm.used = appending global [1 x ptr] [ptr addrspacecast (ptr addrspace(1) @__kosan_site_table to ptr)], section "llvm.metadata"

; Without the runtime, its entry points stay declarations, for a device
; library linked later.
; NOLINK: declare zeroext i1 @__kosan_oob_report(i64, i32, i32, i32, i64, i32, i64, i64, i64, i64)
; NOLINK: declare zeroext i1 @__kosan_oob_check_table(i64, i32, i32, i32, i64, i32)
; NOLINK-NOT: define {{.*}}@__kosan_oob

; CHECK:  define void @k__kosan(
; CHECK:    call i1 @__kosan_oob_report(

; LINK:   define internal noundef zeroext i1 @__kosan_oob_report(i64 {{.*}}, i32 {{.*}}, i32 {{.*}}, i32 {{.*}}, i64 {{.*}}, i32 {{.*}}, i64 {{.*}}, i64 {{.*}}, i64 {{.*}}, i64 {{.*}}) #[[RT:[0-9]+]]
; LINK:   define internal noundef zeroext i1 @__kosan_oob_check_table(i64 {{.*}}, i32 {{.*}}, i32 {{.*}}, i32 {{.*}}, i64 {{.*}}, i32 {{.*}}) #[[RT]]
; LINK-NOT: define {{.*}}__kosan__kosan
; LINK-NOT: define {{.*}}@__kosan_{{.*}}__kosan(
; LINK:   attributes #[[RT]] = { {{.*}}"target-cpu"="sm_80" "target-features"="+ptx77,+sm_80" }

; The runtime's functions are internal: .func, never .visible.
; PTX-NOT: .visible .func
; PTX:     .func  (.param .b32 func_retval0) __kosan_oob_report
; PTX:     .visible .global .align 8 .b8 __kosan_site_table[
; PTX:     .visible .entry k__kosan(
; PTX:     .func  (.param .b32 func_retval0) __kosan_oob_report(
; PTX-NOT: .visible .func
