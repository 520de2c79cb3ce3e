// Non-inlined device functions, recursion, local arrays, 64-bit integer math, assert.
#include <cassert>
__device__ __noinline__ unsigned long long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ int local_sort(int* v, int n) {
    for (int i = 1; i < n; ++i) { int x = v[i], j = i - 1; while (j >= 0 && v[j] > x) { v[j + 1] = v[j]; --j; } v[j + 1] = x; }
    return v[n / 2];
}
__global__ void median_fib(const int* in, int* med, unsigned long long* fibs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v[9];
    for (int k = 0; k < 9; ++k) v[k] = in[(i + k) % n];
    med[i] = local_sort(v, 9);
    assert(med[i] >= 0);
    fibs[i] = fib(i & 15) * 0x9E3779B97F4A7C15ull;
}
