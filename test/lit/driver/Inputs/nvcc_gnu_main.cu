// Calls C compiled by the host compiler; makes no CUDA call, so it runs
// without a GPU.
#include <cstdio>

extern "C" int sumOfSquares(int n);

__global__ void fill(int *X) { X[threadIdx.x] = 1; }

int main() { std::printf("sumOfSquares(3) = %d\n", sumOfSquares(3)); }
