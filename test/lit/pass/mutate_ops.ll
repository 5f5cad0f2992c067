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

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes='kosan-mutate<id=67502cb80fc8>,verify' -S %s | FileCheck %s --check-prefix=REVERSE
; REVERSE-LABEL: define dso_local void @_Z7row_dotPKfS0_Pfi(
; REVERSE:       %kosan.mutant.lo = alloca i32
; REVERSE:       store i32 0, ptr %kosan.mutant.lo
; REVERSE-NEXT:  [[N:%.*]] = load i32, ptr %n.addr
; REVERSE-NEXT:  [[LAST:%.*]] = sub i32 [[N]], 1
; REVERSE-NEXT:  store i32 [[LAST]], ptr %k
; REVERSE:     for.cond:
; REVERSE:       [[LO:%.*]] = load i32, ptr %kosan.mutant.lo
; REVERSE-NEXT:  %cmp = icmp sge i32 %{{.*}}, [[LO]]
; REVERSE:     for.inc:
; REVERSE-NEXT:  [[K:%.*]] = load i32, ptr %k
; REVERSE-NEXT:  [[DEC:%.*]] = sub i32 [[K]], 1
; REVERSE-NEXT:  store i32 [[DEC]], ptr %k

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
define dso_local void @_Z9guard_relPKfPfi(ptr noundef %x, ptr noundef %y, i32 noundef %n) #0 !dbg !13 {
entry:
  %x.addr = alloca ptr, align 8
  %y.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %i = alloca i32, align 4
  store ptr %x, ptr %x.addr, align 8, !tbaa !16
  store ptr %y, ptr %y.addr, align 8, !tbaa !16
  store i32 %n, ptr %n.addr, align 4, !tbaa !20
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #8, !dbg !22
  %call = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #9, !dbg !23
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #9, !dbg !24
  %mul = mul i32 %call, %call1, !dbg !25
  %call2 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !26
  %add = add i32 %mul, %call2, !dbg !27
  store i32 %add, ptr %i, align 4, !dbg !28, !tbaa !20
  %0 = load i32, ptr %i, align 4, !dbg !29, !tbaa !20
  %1 = load i32, ptr %n.addr, align 4, !dbg !30, !tbaa !20
  %cmp = icmp slt i32 %0, %1, !dbg !31
  br i1 %cmp, label %if.then, label %if.end, !dbg !29

if.then:                                          ; preds = %entry
  %2 = load ptr, ptr %x.addr, align 8, !dbg !32, !tbaa !16
  %3 = load i32, ptr %i, align 4, !dbg !33, !tbaa !20
  %idxprom = sext i32 %3 to i64, !dbg !32
  %arrayidx = getelementptr inbounds float, ptr %2, i64 %idxprom, !dbg !32
  %4 = load float, ptr %arrayidx, align 4, !dbg !32, !tbaa !34
  %mul3 = fmul contract float %4, 2.000000e+00, !dbg !36
  %5 = load ptr, ptr %y.addr, align 8, !dbg !37, !tbaa !16
  %6 = load i32, ptr %i, align 4, !dbg !38, !tbaa !20
  %idxprom4 = sext i32 %6 to i64, !dbg !37
  %arrayidx5 = getelementptr inbounds float, ptr %5, i64 %idxprom4, !dbg !37
  store float %mul3, ptr %arrayidx5, align 4, !dbg !39, !tbaa !34
  br label %if.end, !dbg !37

if.end:                                           ; preds = %if.then, %entry
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #8, !dbg !40
  ret void, !dbg !40
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #2 comdat align 2 !dbg !41 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !43
  ret i32 %0, !dbg !43
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #2 comdat align 2 !dbg !44 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !45
  ret i32 %0, !dbg !45
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #2 comdat align 2 !dbg !46 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !47
  ret i32 %0, !dbg !47
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z10accumulatePKfPfi(ptr noundef %x, ptr noundef %out, i32 noundef %n) #0 !dbg !48 {
entry:
  %x.addr = alloca ptr, align 8
  %out.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %sum = alloca float, align 4
  %i = alloca i32, align 4
  store ptr %x, ptr %x.addr, align 8, !tbaa !16
  store ptr %out, ptr %out.addr, align 8, !tbaa !16
  store i32 %n, ptr %n.addr, align 4, !tbaa !20
  call void @llvm.lifetime.start.p0(i64 4, ptr %sum) #8, !dbg !49
  store float 0.000000e+00, ptr %sum, align 4, !dbg !50, !tbaa !34
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #8, !dbg !51
  %call = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !52
  store i32 %call, ptr %i, align 4, !dbg !53, !tbaa !20
  br label %for.cond, !dbg !51

for.cond:                                         ; preds = %for.inc, %entry
  %0 = load i32, ptr %i, align 4, !dbg !54, !tbaa !20
  %1 = load i32, ptr %n.addr, align 4, !dbg !55, !tbaa !20
  %cmp = icmp slt i32 %0, %1, !dbg !56
  br i1 %cmp, label %for.body, label %for.cond.cleanup, !dbg !57

for.cond.cleanup:                                 ; preds = %for.cond
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #8, !dbg !57
  br label %for.end

for.body:                                         ; preds = %for.cond
  %2 = load ptr, ptr %x.addr, align 8, !dbg !58, !tbaa !16
  %3 = load i32, ptr %i, align 4, !dbg !59, !tbaa !20
  %idxprom = sext i32 %3 to i64, !dbg !58
  %arrayidx = getelementptr inbounds float, ptr %2, i64 %idxprom, !dbg !58
  %4 = load float, ptr %arrayidx, align 4, !dbg !58, !tbaa !34
  %5 = load float, ptr %sum, align 4, !dbg !60, !tbaa !34
  %add = fadd contract float %5, %4, !dbg !60
  store float %add, ptr %sum, align 4, !dbg !60, !tbaa !34
  br label %for.inc, !dbg !61

for.inc:                                          ; preds = %for.body
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #9, !dbg !62
  %6 = load i32, ptr %i, align 4, !dbg !63, !tbaa !20
  %add2 = add i32 %6, %call1, !dbg !63
  store i32 %add2, ptr %i, align 4, !dbg !63, !tbaa !20
  br label %for.cond, !dbg !57, !llvm.loop !64

for.end:                                          ; preds = %for.cond.cleanup
  %7 = load float, ptr %sum, align 4, !dbg !67, !tbaa !34
  %8 = load ptr, ptr %out.addr, align 8, !dbg !68, !tbaa !16
  %call3 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !69
  %idxprom4 = zext i32 %call3 to i64, !dbg !68
  %arrayidx5 = getelementptr inbounds float, ptr %8, i64 %idxprom4, !dbg !68
  %9 = load float, ptr %arrayidx5, align 4, !dbg !70, !tbaa !34
  %add6 = fadd contract float %9, %7, !dbg !70
  store float %add6, ptr %arrayidx5, align 4, !dbg !70, !tbaa !34
  call void @llvm.lifetime.end.p0(i64 4, ptr %sum) #8, !dbg !71
  ret void, !dbg !71
}

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z9tile_syncPKfPf(ptr noundef %x, ptr noundef %y) #0 !dbg !72 {
entry:
  %x.addr = alloca ptr, align 8
  %y.addr = alloca ptr, align 8
  store ptr %x, ptr %x.addr, align 8, !tbaa !16
  store ptr %y, ptr %y.addr, align 8, !tbaa !16
  %0 = load ptr, ptr %x.addr, align 8, !dbg !73, !tbaa !16
  %call = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !74
  %idxprom = zext i32 %call to i64, !dbg !73
  %arrayidx = getelementptr inbounds float, ptr %0, i64 %idxprom, !dbg !73
  %1 = load float, ptr %arrayidx, align 4, !dbg !73, !tbaa !34
  %call1 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !75
  %idxprom2 = zext i32 %call1 to i64, !dbg !76
  %arrayidx3 = getelementptr inbounds [64 x float], ptr addrspacecast (ptr addrspace(3) @_ZZ9tile_syncPKfPfE4tile to ptr), i64 0, i64 %idxprom2, !dbg !76
  store float %1, ptr %arrayidx3, align 4, !dbg !77, !tbaa !34
  call void @llvm.nvvm.barrier0(), !dbg !78
  %call4 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !79
  %sub = sub i32 63, %call4, !dbg !80
  %idxprom5 = zext i32 %sub to i64, !dbg !81
  %arrayidx6 = getelementptr inbounds [64 x float], ptr addrspacecast (ptr addrspace(3) @_ZZ9tile_syncPKfPfE4tile to ptr), i64 0, i64 %idxprom5, !dbg !81
  %2 = load float, ptr %arrayidx6, align 4, !dbg !81, !tbaa !34
  %div = fdiv contract float %2, 3.000000e+00, !dbg !82
  %3 = load ptr, ptr %y.addr, align 8, !dbg !83, !tbaa !16
  %call7 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !84
  %idxprom8 = zext i32 %call7 to i64, !dbg !83
  %arrayidx9 = getelementptr inbounds float, ptr %3, i64 %idxprom8, !dbg !83
  store float %div, ptr %arrayidx9, align 4, !dbg !85, !tbaa !34
  ret void, !dbg !86
}

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier0() #3

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z8warp_expPKfPf(ptr noundef %x, ptr noundef %y) #0 !dbg !87 {
entry:
  %x.addr = alloca ptr, align 8
  %y.addr = alloca ptr, align 8
  %v = alloca float, align 4
  store ptr %x, ptr %x.addr, align 8, !tbaa !16
  store ptr %y, ptr %y.addr, align 8, !tbaa !16
  call void @llvm.lifetime.start.p0(i64 4, ptr %v) #8, !dbg !88
  %0 = load ptr, ptr %x.addr, align 8, !dbg !89, !tbaa !16
  %call = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !90
  %idxprom = zext i32 %call to i64, !dbg !89
  %arrayidx = getelementptr inbounds float, ptr %0, i64 %idxprom, !dbg !89
  %1 = load float, ptr %arrayidx, align 4, !dbg !89, !tbaa !34
  %call1 = call contract noundef float @_ZL4expff(float noundef %1) #9, !dbg !91
  store float %call1, ptr %v, align 4, !dbg !92, !tbaa !34
  %2 = load float, ptr %v, align 4, !dbg !93, !tbaa !34
  %call2 = call contract noundef float @_Z16__shfl_down_syncjfji(i32 noundef -1, float noundef %2, i32 noundef 16, i32 noundef 32) #9, !dbg !94
  %3 = load float, ptr %v, align 4, !dbg !95, !tbaa !34
  %add = fadd contract float %3, %call2, !dbg !95
  store float %add, ptr %v, align 4, !dbg !95, !tbaa !34
  %4 = load float, ptr %v, align 4, !dbg !96, !tbaa !34
  %5 = load float, ptr %v, align 4, !dbg !97, !tbaa !34
  %call3 = call contract noundef float @_ZL4fmaffff(float noundef %4, float noundef %5, float noundef 1.000000e+00) #9, !dbg !98
  %6 = load ptr, ptr %y.addr, align 8, !dbg !99, !tbaa !16
  %call4 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9, !dbg !100
  %idxprom5 = zext i32 %call4 to i64, !dbg !99
  %arrayidx6 = getelementptr inbounds float, ptr %6, i64 %idxprom5, !dbg !99
  store float %call3, ptr %arrayidx6, align 4, !dbg !101, !tbaa !34
  call void @llvm.lifetime.end.p0(i64 4, ptr %v) #8, !dbg !102
  ret void, !dbg !102
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal noundef float @_ZL4expff(float noundef %__a) #2 !dbg !103 {
entry:
  %__a.addr = alloca float, align 4
  store float %__a, ptr %__a.addr, align 4, !tbaa !34
  %0 = load float, ptr %__a.addr, align 4, !dbg !105, !tbaa !34
  %call = call contract float @__nv_expf(float noundef %0) #9, !dbg !106
  ret float %call, !dbg !107
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define linkonce_odr dso_local noundef float @_Z16__shfl_down_syncjfji(i32 noundef %__mask, float noundef %__val, i32 noundef %__offset, i32 noundef %__width) #4 comdat !dbg !108 {
entry:
  %__mask.addr = alloca i32, align 4
  %__val.addr = alloca float, align 4
  %__offset.addr = alloca i32, align 4
  %__width.addr = alloca i32, align 4
  store i32 %__mask, ptr %__mask.addr, align 4, !tbaa !20
  store float %__val, ptr %__val.addr, align 4, !tbaa !34
  store i32 %__offset, ptr %__offset.addr, align 4, !tbaa !20
  store i32 %__width, ptr %__width.addr, align 4, !tbaa !20
  %0 = load i32, ptr %__mask.addr, align 4, !dbg !110, !tbaa !20
  %1 = load float, ptr %__val.addr, align 4, !dbg !110, !tbaa !34
  %2 = load i32, ptr %__offset.addr, align 4, !dbg !110, !tbaa !20
  %3 = load i32, ptr %__width.addr, align 4, !dbg !110, !tbaa !20
  %sub = sub nsw i32 32, %3, !dbg !110
  %shl = shl i32 %sub, 8, !dbg !110
  %or = or i32 %shl, 31, !dbg !110
  %4 = call contract float @llvm.nvvm.shfl.sync.down.f32(i32 %0, float %1, i32 %2, i32 %or), !dbg !110
  ret float %4, !dbg !110
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal noundef float @_ZL4fmaffff(float noundef %__a, float noundef %__b, float noundef %__c) #2 !dbg !111 {
entry:
  %__a.addr = alloca float, align 4
  %__b.addr = alloca float, align 4
  %__c.addr = alloca float, align 4
  store float %__a, ptr %__a.addr, align 4, !tbaa !34
  store float %__b, ptr %__b.addr, align 4, !tbaa !34
  store float %__c, ptr %__c.addr, align 4, !tbaa !34
  %0 = load float, ptr %__a.addr, align 4, !dbg !112, !tbaa !34
  %1 = load float, ptr %__b.addr, align 4, !dbg !113, !tbaa !34
  %2 = load float, ptr %__c.addr, align 4, !dbg !114, !tbaa !34
  %call = call contract float @__nv_fmaf(float noundef %0, float noundef %1, float noundef %2) #9, !dbg !115
  ret float %call, !dbg !116
}

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z7row_dotPKfS0_Pfi(ptr noundef %a, ptr noundef %b, ptr noundef %out, i32 noundef %n) #0 !dbg !117 {
entry:
  %a.addr = alloca ptr, align 8
  %b.addr = alloca ptr, align 8
  %out.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %acc = alloca float, align 4
  %k = alloca i32, align 4
  store ptr %a, ptr %a.addr, align 8, !tbaa !16
  store ptr %b, ptr %b.addr, align 8, !tbaa !16
  store ptr %out, ptr %out.addr, align 8, !tbaa !16
  store i32 %n, ptr %n.addr, align 4, !tbaa !20
  call void @llvm.lifetime.start.p0(i64 4, ptr %acc) #8, !dbg !118
  store float 0.000000e+00, ptr %acc, align 4, !dbg !119, !tbaa !34
  call void @llvm.lifetime.start.p0(i64 4, ptr %k) #8, !dbg !120
  store i32 0, ptr %k, align 4, !dbg !121, !tbaa !20
  br label %for.cond, !dbg !120

for.cond:                                         ; preds = %for.inc, %entry
  %0 = load i32, ptr %k, align 4, !dbg !122, !tbaa !20
  %1 = load i32, ptr %n.addr, align 4, !dbg !123, !tbaa !20
  %cmp = icmp slt i32 %0, %1, !dbg !124
  br i1 %cmp, label %for.body, label %for.cond.cleanup, !dbg !125

for.cond.cleanup:                                 ; preds = %for.cond
  call void @llvm.lifetime.end.p0(i64 4, ptr %k) #8, !dbg !125
  br label %for.end

for.body:                                         ; preds = %for.cond
  %2 = load ptr, ptr %a.addr, align 8, !dbg !126, !tbaa !16
  %call = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #9, !dbg !127
  %3 = load i32, ptr %n.addr, align 4, !dbg !128, !tbaa !20
  %mul = mul i32 %call, %3, !dbg !129
  %4 = load i32, ptr %k, align 4, !dbg !130, !tbaa !20
  %add = add i32 %mul, %4, !dbg !131
  %idxprom = zext i32 %add to i64, !dbg !126
  %arrayidx = getelementptr inbounds float, ptr %2, i64 %idxprom, !dbg !126
  %5 = load float, ptr %arrayidx, align 4, !dbg !126, !tbaa !34
  %6 = load ptr, ptr %b.addr, align 8, !dbg !132, !tbaa !16
  %7 = load i32, ptr %k, align 4, !dbg !133, !tbaa !20
  %idxprom1 = sext i32 %7 to i64, !dbg !132
  %arrayidx2 = getelementptr inbounds float, ptr %6, i64 %idxprom1, !dbg !132
  %8 = load float, ptr %arrayidx2, align 4, !dbg !132, !tbaa !34
  %mul3 = fmul contract float %5, %8, !dbg !134
  %9 = load float, ptr %acc, align 4, !dbg !135, !tbaa !34
  %add4 = fadd contract float %9, %mul3, !dbg !135
  store float %add4, ptr %acc, align 4, !dbg !135, !tbaa !34
  br label %for.inc, !dbg !136

for.inc:                                          ; preds = %for.body
  %10 = load i32, ptr %k, align 4, !dbg !137, !tbaa !20
  %inc = add nsw i32 %10, 1, !dbg !137
  store i32 %inc, ptr %k, align 4, !dbg !137, !tbaa !20
  br label %for.cond, !dbg !125, !llvm.loop !138

for.end:                                          ; preds = %for.cond.cleanup
  %11 = load float, ptr %acc, align 4, !dbg !140, !tbaa !34
  %12 = load ptr, ptr %out.addr, align 8, !dbg !141, !tbaa !16
  %call5 = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #9, !dbg !142
  %idxprom6 = zext i32 %call5 to i64, !dbg !141
  %arrayidx7 = getelementptr inbounds float, ptr %12, i64 %idxprom6, !dbg !141
  store float %11, ptr %arrayidx7, align 4, !dbg !143, !tbaa !34
  call void @llvm.lifetime.end.p0(i64 4, ptr %acc) #8, !dbg !144
  ret void, !dbg !144
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
!nvvm.annotations = !{!2, !3, !4, !5, !6}
!llvm.module.flags = !{!7, !8, !9, !10, !11}
!llvm.ident = !{!12}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "mutate_ops.cu", directory: "/src")
!2 = !{ptr @_Z9guard_relPKfPfi, !"kernel", i32 1}
!3 = !{ptr @_Z10accumulatePKfPfi, !"kernel", i32 1}
!4 = !{ptr @_Z9tile_syncPKfPf, !"kernel", i32 1}
!5 = !{ptr @_Z8warp_expPKfPf, !"kernel", i32 1}
!6 = !{ptr @_Z7row_dotPKfS0_Pfi, !"kernel", i32 1}
!7 = !{i32 7, !"Dwarf Version", i32 2}
!8 = !{i32 2, !"Debug Info Version", i32 3}
!9 = !{i32 1, !"wchar_size", i32 4}
!10 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!11 = !{i32 7, !"frame-pointer", i32 2}
!12 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!13 = distinct !DISubprogram(name: "guard_rel", scope: !1, file: !1, line: 2, type: !14, scopeLine: 2, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!14 = !DISubroutineType(types: !15)
!15 = !{}
!16 = !{!17, !17, i64 0}
!17 = !{!"any pointer", !18, i64 0}
!18 = !{!"omnipotent char", !19, i64 0}
!19 = !{!"Simple C++ TBAA"}
!20 = !{!21, !21, i64 0}
!21 = !{!"int", !18, i64 0}
!22 = !DILocation(line: 3, column: 3, scope: !13)
!23 = !DILocation(line: 3, column: 11, scope: !13)
!24 = !DILocation(line: 3, column: 24, scope: !13)
!25 = !DILocation(line: 3, column: 22, scope: !13)
!26 = !DILocation(line: 3, column: 37, scope: !13)
!27 = !DILocation(line: 3, column: 35, scope: !13)
!28 = !DILocation(line: 3, column: 7, scope: !13)
!29 = !DILocation(line: 4, column: 7, scope: !13)
!30 = !DILocation(line: 4, column: 11, scope: !13)
!31 = !DILocation(line: 4, column: 9, scope: !13)
!32 = !DILocation(line: 5, column: 12, scope: !13)
!33 = !DILocation(line: 5, column: 14, scope: !13)
!34 = !{!35, !35, i64 0}
!35 = !{!"float", !18, i64 0}
!36 = !DILocation(line: 5, column: 17, scope: !13)
!37 = !DILocation(line: 5, column: 5, scope: !13)
!38 = !DILocation(line: 5, column: 7, scope: !13)
!39 = !DILocation(line: 5, column: 10, scope: !13)
!40 = !DILocation(line: 6, column: 1, scope: !13)
!41 = distinct !DISubprogram(name: "__fetch_builtin_x", scope: !42, file: !42, line: 66, type: !14, scopeLine: 66, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!42 = !DIFile(filename: "/usr/lib/llvm-19/lib/clang/19/include/__clang_cuda_builtin_vars.h", directory: "")
!43 = !DILocation(line: 66, column: 3, scope: !41)
!44 = distinct !DISubprogram(name: "__fetch_builtin_x", scope: !42, file: !42, line: 79, type: !14, scopeLine: 79, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!45 = !DILocation(line: 79, column: 3, scope: !44)
!46 = distinct !DISubprogram(name: "__fetch_builtin_x", scope: !42, file: !42, line: 53, type: !14, scopeLine: 53, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!47 = !DILocation(line: 53, column: 3, scope: !46)
!48 = distinct !DISubprogram(name: "accumulate", scope: !1, file: !1, line: 8, type: !14, scopeLine: 8, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!49 = !DILocation(line: 9, column: 3, scope: !48)
!50 = !DILocation(line: 9, column: 9, scope: !48)
!51 = !DILocation(line: 10, column: 8, scope: !48)
!52 = !DILocation(line: 10, column: 16, scope: !48)
!53 = !DILocation(line: 10, column: 12, scope: !48)
!54 = !DILocation(line: 10, column: 29, scope: !48)
!55 = !DILocation(line: 10, column: 33, scope: !48)
!56 = !DILocation(line: 10, column: 31, scope: !48)
!57 = !DILocation(line: 10, column: 3, scope: !48)
!58 = !DILocation(line: 11, column: 12, scope: !48)
!59 = !DILocation(line: 11, column: 14, scope: !48)
!60 = !DILocation(line: 11, column: 9, scope: !48)
!61 = !DILocation(line: 11, column: 5, scope: !48)
!62 = !DILocation(line: 10, column: 41, scope: !48)
!63 = !DILocation(line: 10, column: 38, scope: !48)
!64 = distinct !{!64, !57, !65, !66}
!65 = !DILocation(line: 11, column: 15, scope: !48)
!66 = !{!"llvm.loop.mustprogress"}
!67 = !DILocation(line: 12, column: 23, scope: !48)
!68 = !DILocation(line: 12, column: 3, scope: !48)
!69 = !DILocation(line: 12, column: 7, scope: !48)
!70 = !DILocation(line: 12, column: 20, scope: !48)
!71 = !DILocation(line: 13, column: 1, scope: !48)
!72 = distinct !DISubprogram(name: "tile_sync", scope: !1, file: !1, line: 15, type: !14, scopeLine: 15, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!73 = !DILocation(line: 17, column: 23, scope: !72)
!74 = !DILocation(line: 17, column: 25, scope: !72)
!75 = !DILocation(line: 17, column: 8, scope: !72)
!76 = !DILocation(line: 17, column: 3, scope: !72)
!77 = !DILocation(line: 17, column: 21, scope: !72)
!78 = !DILocation(line: 18, column: 3, scope: !72)
!79 = !DILocation(line: 19, column: 30, scope: !72)
!80 = !DILocation(line: 19, column: 28, scope: !72)
!81 = !DILocation(line: 19, column: 20, scope: !72)
!82 = !DILocation(line: 19, column: 43, scope: !72)
!83 = !DILocation(line: 19, column: 3, scope: !72)
!84 = !DILocation(line: 19, column: 5, scope: !72)
!85 = !DILocation(line: 19, column: 18, scope: !72)
!86 = !DILocation(line: 20, column: 1, scope: !72)
!87 = distinct !DISubprogram(name: "warp_exp", scope: !1, file: !1, line: 22, type: !14, scopeLine: 22, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!88 = !DILocation(line: 23, column: 3, scope: !87)
!89 = !DILocation(line: 23, column: 18, scope: !87)
!90 = !DILocation(line: 23, column: 20, scope: !87)
!91 = !DILocation(line: 23, column: 13, scope: !87)
!92 = !DILocation(line: 23, column: 9, scope: !87)
!93 = !DILocation(line: 24, column: 38, scope: !87)
!94 = !DILocation(line: 24, column: 8, scope: !87)
!95 = !DILocation(line: 24, column: 5, scope: !87)
!96 = !DILocation(line: 25, column: 25, scope: !87)
!97 = !DILocation(line: 25, column: 28, scope: !87)
!98 = !DILocation(line: 25, column: 20, scope: !87)
!99 = !DILocation(line: 25, column: 3, scope: !87)
!100 = !DILocation(line: 25, column: 5, scope: !87)
!101 = !DILocation(line: 25, column: 18, scope: !87)
!102 = !DILocation(line: 26, column: 1, scope: !87)
!103 = distinct !DISubprogram(name: "expf", scope: !104, file: !104, line: 109, type: !14, scopeLine: 109, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!104 = !DIFile(filename: "/usr/lib/llvm-19/lib/clang/19/include/__clang_cuda_math.h", directory: "")
!105 = !DILocation(line: 109, column: 53, scope: !103)
!106 = !DILocation(line: 109, column: 43, scope: !103)
!107 = !DILocation(line: 109, column: 36, scope: !103)
!108 = distinct !DISubprogram(name: "__shfl_down_sync", scope: !109, file: !109, line: 179, type: !14, scopeLine: 179, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!109 = !DIFile(filename: "/usr/lib/llvm-19/lib/clang/19/include/__clang_cuda_intrinsics.h", directory: "")
!110 = !DILocation(line: 179, column: 1, scope: !108)
!111 = distinct !DISubprogram(name: "fmaf", scope: !104, file: !104, line: 128, type: !14, scopeLine: 128, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!112 = !DILocation(line: 129, column: 20, scope: !111)
!113 = !DILocation(line: 129, column: 25, scope: !111)
!114 = !DILocation(line: 129, column: 30, scope: !111)
!115 = !DILocation(line: 129, column: 10, scope: !111)
!116 = !DILocation(line: 129, column: 3, scope: !111)
!117 = distinct !DISubprogram(name: "row_dot", scope: !1, file: !1, line: 28, type: !14, scopeLine: 28, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!118 = !DILocation(line: 29, column: 3, scope: !117)
!119 = !DILocation(line: 29, column: 9, scope: !117)
!120 = !DILocation(line: 30, column: 8, scope: !117)
!121 = !DILocation(line: 30, column: 12, scope: !117)
!122 = !DILocation(line: 30, column: 19, scope: !117)
!123 = !DILocation(line: 30, column: 23, scope: !117)
!124 = !DILocation(line: 30, column: 21, scope: !117)
!125 = !DILocation(line: 30, column: 3, scope: !117)
!126 = !DILocation(line: 31, column: 12, scope: !117)
!127 = !DILocation(line: 31, column: 14, scope: !117)
!128 = !DILocation(line: 31, column: 27, scope: !117)
!129 = !DILocation(line: 31, column: 25, scope: !117)
!130 = !DILocation(line: 31, column: 31, scope: !117)
!131 = !DILocation(line: 31, column: 29, scope: !117)
!132 = !DILocation(line: 31, column: 36, scope: !117)
!133 = !DILocation(line: 31, column: 38, scope: !117)
!134 = !DILocation(line: 31, column: 34, scope: !117)
!135 = !DILocation(line: 31, column: 9, scope: !117)
!136 = !DILocation(line: 31, column: 5, scope: !117)
!137 = !DILocation(line: 30, column: 26, scope: !117)
!138 = distinct !{!138, !125, !139, !66}
!139 = !DILocation(line: 31, column: 39, scope: !117)
!140 = !DILocation(line: 32, column: 21, scope: !117)
!141 = !DILocation(line: 32, column: 3, scope: !117)
!142 = !DILocation(line: 32, column: 7, scope: !117)
!143 = !DILocation(line: 32, column: 19, scope: !117)
!144 = !DILocation(line: 33, column: 1, scope: !117)
