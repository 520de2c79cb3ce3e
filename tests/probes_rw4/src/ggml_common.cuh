// Shared ggml-style definitions for the rw4 probes (own code, modelled on the shape of
// llama.cpp's CUDA backend: block structs, warp reductions, dp4a helpers).
#pragma once
#include <cuda_fp16.h>
#include <stdint.h>

#define WARP_SIZE 32
#define QK4_0 32
#define QR4_0 2
#define QI4_0 (QK4_0 / (4 * QR4_0))
#define QK4_1 32
#define QR4_1 2
#define QI4_1 (QK4_1 / (4 * QR4_1))
#define QK5_0 32
#define QR5_0 2
#define QI5_0 (QK5_0 / (4 * QR5_0))
#define QK8_0 32
#define QR8_0 1
#define QI8_0 (QK8_0 / (4 * QR8_0))
#define QK8_1 32
#define QR8_1 1
#define QI8_1 (QK8_1 / (4 * QR8_1))
#define QK_K 256
#define K_SCALE_SIZE 12
#define QR4_K 2
#define QI4_K (QK_K / (4 * QR4_K))
#define QR6_K 2
#define QI6_K (QK_K / (4 * QR6_K))
#define QR2_K 4
#define QI2_K (QK_K / (4 * QR2_K))
#define QK4_NL 32
#define QR4_NL 2
#define QI4_NL (QK4_NL / (4 * QR4_NL))

typedef half dfloat;
typedef half2 dfloat2;

typedef struct { half d; uint8_t qs[QK4_0 / 2]; } block_q4_0;
typedef struct { half2 dm; uint8_t qs[QK4_1 / 2]; } block_q4_1;
typedef struct { half d; uint8_t qh[4]; uint8_t qs[QK5_0 / 2]; } block_q5_0;
typedef struct { half d; int8_t qs[QK8_0]; } block_q8_0;
typedef struct { half2 ds; int8_t qs[QK8_1]; } block_q8_1;
typedef struct { half d; uint8_t qs[QK4_NL / 2]; } block_iq4_nl;
typedef struct { uint8_t scales[QK_K / 16]; uint8_t qs[QK_K / 4]; half2 dm; } block_q2_K;
typedef struct { half2 dm; uint8_t scales[K_SCALE_SIZE]; uint8_t qs[QK_K / 2]; } block_q4_K;
typedef struct { uint8_t ql[QK_K / 2]; uint8_t qh[QK_K / 4]; int8_t scales[QK_K / 16]; half d; } block_q6_K;

template <int width = WARP_SIZE>
static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
    for (int offset = width / 2; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffff, x, offset, width);
    return x;
}
template <int width = WARP_SIZE>
static __device__ __forceinline__ float2 warp_reduce_sum(float2 a) {
#pragma unroll
    for (int offset = width / 2; offset > 0; offset >>= 1) {
        a.x += __shfl_xor_sync(0xffffffff, a.x, offset, width);
        a.y += __shfl_xor_sync(0xffffffff, a.y, offset, width);
    }
    return a;
}
template <int width = WARP_SIZE>
static __device__ __forceinline__ float warp_reduce_max(float x) {
#pragma unroll
    for (int offset = width / 2; offset > 0; offset >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, offset, width));
    return x;
}
static __device__ __forceinline__ half2 warp_reduce_sum(half2 a) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) a = __hadd2(a, __shfl_xor_sync(0xffffffff, a, offset, 32));
    return a;
}

static __device__ __forceinline__ int ggml_cuda_dp4a(const int a, const int b, int c) { return __dp4a(a, b, c); }

static __device__ __forceinline__ int get_int_b2(const void* x, const int& i32) {
    const uint16_t* x16 = (const uint16_t*)x;
    int x32 = x16[2 * i32 + 0] << 0;
    x32 |= x16[2 * i32 + 1] << 16;
    return x32;
}
static __device__ __forceinline__ int get_int_b4(const void* x, const int& i32) { return ((const int*)x)[i32]; }
