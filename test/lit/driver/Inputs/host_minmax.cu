#include <cstdio>
#include <algorithm>
__global__ void k(int *o, int a, int b) { o[0] = min(a, b); o[1] = max(a, b); }
int main() {
  int a = 3, b = 7; unsigned u = 9; float f = 1.5f; double d = 2.5;
  long long L = 5;
  std::printf("%d %d %u %g %g %lld %d\n", min(a, b), max(a, b), max(u, 4u), min(f, 2.0f), max(d, 1.0), min(L, 2LL), std::min(a, b));
  return min(a, b) == 3 && max(u, a) == 9u ? 0 : 1;
}
