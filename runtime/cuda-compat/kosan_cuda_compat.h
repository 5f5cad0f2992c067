/*===- kosan_cuda_compat.h - CUDA features clang 19 lacks ------------------===
 *
 * kosan-clang++ force-includes this header (-include) into every compilation,
 * after clang's CUDA wrapper header. Outside clang CUDA compilation it is
 * empty, so it is harmless in C and C++ translation units that share a
 * command line with .cu files.
 *
 * Cache-hint loads and stores (__ldcs, __ldcg, __ldca, __ldlu, __ldcv, __stcs,
 * __stcg, __stwb, __stwt): CUDA declares them in sm_32_intrinsics.h, which
 * clang's CUDA wrapper headers do not include (they define __ldg themselves),
 * and clang 19 defines none of them, so code using them fails with "use of
 * undeclared identifier". They are defined here for both the host and the
 * device compilation (the host compilation checks kernel bodies too), for the
 * types CUDA defines them for, except __half and __nv_bfloat16, which
 * cuda_fp16.h and cuda_bf16.h define.
 *
 * Two implementations:
 *  - uninstrumented builds (--kosan-plain): the same PTX instructions nvcc
 *    emits (ld.global.cs, st.global.wt, ...), so a baseline runs the code an
 *    nvcc build runs;
 *  - instrumented builds (kosan-clang++ defines __KOSAN__): ordinary IR loads
 *    and stores. An access hidden in inline assembly is invisible to the kosan
 *    passes, and __ldcs/__stcs are exactly how streaming kernels touch their
 *    buffers. The hints only steer caching; dropping them keeps the results.
 *    __ldcv stays a volatile load so that polling loops still re-read memory.
 *
 * Also: the standard headers nvcc builds see without including them, host
 * min() and max(), and warp reductions (__reduce_*_sync) with the operands
 * clang 19 swaps put right; each is explained where it is defined below.
 *
 *===------------------------------------------------------------------------===*/
#ifndef KOSAN_CUDA_COMPAT_H
#define KOSAN_CUDA_COMPAT_H

#if defined(__clang__) && defined(__CUDA__)

/* Standard headers whose declarations nvcc builds see without including
 * them, as nvcc's cuda_runtime.h includes them in host code
 * (crt/common_functions.h, crt/math_functions.h): math.h and time.h.
 * Programs call isfinite(), isnan(), isinf() (llm.c's dev/cuda kernels) and
 * clock() from host code without an #include; clang's wrapper header
 * includes cmath, which declares std::isfinite but not the global one that
 * math.h adds, and no time.h. Only what nvcc builds do see is added: printf()
 * and assert() are undeclared in nvcc builds that do not include stdio.h or
 * assert.h themselves. */
#include <math.h>
#include <time.h>

/* nodebug: inlined, their accesses take the caller's source line, so that a
 * report names the user's code rather than this header. */
#define KOSAN_COMPAT_DECL                                                      \
  static __device__ __forceinline__ __attribute__((nodebug))

/* Types with cache-hint intrinsics, with their element type, the PTX type of
 * the access, and the register type and constraint inline PTX moves them in.
 * long is 64 bits on nvptx64, as on the x86_64 and aarch64 hosts. */
#define KOSAN_COMPAT_SCALAR_TYPES(X, HINT)                                     \
  X(HINT, char, s8, int, "r")                                                  \
  X(HINT, signed char, s8, int, "r")                                           \
  X(HINT, unsigned char, u8, unsigned int, "r")                                \
  X(HINT, short, s16, short, "h")                                              \
  X(HINT, unsigned short, u16, unsigned short, "h")                            \
  X(HINT, int, s32, int, "r")                                                  \
  X(HINT, unsigned int, u32, unsigned int, "r")                                \
  X(HINT, long, s64, long, "l")                                                \
  X(HINT, unsigned long, u64, unsigned long, "l")                              \
  X(HINT, long long, s64, long long, "l")                                      \
  X(HINT, unsigned long long, u64, unsigned long long, "l")                    \
  X(HINT, float, f32, float, "f")                                              \
  X(HINT, double, f64, double, "d")

#define KOSAN_COMPAT_VECTOR2_TYPES(X, HINT)                                    \
  X(HINT, char2, signed char, s8, int, "r")                                    \
  X(HINT, uchar2, unsigned char, u8, unsigned int, "r")                        \
  X(HINT, short2, short, s16, short, "h")                                      \
  X(HINT, ushort2, unsigned short, u16, unsigned short, "h")                   \
  X(HINT, int2, int, s32, int, "r")                                            \
  X(HINT, uint2, unsigned int, u32, unsigned int, "r")                         \
  X(HINT, longlong2, long long, s64, long long, "l")                           \
  X(HINT, ulonglong2, unsigned long long, u64, unsigned long long, "l")        \
  X(HINT, float2, float, f32, float, "f")                                      \
  X(HINT, double2, double, f64, double, "d")

#define KOSAN_COMPAT_VECTOR4_TYPES(X, HINT)                                    \
  X(HINT, char4, signed char, s8, int, "r")                                    \
  X(HINT, uchar4, unsigned char, u8, unsigned int, "r")                        \
  X(HINT, short4, short, s16, short, "h")                                      \
  X(HINT, ushort4, unsigned short, u16, unsigned short, "h")                   \
  X(HINT, int4, int, s32, int, "r")                                            \
  X(HINT, uint4, unsigned int, u32, unsigned int, "r")                         \
  X(HINT, float4, float, f32, float, "f")

#if defined(__KOSAN__)

/* Vectors move as one clang vector of the same size and alignment as the
 * CUDA type, so that the passes see one access of the whole vector. */
#define KOSAN_COMPAT_VOLATILE_ca
#define KOSAN_COMPAT_VOLATILE_cg
#define KOSAN_COMPAT_VOLATILE_cs
#define KOSAN_COMPAT_VOLATILE_lu
#define KOSAN_COMPAT_VOLATILE_cv volatile

#define KOSAN_COMPAT_LOAD(HINT, T, PTX, REG, CON)                              \
  KOSAN_COMPAT_DECL T __ld##HINT(const T *ptr) {                               \
    return *(KOSAN_COMPAT_VOLATILE_##HINT const T *)ptr;                       \
  }
#define KOSAN_COMPAT_STORE(HINT, T, PTX, REG, CON)                             \
  KOSAN_COMPAT_DECL void __st##HINT(T *ptr, T value) { *ptr = value; }

#define KOSAN_COMPAT_LOAD_VECTOR(N, HINT, T, ELEM)                             \
  KOSAN_COMPAT_DECL T __ld##HINT(const T *ptr) {                               \
    typedef ELEM vec __attribute__((ext_vector_type(N)));                      \
    vec v = *(KOSAN_COMPAT_VOLATILE_##HINT const vec *)ptr;                    \
    T ret;                                                                     \
    __builtin_memcpy(&ret, &v, sizeof ret);                                    \
    return ret;                                                                \
  }
#define KOSAN_COMPAT_STORE_VECTOR(N, HINT, T, ELEM)                            \
  KOSAN_COMPAT_DECL void __st##HINT(T *ptr, T value) {                         \
    typedef ELEM vec __attribute__((ext_vector_type(N)));                      \
    vec v;                                                                     \
    __builtin_memcpy(&v, &value, sizeof v);                                    \
    *(vec *)ptr = v;                                                           \
  }
#define KOSAN_COMPAT_LOAD2(HINT, T, ELEM, PTX, REG, CON)                       \
  KOSAN_COMPAT_LOAD_VECTOR(2, HINT, T, ELEM)
#define KOSAN_COMPAT_LOAD4(HINT, T, ELEM, PTX, REG, CON)                       \
  KOSAN_COMPAT_LOAD_VECTOR(4, HINT, T, ELEM)
#define KOSAN_COMPAT_STORE2(HINT, T, ELEM, PTX, REG, CON)                      \
  KOSAN_COMPAT_STORE_VECTOR(2, HINT, T, ELEM)
#define KOSAN_COMPAT_STORE4(HINT, T, ELEM, PTX, REG, CON)                      \
  KOSAN_COMPAT_STORE_VECTOR(4, HINT, T, ELEM)

#else /* !__KOSAN__ */

/* The asm qualifiers and clobbers of CUDA's sm_32_intrinsics.hpp: the
 * "last use" and "volatile" loads must not move across other memory
 * accesses; stores (asm without outputs) are implicitly volatile. */
#define KOSAN_COMPAT_LOAD_ASM_ca(...) asm volatile(__VA_ARGS__)
#define KOSAN_COMPAT_LOAD_ASM_cg(...) asm volatile(__VA_ARGS__)
#define KOSAN_COMPAT_LOAD_ASM_cs(...) asm volatile(__VA_ARGS__)
#define KOSAN_COMPAT_LOAD_ASM_lu(...) asm(__VA_ARGS__ : "memory")
#define KOSAN_COMPAT_LOAD_ASM_cv(...) asm(__VA_ARGS__ : "memory")

#define KOSAN_COMPAT_LOAD(HINT, T, PTX, REG, CON)                              \
  KOSAN_COMPAT_DECL T __ld##HINT(const T *ptr) {                               \
    REG ret;                                                                   \
    KOSAN_COMPAT_LOAD_ASM_##HINT("ld.global." #HINT "." #PTX " %0, [%1];"      \
                                 : "=" CON(ret)                                \
                                 : "l"(ptr));                                  \
    return (T)ret;                                                             \
  }
#define KOSAN_COMPAT_STORE(HINT, T, PTX, REG, CON)                             \
  KOSAN_COMPAT_DECL void __st##HINT(T *ptr, T value) {                         \
    asm("st.global." #HINT "." #PTX " [%0], %1;"                               \
        :                                                                      \
        : "l"(ptr), CON((REG)value)                                            \
        : "memory");                                                           \
  }

#define KOSAN_COMPAT_LOAD2(HINT, T, ELEM, PTX, REG, CON)                       \
  KOSAN_COMPAT_DECL T __ld##HINT(const T *ptr) {                               \
    REG x, y;                                                                  \
    KOSAN_COMPAT_LOAD_ASM_##HINT("ld.global." #HINT ".v2." #PTX                \
                                 " {%0,%1}, [%2];"                             \
                                 : "=" CON(x), "=" CON(y)                      \
                                 : "l"(ptr));                                  \
    T ret;                                                                     \
    ret.x = (ELEM)x;                                                           \
    ret.y = (ELEM)y;                                                           \
    return ret;                                                                \
  }
#define KOSAN_COMPAT_LOAD4(HINT, T, ELEM, PTX, REG, CON)                       \
  KOSAN_COMPAT_DECL T __ld##HINT(const T *ptr) {                               \
    REG x, y, z, w;                                                            \
    KOSAN_COMPAT_LOAD_ASM_##HINT("ld.global." #HINT ".v4." #PTX                \
                                 " {%0,%1,%2,%3}, [%4];"                       \
                                 : "=" CON(x), "=" CON(y), "=" CON(z),         \
                                   "=" CON(w)                                  \
                                 : "l"(ptr));                                  \
    T ret;                                                                     \
    ret.x = (ELEM)x;                                                           \
    ret.y = (ELEM)y;                                                           \
    ret.z = (ELEM)z;                                                           \
    ret.w = (ELEM)w;                                                           \
    return ret;                                                                \
  }
#define KOSAN_COMPAT_STORE2(HINT, T, ELEM, PTX, REG, CON)                      \
  KOSAN_COMPAT_DECL void __st##HINT(T *ptr, T value) {                         \
    asm("st.global." #HINT ".v2." #PTX " [%0], {%1,%2};"                       \
        :                                                                      \
        : "l"(ptr), CON((REG)value.x), CON((REG)value.y)                       \
        : "memory");                                                           \
  }
#define KOSAN_COMPAT_STORE4(HINT, T, ELEM, PTX, REG, CON)                      \
  KOSAN_COMPAT_DECL void __st##HINT(T *ptr, T value) {                         \
    asm("st.global." #HINT ".v4." #PTX " [%0], {%1,%2,%3,%4};"                 \
        :                                                                      \
        : "l"(ptr), CON((REG)value.x), CON((REG)value.y),                      \
          CON((REG)value.z), CON((REG)value.w)                                 \
        : "memory");                                                           \
  }

#endif /* __KOSAN__ */

#define KOSAN_COMPAT_LOADS(HINT)                                               \
  KOSAN_COMPAT_SCALAR_TYPES(KOSAN_COMPAT_LOAD, HINT)                           \
  KOSAN_COMPAT_VECTOR2_TYPES(KOSAN_COMPAT_LOAD2, HINT)                         \
  KOSAN_COMPAT_VECTOR4_TYPES(KOSAN_COMPAT_LOAD4, HINT)
#define KOSAN_COMPAT_STORES(HINT)                                              \
  KOSAN_COMPAT_SCALAR_TYPES(KOSAN_COMPAT_STORE, HINT)                          \
  KOSAN_COMPAT_VECTOR2_TYPES(KOSAN_COMPAT_STORE2, HINT)                        \
  KOSAN_COMPAT_VECTOR4_TYPES(KOSAN_COMPAT_STORE4, HINT)

KOSAN_COMPAT_LOADS(ca)
KOSAN_COMPAT_LOADS(cg)
KOSAN_COMPAT_LOADS(cs)
KOSAN_COMPAT_LOADS(lu)
KOSAN_COMPAT_LOADS(cv)
KOSAN_COMPAT_STORES(wb)
KOSAN_COMPAT_STORES(cg)
KOSAN_COMPAT_STORES(cs)
KOSAN_COMPAT_STORES(wt)

/* The helpers above must not leak into the user's translation unit. */
#undef KOSAN_COMPAT_LOADS
#undef KOSAN_COMPAT_STORES
#undef KOSAN_COMPAT_LOAD
#undef KOSAN_COMPAT_LOAD2
#undef KOSAN_COMPAT_LOAD4
#undef KOSAN_COMPAT_STORE
#undef KOSAN_COMPAT_STORE2
#undef KOSAN_COMPAT_STORE4
#undef KOSAN_COMPAT_LOAD_VECTOR
#undef KOSAN_COMPAT_STORE_VECTOR
#undef KOSAN_COMPAT_VOLATILE_ca
#undef KOSAN_COMPAT_VOLATILE_cg
#undef KOSAN_COMPAT_VOLATILE_cs
#undef KOSAN_COMPAT_VOLATILE_lu
#undef KOSAN_COMPAT_VOLATILE_cv
#undef KOSAN_COMPAT_LOAD_ASM_ca
#undef KOSAN_COMPAT_LOAD_ASM_cg
#undef KOSAN_COMPAT_LOAD_ASM_cs
#undef KOSAN_COMPAT_LOAD_ASM_lu
#undef KOSAN_COMPAT_LOAD_ASM_cv
#undef KOSAN_COMPAT_SCALAR_TYPES
#undef KOSAN_COMPAT_VECTOR2_TYPES
#undef KOSAN_COMPAT_VECTOR4_TYPES
#undef KOSAN_COMPAT_DECL

/* Host min() and max(): nvcc's crt/math_functions.hpp declares its integer
 * and floating overloads __host__ __device__, and CUDA programs call them
 * from host code; clang's wrapper headers declare them __device__ only, so
 * such programs fail with "no matching function for call to 'min'". These
 * host overloads give clang builds what nvcc builds have; device code keeps
 * clang's. (A program that defines min(int, int) itself conflicts with nvcc's
 * declarations just the same.) */
#define KOSAN_COMPAT_HOST_MINMAX(R, A, B)                                      \
  static inline __host__ R min(A a, B b) { return (R)b < (R)a ? (R)b : (R)a; } \
  static inline __host__ R max(A a, B b) { return (R)a < (R)b ? (R)b : (R)a; }
KOSAN_COMPAT_HOST_MINMAX(int, int, int)
KOSAN_COMPAT_HOST_MINMAX(unsigned int, unsigned int, unsigned int)
KOSAN_COMPAT_HOST_MINMAX(unsigned int, int, unsigned int)
KOSAN_COMPAT_HOST_MINMAX(unsigned int, unsigned int, int)
KOSAN_COMPAT_HOST_MINMAX(long, long, long)
KOSAN_COMPAT_HOST_MINMAX(unsigned long, unsigned long, unsigned long)
KOSAN_COMPAT_HOST_MINMAX(long long, long long, long long)
KOSAN_COMPAT_HOST_MINMAX(unsigned long long, unsigned long long, unsigned long long)
KOSAN_COMPAT_HOST_MINMAX(float, float, float)
KOSAN_COMPAT_HOST_MINMAX(double, double, double)
KOSAN_COMPAT_HOST_MINMAX(double, float, double)
KOSAN_COMPAT_HOST_MINMAX(double, double, float)
#undef KOSAN_COMPAT_HOST_MINMAX

/* Warp reductions. clang 19's __clang_cuda_intrinsics.h passes the mask as
 * the first operand of __nvvm_redux_sync_*, but LLVM 19's intrinsics take the
 * value first (redux.sync.<op> dst, src, membermask), so clang emits
 * "redux.sync.add dst, mask, value": the value is used as the member mask.
 * Unless each thread's value has the bits of its own lane and of every other
 * participating lane, the instruction is invalid and the launch fails with
 * "an illegal instruction was encountered" (CUDA error 715); otherwise it
 * reduces the mask instead of the values. cooperative_groups' cg::reduce
 * calls these for int and unsigned on sm_80 and newer (cuda-samples
 * reduction, warpAggregatedAtomicsCG). LLVM fixed it after 19 (issue 131415);
 * clang's inline definitions cannot be replaced, so the names are redirected
 * to functions with the operands in the intrinsics' order and nvcc's
 * overloads (sm_80_rt.h: int as well as unsigned for add, min and max). */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define KOSAN_COMPAT_REDUX(OP, BUILTIN, T)                                     \
  static __device__ __forceinline__ __attribute__((nodebug)) T                 \
      __kosan_reduce_##OP##_sync(unsigned mask, T value) {                     \
    return (T)BUILTIN(value, mask);                                            \
  }
KOSAN_COMPAT_REDUX(add, __nvvm_redux_sync_add, unsigned)
KOSAN_COMPAT_REDUX(add, __nvvm_redux_sync_add, int)
KOSAN_COMPAT_REDUX(min, __nvvm_redux_sync_umin, unsigned)
KOSAN_COMPAT_REDUX(min, __nvvm_redux_sync_min, int)
KOSAN_COMPAT_REDUX(max, __nvvm_redux_sync_umax, unsigned)
KOSAN_COMPAT_REDUX(max, __nvvm_redux_sync_max, int)
KOSAN_COMPAT_REDUX(and, __nvvm_redux_sync_and, unsigned)
KOSAN_COMPAT_REDUX(or, __nvvm_redux_sync_or, unsigned)
KOSAN_COMPAT_REDUX(xor, __nvvm_redux_sync_xor, unsigned)
#undef KOSAN_COMPAT_REDUX
#define __reduce_add_sync(mask, value) __kosan_reduce_add_sync(mask, value)
#define __reduce_min_sync(mask, value) __kosan_reduce_min_sync(mask, value)
#define __reduce_max_sync(mask, value) __kosan_reduce_max_sync(mask, value)
#define __reduce_and_sync(mask, value) __kosan_reduce_and_sync(mask, value)
#define __reduce_or_sync(mask, value) __kosan_reduce_or_sync(mask, value)
#define __reduce_xor_sync(mask, value) __kosan_reduce_xor_sync(mask, value)
#endif /* sm_80 and newer */

#endif /* clang CUDA compilation */

#endif /* KOSAN_CUDA_COMPAT_H */
