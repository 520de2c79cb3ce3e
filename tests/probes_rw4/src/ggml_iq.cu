#include "ggml_iq_tables.inc"

template <typename dst_t>
static __global__ void dequantize_block_iq2_xxs(const void* __restrict__ vx, dst_t* __restrict__ yy) {
    const int64_t i = blockIdx.x;
    const block_iq2_xxs* x = (const block_iq2_xxs*)vx;
    const int64_t tid = threadIdx.x;
    const int64_t il = tid / 8, ib = tid % 8;
    dst_t* y = yy + i * QK_IQ + 32 * ib + 8 * il;
    const uint16_t* q2 = x[i].qs + 4 * ib;
    const uint8_t* aux8 = (const uint8_t*)q2;
    const uint8_t* grid = (const uint8_t*)(iq2xxs_grid + aux8[il]);
    const uint32_t aux32 = q2[2] | (q2[3] << 16);
    const float d = __half2float(x[i].d) * (0.5f + (aux32 >> 28)) * 0.25f;
    const uint8_t signs = ksigns_iq2xs_c[(aux32 >> 7 * il) & 127];
    for (int j = 0; j < 8; ++j) y[j] = d * grid[j] * (signs & kmask_iq2xs[j] ? -1.f : 1.f);
}
template <typename dst_t>
static __global__ void dequantize_block_iq3_xxs(const void* __restrict__ vx, dst_t* __restrict__ yy) {
    const int64_t i = blockIdx.x;
    const block_iq3_xxs* x = (const block_iq3_xxs*)vx;
    const int64_t tid = threadIdx.x;
    const int64_t il = tid / 8, ib = tid % 8;
    dst_t* y = yy + i * QK_IQ + 32 * ib + 8 * il;
    const uint8_t* q3 = x[i].qs + 8 * ib;
    const uint16_t* gas = (const uint16_t*)(x[i].qs + QK_IQ / 4) + 2 * ib;
    const uint8_t* grid1 = (const uint8_t*)(iq3xxs_grid + q3[2 * il + 0]);
    const uint8_t* grid2 = (const uint8_t*)(iq3xxs_grid + q3[2 * il + 1]);
    const uint32_t aux32 = gas[0] | (gas[1] << 16);
    const float d = __half2float(x[i].d) * iq_scale_lut[aux32 >> 28] * 0.5f;
    const uint8_t signs = ksigns_iq2xs_c[(aux32 >> 7 * il) & 127];
    for (int j = 0; j < 4; ++j) {
        y[j + 0] = d * grid1[j] * (signs & kmask_iq2xs[j + 0] ? -1.f : 1.f);
        y[j + 4] = d * grid2[j] * (signs & kmask_iq2xs[j + 4] ? -1.f : 1.f);
    }
}
template <typename dst_t>
static __global__ void dequantize_block_iq4_xs(const void* __restrict__ vx, dst_t* __restrict__ yy) {
    const int64_t i = blockIdx.x;
    const block_iq4_xs* x = (const block_iq4_xs*)vx;
    const int64_t tid = threadIdx.x;
    const int64_t il = tid / 8, ib = tid % 8;
    dst_t* y = yy + i * QK_IQ + 32 * ib + 4 * il;
    const uint8_t* q4 = x[i].qs + 16 * ib + 4 * il;
    const float d = __half2float(x[i].d) * ((((x[i].scales_l[ib / 2] >> 4 * (ib % 2)) & 0xf) | (((x[i].scales_h[ib / 4] >> 2 * (ib % 4)) & 3) << 4)) - 32);
    for (int j = 0; j < 4; ++j) {
        y[j + 0] = d * kvalues_iq4nl_g[q4[j] & 0xf];
        y[j + 16] = d * kvalues_iq4nl_g[q4[j] >> 4];
    }
}
static __device__ __forceinline__ float vec_dot_iq2_xxs_q8_1(const void* __restrict__ vbq, const block_q8_1* __restrict__ bq8_1, const int& kbx, const int& iqs) {
    const block_iq2_xxs* bq2 = (const block_iq2_xxs*)vbq + kbx;
    const int q2 = get_int_b2(bq2->qs, iqs);
    const uint8_t* aux8 = (const uint8_t*)&q2;
    const uint32_t aux32 = get_int_b2(bq2->qs, iqs + 1);
    int sumi = 0;
#pragma unroll
    for (int k0 = 0; k0 < 8; k0 += 2) {
        const int* grid_pos = (const int*)(iq_grid_ptr + aux8[k0 / 2]);
        const int signs_packed = ksigns_iq2xs_c[(aux32 >> (7 * k0 / 2)) & 0x7F];
        const int signs0 = __vcmpne4(((signs_packed & 0x03) << 7) | ((signs_packed & 0x0C) << 21), 0x00000000);
        const int grid0 = __vsub4(grid_pos[0] ^ signs0, signs0);
        const int u0 = get_int_b4(bq8_1[iqs / 2].qs, k0 + 0);
        sumi = ggml_cuda_dp4a(grid0, u0, sumi);
        const int signs1 = __vcmpne4(((signs_packed & 0x30) << 3) | ((signs_packed & 0xC0) << 17), 0x00000000);
        const int grid1 = __vsub4(grid_pos[1] ^ signs1, signs1);
        const int u1 = get_int_b4(bq8_1[iqs / 2].qs, k0 + 1);
        sumi = ggml_cuda_dp4a(grid1, u1, sumi);
    }
    const int ls = aux32 >> 28;
    sumi = (ls * sumi + sumi / 2) / 4;
    const float d = __half2float(bq2->d) * __low2float(bq8_1[iqs / 2].ds);
    return d * sumi;
}
typedef float (*vec_dot_q_cuda_t)(const void* __restrict__ vbq, const block_q8_1* __restrict__ bq8_1, const int& kbx, const int& iqs);
template <int ncols_y, vec_dot_q_cuda_t vec_dot>
static __global__ void __launch_bounds__(128, 1) mmvq_iq(const void* __restrict__ vx, const void* __restrict__ vy, float* __restrict__ dst, const int ncols_x, const int nrows_x) {
    const int row = blockIdx.x;
    const int blocks_per_row = ncols_x / QK_IQ;
    float tmp[ncols_y] = {0.f};
    for (int kbx = threadIdx.x / 8; kbx < blocks_per_row; kbx += blockDim.x / 8)
#pragma unroll
        for (int j = 0; j < ncols_y; ++j) tmp[j] += vec_dot(vx, (const block_q8_1*)vy + j * (ncols_x / QK8_1) + kbx * (QK_IQ / QK8_1), row * blocks_per_row + kbx, 2 * (threadIdx.x % 8));
#pragma unroll
    for (int j = 0; j < ncols_y; ++j) {
        tmp[j] = warp_reduce_sum(tmp[j]);
        if (threadIdx.x == 0) dst[j * nrows_x + row] = tmp[j];
    }
}
template __global__ void dequantize_block_iq2_xxs<float>(const void* __restrict__, float* __restrict__);
template __global__ void dequantize_block_iq2_xxs<half>(const void* __restrict__, half* __restrict__);
template __global__ void dequantize_block_iq3_xxs<float>(const void* __restrict__, float* __restrict__);
template __global__ void dequantize_block_iq4_xs<float>(const void* __restrict__, float* __restrict__);
template __global__ void dequantize_block_iq4_xs<half>(const void* __restrict__, half* __restrict__);
template __global__ void mmvq_iq<1, vec_dot_iq2_xxs_q8_1>(const void* __restrict__, const void* __restrict__, float* __restrict__, int, int);
template __global__ void mmvq_iq<4, vec_dot_iq2_xxs_q8_1>(const void* __restrict__, const void* __restrict__, float* __restrict__, int, int);
