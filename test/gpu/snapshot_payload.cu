// Snapshots of outputs of many chunks (10 Mi f32 = 10 chunks of 4 MiB,
// copied through the pinned staging ring, hashed and compressed on worker
// threads) read back the same from the payload files (the default: one per
// worker thread), from one payload file (snapshot_writes=0, the layout of
// earlier traces), from inline base64 (snapshot_payload=0), on one thread
// (snapshot_threads=1) and through a ring of two staging buffers
// (snapshot_staging_mb=8); an element changed in the last chunk is found,
// and a buffer read and written is seen to change (chunked pre/post
// hashes). snapshot_stats=1 accounts for both snapshots.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=snapshot=1:trace=%t/bin.kosan %gpubin/snapshot_payload ok
// RUN: env KOSAN_OPTIONS=snapshot=1:snapshot_payload=0:trace=%t/inline.kosan %gpubin/snapshot_payload ok
// RUN: env KOSAN_OPTIONS=snapshot=1:snapshot_threads=1:trace=%t/one.kosan %gpubin/snapshot_payload ok
// RUN: env KOSAN_OPTIONS=snapshot=1:trace=%t/last.kosan %gpubin/snapshot_payload last
// RUN: env KOSAN_OPTIONS=snapshot=1:snapshot_writes=0:trace=%t/onefile.kosan %gpubin/snapshot_payload ok
// RUN: env KOSAN_OPTIONS=snapshot=1:snapshot_staging_mb=8:trace=%t/ring.kosan %gpubin/snapshot_payload ok
// RUN: env KOSAN_OPTIONS=snapshot=1:snapshot_threads=4:snapshot_stats=1:trace=%t/stats.kosan \
// RUN:   %gpubin/snapshot_payload ok 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: not test -e %t/onefile.kosan.bin.1
// RUN: not grep -q '"file":' %t/onefile.kosan
// RUN: %kosan-diff %t/bin.kosan %t/onefile.kosan | FileCheck %s --check-prefix=SAME
// RUN: %kosan-diff %t/ring.kosan %t/bin.kosan | FileCheck %s --check-prefix=SAME
// RUN: %kosan-diff %t/stats.kosan %t/onefile.kosan | FileCheck %s --check-prefix=SAME
// RUN: test -s %t/bin.kosan.bin
// RUN: not test -e %t/inline.kosan.bin
// RUN: grep -c '"type":"snapshot_chunk"' %t/bin.kosan | FileCheck %s --check-prefix=CHUNKS
// RUN: not grep -q '"data"' %t/bin.kosan
// RUN: %kosan-diff %t/bin.kosan %t/inline.kosan | FileCheck %s --check-prefix=SAME
// RUN: %kosan-diff %t/inline.kosan %t/one.kosan | FileCheck %s --check-prefix=SAME
// The changed element differs by 1 in about 4e4 (within the default
// tolerance): compared exactly, it is found in the last chunk.
// RUN: not %kosan-diff --atol 0 --rtol 0 %t/bin.kosan %t/last.kosan | FileCheck %s --check-prefix=LAST
// RUN: grep '"type":"snapshot"' %t/bin.kosan | FileCheck %s --check-prefix=RECORD
// REQUIRES: gpu
#include "common.h"

#include <cstring>

__global__ void fill(float *out, float *acc, long n, int last) {
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x) {
    out[i] = float(i % 100000) * 0.5f + (last && i == n - 2 ? 1.0f : 0.0f);
    acc[i] += 1.0f;
  }
}

int main(int argc, char **argv) {
  int last = argc > 1 && !std::strcmp(argv[1], "last");
  const long n = 10L << 20;
  float *dout, *dacc;
  CHECK_CUDA(cudaMalloc(&dout, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dacc, n * sizeof(float)));
  CHECK_CUDA(cudaMemset(dacc, 0, n * sizeof(float)));
  fill<<<1024, 256>>>(dout, dacc, n, last);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> out(n);
  CHECK_CUDA(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("out", out);
  return 0;
}
// CHUNKS: 20
// STATS: kosan: snapshot stats: 2 snapshots (80.0 MiB) in 1 launches; 4 worker threads, {{[1-4]}} payload files
// STATS-NEXT: kosan: snapshot stats: added to the launches {{[0-9.]+}} ms
// STATS-NEXT: kosan: snapshot stats: launching thread waited {{[0-9.]+}} ms for copies from the device, {{[0-9.]+}} ms for a free staging buffer (9 of 4 MiB)
// STATS-NEXT: kosan: snapshot stats: worker threads, summed: hash {{[0-9.]+}} ms, compress {{[0-9.]+}} ms, write {{[0-9.]+}} ms (20 chunks,
// SAME: EQUIVALENT
// LAST: dout (f32, 10485760 elements): 1 over tolerance
// LAST: DIFFERENT
// RECORD-DAG: "name":"dout","dtype":"f32","count":10485760,{{.*}}"read":false,{{.*}}"chunks":10,"chunk_elements":1048576,"hash":"fnv1a-chunks","payload":"bin.kosan.bin"
// RECORD-DAG: "name":"dacc","dtype":"f32","count":10485760,{{.*}}"read":true,{{.*}}"pre_hash":"0x{{[0-9a-f]+}}","post_hash":"0x{{[0-9a-f]+}}"
