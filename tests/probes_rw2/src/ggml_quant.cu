// ggml-style block quantisation: q8_0 / q4_0 dequantise + dot, half scales, __constant__ table.
#include <cuda_fp16.h>
#include <stdint.h>
#define QK 32
struct block_q4_0 { __half d; uint8_t qs[QK / 2]; };
struct block_q8_0 { __half d; int8_t qs[QK]; };
__constant__ int8_t kvalues_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

template <int qtype>
__device__ float vec_dot(const void* vx, const block_q8_0* y, int ib, int iqs) {
    if (qtype == 0) {
        const block_q4_0* x = (const block_q4_0*)vx + ib;
        int s = 0;
        for (int j = 0; j < 4; ++j) { uint8_t q = x->qs[iqs + j]; s += ((q & 0xF) - 8) * y[ib].qs[iqs + j] + ((q >> 4) - 8) * y[ib].qs[iqs + j + 16]; }
        return __half2float(x->d) * __half2float(y[ib].d) * s;
    } else {
        const block_q4_0* x = (const block_q4_0*)vx + ib;
        int s = 0;
        for (int j = 0; j < 4; ++j) { uint8_t q = x->qs[iqs + j]; s += kvalues_iq4nl[q & 0xF] * y[ib].qs[iqs + j] + kvalues_iq4nl[q >> 4] * y[ib].qs[iqs + j + 16]; }
        return __half2float(x->d) * __half2float(y[ib].d) * s;
    }
}
template <int qtype>
__global__ void mul_mat_vec_q(const void* vx, const block_q8_0* vy, float* dst, int ncols, int nrows) {
    int row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= nrows) return;
    int blocks = ncols / QK;
    float tmp = 0.f;
    for (int i = threadIdx.x / 4; i < blocks; i += blockDim.x / 4)
        tmp += vec_dot<qtype>((const char*)vx + (size_t)row * blocks * sizeof(block_q4_0) - 0, vy, i, (threadIdx.x % 4) * 4);
    for (int m = 16; m > 0; m >>= 1) tmp += __shfl_xor_sync(0xffffffff, tmp, m, 32);
    if (threadIdx.x == 0) dst[row] = tmp;
}
template __global__ void mul_mat_vec_q<0>(const void*, const block_q8_0*, float*, int, int);
template __global__ void mul_mat_vec_q<1>(const void*, const block_q8_0*, float*, int, int);

__global__ void quantize_q8_0(const float* x, block_q8_0* y, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= k) return;
    int ib = i / QK, iq = i % QK;
    float xi = x[i], amax = fabsf(xi);
    for (int m = 16; m > 0; m >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffff, amax, m, 32));
    float d = amax / 127.f;
    y[ib].qs[iq] = amax == 0.f ? 0 : (int8_t)roundf(xi / d);
    if (iq == 0) y[ib].d = __float2half(d);
}
