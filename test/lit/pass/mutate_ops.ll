; The mutation operators (passes/mutate/Mutator.cpp) on the device code of
; Inputs/mutate_ops.cu as clang emits it before optimization, where the
; plugin runs them (the IR below: clang++ --cuda-device-only -O2 -nocudalib
; -gline-tables-only -fno-discard-value-names -Xclang -disable-llvm-passes
; -S -emit-llvm, paths made neutral). Each RUN applies one mutant by its id;
; the ids are part of what is checked: they stay the same for the same
; source and flags. Functions of system headers (/usr/...: threadIdx.x's
; __fetch_builtin_x, the expf and __shfl_down_sync wrappers) are not mutated;
; their calls in the kernels are.

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<list>' -disable-output %s \
; RUN:   | FileCheck %s --check-prefix=LIST
; LIST: "column":9,"description":"'<' becomes '<='","file":"mutate_ops.cu","function":"guard_rel(float const*, float*, int)","id":"8ea230b0311a","line":4,"operator":"relational"
; LIST: "id":"8cfbc3d13714","line":4,"operator":"guard"
; LIST: "id":"00819352a5c0","line":9,"operator":"init"
; LIST: "id":"2f18ca4cac8c","line":18,"operator":"barrier"
; LIST-NOT: __fetch_builtin
; LIST-NOT: "function":"expf
; LIST: "description":"expf becomes __expf (approximate)"
; LIST: "description":"__shfl_down_sync becomes __shfl_xor_sync"
; LIST: "description":"f32 fma computed in bf16"

; Applying a mutant leaves valid IR that the backend compiles.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=8ea230b0311a>,verify' -S %s | FileCheck %s --check-prefix=REL
; REL-LABEL: define dso_local void @_Z9guard_relPKfPfi(
; REL:       %cmp = icmp sle i32

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=8cfbc3d13714>,verify' -S %s | FileCheck %s --check-prefix=GUARD
; GUARD-LABEL: define dso_local void @_Z9guard_relPKfPfi(
; GUARD:       br i1 true, label %if.then, label %if.end

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=b2749abdbfc5>,verify' -S %s | FileCheck %s --check-prefix=INDEX
; INDEX-LABEL: define dso_local void @_Z9guard_relPKfPfi(
; INDEX:       [[I:%kosan.mutant]] = add i64 %idxprom, 1
; INDEX-NEXT:  getelementptr float, ptr %{{.*}}, i64 [[I]]

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=e5b3afaf0e22>,verify' -S %s | FileCheck %s --check-prefix=THREAD
; THREAD-LABEL: define dso_local void @_Z9guard_relPKfPfi(
; THREAD:       %[[R:[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; THREAD-NEXT:  call {{.*}} @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv()
; THREAD-NEXT:  %mul = mul i32 %[[R]],

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=0497dbfdb394>,verify' -S %s | FileCheck %s --check-prefix=ARITH
; ARITH-LABEL: define dso_local void @_Z9guard_relPKfPfi(
; ARITH:       %add = sub i32 %mul,

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=8e7a7ec036ab>,verify' -S %s | FileCheck %s --check-prefix=CONST
; CONST: fmul contract float %{{.*}}, 0x4000200000000000

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=7ea824776911>,verify' -S %s | FileCheck %s --check-prefix=F16
; (2.0 is exact in f16: its conversions fold away.)
; F16:      [[A:%.*]] = fptrunc float %{{.*}} to half
; F16-NEXT: [[AX:%.*]] = fpext half [[A]] to float
; F16-NEXT: %mul3 = fmul contract float [[AX]], 2.000000e+00
; F16-NEXT: [[R:%.*]] = fptrunc float %mul3 to half
; F16-NEXT: [[RX:%.*]] = fpext half [[R]] to float
; F16:      store float [[RX]]

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=0c1aeec4e3df>,verify' -S %s | FileCheck %s --check-prefix=BF16
; BF16: [[R:%.*]] = call {{.*}} float @_ZL4fmaffff(
; BF16: fptrunc float [[R]] to bfloat

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=cfe9a4519df5>,verify' -S %s | FileCheck %s --check-prefix=FAST
; FAST:      [[X:%.*]] = fmul float %{{.*}}, 0x3FF7154760000000
; FAST-NEXT: call float @llvm.nvvm.ex2.approx.f(float [[X]])
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=93218e0ceb48>,verify' -S %s | FileCheck %s --check-prefix=FASTDIV
; FASTDIV: call float @llvm.nvvm.div.approx.f(float %{{.*}}, float 3.000000e+00)

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=2f18ca4cac8c>,verify' -S %s | FileCheck %s --check-prefix=BARRIER
; BARRIER-LABEL: define dso_local void @_Z9tile_syncPKfPf(
; BARRIER-NOT:   @llvm.nvvm.barrier0
; BARRIER:       ret void

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=532040d463a6>,verify' -S %s | FileCheck %s --check-prefix=ATOMIC
; ATOMIC-LABEL: define dso_local void @_Z10accumulatePKfPfi(
; ATOMIC:       atomicrmw fadd ptr %arrayidx{{[0-9]*}}, float %{{.*}} monotonic
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=44b9f0735fd5>,verify' -S %s | FileCheck %s --check-prefix=SHFL
; SHFL: call {{.*}} float @_Z16__shfl_down_syncjfji.kosan.mutant(
; SHFL: define internal {{.*}} float @_Z16__shfl_down_syncjfji.kosan.mutant(
; SHFL: call {{.*}} float @llvm.nvvm.shfl.sync.bfly.f32(
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=43b9f0735e22>,verify' -S %s | FileCheck %s --check-prefix=STRIDE
; STRIDE: call {{.*}} float @_Z16__shfl_down_syncjfji(i32 noundef -1, float noundef %{{.*}}, i32 noundef 8,

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=00819352a5c0>,verify' -S %s | FileCheck %s --check-prefix=INIT
; INIT-LABEL: define dso_local void @_Z10accumulatePKfPfi(
; INIT:       store float 1.000000e+00, ptr %sum

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=e5b15cc37230>,verify' -S %s | FileCheck %s --check-prefix=STORE
; STORE-LABEL: define dso_local void @_Z9guard_relPKfPfi(
; STORE-NOT:   store float
; STORE:       ret void

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=cad9e88b6e7f>,verify' -S %s | FileCheck %s --check-prefix=SHARED
; SHARED: [[W:%kosan.mutant]] = urem i64 %{{.*}}, 32
; SHARED-NEXT: getelementptr inbounds [64 x float], ptr addrspacecast (ptr addrspace(3) @_ZZ9tile_syncPKfPfE4tile to ptr), i64 0, i64 [[W]]

; Every mutant compiles to PTX (spot checks of the operators that make new
; intrinsics and types: bf16 arithmetic, the approximate functions).
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=0c1aeec4e3df>,default<O2>' %s -o - | llc -mcpu=sm_90 -o - | FileCheck %s --check-prefix=PTX
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=cfe9a4519df5>,default<O2>' %s -o - | llc -mcpu=sm_90 -o - | FileCheck %s --check-prefix=PTXEXP
; PTX: cvt.rn.bf16.f32
; PTXEXP: ex2.approx.f32

; An id that the module does not have is an error.
; RUN: not %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=000000000000>' -disable-output %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=UNKNOWN
; UNKNOWN: error: kosan: no mutant '000000000000' in mutate_ops.cu (`kosan-mutate list` lists the mutants of a build)

; ModuleID = 'mutate_ops.cu'
source_filename = "mutate_ops.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.__cuda_builtin_blockIdx_t = type { i8 }
%struct.__cuda_builtin_blockDim_t = type { i8 }
%struct.__cuda_builtin_threadIdx_t = type { i8 }

$_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv = comdat any

$_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv = comdat any

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv = comdat any

$_Z16__shfl_down_syncjfji = comdat any

@blockIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockIdx_t, align 1
@blockDim = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockDim_t, align 1
@threadIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_threadIdx_t, align 1
@_ZZ9tile_syncPKfPfE4tile = internal addrspace(3) global [64 x float] undef, align 4

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z9guard_relPKfPfi(ptr noundef %x, ptr noundef %y, i32 noundef %n) #0 !dbg !12 {
entry:
  %x.addr = alloca ptr, align 8
  %y.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %i = alloca i32, align 4
  store ptr %x, ptr %x.addr, align 8, !tbaa !15
  store ptr %y, ptr %y.addr, align 8, !tbaa !15
  store i32 %n, ptr %n.addr, align 4, !tbaa !19
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #8, !dbg !21
  %call = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #9, !dbg !22
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #9, !dbg !23
  %mul = mul i32 %call, %call1, !dbg !24
  %call2 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !25
  %add = add i32 %mul, %call2, !dbg !26
  store i32 %add, ptr %i, align 4, !dbg !27, !tbaa !19
  %0 = load i32, ptr %i, align 4, !dbg !28, !tbaa !19
  %1 = load i32, ptr %n.addr, align 4, !dbg !29, !tbaa !19
  %cmp = icmp slt i32 %0, %1, !dbg !30
  br i1 %cmp, label %if.then, label %if.end, !dbg !28

if.then:                                          ; preds = %entry
  %2 = load ptr, ptr %x.addr, align 8, !dbg !31, !tbaa !15
  %3 = load i32, ptr %i, align 4, !dbg !32, !tbaa !19
  %idxprom = sext i32 %3 to i64, !dbg !31
  %arrayidx = getelementptr inbounds float, ptr %2, i64 %idxprom, !dbg !31
  %4 = load float, ptr %arrayidx, align 4, !dbg !31, !tbaa !33
  %mul3 = fmul contract float %4, 2.000000e+00, !dbg !35
  %5 = load ptr, ptr %y.addr, align 8, !dbg !36, !tbaa !15
  %6 = load i32, ptr %i, align 4, !dbg !37, !tbaa !19
  %idxprom4 = sext i32 %6 to i64, !dbg !36
  %arrayidx5 = getelementptr inbounds float, ptr %5, i64 %idxprom4, !dbg !36
  store float %mul3, ptr %arrayidx5, align 4, !dbg !38, !tbaa !33
  br label %if.end, !dbg !36

if.end:                                           ; preds = %if.then, %entry
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #8, !dbg !39
  ret void, !dbg !39
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #2 comdat align 2 !dbg !40 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !42
  ret i32 %0, !dbg !42
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #2 comdat align 2 !dbg !43 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !44
  ret i32 %0, !dbg !44
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #2 comdat align 2 !dbg !45 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !46
  ret i32 %0, !dbg !46
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z10accumulatePKfPfi(ptr noundef %x, ptr noundef %out, i32 noundef %n) #0 !dbg !47 {
entry:
  %x.addr = alloca ptr, align 8
  %out.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %sum = alloca float, align 4
  %i = alloca i32, align 4
  store ptr %x, ptr %x.addr, align 8, !tbaa !15
  store ptr %out, ptr %out.addr, align 8, !tbaa !15
  store i32 %n, ptr %n.addr, align 4, !tbaa !19
  call void @llvm.lifetime.start.p0(i64 4, ptr %sum) #8, !dbg !48
  store float 0.000000e+00, ptr %sum, align 4, !dbg !49, !tbaa !33
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #8, !dbg !50
  %call = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !51
  store i32 %call, ptr %i, align 4, !dbg !52, !tbaa !19
  br label %for.cond, !dbg !50

for.cond:                                         ; preds = %for.inc, %entry
  %0 = load i32, ptr %i, align 4, !dbg !53, !tbaa !19
  %1 = load i32, ptr %n.addr, align 4, !dbg !54, !tbaa !19
  %cmp = icmp slt i32 %0, %1, !dbg !55
  br i1 %cmp, label %for.body, label %for.cond.cleanup, !dbg !56

for.cond.cleanup:                                 ; preds = %for.cond
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #8, !dbg !56
  br label %for.end

for.body:                                         ; preds = %for.cond
  %2 = load ptr, ptr %x.addr, align 8, !dbg !57, !tbaa !15
  %3 = load i32, ptr %i, align 4, !dbg !58, !tbaa !19
  %idxprom = sext i32 %3 to i64, !dbg !57
  %arrayidx = getelementptr inbounds float, ptr %2, i64 %idxprom, !dbg !57
  %4 = load float, ptr %arrayidx, align 4, !dbg !57, !tbaa !33
  %5 = load float, ptr %sum, align 4, !dbg !59, !tbaa !33
  %add = fadd contract float %5, %4, !dbg !59
  store float %add, ptr %sum, align 4, !dbg !59, !tbaa !33
  br label %for.inc, !dbg !60

for.inc:                                          ; preds = %for.body
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #9, !dbg !61
  %6 = load i32, ptr %i, align 4, !dbg !62, !tbaa !19
  %add2 = add i32 %6, %call1, !dbg !62
  store i32 %add2, ptr %i, align 4, !dbg !62, !tbaa !19
  br label %for.cond, !dbg !56, !llvm.loop !63

for.end:                                          ; preds = %for.cond.cleanup
  %7 = load float, ptr %sum, align 4, !dbg !66, !tbaa !33
  %8 = load ptr, ptr %out.addr, align 8, !dbg !67, !tbaa !15
  %call3 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !68
  %idxprom4 = zext i32 %call3 to i64, !dbg !67
  %arrayidx5 = getelementptr inbounds float, ptr %8, i64 %idxprom4, !dbg !67
  %9 = load float, ptr %arrayidx5, align 4, !dbg !69, !tbaa !33
  %add6 = fadd contract float %9, %7, !dbg !69
  store float %add6, ptr %arrayidx5, align 4, !dbg !69, !tbaa !33
  call void @llvm.lifetime.end.p0(i64 4, ptr %sum) #8, !dbg !70
  ret void, !dbg !70
}

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z9tile_syncPKfPf(ptr noundef %x, ptr noundef %y) #0 !dbg !71 {
entry:
  %x.addr = alloca ptr, align 8
  %y.addr = alloca ptr, align 8
  store ptr %x, ptr %x.addr, align 8, !tbaa !15
  store ptr %y, ptr %y.addr, align 8, !tbaa !15
  %0 = load ptr, ptr %x.addr, align 8, !dbg !72, !tbaa !15
  %call = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !73
  %idxprom = zext i32 %call to i64, !dbg !72
  %arrayidx = getelementptr inbounds float, ptr %0, i64 %idxprom, !dbg !72
  %1 = load float, ptr %arrayidx, align 4, !dbg !72, !tbaa !33
  %call1 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !74
  %idxprom2 = zext i32 %call1 to i64, !dbg !75
  %arrayidx3 = getelementptr inbounds [64 x float], ptr addrspacecast (ptr addrspace(3) @_ZZ9tile_syncPKfPfE4tile to ptr), i64 0, i64 %idxprom2, !dbg !75
  store float %1, ptr %arrayidx3, align 4, !dbg !76, !tbaa !33
  call void @llvm.nvvm.barrier0(), !dbg !77
  %call4 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !78
  %sub = sub i32 63, %call4, !dbg !79
  %idxprom5 = zext i32 %sub to i64, !dbg !80
  %arrayidx6 = getelementptr inbounds [64 x float], ptr addrspacecast (ptr addrspace(3) @_ZZ9tile_syncPKfPfE4tile to ptr), i64 0, i64 %idxprom5, !dbg !80
  %2 = load float, ptr %arrayidx6, align 4, !dbg !80, !tbaa !33
  %div = fdiv contract float %2, 3.000000e+00, !dbg !81
  %3 = load ptr, ptr %y.addr, align 8, !dbg !82, !tbaa !15
  %call7 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !83
  %idxprom8 = zext i32 %call7 to i64, !dbg !82
  %arrayidx9 = getelementptr inbounds float, ptr %3, i64 %idxprom8, !dbg !82
  store float %div, ptr %arrayidx9, align 4, !dbg !84, !tbaa !33
  ret void, !dbg !85
}

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier0() #3

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z8warp_expPKfPf(ptr noundef %x, ptr noundef %y) #0 !dbg !86 {
entry:
  %x.addr = alloca ptr, align 8
  %y.addr = alloca ptr, align 8
  %v = alloca float, align 4
  store ptr %x, ptr %x.addr, align 8, !tbaa !15
  store ptr %y, ptr %y.addr, align 8, !tbaa !15
  call void @llvm.lifetime.start.p0(i64 4, ptr %v) #8, !dbg !87
  %0 = load ptr, ptr %x.addr, align 8, !dbg !88, !tbaa !15
  %call = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !89
  %idxprom = zext i32 %call to i64, !dbg !88
  %arrayidx = getelementptr inbounds float, ptr %0, i64 %idxprom, !dbg !88
  %1 = load float, ptr %arrayidx, align 4, !dbg !88, !tbaa !33
  %call1 = call contract noundef float @_ZL4expff(float noundef %1) #9, !dbg !90
  store float %call1, ptr %v, align 4, !dbg !91, !tbaa !33
  %2 = load float, ptr %v, align 4, !dbg !92, !tbaa !33
  %call2 = call contract noundef float @_Z16__shfl_down_syncjfji(i32 noundef -1, float noundef %2, i32 noundef 16, i32 noundef 32) #9, !dbg !93
  %3 = load float, ptr %v, align 4, !dbg !94, !tbaa !33
  %add = fadd contract float %3, %call2, !dbg !94
  store float %add, ptr %v, align 4, !dbg !94, !tbaa !33
  %4 = load float, ptr %v, align 4, !dbg !95, !tbaa !33
  %5 = load float, ptr %v, align 4, !dbg !96, !tbaa !33
  %call3 = call contract noundef float @_ZL4fmaffff(float noundef %4, float noundef %5, float noundef 1.000000e+00) #9, !dbg !97
  %6 = load ptr, ptr %y.addr, align 8, !dbg !98, !tbaa !15
  %call4 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !99
  %idxprom5 = zext i32 %call4 to i64, !dbg !98
  %arrayidx6 = getelementptr inbounds float, ptr %6, i64 %idxprom5, !dbg !98
  store float %call3, ptr %arrayidx6, align 4, !dbg !100, !tbaa !33
  call void @llvm.lifetime.end.p0(i64 4, ptr %v) #8, !dbg !101
  ret void, !dbg !101
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal noundef float @_ZL4expff(float noundef %__a) #2 !dbg !102 {
entry:
  %__a.addr = alloca float, align 4
  store float %__a, ptr %__a.addr, align 4, !tbaa !33
  %0 = load float, ptr %__a.addr, align 4, !dbg !104, !tbaa !33
  %call = call contract float @__nv_expf(float noundef %0) #9, !dbg !105
  ret float %call, !dbg !106
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define linkonce_odr dso_local noundef float @_Z16__shfl_down_syncjfji(i32 noundef %__mask, float noundef %__val, i32 noundef %__offset, i32 noundef %__width) #4 comdat !dbg !107 {
entry:
  %__mask.addr = alloca i32, align 4
  %__val.addr = alloca float, align 4
  %__offset.addr = alloca i32, align 4
  %__width.addr = alloca i32, align 4
  store i32 %__mask, ptr %__mask.addr, align 4, !tbaa !19
  store float %__val, ptr %__val.addr, align 4, !tbaa !33
  store i32 %__offset, ptr %__offset.addr, align 4, !tbaa !19
  store i32 %__width, ptr %__width.addr, align 4, !tbaa !19
  %0 = load i32, ptr %__mask.addr, align 4, !dbg !109, !tbaa !19
  %1 = load float, ptr %__val.addr, align 4, !dbg !109, !tbaa !33
  %2 = load i32, ptr %__offset.addr, align 4, !dbg !109, !tbaa !19
  %3 = load i32, ptr %__width.addr, align 4, !dbg !109, !tbaa !19
  %sub = sub nsw i32 32, %3, !dbg !109
  %shl = shl i32 %sub, 8, !dbg !109
  %or = or i32 %shl, 31, !dbg !109
  %4 = call contract float @llvm.nvvm.shfl.sync.down.f32(i32 %0, float %1, i32 %2, i32 %or), !dbg !109
  ret float %4, !dbg !109
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal noundef float @_ZL4fmaffff(float noundef %__a, float noundef %__b, float noundef %__c) #2 !dbg !110 {
entry:
  %__a.addr = alloca float, align 4
  %__b.addr = alloca float, align 4
  %__c.addr = alloca float, align 4
  store float %__a, ptr %__a.addr, align 4, !tbaa !33
  store float %__b, ptr %__b.addr, align 4, !tbaa !33
  store float %__c, ptr %__c.addr, align 4, !tbaa !33
  %0 = load float, ptr %__a.addr, align 4, !dbg !111, !tbaa !33
  %1 = load float, ptr %__b.addr, align 4, !dbg !112, !tbaa !33
  %2 = load float, ptr %__c.addr, align 4, !dbg !113, !tbaa !33
  %call = call contract float @__nv_fmaf(float noundef %0, float noundef %1, float noundef %2) #9, !dbg !114
  ret float %call, !dbg !115
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #5

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #5

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #5

; Function Attrs: convergent nounwind
declare dso_local float @__nv_expf(float noundef) #6

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32) #7

; Function Attrs: convergent nounwind
declare dso_local float @__nv_fmaf(float noundef, float noundef, float noundef) #6

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { alwaysinline convergent mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" }
attributes #3 = { convergent nocallback nounwind }
attributes #4 = { convergent inlinehint mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" }
attributes #5 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #6 = { convergent nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" }
attributes #7 = { convergent nocallback nounwind memory(inaccessiblemem: readwrite) }
attributes #8 = { nounwind }
attributes #9 = { convergent nounwind }

!llvm.dbg.cu = !{!0}
!nvvm.annotations = !{!2, !3, !4, !5}
!llvm.module.flags = !{!6, !7, !8, !9, !10}
!llvm.ident = !{!11}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "mutate_ops.cu", directory: "/src")
!2 = !{ptr @_Z9guard_relPKfPfi, !"kernel", i32 1}
!3 = !{ptr @_Z10accumulatePKfPfi, !"kernel", i32 1}
!4 = !{ptr @_Z9tile_syncPKfPf, !"kernel", i32 1}
!5 = !{ptr @_Z8warp_expPKfPf, !"kernel", i32 1}
!6 = !{i32 7, !"Dwarf Version", i32 2}
!7 = !{i32 2, !"Debug Info Version", i32 3}
!8 = !{i32 1, !"wchar_size", i32 4}
!9 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!10 = !{i32 7, !"frame-pointer", i32 2}
!11 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!12 = distinct !DISubprogram(name: "guard_rel", scope: !1, file: !1, line: 2, type: !13, scopeLine: 2, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!13 = !DISubroutineType(types: !14)
!14 = !{}
!15 = !{!16, !16, i64 0}
!16 = !{!"any pointer", !17, i64 0}
!17 = !{!"omnipotent char", !18, i64 0}
!18 = !{!"Simple C++ TBAA"}
!19 = !{!20, !20, i64 0}
!20 = !{!"int", !17, i64 0}
!21 = !DILocation(line: 3, column: 3, scope: !12)
!22 = !DILocation(line: 3, column: 11, scope: !12)
!23 = !DILocation(line: 3, column: 24, scope: !12)
!24 = !DILocation(line: 3, column: 22, scope: !12)
!25 = !DILocation(line: 3, column: 37, scope: !12)
!26 = !DILocation(line: 3, column: 35, scope: !12)
!27 = !DILocation(line: 3, column: 7, scope: !12)
!28 = !DILocation(line: 4, column: 7, scope: !12)
!29 = !DILocation(line: 4, column: 11, scope: !12)
!30 = !DILocation(line: 4, column: 9, scope: !12)
!31 = !DILocation(line: 5, column: 12, scope: !12)
!32 = !DILocation(line: 5, column: 14, scope: !12)
!33 = !{!34, !34, i64 0}
!34 = !{!"float", !17, i64 0}
!35 = !DILocation(line: 5, column: 17, scope: !12)
!36 = !DILocation(line: 5, column: 5, scope: !12)
!37 = !DILocation(line: 5, column: 7, scope: !12)
!38 = !DILocation(line: 5, column: 10, scope: !12)
!39 = !DILocation(line: 6, column: 1, scope: !12)
!40 = distinct !DISubprogram(name: "__fetch_builtin_x", scope: !41, file: !41, line: 66, type: !13, scopeLine: 66, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!41 = !DIFile(filename: "/usr/lib/llvm-19/lib/clang/19/include/__clang_cuda_builtin_vars.h", directory: "")
!42 = !DILocation(line: 66, column: 3, scope: !40)
!43 = distinct !DISubprogram(name: "__fetch_builtin_x", scope: !41, file: !41, line: 79, type: !13, scopeLine: 79, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!44 = !DILocation(line: 79, column: 3, scope: !43)
!45 = distinct !DISubprogram(name: "__fetch_builtin_x", scope: !41, file: !41, line: 53, type: !13, scopeLine: 53, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!46 = !DILocation(line: 53, column: 3, scope: !45)
!47 = distinct !DISubprogram(name: "accumulate", scope: !1, file: !1, line: 8, type: !13, scopeLine: 8, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!48 = !DILocation(line: 9, column: 3, scope: !47)
!49 = !DILocation(line: 9, column: 9, scope: !47)
!50 = !DILocation(line: 10, column: 8, scope: !47)
!51 = !DILocation(line: 10, column: 16, scope: !47)
!52 = !DILocation(line: 10, column: 12, scope: !47)
!53 = !DILocation(line: 10, column: 29, scope: !47)
!54 = !DILocation(line: 10, column: 33, scope: !47)
!55 = !DILocation(line: 10, column: 31, scope: !47)
!56 = !DILocation(line: 10, column: 3, scope: !47)
!57 = !DILocation(line: 11, column: 12, scope: !47)
!58 = !DILocation(line: 11, column: 14, scope: !47)
!59 = !DILocation(line: 11, column: 9, scope: !47)
!60 = !DILocation(line: 11, column: 5, scope: !47)
!61 = !DILocation(line: 10, column: 41, scope: !47)
!62 = !DILocation(line: 10, column: 38, scope: !47)
!63 = distinct !{!63, !56, !64, !65}
!64 = !DILocation(line: 11, column: 15, scope: !47)
!65 = !{!"llvm.loop.mustprogress"}
!66 = !DILocation(line: 12, column: 23, scope: !47)
!67 = !DILocation(line: 12, column: 3, scope: !47)
!68 = !DILocation(line: 12, column: 7, scope: !47)
!69 = !DILocation(line: 12, column: 20, scope: !47)
!70 = !DILocation(line: 13, column: 1, scope: !47)
!71 = distinct !DISubprogram(name: "tile_sync", scope: !1, file: !1, line: 15, type: !13, scopeLine: 15, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!72 = !DILocation(line: 17, column: 23, scope: !71)
!73 = !DILocation(line: 17, column: 25, scope: !71)
!74 = !DILocation(line: 17, column: 8, scope: !71)
!75 = !DILocation(line: 17, column: 3, scope: !71)
!76 = !DILocation(line: 17, column: 21, scope: !71)
!77 = !DILocation(line: 18, column: 3, scope: !71)
!78 = !DILocation(line: 19, column: 30, scope: !71)
!79 = !DILocation(line: 19, column: 28, scope: !71)
!80 = !DILocation(line: 19, column: 20, scope: !71)
!81 = !DILocation(line: 19, column: 43, scope: !71)
!82 = !DILocation(line: 19, column: 3, scope: !71)
!83 = !DILocation(line: 19, column: 5, scope: !71)
!84 = !DILocation(line: 19, column: 18, scope: !71)
!85 = !DILocation(line: 20, column: 1, scope: !71)
!86 = distinct !DISubprogram(name: "warp_exp", scope: !1, file: !1, line: 22, type: !13, scopeLine: 22, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!87 = !DILocation(line: 23, column: 3, scope: !86)
!88 = !DILocation(line: 23, column: 18, scope: !86)
!89 = !DILocation(line: 23, column: 20, scope: !86)
!90 = !DILocation(line: 23, column: 13, scope: !86)
!91 = !DILocation(line: 23, column: 9, scope: !86)
!92 = !DILocation(line: 24, column: 38, scope: !86)
!93 = !DILocation(line: 24, column: 8, scope: !86)
!94 = !DILocation(line: 24, column: 5, scope: !86)
!95 = !DILocation(line: 25, column: 25, scope: !86)
!96 = !DILocation(line: 25, column: 28, scope: !86)
!97 = !DILocation(line: 25, column: 20, scope: !86)
!98 = !DILocation(line: 25, column: 3, scope: !86)
!99 = !DILocation(line: 25, column: 5, scope: !86)
!100 = !DILocation(line: 25, column: 18, scope: !86)
!101 = !DILocation(line: 26, column: 1, scope: !86)
!102 = distinct !DISubprogram(name: "expf", scope: !103, file: !103, line: 109, type: !13, scopeLine: 109, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!103 = !DIFile(filename: "/usr/lib/llvm-19/lib/clang/19/include/__clang_cuda_math.h", directory: "")
!104 = !DILocation(line: 109, column: 53, scope: !102)
!105 = !DILocation(line: 109, column: 43, scope: !102)
!106 = !DILocation(line: 109, column: 36, scope: !102)
!107 = distinct !DISubprogram(name: "__shfl_down_sync", scope: !108, file: !108, line: 179, type: !13, scopeLine: 179, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!108 = !DIFile(filename: "/usr/lib/llvm-19/lib/clang/19/include/__clang_cuda_intrinsics.h", directory: "")
!109 = !DILocation(line: 179, column: 1, scope: !107)
!110 = distinct !DISubprogram(name: "fmaf", scope: !103, file: !103, line: 128, type: !13, scopeLine: 128, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!111 = !DILocation(line: 129, column: 20, scope: !110)
!112 = !DILocation(line: 129, column: 25, scope: !110)
!113 = !DILocation(line: 129, column: 30, scope: !110)
!114 = !DILocation(line: 129, column: 10, scope: !110)
!115 = !DILocation(line: 129, column: 3, scope: !110)
