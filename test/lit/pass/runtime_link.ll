; By default the device runtime (embedded in the plugin as nvptx64 bitcode)
; is linked into every instrumented device module that needs it, so that a CUDA build needs
; no extra device library: its entry points become definitions, internal so
; that two translation units cannot clash, and compiled for the module's own
; target-cpu/-features so that one PTX target covers the module. It is linked
; after instrumentation and is never instrumented itself. The site table is a
; device global in addrspace(1) that the host reads by name, kept alive by
; @llvm.used.
; Events are recorded inline; the one runtime function left is
; __kosan_oob_check_table, for accesses of unknown provenance (here: through
; a pointer loaded from memory). A module without such accesses needs none
; (runtime_link_none.ll).

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob -S < %s | FileCheck %s --check-prefixes=CHECK,LINK
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob -kosan-link-runtime=true -S < %s | FileCheck %s --check-prefixes=CHECK,LINK
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob -kosan-link-runtime=false -S < %s | FileCheck %s --check-prefixes=CHECK,NOLINK
; The linked module is valid and compiles to PTX.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob < %s | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_80 -o - | FileCheck %s --check-prefix=PTX

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; *pp = 0: the store through %q (loaded from memory) goes to the table.
define void @k(ptr %pp, i64 %i) #0 {
entry:
  %q = load ptr, ptr %pp, align 8
  %p = getelementptr inbounds float, ptr %q, i64 %i
  store float 0.0, ptr %p, align 4
  ret void
}
attributes #0 = { "target-cpu"="sm_80" "target-features"="+ptx77,+sm_80" }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}

; The table starts with its header: magic "KSIT", ABI version 4, two sites.
; CHECK:  @__kosan_site_table = addrspace(1) constant [{{[0-9]+}} x i8] c"KSIT\09\00\00\00\02\00\00\00{{.*}}", align 8
; CHECK:  @llvm.used = appending global [1 x ptr] [ptr addrspacecast (ptr addrspace(1) @__kosan_site_table to ptr)], section "llvm.metadata"

; Without the runtime, the table check stays a declaration, for a device
; library linked later; there is no other runtime entry point.
; NOLINK: declare zeroext i1 @__kosan_oob_check_table(i64, i32, i32, i32, i64, i32) [[DECL:#[0-9]+]]
; NOLINK-NOT: define {{.*}}@__kosan_oob

; CHECK:  define ptx_kernel void @k__kosan(
; The load of %q (argument 0) reports inline; the store calls the table.
; CHECK:    call void @llvm.nvvm.membar.sys()
; CHECK:    call i1 @__kosan_oob_check_table(i64 %kosan.state, i32 %kosan.launch_id, i32 %kosan.flags, i32 1, i64 %kosan.addr1, i32 4)

; Linked: the one entry point, internal, built for the module's target-cpu
; and -features; nothing is instrumented twice.
; LINK:   define internal noundef zeroext i1 @__kosan_oob_check_table(i64 {{.*}}, i32 {{.*}}, i32 {{.*}}, i32 {{.*}}, i64 {{.*}}, i32 {{.*}}) #[[RT:[0-9]+]]
; A shared address is bounded by what the block has: its offset in the
; window against the reserved KiB plus %total_smem_size.
; LINK:     call i1 @llvm.nvvm.isspacep.shared(
; LINK:     call i64 asm "cvta.to.shared.u64 $0, $1;"
; LINK:     call i32 asm "mov.u32 $0, %total_smem_size;"
; LINK-NOT: define {{.*}}__kosan__kosan
; LINK-NOT: define {{.*}}@__kosan_
; LINK:   attributes #[[RT]] = { {{.*}}"target-cpu"="sm_80" "target-features"="+ptx77,+sm_80" }
; NOLINK: attributes [[DECL]] = { cold nounwind }

; The runtime's function is internal: .func, never .visible.
; PTX-NOT: .visible .func
; PTX:     .func  (.param .b32 func_retval0) __kosan_oob_check_table
; PTX:     .visible .global .align 8 .b8 __kosan_site_table[
; PTX:     .visible .entry k__kosan(
; PTX:     call.uni (retval0),
; PTX-NEXT: __kosan_oob_check_table,
; PTX:     .func  (.param .b32 func_retval0) __kosan_oob_check_table(
; PTX:     cvta.to.shared.u64
; PTX:     mov.u32 {{%r[0-9]+}}, %total_smem_size;
; PTX-NOT: .visible .func
