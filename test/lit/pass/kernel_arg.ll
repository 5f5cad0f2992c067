; Accesses through a kernel's pointer parameters are checked against the
; bounds the host resolved for that argument at launch: two compares against
; launch_info.args[i].{begin,end} (byte offsets 32 + 32*i and 40 + 32*i of the
; by-value launch info), both read once at entry together with the pitch
; (48 + 32*i). Loads, stores, atomicrmw and ldg/ldu of at most 64 bytes get no
; control flow around them: the pointer becomes
;   %kosan.safe = select i1 %kosan.bad, <sink>, %p
; (the sink: @__kosan_sink, addrspace(1), cast to generic for a generic
; pointer; for a load @__kosan_zero_sink, which nothing writes, so that a bad
; load yields zero with no select of its value), and only
; the report sits behind a branch, into kosan.report, taken when the access
; is bad or the argument is pitched (pitch != 0: the report checks the row; a
; pitched access inside the allocation is not redirected). The report is
; inline, no call: it recomputes bad plus the row test (32-bit urem against
; the shape, 56 + 32*i, read in kosan.report only), and when the access is
; bad records an event into the log (kosan.record / kosan.record.write), sets
; host_flag->dirty and traps under halt_on_error (kosan.halt). Clones are
; ptx_kernel. Wider accesses and aggregate values keep the
; kosan.slow/kosan.access/kosan.skip/kosan.cont structure, as do accesses
; aligned to more than 64 bytes (more than the sink), where the report's
; answer (%kosan.ok) decides whether the access goes ahead. Provenance sees through GEPs,
; bitcasts, addrspacecasts, a loop's pointer phi and a select between pointers
; into the same argument.
; (-kosan-hoist-checks=0: @loop's accesses would be checked once before the
; loop, hoist.ll; here they keep the check of every iteration.)
; (-kosan-uninit=0: the uninit compare after each global load has its own
; test, uninit.ll, and would only interleave with the checks here.)

; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan-oob,verify -kosan-misaligned=0 -kosan-link-runtime=false -kosan-uninit=0 -kosan-hoist-checks=0 -S < %s \
; RUN:   | FileCheck %s --implicit-check-not=__kosan_shared_sink
; The dispatcher (what clang's pipeline runs) does the same on a device module.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan,verify -kosan-misaligned=0 -kosan-link-runtime=false -kosan-uninit=0 -kosan-hoist-checks=0 -S < %s \
; RUN:   | FileCheck %s --implicit-check-not=__kosan_shared_sink
; With checks off, nothing is cloned or instrumented.
; RUN: %opt -load-pass-plugin=%kosan_plugin -kosan-shared-report=0 -passes=kosan -kosan-misaligned=0 -kosan-checks=none -kosan-link-runtime=false -kosan-uninit=0 -S < %s | FileCheck %s --check-prefix=NONE

; NONE-NOT: __kosan
; NONE:     define void @load_store(
; NONE-NOT: __kosan

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; One global sink, 64 bytes, zero-initialised and 64-byte aligned (any
; redirected access is at most 64 bytes and aligned to at most 64); no shared
; sink (no shared access here, --implicit-check-not above).
; CHECK: @__kosan_sink = internal addrspace(1) global [8 x i64] zeroinitializer, align 64

; in[i] = out[i] through a GEP and an addrspacecast to global.
define void @load_store(ptr %in, ptr %out, i64 %i) {
entry:
  %pi = getelementptr inbounds float, ptr %in, i64 %i
  %v = load float, ptr %pi, align 4
  %g = addrspacecast ptr %out to ptr addrspace(1)
  %po = getelementptr inbounds float, ptr addrspace(1) %g, i64 %i
  store float %v, ptr addrspace(1) %po, align 4
  ret void
}
; CHECK-LABEL: define ptx_kernel void @load_store__kosan(ptr %in, ptr %out, i64 %i, ptr byval([19 x i64]) align 8 %kosan.launch_info)
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[P:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 0
; CHECK-NEXT:    %kosan.state = load i64, ptr [[P]], align 8, !nosanitize
; CHECK-NEXT:    [[P:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 8
; CHECK-NEXT:    %kosan.launch_id = load i32, ptr [[P]], align 4, !nosanitize
; CHECK-NEXT:    [[P:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 12
; CHECK-NEXT:    %kosan.flags = load i32, ptr [[P]], align 4, !nosanitize
; CHECK-NEXT:    [[P:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 16
; CHECK-NEXT:    %kosan.dyn_smem = load i64, ptr [[P]], align 8, !nosanitize
; Bounds and pitch of every argument used are read once, at entry.
; CHECK-DAG:     [[P1P:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 104
; CHECK-DAG:     %kosan.arg1.pitch = load i64, ptr [[P1P]], align 8, !nosanitize
; CHECK-DAG:     [[E1P:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 96
; CHECK-DAG:     %kosan.arg1.end = load i64, ptr [[E1P]], align 8, !nosanitize
; CHECK-DAG:     [[B1P:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 88
; CHECK-DAG:     %kosan.arg1.begin = load i64, ptr [[B1P]], align 8, !nosanitize
; CHECK-DAG:     [[P0P:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 72
; CHECK-DAG:     %kosan.arg0.pitch = load i64, ptr [[P0P]], align 8, !nosanitize
; CHECK-DAG:     [[E0P:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 64
; CHECK-DAG:     %kosan.arg0.end = load i64, ptr [[E0P]], align 8, !nosanitize
; CHECK-DAG:     [[B0P:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 56
; CHECK-DAG:     %kosan.arg0.begin = load i64, ptr [[B0P]], align 8, !nosanitize
; The load: bad iff addr < begin || addr + 4 > end; reported also when pitched.
; CHECK-NEXT:    %pi = getelementptr inbounds float, ptr %in, i64 %i
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %pi to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 4
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 %kosan.bad, %kosan.pitched
; A bad load reads the zero sink instead and yields zero; the redirect
; depends on %kosan.bad alone, not on the pitch.
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %pi
; CHECK-NEXT:    %v = load float, ptr %kosan.safe, align 4
; CHECK-NEXT:    br i1 [[REPORT]], label %kosan.report, label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY:![0-9]+]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.report:
; CHECK-SAME:    ; preds = %entry
; CHECK-NEXT:    [[SP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 80
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64, ptr [[SP]], align 8, !nosanitize
; The report, inline (no call: a callee's registers would count against
; every instrumented kernel). It recomputes bad, adds the row test of a
; pitched buffer (a 32-bit urem; a pitch or offset past 4 GiB skips it), and
; records the event unless the access is a pitched one inside its row.
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 4
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK-NEXT:    [[ABAD:%.*]] = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    [[OFF:%.*]] = sub i64 %kosan.addr, %kosan.arg0.begin
; CHECK-NEXT:    [[PSMALL:%.*]] = icmp ule i64 %kosan.arg0.pitch, 4294967295
; CHECK-NEXT:    [[OSMALL:%.*]] = icmp ule i64 [[OFF]], 4294967295
; CHECK-NEXT:    [[SMALL0:%.*]] = and i1 [[OSMALL]], [[PSMALL]]
; A zero pitch (an unpitched buffer) never reaches the urem: it is folded
; into small, so the divisor is then 1, and small alone gates the row test.
; CHECK-NEXT:    [[ISP:%.*]] = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[SMALL:%.*]] = and i1 [[SMALL0]], [[ISP]]
; CHECK-NEXT:    [[P64:%.*]] = select i1 [[SMALL]], i64 %kosan.arg0.pitch, i64 1
; CHECK-NEXT:    [[P32:%.*]] = trunc i64 [[P64]] to i32
; CHECK-NEXT:    [[O32:%.*]] = trunc i64 [[OFF]] to i32
; CHECK-NEXT:    [[REM:%.*]] = urem i32 [[O32]], [[P32]]
; CHECK-NEXT:    [[ROW:%.*]] = trunc i64 [[SHAPE]] to i32
; CHECK-NEXT:    [[REND:%.*]] = add i32 [[REM]], 4
; CHECK-NEXT:    [[OUTSIDE:%.*]] = icmp ugt i32 [[REND]], [[ROW]]
; CHECK-NEXT:    [[ROWBAD:%.*]] = and i1 [[SMALL]], [[OUTSIDE]]
; CHECK-NEXT:    [[RBAD:%.*]] = or i1 [[ABAD]], [[ROWBAD]]
; CHECK-NEXT:    %kosan.ok = xor i1 [[RBAD]], true
; CHECK-NEXT:    br i1 [[RBAD]], label %kosan.record, label %[[RDONE:[0-9]+]], !prof [[LIKELY:![0-9]+]]
; CHECK-EMPTY:
; Claim an index (state+28, event_count), read the capacity (state+4) and
; the host flag's address (state+32).
; CHECK-NEXT:  kosan.record:
; CHECK-NEXT:    [[ST:%.*]] = inttoptr i64 %kosan.state to ptr
; CHECK-NEXT:    [[CNTP:%.*]] = getelementptr inbounds i8, ptr [[ST]], i64 28
; CHECK-NEXT:    [[IDX:%.*]] = atomicrmw add ptr [[CNTP]], i32 1 monotonic, align 4
; CHECK-NEXT:    [[CAPP:%.*]] = getelementptr inbounds i8, ptr [[ST]], i64 4
; CHECK-NEXT:    [[CAP:%.*]] = load i32, ptr [[CAPP]], align 4
; CHECK-NEXT:    [[HFP:%.*]] = getelementptr inbounds i8, ptr [[ST]], i64 32
; CHECK-NEXT:    [[HF64:%.*]] = load i64, ptr [[HFP]], align 8
; CHECK-NEXT:    [[HF:%.*]] = inttoptr i64 [[HF64]] to ptr
; CHECK-NEXT:    [[FITS:%.*]] = icmp ult i32 [[IDX]], [[CAP]]
; CHECK-NEXT:    br i1 [[FITS]], label %kosan.record.write, label %[[FLAG:[0-9]+]], !prof [[LIKELY]]
; CHECK-EMPTY:
; events[idx] (72 bytes each, the log at state+8): addr, begin, end, pitch,
; size, ctaid.xyz, tid.xyz, a system fence, then the key, last.
; CHECK-NEXT:  kosan.record.write:
; CHECK-NEXT:    [[EVP:%.*]] = getelementptr inbounds i8, ptr [[ST]], i64 8
; CHECK-NEXT:    [[EV64:%.*]] = load i64, ptr [[EVP]], align 8
; CHECK-NEXT:    [[EVS:%.*]] = inttoptr i64 [[EV64]] to ptr
; CHECK-NEXT:    [[IDX64:%.*]] = zext i32 [[IDX]] to i64
; CHECK-NEXT:    [[BYTE:%.*]] = mul i64 [[IDX64]], 72
; CHECK-NEXT:    [[E:%.*]] = getelementptr inbounds i8, ptr [[EVS]], i64 [[BYTE]]
; CHECK-NEXT:    [[F:%.*]] = getelementptr inbounds i8, ptr [[E]], i64 8
; CHECK-NEXT:    store i64 %kosan.addr, ptr [[F]], align 8
; CHECK-NEXT:    [[F:%.*]] = getelementptr inbounds i8, ptr [[E]], i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr [[F]], align 8
; CHECK-NEXT:    [[F:%.*]] = getelementptr inbounds i8, ptr [[E]], i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr [[F]], align 8
; CHECK-NEXT:    [[F:%.*]] = getelementptr inbounds i8, ptr [[E]], i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr [[F]], align 8
; CHECK-NEXT:    [[F:%.*]] = getelementptr inbounds i8, ptr [[E]], i64 64
; CHECK-NEXT:    store i32 4, ptr [[F]], align 4
; CHECK-NEXT:    [[R:%.*]] = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; CHECK-NEXT:    [[F:%.*]] = getelementptr inbounds i8, ptr [[E]], i64 40
; CHECK-NEXT:    store i32 [[R]], ptr [[F]], align 4
; CHECK-NEXT:    [[R:%.*]] = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
; CHECK-NEXT:    [[F:%.*]] = getelementptr inbounds i8, ptr [[E]], i64 44
; CHECK-NEXT:    store i32 [[R]], ptr [[F]], align 4
; CHECK-NEXT:    [[R:%.*]] = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
; CHECK-NEXT:    [[F:%.*]] = getelementptr inbounds i8, ptr [[E]], i64 48
; CHECK-NEXT:    store i32 [[R]], ptr [[F]], align 4
; CHECK-NEXT:    [[R:%.*]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK-NEXT:    [[F:%.*]] = getelementptr inbounds i8, ptr [[E]], i64 52
; CHECK-NEXT:    store i32 [[R]], ptr [[F]], align 4
; CHECK-NEXT:    [[R:%.*]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
; CHECK-NEXT:    [[F:%.*]] = getelementptr inbounds i8, ptr [[E]], i64 56
; CHECK-NEXT:    store i32 [[R]], ptr [[F]], align 4
; CHECK-NEXT:    [[R:%.*]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.z()
; CHECK-NEXT:    [[F:%.*]] = getelementptr inbounds i8, ptr [[E]], i64 60
; CHECK-NEXT:    store i32 [[R]], ptr [[F]], align 4
; CHECK-NEXT:    call void @llvm.nvvm.membar.sys()
; CHECK-NEXT:    [[L64:%.*]] = zext i32 %kosan.launch_id to i64
; CHECK-NEXT:    [[HIGH:%.*]] = shl i64 [[L64]], 32
; CHECK-NEXT:    [[KEY0:%.*]] = or i64 [[HIGH]], 0
; CHECK-NEXT:    [[KEY:%.*]] = add i64 [[KEY0]], 1
; CHECK-NEXT:    [[F:%.*]] = getelementptr inbounds i8, ptr [[E]], i64 0
; CHECK-NEXT:    store i64 [[KEY]], ptr [[F]], align 8
; CHECK-NEXT:    br label %[[FLAG]]
; CHECK-EMPTY:
; Whether or not the log had room: host_flag->dirty = 1, then halt if
; launch_info.flags & 1 (halt_on_error) or the claimed index reached the
; state's event_budget (offset 56; 0: none, stop_after): fence,
; host_flag->halted = 1, trap.
; CHECK-NEXT:  [[FLAG]]:
; CHECK-SAME:    ; preds = %kosan.record, %kosan.record.write
; CHECK-NEXT:    store volatile i32 1, ptr [[HF]], align 4
; CHECK-NEXT:    [[BUDGETP:%.*]] = getelementptr inbounds i8, ptr {{%.*}}, i64 56
; CHECK-NEXT:    [[BUDGET:%.*]] = load i32, ptr [[BUDGETP]], align 4
; CHECK-NEXT:    [[OVER:%.*]] = icmp uge i32 [[IDX]], [[BUDGET]]
; CHECK-NEXT:    [[HASBUDGET:%.*]] = icmp ne i32 [[BUDGET]], 0
; CHECK-NEXT:    [[RUNAWAY:%.*]] = and i1 [[HASBUDGET]], [[OVER]]
; CHECK-NEXT:    [[HBIT:%.*]] = and i32 %kosan.flags, 1
; CHECK-NEXT:    [[HALTFLAG:%.*]] = icmp ne i32 [[HBIT]], 0
; CHECK-NEXT:    [[HALT:%.*]] = or i1 [[HALTFLAG]], [[RUNAWAY]]
; CHECK-NEXT:    br i1 [[HALT]], label %kosan.halt, label %[[NOHALT:[0-9]+]], !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.halt:
; CHECK-NEXT:    call void @llvm.nvvm.membar.sys()
; CHECK-NEXT:    [[HALTED:%.*]] = getelementptr inbounds i8, ptr [[HF]], i64 4
; CHECK-NEXT:    store volatile i32 1, ptr [[HALTED]], align 4
; CHECK-NEXT:    call void @llvm.trap()
; CHECK-NEXT:    unreachable
; CHECK-EMPTY:
; CHECK-NEXT:  [[NOHALT]]:
; CHECK-NEXT:    br label %[[RDONE]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[RDONE]]:
; CHECK-SAME:    ; preds = %kosan.report, %[[NOHALT]]
; CHECK-NEXT:    br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-SAME:    ; preds = %entry, %[[RDONE]]
; The store through the addrspacecast is checked against argument 1, goes to
; the global sink itself (no cast) when bad, and stores the selected value,
; not the raw load.
; CHECK-NEXT:    %g = addrspacecast ptr %out to ptr addrspace(1)
; CHECK-NEXT:    %po = getelementptr inbounds float, ptr addrspace(1) %g, i64 %i
; CHECK-NEXT:    %kosan.addr1 = ptrtoint ptr addrspace(1) %po to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr1, 4
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg1.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr1, %kosan.arg1.begin
; CHECK-NEXT:    [[BAD:%kosan.bad[0-9]+]] = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    [[PITCHED:%kosan.pitched[0-9]+]] = icmp ne i64 %kosan.arg1.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 [[BAD]], [[PITCHED]]
; CHECK-NEXT:    [[SAFE:%kosan.safe[0-9]+]] = select i1 [[BAD]], ptr addrspace(1) @__kosan_sink, ptr addrspace(1) %po
; CHECK-NEXT:    store float %v, ptr addrspace(1) [[SAFE]], align 4
; CHECK-NEXT:    br i1 [[REPORT]], label %[[RB:kosan.report[0-9]+]], label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[RB]]:
; CHECK-NEXT:    [[SP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 112
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64, ptr [[SP]], align 8, !nosanitize
; CHECK:         trunc i64 [[SHAPE]] to i32
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD2:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD2]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr1, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg1.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg1.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg1.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 4, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 1
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    ret void
; CHECK-NEXT:  }

; The third parameter (index 2): its bounds at 96/104, pitch at 112, shape at
; 120; a 16-byte vector store through an i8 GEP and a vector GEP.
define void @third_arg(i32 %n, float %x, ptr %p, i64 %i) {
entry:
  %q = getelementptr inbounds i8, ptr %p, i64 %i
  %r = getelementptr inbounds <4 x float>, ptr %q, i64 1
  store <4 x float> zeroinitializer, ptr %r, align 16
  ret void
}
; CHECK-LABEL: define ptx_kernel void @third_arg__kosan(i32 %n, float %x, ptr %p, i64 %i, ptr byval([23 x i64]) align 8 %kosan.launch_info)
; CHECK-DAG:     [[PP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 136
; CHECK-DAG:     %kosan.arg2.pitch = load i64, ptr [[PP]], align 8, !nosanitize
; CHECK-DAG:     [[EP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 128
; CHECK-DAG:     %kosan.arg2.end = load i64, ptr [[EP]], align 8, !nosanitize
; CHECK-DAG:     [[BP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 120
; CHECK-DAG:     %kosan.arg2.begin = load i64, ptr [[BP]], align 8, !nosanitize
; Nothing reads another argument's bounds.
; CHECK-NOT:     %kosan.arg{{[013]}}.
; CHECK:         %r = getelementptr inbounds <4 x float>, ptr %q, i64 1
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %r to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 16
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg2.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr, %kosan.arg2.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg2.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 %kosan.bad, %kosan.pitched
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %r
; CHECK-NEXT:    store <4 x float> zeroinitializer, ptr %kosan.safe, align 16
; CHECK-NEXT:    br i1 [[REPORT]], label %kosan.report, label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.report:
; CHECK-NEXT:    [[SP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 144
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64, ptr [[SP]], align 8, !nosanitize
; CHECK:         trunc i64 [[SHAPE]] to i32
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD3:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD3]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg2.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg2.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg2.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 16, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 2
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    ret void
; CHECK-NEXT:  }

; A pointer walking the buffer in a loop: the phi's back edge adds no object,
; so the load and the store of *ptr are checked against argument 0, as one
; group (the same address): the load, first, checks [ptr, ptr + 8) and
; reports; its cold path scans the group's table and reports the first
; member that is bad on its own (out of bounds, or outside its row of a
; pitched buffer: the urem). The store selects the sink on the group's
; %kosan.bad. The block after the load's report holds the rest of the
; body, the loop's latch.
define void @loop(ptr %p, i64 %n) {
entry:
  br label %loop
loop:
  %ptr = phi ptr [ %p, %entry ], [ %next, %loop ]
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %v = load i64, ptr %ptr, align 8
  %w = add i64 %v, 1
  store i64 %w, ptr %ptr, align 8
  %next = getelementptr inbounds i64, ptr %ptr, i64 1
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
; CHECK-LABEL: define ptx_kernel void @loop__kosan(
; CHECK:       loop:
; CHECK-NEXT:    %ptr = phi ptr [ %p, %entry ], [ %next, %[[LATCH:[0-9a-z._]+]] ]
; CHECK-NEXT:    %i = phi i64 [ 0, %entry ], [ %i.next, %[[LATCH]] ]
; CHECK-NEXT:    %kosan.group = ptrtoint ptr %ptr to i64
; CHECK-NEXT:    [[FIRST:%.*]] = add i64 %kosan.group, 0
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.group, 8
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 [[FIRST]], %kosan.arg0.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 %kosan.bad, %kosan.pitched
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %ptr
; CHECK-NEXT:    %v = load i64, ptr %kosan.safe, align 8
; CHECK-NEXT:    br i1 [[REPORT]], label %kosan.report, label %[[LATCH]], !prof [[UNLIKELY]]
; CHECK:       kosan.report:
; CHECK-NEXT:    [[SHAPEP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 80
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64, ptr [[SHAPEP]], align 8
; CHECK-NEXT:    br label %kosan.group.scan
; CHECK:       kosan.group.scan:
; CHECK:         [[ADDR:%.*]] = add i64 %kosan.group, {{%.*}}
; CHECK:         urem i32
; CHECK:         trunc i64 [[SHAPE]] to i32
; CHECK:         br i1 {{%.*}}, label %kosan.group.found, label %kosan.group.next
; CHECK:       kosan.group.found:
; CHECK-NEXT:    %kosan.member.bad = phi i1 [ true, %kosan.group.scan ], [ false, %kosan.group.next ]
; CHECK-NEXT:    %kosan.member.site = phi i32
; CHECK-NEXT:    %kosan.member.addr = phi i64 [ [[ADDR]], %kosan.group.scan ], [ 0, %kosan.group.next ]
; CHECK-NEXT:    %kosan.member.size = phi i32
; CHECK:         br i1 %kosan.member.bad, label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.member.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 %kosan.member.size, ptr {{%.*}}, align 4
; CHECK:         zext i32 %kosan.member.site to i64
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[LATCH]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[LATCH]]:
; CHECK-NEXT:    %w = add i64 %v, 1
; CHECK-NEXT:    [[SAFE:%kosan.safe[0-9]+]] = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %ptr
; CHECK-NEXT:    store i64 %w, ptr [[SAFE]], align 8
; CHECK-NEXT:    %next = getelementptr inbounds i64, ptr %ptr, i64 1
; CHECK-NEXT:    %i.next = add i64 %i, 1
; CHECK-NEXT:    %done = icmp eq i64 %i.next, %n
; CHECK-NEXT:    br i1 %done, label %exit, label %loop
; CHECK-EMPTY:
; CHECK-NEXT:  exit:
; CHECK-NEXT:    ret void
; CHECK-NEXT:  }

; select(c, a, a + i): both sides are argument 0.
define void @select_same(ptr %a, i1 %c, i64 %i) {
entry:
  %ai = getelementptr inbounds i16, ptr %a, i64 %i
  %s = select i1 %c, ptr %a, ptr %ai
  store i16 7, ptr %s, align 2
  ret void
}
; CHECK-LABEL: define ptx_kernel void @select_same__kosan(
; CHECK:         %s = select i1 %c, ptr %a, ptr %ai
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %s to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 2
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 %kosan.bad, %kosan.pitched
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %s
; CHECK-NEXT:    store i16 7, ptr %kosan.safe, align 2
; CHECK-NEXT:    br i1 [[REPORT]], label %kosan.report, label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.report:
; CHECK-NEXT:    getelementptr inbounds i8, ptr %kosan.launch_info, i64 80
; CHECK-NEXT:    load i64
; CHECK:         trunc i64 {{%.*}} to i32
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD6:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD6]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 2, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 5
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    ret void
; CHECK-NEXT:  }

; __ldg(&in[i]) as clang 19 emits it: a read-only-cache load intrinsic on a
; global pointer, checked like a load (4 bytes, argument 0): its pointer
; operand is redirected to the addrspace(1) sink, its value replaced by zero.
define void @ldg(ptr %in, i64 %i) {
entry:
  %g = addrspacecast ptr %in to ptr addrspace(1)
  %p = getelementptr inbounds float, ptr addrspace(1) %g, i64 %i
  %v = call float @llvm.nvvm.ldg.global.f.f32.p1(ptr addrspace(1) %p, i32 4)
  %w = fadd float %v, 1.0
  ret void
}
declare float @llvm.nvvm.ldg.global.f.f32.p1(ptr addrspace(1), i32)
; CHECK-LABEL: define ptx_kernel void @ldg__kosan(
; CHECK:         %p = getelementptr inbounds float, ptr addrspace(1) %g, i64 %i
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr addrspace(1) %p to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 4
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 %kosan.bad, %kosan.pitched
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspace(1) @__kosan_zero_sink, ptr addrspace(1) %p
; CHECK-NEXT:    %v = call float @llvm.nvvm.ldg.global.f.f32.p1(ptr addrspace(1) %kosan.safe, i32 4)
; CHECK-NEXT:    br i1 [[REPORT]], label %kosan.report, label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY]]
; CHECK:         trunc i64 {{%.*}} to i32
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD7:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD7]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 4, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 6
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    %w = fadd float %v, 1.000000e+00
; CHECK-NEXT:    ret void

; The fast path ends at 64 bytes, the sink's size: a 64-byte store is
; redirected, a 128-byte one and a load of an aggregate keep the old structure,
; in which the runtime's answer decides and a dropped load yields zero via a
; phi. There the pitch joins the branch condition itself.
define void @wide(ptr %p, i64 %i) {
entry:
  %a = getelementptr inbounds <8 x i64>, ptr %p, i64 %i
  store <8 x i64> zeroinitializer, ptr %a, align 64
  %b = getelementptr inbounds <16 x i64>, ptr %p, i64 %i
  store <16 x i64> zeroinitializer, ptr %b, align 128
  %c = getelementptr inbounds { i32, i32 }, ptr %p, i64 %i
  %s = load { i32, i32 }, ptr %c, align 4
  %e = extractvalue { i32, i32 } %s, 0
  ret void
}
; CHECK-LABEL: define ptx_kernel void @wide__kosan(
; CHECK:         %a = getelementptr inbounds <8 x i64>, ptr %p, i64 %i
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %a to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 64
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 %kosan.bad, %kosan.pitched
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_sink to ptr), ptr %a
; CHECK-NEXT:    store <8 x i64> zeroinitializer, ptr %kosan.safe, align 64
; CHECK-NEXT:    br i1 [[REPORT]], label %kosan.report, label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY]]
; CHECK:         trunc i64 {{%.*}} to i32
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD8:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD8]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 64, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 7
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    %b = getelementptr inbounds <16 x i64>, ptr %p, i64 %i
; CHECK-NEXT:    %kosan.addr1 = ptrtoint ptr %b to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr1, 128
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr1, %kosan.arg0.begin
; CHECK-NEXT:    [[BAD:%kosan.bad[0-9]+]] = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    [[PITCHED:%kosan.pitched[0-9]+]] = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[SLOWC:%.*]] = or i1 [[BAD]], [[PITCHED]]
; CHECK-NEXT:    br i1 [[SLOWC]], label %kosan.slow, label %kosan.access, !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.access:
; CHECK-NEXT:    store <16 x i64> zeroinitializer, ptr %b, align 128
; CHECK-NEXT:    br label %kosan.cont
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.slow:
; CHECK-NEXT:    [[SP:%.*]] = getelementptr inbounds i8, ptr %kosan.launch_info, i64 80
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64, ptr [[SP]], align 8, !nosanitize
; CHECK:         trunc i64 [[SHAPE]] to i32
; CHECK:         [[OK:%kosan.ok[0-9]*]] = xor i1 [[RBAD9:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD9]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr1, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 128, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 8
; CHECK:         call void @llvm.trap()
; CHECK:         br i1 [[OK]], label %kosan.access, label %kosan.skip, !prof [[LIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.skip:
; CHECK-NEXT:    br label %kosan.cont
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.cont:
; CHECK-NEXT:    %c = getelementptr inbounds { i32, i32 }, ptr %p, i64 %i
; CHECK-NEXT:    %kosan.addr{{[0-9]+}} = ptrtoint ptr %c to i64
; CHECK:         br i1 {{%.*}}, label %[[SLOW:kosan.slow[0-9]+]], label %[[ACCESS:kosan.access[0-9]+]], !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[ACCESS]]:
; CHECK-NEXT:    %s = load { i32, i32 }, ptr %c, align 4
; CHECK-NOT:     %s.kosan = select
; CHECK:         trunc i64 {{%.*}} to i32
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD10:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD10]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr{{[0-9]+}}, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 8, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 9
; CHECK:         call void @llvm.trap()
; CHECK:         %s.kosan = phi { i32, i32 } [ %s, %[[ACCESS]] ], [ zeroinitializer, %kosan.skip{{[0-9]+}} ]
; CHECK-NEXT:    %e = extractvalue { i32, i32 } %s.kosan, 0
; CHECK-NEXT:    ret void

; Alignment: the sink is aligned to 64, so an access that promises 64 is
; redirected, while one that promises more (a 16-byte store and a 4-byte
; atomicrmw, both align 128) keeps the old structure and its original
; pointer: the backend may rely on the promised alignment.
define void @overaligned(ptr %p, i64 %i) {
entry:
  %a = getelementptr inbounds <4 x i64>, ptr %p, i64 %i
  %v = load <4 x i64>, ptr %a, align 64
  %b = getelementptr inbounds <4 x float>, ptr %p, i64 %i
  store <4 x float> zeroinitializer, ptr %b, align 128
  %c = getelementptr inbounds i32, ptr %p, i64 %i
  %o = atomicrmw add ptr %c, i32 1 monotonic, align 128
  %w = extractelement <4 x i64> %v, i32 0
  ret void
}
; CHECK-LABEL: define ptx_kernel void @overaligned__kosan(
; CHECK:         %a = getelementptr inbounds <4 x i64>, ptr %p, i64 %i
; CHECK-NEXT:    %kosan.addr = ptrtoint ptr %a to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr, 32
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr, %kosan.arg0.begin
; CHECK-NEXT:    %kosan.bad = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    %kosan.pitched = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[REPORT:%.*]] = or i1 %kosan.bad, %kosan.pitched
; CHECK-NEXT:    %kosan.safe = select i1 %kosan.bad, ptr addrspacecast (ptr addrspace(1) @__kosan_zero_sink to ptr), ptr %a
; CHECK-NEXT:    %v = load <4 x i64>, ptr %kosan.safe, align 64
; CHECK-NEXT:    br i1 [[REPORT]], label %kosan.report, label %[[CONT:[0-9a-z._]+]], !prof [[UNLIKELY]]
; CHECK:         trunc i64 {{%.*}} to i32
; CHECK:         %kosan.ok{{[0-9]*}} = xor i1 [[RBAD11:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD11]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 32, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 10
; CHECK:         call void @llvm.trap()
; CHECK:         br label %[[CONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[CONT]]:
; CHECK-NEXT:    %b = getelementptr inbounds <4 x float>, ptr %p, i64 %i
; CHECK-NEXT:    %kosan.addr1 = ptrtoint ptr %b to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 %kosan.addr1, 16
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 %kosan.addr1, %kosan.arg0.begin
; CHECK-NEXT:    [[BAD:%kosan.bad[0-9]+]] = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    [[PITCHED:%kosan.pitched[0-9]+]] = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[SLOWC:%.*]] = or i1 [[BAD]], [[PITCHED]]
; CHECK-NEXT:    br i1 [[SLOWC]], label %kosan.slow, label %kosan.access, !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.access:
; CHECK-NEXT:    store <4 x float> zeroinitializer, ptr %b, align 128
; CHECK-NEXT:    br label %kosan.cont
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.slow:
; CHECK-NEXT:    getelementptr inbounds i8, ptr %kosan.launch_info, i64 80
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64
; CHECK:         trunc i64 [[SHAPE]] to i32
; CHECK:         [[OK:%kosan.ok[0-9]*]] = xor i1 [[RBAD12:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD12]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 %kosan.addr1, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 16, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 11
; CHECK:         call void @llvm.trap()
; CHECK:         br i1 [[OK]], label %kosan.access, label %kosan.skip, !prof [[LIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.skip:
; CHECK-NEXT:    br label %kosan.cont
; CHECK-EMPTY:
; CHECK-NEXT:  kosan.cont:
; CHECK-NEXT:    %c = getelementptr inbounds i32, ptr %p, i64 %i
; CHECK-NEXT:    [[ADDR:%kosan.addr[0-9]+]] = ptrtoint ptr %c to i64
; CHECK-NEXT:    [[LAST:%.*]] = add i64 [[ADDR]], 4
; CHECK-NEXT:    [[HI:%.*]] = icmp ugt i64 [[LAST]], %kosan.arg0.end
; CHECK-NEXT:    [[LO:%.*]] = icmp ult i64 [[ADDR]], %kosan.arg0.begin
; CHECK-NEXT:    [[BAD:%kosan.bad[0-9]+]] = or i1 [[LO]], [[HI]]
; CHECK-NEXT:    [[PITCHED:%kosan.pitched[0-9]+]] = icmp ne i64 %kosan.arg0.pitch, 0
; CHECK-NEXT:    [[SLOWC:%.*]] = or i1 [[BAD]], [[PITCHED]]
; CHECK-NEXT:    br i1 [[SLOWC]], label %[[SLOW:kosan.slow[0-9]+]], label %[[ACCESS:kosan.access[0-9]+]], !prof [[UNLIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[ACCESS]]:
; CHECK-NEXT:    %o = atomicrmw add ptr %c, i32 1 monotonic, align 128
; CHECK-NEXT:    br label %[[ACONT:kosan.cont[0-9]+]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[SLOW]]:
; CHECK-NEXT:    getelementptr inbounds i8, ptr %kosan.launch_info, i64 80
; CHECK-NEXT:    [[SHAPE:%.*]] = load i64
; CHECK:         trunc i64 [[SHAPE]] to i32
; CHECK:         [[OK:%kosan.ok[0-9]*]] = xor i1 [[RBAD13:%[0-9]+]], true
; CHECK-NEXT:    br i1 [[RBAD13]], label %kosan.record{{[0-9]*}}, label %{{[0-9]+}}, !prof !{{[0-9]+}}
; CHECK:         store i64 [[ADDR]], ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 16
; CHECK-NEXT:    store i64 %kosan.arg0.begin, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 24
; CHECK-NEXT:    store i64 %kosan.arg0.end, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 32
; CHECK-NEXT:    store i64 %kosan.arg0.pitch, ptr {{%.*}}, align 8
; CHECK-NEXT:    getelementptr inbounds i8, ptr {{%.*}}, i64 64
; CHECK-NEXT:    store i32 4, ptr {{%.*}}, align 4
; CHECK:         or i64 {{%.*}}, 12
; CHECK:         call void @llvm.trap()
; CHECK:         br i1 [[OK]], label %[[ACCESS]], label %[[SKIP:kosan.skip[0-9]+]], !prof [[LIKELY]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[SKIP]]:
; CHECK-NEXT:    br label %[[ACONT]]
; CHECK-EMPTY:
; CHECK-NEXT:  [[ACONT]]:
; CHECK-NEXT:    %w = extractelement <4 x i64> %v, i32 0
; CHECK-NEXT:    ret void
; CHECK-NEXT:  }

; The report branch is marked unlikely, and the runtime's go-ahead likely.
; CHECK-DAG: [[UNLIKELY]] = !{!"branch_weights", i32 1, i32 1048575}
; CHECK-DAG: [[LIKELY]] = !{!"branch_weights", i32 1048575, i32 1}

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5, !6}
!0 = !{ptr @load_store, !"kernel", i32 1}
!1 = !{ptr @third_arg, !"kernel", i32 1}
!2 = !{ptr @loop, !"kernel", i32 1}
!3 = !{ptr @select_same, !"kernel", i32 1}
!4 = !{ptr @ldg, !"kernel", i32 1}
!5 = !{ptr @wide, !"kernel", i32 1}
!6 = !{ptr @overaligned, !"kernel", i32 1}
