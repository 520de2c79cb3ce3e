// LLM-style row softmax, one warp per row, warp shuffles only (no shared memory).
#include <cuda_fp16.h>
template <typename T> __device__ __forceinline__ float to_f(T v);
template <> __device__ __forceinline__ float to_f<float>(float v) { return v; }
template <> __device__ __forceinline__ float to_f<__half>(__half v) { return __half2float(v); }

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
    return v;
}
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    return v;
}

template <typename T>
__global__ void __launch_bounds__(128) softmax_rows(const T* __restrict__ x, float* __restrict__ y, int rows, int cols, float scale) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const T* xr = x + (size_t)row * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, to_f(xr[c]) * scale);
    m = warp_max(m);
    float s = 0.f;
    for (int c = lane; c < cols; c += 32) s += __expf(to_f(xr[c]) * scale - m);
    s = warp_sum(s);
    float inv = 1.f / s;
    for (int c = lane; c < cols; c += 32) y[(size_t)row * cols + c] = __expf(to_f(xr[c]) * scale - m) * inv;
}
template __global__ void softmax_rows<float>(const float*, float*, int, int, float);
template __global__ void softmax_rows<__half>(const __half*, float*, int, int, float);
