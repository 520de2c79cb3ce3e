#include <cstdint>
#define TILE 16
__global__ void matmul(const float* A, const float* B, float* C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    float acc = 0;
    for (int t = 0; t < n / TILE; ++t) {
        As[threadIdx.y][threadIdx.x] = A[r * n + t * TILE + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + c];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[r * n + c] = acc;
}

__global__ void reduce(const float* in, float* out, int n) {
    extern __shared__ unsigned char smem_raw[];
    float* s = reinterpret_cast<float*>(smem_raw);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int o = blockDim.x / 2; o > 0; o >>= 1) {
        if (threadIdx.x < o) s[threadIdx.x] += s[threadIdx.x + o];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
__device__ __noinline__ int warp_hist(int v) {
    __shared__ int hist[32];
    if (threadIdx.x < 32) hist[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&hist[v & 31], 1);
    __syncthreads();
    return hist[threadIdx.x & 31];
}
__global__ void histA(const int* in, int* out) { out[threadIdx.x] = warp_hist(in[threadIdx.x]); }
__global__ void histB(const int* in, int* out) {
    __shared__ double scratch[8];
    scratch[threadIdx.x & 7] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = warp_hist(in[threadIdx.x]) + (int)scratch[(threadIdx.x + 1) & 7];
}
__global__ void mixed(float* out, int n) {
    extern __shared__ float dyn[];
    __shared__ float stat[64];
    __shared__ int unused_flag[4];
    stat[threadIdx.x & 63] = threadIdx.x;
    dyn[threadIdx.x] = 2.0f * threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = stat[(threadIdx.x + 1) & 63] + dyn[(threadIdx.x + 1) % n];
}
__device__ __noinline__ float only_one(float x) {
    __shared__ float buf[128];
    buf[threadIdx.x & 127] = x;
    __syncthreads();
    return buf[(threadIdx.x + 3) & 127];
}
__global__ void single(float* out) { out[threadIdx.x] = only_one(out[threadIdx.x]); }
