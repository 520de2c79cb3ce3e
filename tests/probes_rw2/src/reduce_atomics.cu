// Reductions with atomics: histogram, global sum via atomicAdd (float and double), max via CAS.
__device__ unsigned long long g_count;
__device__ float atomicMaxFloat(float* addr, float val) {
    int* ai = (int*)addr; int old = *ai, assumed;
    do { assumed = old; old = atomicCAS(ai, assumed, __float_as_int(fmaxf(val, __int_as_float(assumed)))); } while (assumed != old);
    return __int_as_float(old);
}
__global__ void histo(const unsigned char* data, int n, unsigned int* bins) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&bins[data[i]], 1u);
}
__global__ void reduce_sum(const float* x, int n, float* out, double* dout, float* mx) {
    float s = 0.f, m = -3.4e38f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) { s += x[i]; m = fmaxf(m, x[i]); }
    for (int o = 16; o; o >>= 1) { s += __shfl_down_sync(~0u, s, o); m = fmaxf(m, __shfl_down_sync(~0u, m, o)); }
    if ((threadIdx.x & 31) == 0) { atomicAdd(out, s); atomicAdd(dout, (double)s); atomicMaxFloat(mx, m); atomicAdd(&g_count, 1ull); }
}
