; At -O0 clang keeps every pointer variable in a stack slot. A pointer that
; walks a buffer (`for (int *p = buf; p < buf + n; ++p) *p = 0;`) is stored to
; its slot twice, once with the argument and once with p + 1 loaded from the
; slot itself: the store through it is still checked against the argument's
; bounds, not the table of all buffers. A slot whose address escapes proves
; nothing and falls back to the table.
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false \
; RUN:   -pass-remarks=kosan-oob -disable-output %s 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: %opt -load-pass-plugin=%kosan_plugin -passes=kosan-oob -kosan-link-runtime=false -S %s \
; RUN:   | FileCheck %s

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; REMARK: kernel 'zero(int*, int)': 1 accesses checked (1 against kernel arguments, 0 against shared/local/global objects, 0 against the table of all buffers)
; REMARK: kernel 'escaped(int*, void**)': 2 accesses checked (1 against kernel arguments, 0 against shared/local/global objects, 1 against the table of all buffers)

; CHECK-LABEL: define {{.*}} @_Z4zeroPii__kosan(
; CHECK-DAG: %kosan.arg0.begin = load i64
; CHECK-DAG: %kosan.arg0.end = load i64
; CHECK: %kosan.bad = or i1
; CHECK: store i32 0, ptr %kosan.safe
; CHECK-NOT: __kosan_oob_check_table
; CHECK: ret void
define dso_local void @_Z4zeroPii(ptr noundef %buf, i32 noundef %n) {
entry:
  %buf.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %p = alloca ptr, align 8
  store ptr %buf, ptr %buf.addr, align 8
  store i32 %n, ptr %n.addr, align 4
  %0 = load ptr, ptr %buf.addr, align 8
  store ptr %0, ptr %p, align 8
  br label %for.cond

for.cond:
  %1 = load ptr, ptr %p, align 8
  %2 = load ptr, ptr %buf.addr, align 8
  %3 = load i32, ptr %n.addr, align 4
  %idx.ext = sext i32 %3 to i64
  %add.ptr = getelementptr inbounds i32, ptr %2, i64 %idx.ext
  %cmp = icmp ult ptr %1, %add.ptr
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %4 = load ptr, ptr %p, align 8
  store i32 0, ptr %4, align 4
  %5 = load ptr, ptr %p, align 8
  %incdec.ptr = getelementptr inbounds i32, ptr %5, i32 1
  store ptr %incdec.ptr, ptr %p, align 8
  br label %for.cond

for.end:
  ret void
}

; The slot's address is passed on: whatever stored through it is unknown.
; CHECK-LABEL: define {{.*}} @_Z7escapedPiPPv__kosan(
; CHECK: call {{.*}} @__kosan_oob_check_table(
define dso_local void @_Z7escapedPiPPv(ptr noundef %buf, ptr noundef %out) {
entry:
  %p = alloca ptr, align 8
  store ptr %buf, ptr %p, align 8
  store ptr %p, ptr %out, align 8
  %0 = load ptr, ptr %p, align 8
  store i32 1, ptr %0, align 4
  ret void
}

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @_Z4zeroPii, !"kernel", i32 1}
!1 = !{ptr @_Z7escapedPiPPv, !"kernel", i32 1}
