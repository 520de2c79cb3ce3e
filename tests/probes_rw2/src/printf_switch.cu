// Device printf, a dense switch (jump table), a __device__ function table, double math.
#include <cstdio>
__device__ double op_apply(int op, double a, double b) {
    switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: return pow(a, b);
    case 5: return fmod(a, b);
    case 6: return atan2(a, b);
    case 7: return hypot(a, b);
    default: return 0.0;
    }
}
__global__ void calc(const int* ops, const double* a, const double* b, double* out, int n, int verbose) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = op_apply(ops[i], a[i], b[i]);
    if (verbose && i < 4) printf("calc[%d] op=%d %f -> %f\n", i, ops[i], a[i], out[i]);
}
__global__ void hello(int tag) { printf("hello from block %d thread %d tag %d\n", blockIdx.x, threadIdx.x, tag); }
