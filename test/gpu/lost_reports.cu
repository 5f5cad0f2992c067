// Nothing seen is lost: kosan prints what a kernel did wrong also when the
// program exits without waiting for it, when the kernel then faults, when
// the process is killed (timeout's SIGTERM, Ctrl-C's SIGINT, abort()), and
// when a kernel keeps failing: a loop whose bound an out-of-bounds read
// turned around is stopped after stop_after bad accesses, with its report,
// instead of running until killed.
// RUN: %gpubin/lost_reports exit 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: not %gpubin/lost_reports fault 2>&1 | FileCheck %s --check-prefix=FAULT
// RUN: not timeout -s TERM 20 %gpubin/lost_reports hang 2>&1 | FileCheck %s --check-prefix=TERM
// RUN: not timeout -s INT 20 %gpubin/lost_reports hang 2>&1 | FileCheck %s --check-prefix=INT
// RUN: not %gpubin/lost_reports abort 2>&1 | FileCheck %s --check-prefix=ABORT
// RUN: env KOSAN_OPTIONS=stop_after=100000 not timeout 60 %gpubin/lost_reports runaway 2>&1 | FileCheck %s --check-prefix=RUNAWAY
// handle_signals=0: the signal ends the process as before, without a report.
// RUN: env KOSAN_OPTIONS=handle_signals=0 not timeout -s TERM 20 %gpubin/lost_reports hang 2>&1 | FileCheck %s --check-prefix=NOHANDLER --allow-empty
// REQUIRES: gpu
#include "common.h"

#include <csignal>
#include <cstring>
#include <unistd.h>

// One thread writes one element past y; with `spin`, block 0 then waits
// for a flag nobody sets (the kernel never ends); with `fault`, thread 1
// traps after the bad write has been recorded.
__global__ void tail(float *y, int n, int mode, volatile int *flag) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0)
    y[n] = 1.0f; // EXIT: ERROR: kosan: global-buffer-overflow: WRITE of size 4 in kernel 'tail(float*, int, int, int volatile*)' at {{.*}}lost_reports.cu:[[@LINE]]
  __syncthreads();
  if (mode == 1 && i == 1)
    asm volatile("trap;");
  if (mode == 2 && i == 0)
    while (*flag == 0) {
    }
}
// FAULT: ERROR: kosan: global-buffer-overflow: WRITE of size 4 in kernel 'tail
// FAULT: CUDA error
// TERM: kosan: the process got SIGTERM; reporting what its kernels recorded so far
// TERM: ERROR: kosan: global-buffer-overflow: WRITE of size 4 in kernel 'tail
// TERM: kosan: 1 bad access at 1 site
// INT: kosan: the process got SIGINT
// INT: ERROR: kosan: global-buffer-overflow
// ABORT: kosan: the process got SIGABRT
// ABORT: ERROR: kosan: global-buffer-overflow
// NOHANDLER-NOT: kosan

// Follows next[] from 0 until it meets -1; the last link points one past
// the end of next[], where kosan's redirected read yields 0: the walk goes
// round for ever, one bad read per turn.
__global__ void walk(const int *next, int *steps) {
  int i = 0, count = 0;
  while (i != -1) {
    ++count;
    i = next[i]; // RUNAWAY: ERROR: kosan: global-buffer-overflow: READ of size 4 in kernel 'walk(int const*, int*)' at {{.*}}lost_reports.cu:[[@LINE]]
  }
  *steps = count;
}
// RUNAWAY: kosan: a kernel was stopped after 100000 bad accesses (stop_after)

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "exit";
  const int n = 256;
  float *y;
  int *flag;
  CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&flag, sizeof(int)));
  CHECK_CUDA(cudaMemset(flag, 0, sizeof(int)));
  if (!std::strcmp(mode, "runaway")) {
    const int links = 4;
    std::vector<int> h = {1, 2, 3, links}; // the last link is one past the end
    int *next, *steps;
    CHECK_CUDA(cudaMalloc(&next, links * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&steps, sizeof(int)));
    CHECK_CUDA(cudaMemcpy(next, h.data(), links * sizeof(int), cudaMemcpyHostToDevice));
    walk<<<1, 1>>>(next, steps);
    CHECK_CUDA(cudaDeviceSynchronize());
    return 0;
  }
  int m = !std::strcmp(mode, "fault") ? 1 : !std::strcmp(mode, "hang") ? 2 : 0;
  tail<<<1, 32>>>(y, n, m, flag);
  if (!std::strcmp(mode, "exit"))
    return 0; // no synchronisation: the report comes at exit
  if (!std::strcmp(mode, "abort")) {
    sleep(1); // the kernel has run by now
    std::abort();
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  return 0;
}
