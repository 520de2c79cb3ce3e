// ggml-style quantized mat-vec and dequantisation (own code): block structs for q4_0, q4_1,
// q5_0, q8_0, iq4_nl, q2_K, q4_K, q6_K; vec_dot functions passed as template arguments
// (function pointers) to mul_mat_vec_q with __dp4a; dequantize templates keyed on a
// dequantize_kernel_t; __constant__ lookup tables; dozens of instantiations.
#include "ggml_common.cuh"

__constant__ static const int8_t kvalues_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
__device__ __constant__ static const uint8_t ksigns_iq2xs[128] = {
    0,   129, 130, 3,   132, 5,   6,   135, 136, 9,   10,  139, 12,  141, 142, 15,  144, 17,  18,  147, 20,  149,
    150, 23,  24,  153, 154, 27,  156, 29,  30,  159, 160, 33,  34,  163, 36,  165, 166, 39,  40,  169, 170, 43,
    172, 45,  46,  175, 48,  177, 178, 51,  180, 53,  54,  183, 184, 57,  58,  187, 60,  189, 190, 63,  192, 65,
    66,  195, 68,  197, 198, 71,  72,  201, 202, 75,  204, 77,  78,  207, 80,  209, 210, 83,  212, 85,  86,  215,
    216, 89,  90,  219, 92,  221, 222, 95,  96,  225, 226, 99,  228, 101, 102, 231, 232, 105, 106, 235, 108, 237,
    238, 111, 240, 113, 114, 243, 116, 245, 246, 119, 120, 249, 250, 123, 252, 125, 126, 255};
__constant__ static const uint64_t small_grid[32] = {
    0x0808080808080808, 0x080808080808082b, 0x0808080808081919, 0x0808080808082b08, 0x0808080808082b2b, 0x0808080808190819,
    0x0808080808191908, 0x08080808082b0808, 0x08080808082b082b, 0x08080808082b2b08, 0x08080808082b2b2b, 0x0808080819080819,
    0x0808080819081908, 0x0808080819190808, 0x0808080819192b08, 0x08080808192b0819, 0x08080808192b1908, 0x080808082b080808,
    0x080808082b08082b, 0x080808082b082b2b, 0x080808082b2b082b, 0x0808081908080819, 0x0808081908081908, 0x0808081908190808,
    0x0808081908191919, 0x0808081919080808, 0x080808192b081908, 0x080808192b192b08, 0x0808082b08080808, 0x0808082b0808082b,
    0x0808082b082b082b, 0x0808082b2b08082b};

// ------------------------------------------------------------------ vec_dot
#define VDR_Q4_0_Q8_1_MMVQ 2
#define VDR_Q4_1_Q8_1_MMVQ 2
#define VDR_Q5_0_Q8_1_MMVQ 2
#define VDR_Q8_0_Q8_1_MMVQ 2
#define VDR_IQ4_NL_Q8_1_MMVQ 2
#define VDR_Q2_K_Q8_1_MMVQ 1
#define VDR_Q4_K_Q8_1_MMVQ 2
#define VDR_Q6_K_Q8_1_MMVQ 1

template <int vdr>
static __device__ __forceinline__ float vec_dot_q4_0_q8_1_impl(const int* v, const int* u, const float& d4, const half2& ds8) {
    int sumi = 0;
#pragma unroll
    for (int i = 0; i < vdr; ++i) {
        const int vi0 = (v[i] >> 0) & 0x0F0F0F0F;
        const int vi1 = (v[i] >> 4) & 0x0F0F0F0F;
        sumi = ggml_cuda_dp4a(vi0, u[2 * i + 0], sumi);
        sumi = ggml_cuda_dp4a(vi1, u[2 * i + 1], sumi);
    }
    const float2 ds8f = __half22float2(ds8);
    return d4 * (sumi * ds8f.x - (8 * vdr / QI4_0) * ds8f.y);
}
static __device__ __forceinline__ float vec_dot_q4_0_q8_1(const void* __restrict__ vbq, const block_q8_1* __restrict__ bq8_1, const int& kbx, const int& iqs) {
    const block_q4_0* bq4_0 = (const block_q4_0*)vbq + kbx;
    int v[VDR_Q4_0_Q8_1_MMVQ], u[2 * VDR_Q4_0_Q8_1_MMVQ];
#pragma unroll
    for (int i = 0; i < VDR_Q4_0_Q8_1_MMVQ; ++i) {
        v[i] = get_int_b2(bq4_0->qs, iqs + i);
        u[2 * i + 0] = get_int_b4(bq8_1->qs, iqs + i);
        u[2 * i + 1] = get_int_b4(bq8_1->qs, iqs + i + QI4_0);
    }
    return vec_dot_q4_0_q8_1_impl<VDR_Q4_0_Q8_1_MMVQ>(v, u, __half2float(bq4_0->d), bq8_1->ds);
}
static __device__ __forceinline__ float vec_dot_q4_1_q8_1(const void* __restrict__ vbq, const block_q8_1* __restrict__ bq8_1, const int& kbx, const int& iqs) {
    const block_q4_1* bq4_1 = (const block_q4_1*)vbq + kbx;
    int sumi = 0;
#pragma unroll
    for (int i = 0; i < VDR_Q4_1_Q8_1_MMVQ; ++i) {
        const int v = get_int_b4(bq4_1->qs, iqs + i);
        sumi = ggml_cuda_dp4a((v >> 0) & 0x0F0F0F0F, get_int_b4(bq8_1->qs, iqs + i), sumi);
        sumi = ggml_cuda_dp4a((v >> 4) & 0x0F0F0F0F, get_int_b4(bq8_1->qs, iqs + i + QI4_1), sumi);
    }
    const float2 dm4f = __half22float2(bq4_1->dm);
    const float2 ds8f = __half22float2(bq8_1->ds);
    return sumi * dm4f.x * ds8f.x + dm4f.y * ds8f.y / (QI8_1 / (VDR_Q4_1_Q8_1_MMVQ * QR4_1));
}
static __device__ __forceinline__ float vec_dot_q5_0_q8_1(const void* __restrict__ vbq, const block_q8_1* __restrict__ bq8_1, const int& kbx, const int& iqs) {
    const block_q5_0* bq5_0 = (const block_q5_0*)vbq + kbx;
    int sumi = 0;
    const int qh = get_int_b2(bq5_0->qh, 0) >> (4 * iqs);
#pragma unroll
    for (int i = 0; i < VDR_Q5_0_Q8_1_MMVQ; ++i) {
        const int vl = get_int_b2(bq5_0->qs, iqs + i);
        int vi0 = (vl >> 0) & 0x0F0F0F0F;
        vi0 |= ((qh << 4) & 0x00000010) | ((qh << 11) & 0x00001000) | ((qh << 18) & 0x00100000) | ((qh << 25) & 0x10000000);
        sumi = ggml_cuda_dp4a(vi0, get_int_b4(bq8_1->qs, iqs + i), sumi);
        int vi1 = (vl >> 4) & 0x0F0F0F0F;
        vi1 |= ((qh >> 12) & 0x00000010) | ((qh >> 5) & 0x00001000) | ((qh << 2) & 0x00100000) | ((qh << 9) & 0x10000000);
        sumi = ggml_cuda_dp4a(vi1, get_int_b4(bq8_1->qs, iqs + i + QI5_0), sumi);
    }
    const float2 ds8f = __half22float2(bq8_1->ds);
    return __half2float(bq5_0->d) * (sumi * ds8f.x - (16 * VDR_Q5_0_Q8_1_MMVQ / QI5_0) * ds8f.y);
}
template <typename T, int vdr>
static __device__ __forceinline__ T vec_dot_q8_0_q8_1_impl(const int* v, const int* u, const T& d8_0, const T& d8_1) {
    int sumi = 0;
#pragma unroll
    for (int i = 0; i < vdr; ++i) sumi = ggml_cuda_dp4a(v[i], u[i], sumi);
    return d8_0 * d8_1 * ((T)sumi);
}
static __device__ __forceinline__ float vec_dot_q8_0_q8_1(const void* __restrict__ vbq, const block_q8_1* __restrict__ bq8_1, const int& kbx, const int& iqs) {
    const block_q8_0* bq8_0 = (const block_q8_0*)vbq + kbx;
    int v[VDR_Q8_0_Q8_1_MMVQ], u[VDR_Q8_0_Q8_1_MMVQ];
#pragma unroll
    for (int i = 0; i < VDR_Q8_0_Q8_1_MMVQ; ++i) { v[i] = get_int_b2(bq8_0->qs, iqs + i); u[i] = get_int_b4(bq8_1->qs, iqs + i); }
    return vec_dot_q8_0_q8_1_impl<float, VDR_Q8_0_Q8_1_MMVQ>(v, u, __half2float(bq8_0->d), __low2float(bq8_1->ds));
}
static __device__ __forceinline__ int2 get_int_from_table_16(const int& q4) {
    const int q0_32 = (q4 >> 0) & 0x0F0F0F0F;
    const int8_t* q0_8 = (const int8_t*)&q0_32;
    const char4 val0_8 = make_char4(kvalues_iq4nl[q0_8[0]], kvalues_iq4nl[q0_8[1]], kvalues_iq4nl[q0_8[2]], kvalues_iq4nl[q0_8[3]]);
    const int q1_32 = (q4 >> 4) & 0x0F0F0F0F;
    const int8_t* q1_8 = (const int8_t*)&q1_32;
    const char4 val1_8 = make_char4(kvalues_iq4nl[q1_8[0]], kvalues_iq4nl[q1_8[1]], kvalues_iq4nl[q1_8[2]], kvalues_iq4nl[q1_8[3]]);
    return make_int2(*((const int*)&val0_8), *((const int*)&val1_8));
}
static __device__ __forceinline__ float vec_dot_iq4_nl_q8_1(const void* __restrict__ vbq, const block_q8_1* __restrict__ bq8_1, const int& kbx, const int& iqs) {
    const block_iq4_nl* bq4 = (const block_iq4_nl*)vbq + kbx;
    const int* q8 = (const int*)bq8_1->qs + iqs;
    int sumi = 0;
#pragma unroll
    for (int l = 0; l < VDR_IQ4_NL_Q8_1_MMVQ; ++l) {
        const int aux_q4 = get_int_b2(bq4->qs, iqs + l);
        const int2 v = get_int_from_table_16(aux_q4);
        sumi = ggml_cuda_dp4a(v.x, q8[l + 0], sumi);
        sumi = ggml_cuda_dp4a(v.y, q8[l + 4], sumi);
    }
    const float d = __half2float(bq4->d) * __low2float(bq8_1->ds);
    return d * sumi;
}
static __device__ __forceinline__ float vec_dot_q2_K_q8_1(const void* __restrict__ vbq, const block_q8_1* __restrict__ bq8_1, const int& kbx, const int& iqs) {
    const block_q2_K* bq2_K = (const block_q2_K*)vbq + kbx;
    const int bq8_offset = QR2_K * (iqs / QI8_1);
    const int scale_offset = iqs - iqs % QI8_1 + (iqs % QI8_1) / (QI8_1 / 2);
    const uint8_t* scales = bq2_K->scales + scale_offset;
    const int v = get_int_b4(bq2_K->qs, iqs);
    float sumf_d = 0.0f, sumf_m = 0.0f;
    const float2 dm2f = __half22float2(bq2_K->dm);
#pragma unroll
    for (int i = 0; i < QR2_K; ++i) {
        const int sc = scales[2 * i];
        const int vi = (v >> (2 * i)) & 0x03030303;
        const int u = get_int_b4(bq8_1[bq8_offset + i].qs, iqs % QI8_1);
        const float d8 = __low2float(bq8_1[bq8_offset + i].ds);
        sumf_d += d8 * (ggml_cuda_dp4a(vi, u, 0) * (sc & 0xF));
        int m = sc >> 4;
        m |= m << 8;
        m |= m << 16;
        sumf_m += d8 * ggml_cuda_dp4a(m, u, 0);
    }
    return dm2f.x * sumf_d - dm2f.y * sumf_m;
}
static __device__ __forceinline__ float vec_dot_q4_K_q8_1(const void* __restrict__ vbq, const block_q8_1* __restrict__ bq8_1, const int& kbx, const int& iqs) {
    const block_q4_K* bq4_K = (const block_q4_K*)vbq + kbx;
    int v[2], u[2 * QR4_K];
    float d8[QR4_K];
    const int bq8_offset = QR4_K * ((iqs / 2) / (QI8_1 / 2));
    const int* q4 = (const int*)(bq4_K->qs + 16 * bq8_offset + 4 * ((iqs / 2) % 4));
    v[0] = q4[0];
    v[1] = q4[4];
    const uint16_t* scales = (const uint16_t*)bq4_K->scales;
    uint16_t aux[2];
    const int j = bq8_offset / 2;
    if (j < 2) { aux[0] = scales[j + 0] & 0x3f3f; aux[1] = scales[j + 2] & 0x3f3f; }
    else { aux[0] = ((scales[j + 2] >> 0) & 0x0f0f) | ((scales[j - 2] & 0xc0c0) >> 2); aux[1] = ((scales[j + 2] >> 4) & 0x0f0f) | ((scales[j - 0] & 0xc0c0) >> 2); }
    const uint8_t* sc = (const uint8_t*)aux;
    const uint8_t* m = sc + 2;
    for (int i = 0; i < QR4_K; ++i) {
        const block_q8_1* bq8i = bq8_1 + bq8_offset + i;
        d8[i] = __low2float(bq8i->ds);
        const int* q8 = (const int*)bq8i->qs + ((iqs / 2) % 4);
        u[2 * i + 0] = q8[0];
        u[2 * i + 1] = q8[4];
    }
    float sumf_d = 0.0f, sumf_m = 0.0f;
#pragma unroll
    for (int i = 0; i < QR4_K; ++i) {
        const int v0i = (v[0] >> (4 * i)) & 0x0F0F0F0F;
        const int v1i = (v[1] >> (4 * i)) & 0x0F0F0F0F;
        const int dot1 = ggml_cuda_dp4a(v1i, u[2 * i + 1], ggml_cuda_dp4a(v0i, u[2 * i + 0], 0));
        const int dot2 = ggml_cuda_dp4a(0x01010101, u[2 * i + 1], ggml_cuda_dp4a(0x01010101, u[2 * i + 0], 0));
        sumf_d += d8[i] * (dot1 * sc[i]);
        sumf_m += d8[i] * (dot2 * m[i]);
    }
    const float2 dm4f = __half22float2(bq4_K->dm);
    return dm4f.x * sumf_d - dm4f.y * sumf_m;
}
static __device__ __forceinline__ float vec_dot_q6_K_q8_1(const void* __restrict__ vbq, const block_q8_1* __restrict__ bq8_1, const int& kbx, const int& iqs) {
    const block_q6_K* bq6_K = (const block_q6_K*)vbq + kbx;
    const int bq8_offset = 2 * QR6_K * (iqs / (QI6_K / 2)) + (iqs % (QI6_K / 2)) / (QI6_K / 4);
    const int scale_offset = (QI6_K / 4) * (iqs / (QI6_K / 2)) + (iqs % (QI6_K / 2)) / (QI6_K / 8);
    const int vh_shift = 2 * ((iqs % (QI6_K / 2)) / (QI6_K / 4));
    const int vl = get_int_b2(bq6_K->ql, iqs);
    const int vh = get_int_b2(bq6_K->qh, (QI6_K / 4) * (iqs / (QI6_K / 2)) + iqs % (QI6_K / 4)) >> vh_shift;
    const int8_t* scales = bq6_K->scales + scale_offset;
    float sumf = 0.0f;
#pragma unroll
    for (int i = 0; i < QR6_K; ++i) {
        const int sc = scales[4 * i];
        const int u = get_int_b4(bq8_1[bq8_offset + 2 * i].qs, iqs % QI8_1);
        const float d8 = __low2float(bq8_1[bq8_offset + 2 * i].ds);
        const int vil = (vl >> (4 * i)) & 0x0F0F0F0F;
        const int vih = ((vh >> (4 * i)) << 4) & 0x30303030;
        const int vi = __vsubss4((vil | vih), 0x20202020);
        sumf += d8 * (ggml_cuda_dp4a(vi, u, 0) * sc);
    }
    return __half2float(bq6_K->d) * sumf;
}

typedef float (*vec_dot_q_cuda_t)(const void* __restrict__ vbq, const block_q8_1* __restrict__ bq8_1, const int& kbx, const int& iqs);

template <int ncols_y, int qk, int qi, typename block_q_t, int vdr, vec_dot_q_cuda_t vec_dot_q_cuda>
__launch_bounds__(ncols_y <= 4 ? 128 : 64, 1)
static __global__ void mul_mat_vec_q(const void* __restrict__ vx, const void* __restrict__ vy, float* __restrict__ dst, const int ncols_x, const int nrows_x,
                                     const int nrows_y, const int nrows_dst) {
    constexpr int nwarps = ncols_y <= 4 ? 4 : 2;
    constexpr int rows_per_cuda_block = ncols_y == 1 ? 1 : 2;
    const int tid = WARP_SIZE * threadIdx.y + threadIdx.x;
    const int row0 = rows_per_cuda_block * blockIdx.x;
    const int blocks_per_row_x = ncols_x / qk;
    const int blocks_per_col_y = nrows_y / QK8_1;
    constexpr int blocks_per_iter = vdr * nwarps * WARP_SIZE / qi;
    float tmp[ncols_y][rows_per_cuda_block] = {0.0f};
    const block_q_t* x = (const block_q_t*)vx;
    const block_q8_1* y = (const block_q8_1*)vy;
    for (int kbx = tid / (qi / vdr); kbx < blocks_per_row_x; kbx += blocks_per_iter) {
        const int kby = kbx * (qk / QK8_1);
        const int kqs = vdr * (tid % (qi / vdr));
#pragma unroll
        for (int j = 0; j < ncols_y; ++j)
#pragma unroll
            for (int i = 0; i < rows_per_cuda_block; ++i)
                tmp[j][i] += vec_dot_q_cuda((const void*)x, &y[j * blocks_per_col_y + kby], (row0 + i) * blocks_per_row_x + kbx, kqs);
    }
    __shared__ float tmp_shared[nwarps - 1 > 0 ? nwarps - 1 : 1][ncols_y][rows_per_cuda_block][WARP_SIZE];
    if (threadIdx.y > 0) {
#pragma unroll
        for (int j = 0; j < ncols_y; ++j)
#pragma unroll
            for (int i = 0; i < rows_per_cuda_block; ++i) tmp_shared[threadIdx.y - 1][j][i][threadIdx.x] = tmp[j][i];
    }
    __syncthreads();
    if (threadIdx.y > 0) return;
#pragma unroll
    for (int j = 0; j < ncols_y; ++j) {
#pragma unroll
        for (int i = 0; i < rows_per_cuda_block; ++i) {
#pragma unroll
            for (int l = 0; l < nwarps - 1; ++l) tmp[j][i] += tmp_shared[l][j][i][threadIdx.x];
            tmp[j][i] = warp_reduce_sum(tmp[j][i]);
        }
        if (threadIdx.x < rows_per_cuda_block && (rows_per_cuda_block == 1 || row0 + threadIdx.x < nrows_dst))
            dst[j * nrows_dst + row0 + threadIdx.x] = tmp[j][threadIdx.x];
    }
}

// ------------------------------------------------------------------ quantize q8_1
static __global__ void quantize_q8_1(const float* __restrict__ x, void* __restrict__ vy, const int kx, const int kx_padded) {
    const int ix = blockDim.x * blockIdx.x + threadIdx.x;
    if (ix >= kx_padded) return;
    const int iy = blockDim.y * blockIdx.y + threadIdx.y;
    const int i_padded = iy * kx_padded + ix;
    block_q8_1* y = (block_q8_1*)vy;
    const int ib = i_padded / QK8_1;
    const int iqs = i_padded % QK8_1;
    const float xi = ix < kx ? x[iy * kx + ix] : 0.0f;
    float amax = fabsf(xi);
    float sum = xi;
    amax = warp_reduce_max(amax);
    sum = warp_reduce_sum(sum);
    const float d = amax / 127;
    const int8_t q = amax == 0.0f ? 0 : roundf(xi / d);
    y[ib].qs[iqs] = q;
    if (iqs > 0) return;
    reinterpret_cast<half&>(y[ib].ds.x) = d;
    reinterpret_cast<half&>(y[ib].ds.y) = sum;
}

// ------------------------------------------------------------------ dequantize
typedef void (*dequantize_kernel_t)(const void* vx, const int64_t ib, const int iqs, dfloat2& v);
static __device__ __forceinline__ void dequantize_q4_0(const void* vx, const int64_t ib, const int iqs, dfloat2& v) {
    const block_q4_0* x = (const block_q4_0*)vx;
    const dfloat d = x[ib].d;
    const int vui = x[ib].qs[iqs];
    v.x = __int2half_rn(vui & 0xF);
    v.y = __int2half_rn(vui >> 4);
    v = __hsub2(v, {8.0f, 8.0f});
    v = __hmul2(v, {d, d});
}
static __device__ __forceinline__ void dequantize_q4_1(const void* vx, const int64_t ib, const int iqs, dfloat2& v) {
    const block_q4_1* x = (const block_q4_1*)vx;
    const dfloat d = __low2half(x[ib].dm);
    const dfloat m = __high2half(x[ib].dm);
    const int vui = x[ib].qs[iqs];
    v.x = __int2half_rn(vui & 0xF);
    v.y = __int2half_rn(vui >> 4);
    v = __hmul2(v, {d, d});
    v = __hadd2(v, {m, m});
}
static __device__ __forceinline__ void dequantize_q5_0(const void* vx, const int64_t ib, const int iqs, dfloat2& v) {
    const block_q5_0* x = (const block_q5_0*)vx;
    const dfloat d = x[ib].d;
    uint32_t qh;
    memcpy(&qh, x[ib].qh, sizeof(qh));
    const int xh_0 = ((qh >> (iqs + 0)) << 4) & 0x10;
    const int xh_1 = ((qh >> (iqs + 12))) & 0x10;
    v.x = __int2half_rn((x[ib].qs[iqs] & 0xf) | xh_0);
    v.y = __int2half_rn((x[ib].qs[iqs] >> 4) | xh_1);
    v = __hsub2(v, {16.0f, 16.0f});
    v = __hmul2(v, {d, d});
}
static __device__ __forceinline__ void dequantize_q8_0(const void* vx, const int64_t ib, const int iqs, dfloat2& v) {
    const block_q8_0* x = (const block_q8_0*)vx;
    const dfloat d = x[ib].d;
    v.x = __int2half_rn(x[ib].qs[iqs + 0]);
    v.y = __int2half_rn(x[ib].qs[iqs + 1]);
    v = __hmul2(v, {d, d});
}
static __device__ __forceinline__ void convert_f16(const void* vx, const int64_t ib, const int iqs, dfloat2& v) {
    const half* x = (const half*)vx;
    v.x = x[ib + iqs + 0];
    v.y = x[ib + iqs + 1];
}

template <int qk, int qr, dequantize_kernel_t dequantize_kernel, typename dst_t>
static __global__ void dequantize_block(const void* __restrict__ vx, dst_t* __restrict__ y, const int64_t k) {
    const int64_t i = (int64_t)2 * (blockDim.x * blockIdx.x + threadIdx.x);
    if (i >= k) return;
    const int64_t ib = i / qk;
    const int64_t iqs = (i % qk) / qr;
    const int64_t iybs = i - i % qk;
    const int64_t y_offset = qr == 1 ? 1 : qk / 2;
    dfloat2 v;
    dequantize_kernel(vx, ib, iqs, v);
    y[iybs + iqs + 0] = (dst_t)__low2float(v);
    y[iybs + iqs + y_offset] = (dst_t)__high2float(v);
}

static __device__ __forceinline__ void get_scale_min_k4(int j, const uint8_t* q, uint8_t& d, uint8_t& m) {
    if (j < 4) { d = q[j] & 63; m = q[j + 4] & 63; }
    else { d = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4); m = (q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4); }
}
template <typename dst_t>
static __global__ void dequantize_block_q4_K(const void* __restrict__ vx, dst_t* __restrict__ yy) {
    const block_q4_K* x = (const block_q4_K*)vx;
    const int64_t i = blockIdx.x;
    const int64_t tid = threadIdx.x;
    const int64_t il = tid / 8, ir = tid % 8, is = 2 * il, n = 4;
    dst_t* y = yy + i * QK_K + 64 * il + n * ir;
    const float dall = __low2half(x[i].dm);
    const float dmin = __high2half(x[i].dm);
    const uint8_t* q = x[i].qs + 32 * il + n * ir;
    uint8_t sc, m;
    get_scale_min_k4(is + 0, x[i].scales, sc, m);
    const float d1 = dall * sc, m1 = dmin * m;
    get_scale_min_k4(is + 1, x[i].scales, sc, m);
    const float d2 = dall * sc, m2 = dmin * m;
    for (int l = 0; l < n; ++l) {
        y[l + 0] = d1 * (q[l] & 0xF) - m1;
        y[l + 32] = d2 * (q[l] >> 4) - m2;
    }
}
template <typename dst_t>
static __global__ void dequantize_block_q6_K(const void* __restrict__ vx, dst_t* __restrict__ yy) {
    const block_q6_K* x = (const block_q6_K*)vx;
    const int64_t i = blockIdx.x;
    const int64_t tid = threadIdx.x;
    const int64_t ip = tid / 32, il = tid - 32 * ip, is = 8 * ip + il / 16;
    dst_t* y = yy + i * QK_K + 128 * ip + il;
    const float d = x[i].d;
    const uint8_t* ql = x[i].ql + 64 * ip + il;
    const uint8_t qh = x[i].qh[32 * ip + il];
    const int8_t* sc = x[i].scales + is;
    y[0] = d * sc[0] * ((int8_t)((ql[0] & 0xF) | (((qh >> 0) & 3) << 4)) - 32);
    y[32] = d * sc[2] * ((int8_t)((ql[32] & 0xF) | (((qh >> 2) & 3) << 4)) - 32);
    y[64] = d * sc[4] * ((int8_t)((ql[0] >> 4) | (((qh >> 4) & 3) << 4)) - 32);
    y[96] = d * sc[6] * ((int8_t)((ql[32] >> 4) | (((qh >> 6) & 3) << 4)) - 32);
}
template <typename dst_t>
static __global__ void dequantize_block_iq2_small(const void* __restrict__ vx, dst_t* __restrict__ yy) {
    const int64_t i = blockIdx.x;
    const block_q2_K* x = (const block_q2_K*)vx;
    const int64_t tid = threadIdx.x;
    const int64_t il = tid / 8, ib = tid % 8;
    dst_t* y = yy + i * QK_K + 32 * ib + 8 * il;
    const uint8_t* q2 = x[i].qs + 4 * ib;
    const uint8_t* grid = (const uint8_t*)(small_grid + (q2[il] & 31));
    const float d = __low2float(x[i].dm) * (0.5f + (x[i].scales[ib] >> 4)) * 0.25f;
    const uint8_t signs = ksigns_iq2xs[(x[i].scales[il] >> 1) & 127];
    for (int j = 0; j < 8; ++j) y[j] = d * grid[j] * (signs & (1 << j) ? -1.f : 1.f);
}

#define MMVQ_INST(NCOLS, QK, QI, BT, VDR, FN)                                                                                   \
    template __global__ void mul_mat_vec_q<NCOLS, QK, QI, BT, VDR, FN>(const void* __restrict__, const void* __restrict__, \
                                                                       float* __restrict__, const int, const int, const int, const int);
#define MMVQ_ALL(QK, QI, BT, VDR, FN) MMVQ_INST(1, QK, QI, BT, VDR, FN) MMVQ_INST(2, QK, QI, BT, VDR, FN) MMVQ_INST(4, QK, QI, BT, VDR, FN)
MMVQ_ALL(QK4_0, QI4_0, block_q4_0, VDR_Q4_0_Q8_1_MMVQ, vec_dot_q4_0_q8_1)
MMVQ_INST(1, QK4_1, QI4_1, block_q4_1, VDR_Q4_1_Q8_1_MMVQ, vec_dot_q4_1_q8_1)
MMVQ_INST(2, QK4_1, QI4_1, block_q4_1, VDR_Q4_1_Q8_1_MMVQ, vec_dot_q4_1_q8_1)
MMVQ_INST(1, QK5_0, QI5_0, block_q5_0, VDR_Q5_0_Q8_1_MMVQ, vec_dot_q5_0_q8_1)
MMVQ_INST(1, QK8_0, QI8_0, block_q8_0, VDR_Q8_0_Q8_1_MMVQ, vec_dot_q8_0_q8_1)
MMVQ_INST(8, QK8_0, QI8_0, block_q8_0, VDR_Q8_0_Q8_1_MMVQ, vec_dot_q8_0_q8_1)
MMVQ_INST(1, QK4_NL, QI4_NL, block_iq4_nl, VDR_IQ4_NL_Q8_1_MMVQ, vec_dot_iq4_nl_q8_1)
MMVQ_INST(4, QK4_NL, QI4_NL, block_iq4_nl, VDR_IQ4_NL_Q8_1_MMVQ, vec_dot_iq4_nl_q8_1)
MMVQ_INST(1, QK_K, QI2_K, block_q2_K, VDR_Q2_K_Q8_1_MMVQ, vec_dot_q2_K_q8_1)
MMVQ_INST(1, QK_K, QI4_K, block_q4_K, VDR_Q4_K_Q8_1_MMVQ, vec_dot_q4_K_q8_1)
MMVQ_INST(2, QK_K, QI4_K, block_q4_K, VDR_Q4_K_Q8_1_MMVQ, vec_dot_q4_K_q8_1)
MMVQ_INST(1, QK_K, QI6_K, block_q6_K, VDR_Q6_K_Q8_1_MMVQ, vec_dot_q6_K_q8_1)
MMVQ_INST(2, QK_K, QI6_K, block_q6_K, VDR_Q6_K_Q8_1_MMVQ, vec_dot_q6_K_q8_1)

#define DQ_INST(QK, QR, FN, DT) template __global__ void dequantize_block<QK, QR, FN, DT>(const void* __restrict__, DT* __restrict__, const int64_t);
DQ_INST(QK4_0, QR4_0, dequantize_q4_0, float)
DQ_INST(QK4_0, QR4_0, dequantize_q4_0, half)
DQ_INST(QK4_1, QR4_1, dequantize_q4_1, float)
DQ_INST(QK4_1, QR4_1, dequantize_q4_1, half)
DQ_INST(QK5_0, QR5_0, dequantize_q5_0, float)
DQ_INST(QK8_0, QR8_0, dequantize_q8_0, float)
DQ_INST(QK8_0, QR8_0, dequantize_q8_0, half)
DQ_INST(1, 1, convert_f16, float)
template __global__ void dequantize_block_q4_K<float>(const void* __restrict__, float* __restrict__);
template __global__ void dequantize_block_q4_K<half>(const void* __restrict__, half* __restrict__);
template __global__ void dequantize_block_q6_K<float>(const void* __restrict__, float* __restrict__);
template __global__ void dequantize_block_q6_K<half>(const void* __restrict__, half* __restrict__);
template __global__ void dequantize_block_iq2_small<float>(const void* __restrict__, float* __restrict__);

// host-side launchers make the static kernels and quantize_q8_1 referenced
void launch_q8_1(const float* x, void* vy, int kx, int kx_padded, cudaStream_t s) {
    quantize_q8_1<<<dim3((kx_padded + 255) / 256, 1), dim3(256, 1), 0, s>>>(x, vy, kx, kx_padded);
}
