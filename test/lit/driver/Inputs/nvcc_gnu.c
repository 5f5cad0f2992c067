/* GNU C that gcc, nvcc's host compiler, compiles and clang rejects: a
   function nested in another. */
int sumOfSquares(int n) {
  int square(int x) { return x * x; }
  int i, sum = 0;
  for (i = 1; i <= n; ++i)
    sum += square(i);
  return sum;
}
