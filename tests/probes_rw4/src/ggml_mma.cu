// ggml-style tensor-core tiles for Ampere+ (own code, compute_80+): an mmq-like int8 tile
// (q8_0 x q8_1) using ldmatrix + mma.sync.m16n8k32.s8 with cp.async staging, a f16
// flash-attention-like vec kernel on half2 with dynamic shared memory, and templated tile
// structs with static member functions. Many instantiations, __launch_bounds__ min blocks.
#include "ggml_common.cuh"
#include <float.h>

namespace ggml_cuda_mma {
template <int I_, int J_, typename T>
struct tile {
    static constexpr int I = I_;
    static constexpr int J = J_;
    static constexpr int ne = I * J / WARP_SIZE;
    T x[ne] = {};
    static __device__ __forceinline__ int get_i(const int l) {
        if constexpr (I == 16 && J == 8) return ((l / 2) * 8) + (threadIdx.x / 4);
        else if constexpr (I == 8 && J == 8) return threadIdx.x / 4;
        else return (l / 2) * 8 + threadIdx.x / 4;
    }
    static __device__ __forceinline__ int get_j(const int l) {
        if constexpr (I == 16 && J == 8) return ((threadIdx.x % 4) * 2) + (l % 2);
        else if constexpr (I == 8 && J == 8) return 2 * (threadIdx.x % 4) + l % 2;
        else return (l % 2) * 4 + threadIdx.x % 4;
    }
};
template <int I, int J, typename T>
static __device__ __forceinline__ void load_ldmatrix(tile<I, J, T>& t, const T* __restrict__ xs0, const int stride) {
    int* xi = (int*)t.x;
    const int* xs = (const int*)xs0 + (threadIdx.x % t.I) * stride + (threadIdx.x / t.I) * (t.J / 2);
    if constexpr (I == 16 && J == 8)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.b16 {%0, %1, %2, %3}, [%4];" : "=r"(xi[0]), "=r"(xi[1]), "=r"(xi[2]), "=r"(xi[3]) : "l"(xs));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.b16 {%0, %1}, [%2];" : "=r"(xi[0]), "=r"(xi[1]) : "l"(xs));
}
static __device__ __forceinline__ void mma(tile<16, 8, int>& D, const tile<16, 8, int>& A, const tile<8, 8, int>& B) {
    asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+r"(D.x[0]), "+r"(D.x[1]), "+r"(D.x[2]), "+r"(D.x[3])
        : "r"(A.x[0]), "r"(A.x[1]), "r"(A.x[2]), "r"(A.x[3]), "r"(B.x[0]), "r"(B.x[1]));
}
static __device__ __forceinline__ void mma(tile<16, 8, float>& D, const tile<16, 8, half2>& A, const tile<8, 8, half2>& B) {
    const int* Axi = (const int*)A.x;
    const int* Bxi = (const int*)B.x;
    int* Dxi = (int*)D.x;
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+r"(Dxi[0]), "+r"(Dxi[1]), "+r"(Dxi[2]), "+r"(Dxi[3])
        : "r"(Axi[0]), "r"(Axi[1]), "r"(Axi[2]), "r"(Axi[3]), "r"(Bxi[0]), "r"(Bxi[1]));
}
}  // namespace ggml_cuda_mma
using namespace ggml_cuda_mma;

static __device__ __forceinline__ void cp_async_cg_16(const unsigned dst, const void* src, const int src_size) {
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_size));
}
static __device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;"); }

template <int mmq_x, int mmq_y, int nwarps, bool need_check>
static __global__ void __launch_bounds__(WARP_SIZE * nwarps, 2)
    mul_mat_q8_0(const char* __restrict__ x, const int* __restrict__ yc, float* __restrict__ dst, const int ncols_x, const int nrows_x,
                 const int ncols_y, const int stride_row_x, const int stride_col_dst) {
    extern __shared__ int data_mmq[];
    constexpr int MMQ_TILE_NE_K = 32;
    int* tile_x = data_mmq;
    float* x_df = (float*)(tile_x + mmq_y * (MMQ_TILE_NE_K + 4));
    int* tile_y = (int*)(x_df + mmq_y);
    const int it = blockIdx.x, jt = blockIdx.y;
    const int blocks_per_row = ncols_x / QK8_0;
    tile<16, 8, int> C[mmq_x / 8 / (nwarps / 4 > 0 ? nwarps / 4 : 1)][mmq_y / 16 / 4 > 0 ? mmq_y / 16 / 4 : 1];
    for (int kb0 = 0; kb0 < blocks_per_row; ++kb0) {
        const block_q8_0* bx0 = (const block_q8_0*)x + (int64_t)it * mmq_y * stride_row_x + kb0;
#pragma unroll
        for (int i0 = 0; i0 < mmq_y; i0 += nwarps) {
            int i = i0 + threadIdx.y;
            if (need_check) i = min(i, nrows_x - 1);
            const block_q8_0* bxi = bx0 + i * stride_row_x;
            tile_x[i * (MMQ_TILE_NE_K + 4) + threadIdx.x] = get_int_b2(bxi->qs, threadIdx.x % 8);
            if (threadIdx.x == 0) x_df[i] = __half2float(bxi->d);
        }
        const int* by0 = yc + (int64_t)jt * mmq_x * (blocks_per_row * (QK8_1 / 4 + 1)) + kb0 * (QK8_1 / 4 + 1);
        for (int l0 = 0; l0 < mmq_x * (MMQ_TILE_NE_K + 4); l0 += nwarps * WARP_SIZE) {
            int l = l0 + threadIdx.y * WARP_SIZE + threadIdx.x;
            unsigned dstp = (unsigned)__cvta_generic_to_shared(tile_y + 4 * (l / 4));
            cp_async_cg_16(dstp, by0 + 4 * (l / 4), (l / 4) < mmq_x * 9 ? 16 : 0);
        }
        cp_async_wait_all();
        __syncthreads();
#pragma unroll
        for (int n = 0; n < (int)(sizeof(C) / sizeof(C[0])); ++n)
#pragma unroll
            for (int m = 0; m < (int)(sizeof(C[0]) / sizeof(C[0][0])); ++m) {
                tile<16, 8, int> A;
                tile<8, 8, int> B;
                load_ldmatrix(A, tile_x + (threadIdx.y % 4) * 16 * (MMQ_TILE_NE_K + 4) + m * 64 * (MMQ_TILE_NE_K + 4), MMQ_TILE_NE_K + 4);
                load_ldmatrix(B, tile_y + (n * 8 + (threadIdx.y / 4) * 8) * (MMQ_TILE_NE_K + 4), MMQ_TILE_NE_K + 4);
                mma(C[n][m], A, B);
            }
        __syncthreads();
    }
#pragma unroll
    for (int n = 0; n < (int)(sizeof(C) / sizeof(C[0])); ++n)
#pragma unroll
        for (int m = 0; m < (int)(sizeof(C[0]) / sizeof(C[0][0])); ++m)
#pragma unroll
            for (int l = 0; l < C[n][m].ne; ++l) {
                const int i = it * mmq_y + m * 64 + (threadIdx.y % 4) * 16 + C[n][m].get_i(l);
                const int j = jt * mmq_x + n * 8 + (threadIdx.y / 4) * 8 + C[n][m].get_j(l);
                if (need_check && (i >= nrows_x || j >= ncols_y)) continue;
                dst[j * stride_col_dst + i] = C[n][m].x[l] * x_df[i % mmq_y];
            }
}

template <int D, int ncols, int nwarps>
static __global__ void __launch_bounds__(nwarps * WARP_SIZE, 1)
    flash_attn_ext_f16(const char* __restrict__ Q, const char* __restrict__ K, const char* __restrict__ V, const char* __restrict__ mask, float* __restrict__ dst,
                       const float scale, const float logit_softcap, const int ne11, const int nb01, const int nb11, const int nb21, const int ne31) {
    extern __shared__ half2 smem_h2[];
    half2* Q_h2 = smem_h2;
    half2* KV_h2 = smem_h2 + ncols * D / 2;
    const int ic0 = blockIdx.x * ncols;
    const half2* Qg = (const half2*)(Q + nb01 * ic0);
    for (int i = threadIdx.y * WARP_SIZE + threadIdx.x; i < ncols * D / 2; i += nwarps * WARP_SIZE) {
        const float2 qf = __half22float2(Qg[i]);
        Q_h2[i] = __floats2half2_rn(qf.x * scale, qf.y * scale);
    }
    __syncthreads();
    tile<16, 8, float> VKQ[D / 8];
    float KQ_max[2] = {-FLT_MAX / 2.0f, -FLT_MAX / 2.0f};
    float KQ_rowsum[2] = {0.0f, 0.0f};
    for (int kv0 = 0; kv0 < ne11; kv0 += 8 * nwarps) {
        const half2* Kg = (const half2*)(K + nb11 * (kv0 + threadIdx.y * 8));
        for (int i = threadIdx.x; i < 8 * D / 2; i += WARP_SIZE) KV_h2[threadIdx.y * 8 * D / 2 + i] = Kg[i];
        __syncwarp();
        tile<16, 8, float> KQ;
#pragma unroll
        for (int k0 = 0; k0 < D / 2; k0 += 8) {
            tile<16, 8, half2> A;
            tile<8, 8, half2> B;
            load_ldmatrix(A, Q_h2 + k0, D / 2);
            load_ldmatrix(B, KV_h2 + threadIdx.y * 8 * D / 2 + k0, D / 2);
            mma(KQ, A, B);
        }
        if (logit_softcap != 0.0f)
#pragma unroll
            for (int l = 0; l < KQ.ne; ++l) KQ.x[l] = logit_softcap * tanhf(KQ.x[l]);
        if (mask) {
            const half* mrow = (const half*)mask;
#pragma unroll
            for (int l = 0; l < KQ.ne; ++l) KQ.x[l] += __half2float(mrow[KQ.get_i(l) * ne31 + kv0 + threadIdx.y * 8 + KQ.get_j(l)]);
        }
        float KQ_max_new[2] = {KQ_max[0], KQ_max[1]};
#pragma unroll
        for (int l = 0; l < KQ.ne; ++l) KQ_max_new[l / 2] = fmaxf(KQ_max_new[l / 2], KQ.x[l]);
#pragma unroll
        for (int c = 0; c < 2; ++c) {
            KQ_max_new[c] = fmaxf(KQ_max_new[c], __shfl_xor_sync(0xFFFFFFFF, KQ_max_new[c], 2));
            KQ_max_new[c] = fmaxf(KQ_max_new[c], __shfl_xor_sync(0xFFFFFFFF, KQ_max_new[c], 1));
        }
        float scale_c[2];
#pragma unroll
        for (int c = 0; c < 2; ++c) { scale_c[c] = expf(KQ_max[c] - KQ_max_new[c]); KQ_max[c] = KQ_max_new[c]; KQ_rowsum[c] *= scale_c[c]; }
        tile<16, 4, half2> P;
#pragma unroll
        for (int l = 0; l < KQ.ne; l += 2) {
            const float p0 = expf(KQ.x[l] - KQ_max[l / 2]), p1 = expf(KQ.x[l + 1] - KQ_max[l / 2]);
            KQ_rowsum[l / 2] += p0 + p1;
            P.x[l / 2] = __floats2half2_rn(p0, p1);
        }
        __syncwarp();
        const half2* Vg = (const half2*)(V + nb21 * (kv0 + threadIdx.y * 8));
        for (int i = threadIdx.x; i < 8 * D / 2; i += WARP_SIZE) KV_h2[threadIdx.y * 8 * D / 2 + i] = Vg[i];
        __syncwarp();
#pragma unroll
        for (int d0 = 0; d0 < D / 8; ++d0) {
#pragma unroll
            for (int l = 0; l < VKQ[d0].ne; ++l) VKQ[d0].x[l] *= scale_c[l / 2];
            tile<8, 8, half2> B;
            load_ldmatrix(B, KV_h2 + threadIdx.y * 8 * D / 2 + d0 * 4, D / 2);
            tile<16, 8, half2> A;
            A.x[0] = P.x[0]; A.x[1] = P.x[1]; A.x[2] = P.x[0]; A.x[3] = P.x[1];
            mma(VKQ[d0], A, B);
        }
        __syncthreads();
    }
#pragma unroll
    for (int c = 0; c < 2; ++c) {
        KQ_rowsum[c] += __shfl_xor_sync(0xFFFFFFFF, KQ_rowsum[c], 2);
        KQ_rowsum[c] += __shfl_xor_sync(0xFFFFFFFF, KQ_rowsum[c], 1);
    }
#pragma unroll
    for (int d0 = 0; d0 < D / 8; ++d0)
#pragma unroll
        for (int l = 0; l < VKQ[d0].ne; ++l) {
            const int i = VKQ[d0].get_i(l), j = d0 * 8 + VKQ[d0].get_j(l);
            if (ic0 + i < ne31 && threadIdx.y == 0) dst[(ic0 + i) * D + j] = VKQ[d0].x[l] / KQ_rowsum[l / 2];
        }
}

template __global__ void mul_mat_q8_0<64, 128, 8, false>(const char* __restrict__, const int* __restrict__, float* __restrict__, int, int, int, int, int);
template __global__ void mul_mat_q8_0<64, 128, 8, true>(const char* __restrict__, const int* __restrict__, float* __restrict__, int, int, int, int, int);
template __global__ void mul_mat_q8_0<32, 64, 4, false>(const char* __restrict__, const int* __restrict__, float* __restrict__, int, int, int, int, int);
template __global__ void mul_mat_q8_0<8, 64, 4, true>(const char* __restrict__, const int* __restrict__, float* __restrict__, int, int, int, int, int);
#define FA_ARGS const char* __restrict__, const char* __restrict__, const char* __restrict__, const char* __restrict__, float* __restrict__, float, float, int, int, int, int, int
template __global__ void flash_attn_ext_f16<64, 16, 4>(FA_ARGS);
template __global__ void flash_attn_ext_f16<128, 16, 4>(FA_ARGS);
template __global__ void flash_attn_ext_f16<64, 16, 2>(FA_ARGS);
template __global__ void flash_attn_ext_f16<256, 16, 8>(FA_ARGS);
