// The check of simpleOccupancy (cuda-samples): squares computed where they
// wrap, compared with i * i, which overflows for i > 46340. gcc, nvcc's host
// compiler, compiles i * i to a wrapping multiply; clang at -O3 without
// -fwrapv may use the overflow as undefined and report a mismatch.
#include <cstdio>

__global__ void square(int *A, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    A[I] = A[I] * A[I];
}

// What square() writes, computed on the host, so that this runs without a GPU.
__attribute__((noinline)) void squareOnHost(int *A, int N) {
  for (int I = 0; I < N; ++I)
    A[I] = static_cast<int>(static_cast<unsigned>(A[I]) *
                            static_cast<unsigned>(A[I]));
}

int main() {
  const int Count = 1000000;
  int *Array = new int[Count];
  for (int I = 0; I < Count; ++I)
    Array[I] = I;
  squareOnHost(Array, Count);
  for (int I = 0; I < Count; ++I)
    if (Array[I] != I * I) {
      std::printf("element %d expected %d actual %d\n", I, I * I, Array[I]);
      return 1;
    }
  std::printf("all %d squares match\n", Count);
  delete[] Array;
  return 0;
}
