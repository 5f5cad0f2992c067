; Host code that makes no CUDA runtime call.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @main() {
entry:
  %p = call ptr @malloc(i64 16)
  call void @free(ptr %p)
  ret i32 0
}

declare ptr @malloc(i64)
declare void @free(ptr)
