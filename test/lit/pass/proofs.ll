; Accesses to static objects proven in bounds are not checked: the offset's
; range, from ScalarEvolution and LazyValueInfo (thread indices under the
; kernel's launch bounds, masks, loop bounds, dominating conditions), lies
; within the object, and the access is known aligned. Each kernel's remark
; says how many were proven; what cannot be proven keeps its check.

; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob,verify -kosan-link-runtime=false \
; RUN:   -pass-remarks=kosan-oob -S < %s 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; __shared__ float tile[256];
@tile = internal addrspace(3) global [256 x float] undef, align 16

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()

; __launch_bounds__(256): tile[threadIdx.x] = 1 needs no check.
; REMARK: kernel 'bounded': 0 accesses checked {{.*}}, 1 proven in bounds
; CHECK-LABEL: define ptx_kernel void @bounded__kosan(
; CHECK-NOT:     kosan.bad
; CHECK:         ret void
define void @bounded() {
entry:
  %t = call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %p = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %i
  store float 1.0, ptr addrspace(3) %p, align 4
  ret void
}

; NEGATIVE: no launch bounds, threadIdx.x may reach 1023: checked.
; REMARK: kernel 'unbounded': 1 accesses checked {{.*}}, 0 proven in bounds
; CHECK-LABEL: define ptx_kernel void @unbounded__kosan(
; CHECK:         %kosan.bad = or i1
define void @unbounded() {
entry:
  %t = call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %p = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %i
  store float 1.0, ptr addrspace(3) %p, align 4
  ret void
}

; reqntid 16x16 fixes each dimension: tile[ty * 16 + tx] is within 256.
; REMARK: kernel 'req2d': 0 accesses checked {{.*}}, 1 proven in bounds
define void @req2d() {
entry:
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %row = shl nuw nsw i32 %ty, 4
  %idx = add nuw nsw i32 %row, %tx
  %i = zext i32 %idx to i64
  %p = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %i
  store float 1.0, ptr addrspace(3) %p, align 4
  ret void
}

; NEGATIVE: maxntid 256 bounds only the product of the dimensions: a block
; of 1x256 threads has ty up to 255, and ty * 16 + tx exceeds the tile.
; REMARK: kernel 'max2d': 1 accesses checked {{.*}}, 0 proven in bounds
define void @max2d() {
entry:
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %row = shl nuw nsw i32 %ty, 4
  %idx = add nuw nsw i32 %row, %tx
  %i = zext i32 %idx to i64
  %p = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %i
  store float 1.0, ptr addrspace(3) %p, align 4
  ret void
}

; tile[(threadIdx.x + k) % 256]: the mask bounds it, launch bounds or not.
; REMARK: kernel 'masked': 1 accesses checked (1 against kernel arguments, 0 against shared/local/global objects, {{.*}}, 1 proven in bounds
define void @masked(ptr %out, i32 %k) {
entry:
  %t = call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %s = add i32 %t, %k
  %m = and i32 %s, 255
  %i = zext i32 %m to i64
  %p = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %i
  %v = load float, ptr addrspace(3) %p, align 4
  store float %v, ptr %out, align 4
  ret void
}

; if (i < 256) tile[i] = 0, with i a kernel parameter: the condition proves it.
; REMARK: kernel 'guarded': 0 accesses checked {{.*}}, 1 proven in bounds
define void @guarded(i32 %i) {
entry:
  %in = icmp ult i32 %i, 256
  br i1 %in, label %then, label %done
then:
  %x = zext i32 %i to i64
  %p = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %x
  store float 0.0, ptr addrspace(3) %p, align 4
  br label %done
done:
  ret void
}

; NEGATIVE: if (i <= 256) tile[i] = 0 can write one past the end: checked.
; REMARK: kernel 'guarded_off_by_one': 1 accesses checked {{.*}}, 0 proven in bounds
; CHECK-LABEL: define ptx_kernel void @guarded_off_by_one__kosan(
; CHECK:         %kosan.bad = icmp ugt i64 %kosan.offset, 1020
define void @guarded_off_by_one(i32 %i) {
entry:
  %in = icmp ule i32 %i, 256
  br i1 %in, label %then, label %done
then:
  %x = zext i32 %i to i64
  %p = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %x
  store float 0.0, ptr addrspace(3) %p, align 4
  br label %done
done:
  ret void
}

; for (j = 0; j < 256; ++j) tile[j] = 0: the loop bound proves it.
; REMARK: kernel 'loop': 0 accesses checked {{.*}}, 1 proven in bounds
define void @loop() {
entry:
  br label %body
body:
  %j = phi i64 [ 0, %entry ], [ %j1, %body ]
  %p = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %j
  store float 0.0, ptr addrspace(3) %p, align 4
  %j1 = add nuw nsw i64 %j, 1
  %more = icmp ult i64 %j1, 256
  br i1 %more, label %body, label %done
done:
  ret void
}

; NEGATIVE: for (j = 0; j <= 256; ++j) writes tile[256] last: checked.
; REMARK: kernel 'loop_off_by_one': 1 accesses checked {{.*}}, 0 proven in bounds
define void @loop_off_by_one() {
entry:
  br label %body
body:
  %j = phi i64 [ 0, %entry ], [ %j1, %body ]
  %p = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %j
  store float 0.0, ptr addrspace(3) %p, align 4
  %j1 = add nuw nsw i64 %j, 1
  %more = icmp ule i64 %j1, 256
  br i1 %more, label %body, label %done
done:
  ret void
}

; NEGATIVE: a 16-byte load at a byte offset (t & 1007) is inside the tile
; but may be misaligned: it keeps its (alignment) check.
; REMARK: kernel 'maybe_misaligned': 2 accesses checked (1 against kernel arguments, 1 against shared/local/global objects, {{.*}}, 0 proven in bounds
; CHECK-LABEL: define ptx_kernel void @maybe_misaligned__kosan(
; CHECK:         %kosan.misaligned = icmp ne i64
define void @maybe_misaligned(ptr %out) {
entry:
  %t = call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %m = and i32 %t, 1007
  %i = zext i32 %m to i64
  %p = getelementptr inbounds i8, ptr addrspace(3) @tile, i64 %i
  %v = load <4 x float>, ptr addrspace(3) %p, align 16
  %e = extractelement <4 x float> %v, i32 0
  store float %e, ptr %out, align 4
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5, !6, !7, !8, !9, !10, !11, !12}
!0 = !{ptr @bounded, !"kernel", i32 1}
!1 = !{ptr @bounded, !"maxntidx", i32 256}
!2 = !{ptr @unbounded, !"kernel", i32 1}
!3 = !{ptr @req2d, !"kernel", i32 1, !"reqntidx", i32 16, !"reqntidy", i32 16}
!4 = !{ptr @max2d, !"kernel", i32 1}
!5 = !{ptr @max2d, !"maxntidx", i32 256}
!6 = !{ptr @masked, !"kernel", i32 1}
!7 = !{ptr @guarded, !"kernel", i32 1}
!8 = !{ptr @guarded_off_by_one, !"kernel", i32 1}
!9 = !{ptr @loop, !"kernel", i32 1}
!10 = !{ptr @loop_off_by_one, !"kernel", i32 1}
!11 = !{ptr @maybe_misaligned, !"kernel", i32 1}
!12 = !{ptr @req2d, !"reqntidz", i32 1}
