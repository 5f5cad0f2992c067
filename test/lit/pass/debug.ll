; Each instrumented access gets a site in the module's site table
; (@__kosan_site_table, layout in abi.h: a 40-byte header, 40-byte
; kosan_site records, kernel and parameter entries, then NUL-terminated strings), from which the host names
; the source line of a bad access. With debug info (line tables are enough)
; a site is file:line:column in the program's own code, the function it is
; written in (an inlined callee's own name), and where that was inlined; an
; access inside an inlined toolkit header (atomicAdd) is attributed to its
; caller. Without debug info the access is still instrumented: the site
; names the function (without the __kosan suffix) and tells sites apart by
; the instruction's position (in the column field, line 0).
;
; The checks below spell out the records byte by byte (little-endian u32s;
; printable bytes appear as characters, e.g. 'K' is 75).

; Each access is checked on its own (no groups: a[i] and atomicAdd(&a[i])
; would share one check), so that each site has its own inline report.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 -kosan-group-checks=0 -kosan-link-runtime=false -S < %s \
; RUN:   | FileCheck %s --check-prefix=DBG
; RUN: %opt -strip-debug -S < %s \
; RUN:   | %opt -load-pass-plugin=%kosan_plugin -kosan-version-kernel-max=0 -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 -kosan-group-checks=0 -kosan-link-runtime=false -S \
; RUN:   | FileCheck %s --check-prefix=NODBG

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k(ptr %a, i64 %i) !dbg !5 {
entry:
  ; a[i] = 0.0f                                      kernel.cu:12:8
  %p = getelementptr inbounds float, ptr %a, i64 %i
  store float 0.0, ptr %p, align 4, !dbg !8
  ; helper(a) reads a[1]: util.cuh:3:10, inlined at kernel.cu:13
  %q = getelementptr inbounds float, ptr %a, i64 1
  %v = load float, ptr %q, align 4, !dbg !11
  ; atomicAdd(&a[i], 1) from clang's header, called at kernel.cu:14:7
  %r = getelementptr inbounds i32, ptr %a, i64 %i
  %o = atomicrmw add ptr %r, i32 1 monotonic, align 4, !dbg !14
  ; old + 1: the atomic's value is used, so it gets a select of zero
  %x = add i32 %o, 1
  ret void
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!nvvm.annotations = !{!20}
!20 = !{ptr @k, !"kernel", i32 1}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "clang", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "src/kernel.cu", directory: "/work")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "k", linkageName: "_Z1kPfl", scope: !1, file: !1, line: 10, type: !6, scopeLine: 10, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{}
!8 = !DILocation(line: 12, column: 8, scope: !5)
!9 = distinct !DISubprogram(name: "helper", linkageName: "_Z6helperPf", scope: !10, file: !10, line: 2, type: !6, scopeLine: 2, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!10 = !DIFile(filename: "src/util.cuh", directory: "/work")
!11 = !DILocation(line: 3, column: 10, scope: !9, inlinedAt: !12)
!12 = distinct !DILocation(line: 13, column: 5, scope: !5)
!13 = distinct !DISubprogram(name: "atomicAdd", linkageName: "_Z9atomicAddPii", scope: !15, file: !15, line: 100, type: !6, scopeLine: 100, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!15 = !DIFile(filename: "/usr/lib/llvm-19/lib/clang/19/include/__clang_cuda_device_functions.h", directory: "/work")
!14 = !DILocation(line: 101, column: 3, scope: !13, inlinedAt: !16)
!16 = distinct !DILocation(line: 14, column: 7, scope: !5)

; Header: "KSIT", ABI 5, 3 sites, 79 bytes of strings, module "<stdin>" at 71,
; no llvm.ident, no floating point, 1 kernel, 2 parameters.
; DBG:      @__kosan_site_table = addrspace(1) constant [311 x i8] c"KSIT\09\00\00\00\03\00\00\00O\00\00\00G\00\00\00\00\00\00\00\00\00\00\00\01\00\00\00\02\00\00\00\00\00\00\00
; Site 0: fn "_Z1kPfl"(17), file "src/kernel.cu"(3), line 12, col 8, store(1),
;         global(0), 4 bytes, object "a"(1), argument 0, not inlined.
; DBG-SAME: \11\00\00\00\03\00\00\00\0C\00\00\00\08\00\00\00\01\00\00\00\00\00\00\00\04\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00
; Site 1: fn "_Z6helperPf"(38 '&'), file "src/util.cuh"(25), line 3, col 10,
;         load(0), global, 4 bytes, "a", argument 0, inlined at "src/kernel.cu:13"(50 '2').
; DBG-SAME: &\00\00\00\19\00\00\00\03\00\00\00\0A\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\01\00\00\00\00\00\00\002\00\00\00
; Site 2: fn "_Z1kPfl", file "src/kernel.cu", line 14, col 7 (the caller of
;         the header's atomicAdd), atomic(2), global, 4 bytes, "a", argument 0.
; DBG-SAME: \11\00\00\00\03\00\00\00\0E\00\00\00\07\00\00\00\02\00\00\00\00\00\00\00\04\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00
; Kernel "k"(67 'C'): no flags, parameters from 0, 2 of them, sites from 0, 3 of them,
; no order findings.
; DBG-SAME: C\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\03\00\00\00\00\00\00\00\00\00\00\00
; Parameter 0 "a": pointer, read, written, atomic (15); the stores store float
; and i32, so no single dtype (0). Parameter 1 "i"(69 'E'): not a pointer.
; DBG-SAME: \01\00\00\00\0F\00\00\00\00\00\00\00\00\00\00\00
; DBG-SAME: E\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00
; DBG-SAME: \00a\00src/kernel.cu\00_Z1kPfl\00src/util.cuh\00_Z6helperPf\00src/kernel.cu:13\00k\00i\00<stdin>\00", align 8
; The clone has a debug subprogram of its own (the verifier runs above).
; The check, the redirecting select, the access, the select of its value (the
; atomic's, whose result is used) and the inline report of each site (the
; event's stores down to the trap) carry the access's location, in the
; clone's scope.
; DBG: define ptx_kernel void @k__kosan({{.*}}) !dbg ![[SP:[0-9]+]]
; DBG:      %kosan.addr = ptrtoint ptr %p to i64, !dbg ![[L12:[0-9]+]]
; DBG:      %kosan.bad = or i1 {{.*}}, !dbg ![[L12]]
; DBG-NEXT: %kosan.pitched = icmp ne i64 %kosan.arg0.pitch, 0, !dbg ![[L12]]
; DBG-NEXT: = or i1 %kosan.bad, %kosan.pitched, !dbg ![[L12]]
; DBG-NEXT: %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %p, !dbg ![[L12]]
; DBG-NEXT: store float 0.000000e+00, ptr %kosan.safe, align 4, !dbg ![[L12]]
; DBG:         kosan.record.write{{[0-9]*}}:
; DBG:         store i64 %kosan.addr, ptr {{%.*}}, align 8, !dbg ![[L12]]
; DBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; DBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; DBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; DBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; DBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; DBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; DBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; DBG-NEXT:    store i32 4, ptr {{%.*}}, align 4
; DBG:         or i64 {{%.*}}, 0, !dbg ![[L12]]
; DBG:         call void @llvm.trap(), !dbg ![[L12]]
; DBG:      [[S1:%kosan.safe[0-9]+]] = select i1 %kosan.bad{{[0-9]+}}, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %q, !dbg ![[L3:[0-9]+]]
; DBG-NEXT: %v = load float, ptr [[S1]], align 4, !dbg ![[L3]]
; DBG:         kosan.record.write{{[0-9]*}}:
; DBG:         store i64 %kosan.addr{{[0-9]+}}, ptr {{%.*}}, align 8, !dbg ![[L3]]
; DBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; DBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; DBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; DBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; DBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; DBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; DBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; DBG-NEXT:    store i32 4, ptr {{%.*}}, align 4
; DBG:         or i64 {{%.*}}, 1, !dbg ![[L3]]
; DBG:         call void @llvm.trap(), !dbg ![[L3]]
; DBG:      [[S2:%kosan.safe[0-9]+]] = select i1 [[B2:%kosan.bad[0-9]+]], ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %r, !dbg ![[L101:[0-9]+]]
; DBG-NEXT: %o = atomicrmw add ptr [[S2]], i32 1 monotonic, align 4, !dbg ![[L101]]
; DBG-NEXT: %o.kosan = select i1 [[B2]], i32 0, i32 %o, !dbg ![[L101]]
; DBG:         kosan.record.write{{[0-9]*}}:
; DBG:         store i64 %kosan.addr{{[0-9]+}}, ptr {{%.*}}, align 8, !dbg ![[L101]]
; DBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; DBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; DBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; DBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; DBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; DBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; DBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; DBG-NEXT:    store i32 4, ptr {{%.*}}, align 4
; DBG:         or i64 {{%.*}}, 2, !dbg ![[L101]]
; DBG:         call void @llvm.trap(), !dbg ![[L101]]
; DBG:      %x = add i32 %o.kosan, 1{{$}}
; DBG: ![[SP]] = distinct !DISubprogram(name: "k", linkageName: "_Z1kPfl"
; DBG: ![[L12]] = !DILocation(line: 12, column: 8, scope: ![[SP]])
; DBG: ![[L3]] = !DILocation(line: 3, column: 10, scope: !{{[0-9]+}}, inlinedAt: ![[AT13:[0-9]+]])
; DBG: ![[AT13]] = distinct !DILocation(line: 13, column: 5, scope: ![[SP]])
; DBG: ![[L101]] = !DILocation(line: 101, column: 3, scope: !{{[0-9]+}}, inlinedAt: ![[AT14:[0-9]+]])
; DBG: ![[AT14]] = distinct !DILocation(line: 14, column: 7, scope: ![[SP]])

; Without debug info: fn "k"(3), no file, line 0, and the position of the
; access in the clone when it is instrumented, as column (9, 118 and 221:
; the inline report of each earlier site counts): three distinct sites.
; NODBG:      @__kosan_site_table = addrspace(1) constant [247 x i8] c"KSIT\09\00\00\00\03\00\00\00\0F\00\00\00\07\00\00\00\00\00\00\00\00\00\00\00\01\00\00\00\02\00\00\00\00\00\00\00
; NODBG-SAME: \03\00\00\00\00\00\00\00\00\00\00\00\09\00\00\00\01\00\00\00\00\00\00\00\04\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00
; NODBG-SAME: \03\00\00\00\00\00\00\00\00\00\00\00v\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00
; NODBG-SAME: \03\00\00\00\00\00\00\00\00\00\00\00\DD\00\00\00\02\00\00\00\00\00\00\00\04\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00
; NODBG-SAME: \03\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\03\00\00\00
; NODBG-SAME: \01\00\00\00\0F\00\00\00\00\00\00\00\00\00\00\00
; NODBG-SAME: \05\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00
; NODBG-SAME: \00a\00k\00i\00<stdin>\00", align 8
; NODBG: store float 0.000000e+00, ptr %kosan.safe, align 4{{$}}
; NODBG:         kosan.record.write{{[0-9]*}}:
; NODBG:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; NODBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; NODBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; NODBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; NODBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; NODBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; NODBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; NODBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; NODBG-NEXT:    store i32 4, ptr {{%.*}}, align 4
; NODBG:         or i64 {{%.*}}, 0
; NODBG:         call void @llvm.trap()
; NODBG: %v = load float, ptr %kosan.safe{{[0-9]+}}, align 4{{$}}
; NODBG:         kosan.record.write{{[0-9]*}}:
; NODBG:         store i64 %kosan.addr{{[0-9]+}}, ptr {{%.*}}, align 8
; NODBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; NODBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; NODBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; NODBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; NODBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; NODBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; NODBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; NODBG-NEXT:    store i32 4, ptr {{%.*}}, align 4
; NODBG:         or i64 {{%.*}}, 1
; NODBG:         call void @llvm.trap()
; NODBG: %o = atomicrmw add ptr %kosan.safe{{[0-9]+}}, i32 1 monotonic, align 4{{$}}
; NODBG-NEXT: %o.kosan = select i1 %kosan.bad{{[0-9]+}}, i32 0, i32 %o{{$}}
; NODBG:         kosan.record.write{{[0-9]*}}:
; NODBG:         store i64 %kosan.addr{{[0-9]+}}, ptr {{%.*}}, align 8
; NODBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; NODBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; NODBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; NODBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; NODBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; NODBG-NEXT:    store i64 {{.*}}, ptr {{%.*}}, align 8
; NODBG-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; NODBG-NEXT:    store i32 4, ptr {{%.*}}, align 4
; NODBG:         or i64 {{%.*}}, 2
; NODBG:         call void @llvm.trap()
