// The precision check's device runtime (runtime/device/precision.cpp) as it
// aggregates one warp's samples: the lanes that call for one site reduce
// their samples in registers and the lowest lane adds them to the site's
// slot. What a user reads off the trace follows from it: every value
// counts, the worst value is the one with the largest error in ULPs (the
// lowest thread on ties), lanes that took another branch are not counted,
// a narrowing's overflows and underflows are counted apart, and a NaN/Inf
// birth keeps the first thread and launch that produced one.
//
// f32 -> f16 narrowings of 1 + k 2^-20 (k < 512) round to 1 with an error
// of k/1024 ULPs of f16: k = 500 is 0.48828125 ULPs, exactly.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/ties.kosan %gpubin/precision_warp_groups ties > %t/ties.out
// RUN: grep '"kind":"narrow"' %t/ties.kosan | FileCheck %s --check-prefix=TIES
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/counters.kosan %gpubin/precision_warp_groups counters > %t/counters.out
// RUN: grep '"kind":"narrow"' %t/counters.kosan | FileCheck %s --check-prefix=COUNTERS
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/births.kosan %gpubin/precision_warp_groups births > %t/births.out
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/raise.kosan %gpubin/precision_warp_groups raise > %t/raise.out
// RUN: grep '"kind":"narrow"' %t/raise.kosan | FileCheck %s --check-prefix=RAISE
// RUN: grep '"kind":"nonfinite"' %t/births.kosan | FileCheck %s --check-prefix=BIRTHS
// The plain build records nothing and computes the same.
// RUN: %gpubin/precision_warp_groups.plain ties | diff - %t/ties.out
// RUN: %gpubin/precision_warp_groups.plain births | diff - %t/births.out
// RUN: %gpubin/precision_warp_groups.plain raise | diff - %t/raise.out
// REQUIRES: gpu
#include "common.h"

#include <cuda_fp16.h>

#include <cmath>

constexpr int kLanes = 32;

// Every lane narrows: 32 values; lanes 9, 17 and 30 share the largest
// error, and the lowest of them is the worst.
__global__ void narrow_all(const float *in, __half *out) {
  int i = threadIdx.x;
  out[i] = __float2half(in[i]); // TIES-DAG: "line":[[@LINE]],{{.*}}"count":32,{{.*}}"max_ulp_err":0.48828125,{{.*}}"hist":[32,0,0,0,0,0,0,0],"overflows":0,"underflows":0,"nans":0,"worst":{"real":1{{(\.0)?}},"shadow":1.00047683{{[0-9]*}},"block":[0,0,0],"thread":[9,0,0],"launch":1}
}

// Lane 9 takes the other branch: 31 values, and the worst is lane 17.
__global__ void narrow_but_lane9(const float *in, __half *out) {
  int i = threadIdx.x;
  if (i != 9)
    out[i] = __float2half(in[i]); // TIES-DAG: "line":[[@LINE]],{{.*}}"count":31,{{.*}}"max_ulp_err":0.48828125,{{.*}}"hist":[31,0,0,0,0,0,0,0],{{.*}}"thread":[17,0,0],"launch":2}
}

// Two overflows to infinity (lanes 1 and 2: infinite errors, bin 7; the
// worst is the first), one underflow to zero (lane 3), 29 ordinary values.
__global__ void narrow_counters(const float *in, __half *out) {
  int i = threadIdx.x;
  out[i] = __float2half(in[i]); // COUNTERS: "line":[[@LINE]],{{.*}}"count":32,{{.*}}"hist":[30,0,0,0,0,0,0,2],"overflows":2,"underflows":1,"nans":0,"worst":{"real":"inf","shadow":1000000{{(\.0)?}},"block":[0,0,0],"thread":[1,0,0],"launch":1}
}

// A product of finite operands that overflows to infinity: a NaN/Inf
// birth. Launch 1: lanes 4..15 (12 births); launch 2, before anything
// collects: all 32. The slot keeps the first birth: launch 1, thread 4.
__global__ void births(const float *a, const float *b, float *out) {
  int i = threadIdx.x;
  out[i] = a[i] * b[i]; // BIRTHS: "launch_first":1,"launch_last":2,{{.*}}"line":[[@LINE]],{{.*}}"count":44,{{.*}}"nans":44,"worst":{"real":"inf","shadow":{{[0-9.e+]+}},"block":[0,0,0],"thread":[4,0,0],"launch":1}
}

// One site, five launches before anything collects: a whole warp of small
// errors (k = 7), then lane 21 with k = 300, the small errors again, then
// half a warp (a partial group) with lane 5 at k = 400, and its small
// errors again. The maximum rises twice after it had settled, so the
// worst is the last raise's: thread 5 of launch 4; the launches that raise
// nothing change nothing but the counts.
__global__ void narrow_raise(const float *in, __half *out, int limit) {
  int i = threadIdx.x;
  if (i < limit)
    out[i] = __float2half(in[i]); // RAISE: "line":[[@LINE]],{{.*}}"count":128,{{.*}}"max_ulp_err":0.390625,{{.*}}"hist":[128,0,0,0,0,0,0,0],{{.*}}"worst":{"real":1{{(\.0)?}},"shadow":1.00038146{{[0-9]*}},"block":[0,0,0],"thread":[5,0,0],"launch":4}
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ties";
  std::vector<float> in(kLanes), a(kLanes), b1(kLanes), b2(kLanes);
  for (int i = 0; i < kLanes; ++i) {
    int k = i == 9 || i == 17 || i == 30 ? 500 : 7;
    in[i] = 1.0f + std::ldexp(float(k), -20);
    a[i] = 1e30f;
    b1[i] = i >= 4 && i < 16 ? 1e30f * (1.0f + float(i) / 1024) : 1.0f;
    b2[i] = 1e30f * (1.0f + float(i) / 1024);
  }
  if (std::strcmp(mode, "counters") == 0) {
    for (int i = 0; i < kLanes; ++i)
      in[i] = 1.0f + 0x1p-12f;
    in[1] = 1e6f;
    in[2] = -1e6f;
    in[3] = 1e-9f;
  }
  float *din, *da, *db1, *db2, *dprod;
  __half *dout;
  CHECK_CUDA(cudaMalloc(&din, kLanes * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&da, kLanes * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&db1, kLanes * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&db2, kLanes * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dprod, kLanes * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dout, kLanes * sizeof(__half)));
  CHECK_CUDA(cudaMemcpy(din, in.data(), kLanes * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(da, a.data(), kLanes * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db1, b1.data(), kLanes * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db2, b2.data(), kLanes * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dout, 0, kLanes * sizeof(__half)));
  CHECK_CUDA(cudaMemset(dprod, 0, kLanes * sizeof(float)));
  if (std::strcmp(mode, "raise") == 0) {
    auto upload = [&](int lane, int k) {
      std::vector<float> v(kLanes, 1.0f + std::ldexp(7.0f, -20));
      if (lane >= 0)
        v[lane] = 1.0f + std::ldexp(float(k), -20);
      float *d;
      CHECK_CUDA(cudaMalloc(&d, kLanes * sizeof(float)));
      CHECK_CUDA(cudaMemcpy(d, v.data(), kLanes * sizeof(float), cudaMemcpyHostToDevice));
      return d;
    };
    float *small = upload(-1, 0), *lane21 = upload(21, 300), *lane5 = upload(5, 400);
    narrow_raise<<<1, kLanes>>>(small, dout, kLanes);
    narrow_raise<<<1, kLanes>>>(lane21, dout, kLanes);
    narrow_raise<<<1, kLanes>>>(small, dout, kLanes);
    narrow_raise<<<1, kLanes>>>(lane5, dout, kLanes / 2);
    narrow_raise<<<1, kLanes>>>(small, dout, kLanes / 2);
  } else if (std::strcmp(mode, "births") == 0) {
    births<<<1, kLanes>>>(da, db1, dprod);
    births<<<1, kLanes>>>(da, db2, dprod);
  } else if (std::strcmp(mode, "counters") == 0) {
    narrow_counters<<<1, kLanes>>>(din, dout);
  } else {
    narrow_all<<<1, kLanes>>>(din, dout);
    narrow_but_lane9<<<1, kLanes>>>(din, dout);
  }
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> prod(kLanes);
  std::vector<__half> out(kLanes);
  CHECK_CUDA(cudaMemcpy(prod.data(), dprod, kLanes * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(out.data(), dout, kLanes * sizeof(__half), cudaMemcpyDeviceToHost));
  printChecksum("out", out);
  printChecksum("prod", prod);
  return 0;
}
