// CUDA-samples-like mix: recursion, __noinline__ helpers shared by kernels, device assert,
// printf from several kernels, dynamic shared memory in two kernels, templates.
#include <cstdio>
#include <cassert>
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ float lerp3(float a, float b, float t) { return a + t * (b - a); }
template <typename T> __device__ T clampv(T v, T lo, T hi) { return v < lo ? lo : (v > hi ? hi : v); }
__global__ void k_fib(int* out, int n) {
    int i = threadIdx.x;
    assert(n < 40);
    out[i] = fib(n + (i & 3));
    if (i == 0) printf("fib(%d) = %d\n", n, out[0]);
}
__global__ void k_blend(const float* a, const float* b, float* o, int n) {
    extern __shared__ float tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? a[i] : 0.f;
    __syncthreads();
    if (i < n) o[i] = clampv(lerp3(tile[threadIdx.x], b[i], 0.25f), -1.f, 1.f);
    if (i == 0) printf("blend %f\n", o[0]);
}
__global__ void k_hist(const unsigned char* in, unsigned* bins, int n) {
    extern __shared__ unsigned sbins[];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) sbins[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&sbins[in[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], sbins[b]);
}
template <int N> __global__ void k_unroll(float* x) {
    float acc = 0.f;
#pragma unroll
    for (int i = 0; i < N; ++i) acc += clampv(x[threadIdx.x * N + i], 0.f, 1.f) * lerp3(0.f, 1.f, i / float(N));
    x[threadIdx.x] = acc;
}
template __global__ void k_unroll<4>(float*);
template __global__ void k_unroll<16>(float*);
