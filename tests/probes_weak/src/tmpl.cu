#include <cuda_runtime.h>
template <typename T> __device__ T g_scale = T(2);
template <typename T> __device__ T g_accum;
template <typename T> __constant__ T c_bias = T(1);
__device__ int g_plain;
__constant__ float c_plain[4] = {1, 2, 3, 4};
static __device__ int g_static;

template <typename T, int N>
__global__ void reduce(T* out, const T* in, int n) {
    __shared__ T buf[N];
    int i = blockIdx.x * N + threadIdx.x;
    buf[threadIdx.x] = i < n ? in[i] * g_scale<T> + c_bias<T> : T(0);
    __syncthreads();
    for (int s = N / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) { out[blockIdx.x] = buf[0]; atomicAdd(&g_accum<T>, buf[0]); g_plain++; g_static++; }
}

template <typename T>
__device__ T helper(T x) { return x * g_scale<T> + c_plain[1]; }

__global__ void use_helper(float* o, double* d) { o[threadIdx.x] = helper(o[threadIdx.x]); d[threadIdx.x] = helper(d[threadIdx.x]); }

template __global__ void reduce<float, 128>(float*, const float*, int);
template __global__ void reduce<float, 256>(float*, const float*, int);
template __global__ void reduce<int, 64>(int*, const int*, int);
template __global__ void reduce<double, 32>(double*, const double*, int);
