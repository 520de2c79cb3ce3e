// llm.c-style attention pieces (own code): permute/unpermute of qkv, causal softmax with an
// online max over float4 loads, autoregressive softmax backward with cooperative groups, a
// register-tiled matmul forward with float4 and __ldcs, and (compute_80+) a small flash-style
// tile that stages K/V through cp.async and multiplies bf16 fragments with mma.sync.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <float.h>
namespace cg = cooperative_groups;

template <class T>
__global__ void permute_kernel(T* q, T* k, T* v, const T* inp, int B, int N, int NH, int d) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * NH * N * d) return;
    int b = idx / (NH * N * d); int rest = idx % (NH * N * d);
    int nh_ = rest / (N * d); rest = rest % (N * d);
    int n = rest / d; int d_ = rest % d;
    int inp_idx = (b * N * 3 * NH * d) + (n * 3 * NH * d) + (0 * NH * d) + (nh_ * d) + d_;
    q[idx] = __ldcs(&inp[inp_idx]);
    k[idx] = __ldcs(&inp[inp_idx + NH * d]);
    v[idx] = __ldcs(&inp[inp_idx + 2 * (NH * d)]);
}
template <class T>
__global__ void unpermute_kernel(T* inp, T* out, int B, int N, int NH, int d) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * NH * N * d) return;
    int b = idx / (NH * N * d); int rest = idx % (NH * N * d);
    int nh_ = rest / (N * d); rest = rest % (N * d);
    int n = rest / d; int d_ = rest % d;
    int other_idx = (b * NH * N * d) + (n * NH * d) + (nh_ * d) + d_;
    out[other_idx] = __ldcs(&inp[idx]);
}

__device__ float& vec_at(float4& vec, int index) { return reinterpret_cast<float*>(&vec)[index]; }
__device__ float vec_at(const float4& vec, int index) { return reinterpret_cast<const float*>(&vec)[index]; }

__global__ void softmax_forward_kernel5(float* out, float inv_temperature, const float* inp, int N, int Tn) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int idx = (gridDim.x - blockIdx.x - 1) * warp.meta_group_size() + warp.meta_group_rank();
    if (idx >= N * Tn) return;
    int own_pos = idx % Tn;
    int pos_by_4 = own_pos / 4;
    const float* x = inp + idx * Tn;
    float maxval = -FLT_MAX, sumval = 0.0f;
    const float4* x_vec = reinterpret_cast<const float4*>(x);
    for (int i = warp.thread_rank(); i < pos_by_4; i += warp.size()) {
        float4 v = x_vec[i];
        float old_maxval = maxval;
        for (int k = 0; k < 4; ++k) maxval = fmaxf(maxval, vec_at(v, k));
        sumval *= expf(inv_temperature * (old_maxval - maxval));
        for (int k = 0; k < 4; ++k) sumval += expf(inv_temperature * (vec_at(v, k) - maxval));
    }
    if (4 * pos_by_4 + warp.thread_rank() <= own_pos) {
        float old_maxval = maxval;
        maxval = fmaxf(maxval, x[4 * pos_by_4 + warp.thread_rank()]);
        sumval *= expf(inv_temperature * (old_maxval - maxval));
        sumval += expf(inv_temperature * (x[4 * pos_by_4 + warp.thread_rank()] - maxval));
    }
    float global_maxval = cg::reduce(warp, maxval, cg::greater<float>{});
    sumval *= expf(inv_temperature * (maxval - global_maxval));
    float sum = cg::reduce(warp, sumval, cg::plus<float>{});
    float norm = 1.f / sum;
    for (int i = warp.thread_rank(); i <= own_pos; i += warp.size()) {
        float ev = expf(inv_temperature * (__ldcs(x + i) - global_maxval));
        __stcs(out + idx * Tn + i, ev * norm);
    }
}

template <int BlockSize>
__global__ void softmax_autoregressive_backward_kernel(float* dpreatt, const float* datt, const float* att, int B, int Tn, int C, float scale) {
    constexpr int T_per_block = 4;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float block_acc[32];
    int idx = blockIdx.y;
    int t0 = Tn - 1 - T_per_block * blockIdx.x;
    att += idx * Tn * Tn; datt += idx * Tn * Tn; dpreatt += idx * Tn * Tn;
    if (warp.meta_group_rank() == 0) block_acc[warp.thread_rank()] = 0;
    for (int to = 0; to < T_per_block; ++to) {
        int t = t0 - to;
        if (t < 0) return;
        const float* att_bth = att + t * Tn;
        const float* datt_bth = datt + t * Tn;
        float* dpreatt_bth = dpreatt + t * Tn;
        float local_sum = 0;
        for (int t2 = block.thread_rank(); t2 <= t; t2 += BlockSize) local_sum += att_bth[t2] * datt_bth[t2];
        block_acc[warp.meta_group_rank()] = cg::reduce(warp, local_sum, cg::plus<float>{});
        block.sync();
        local_sum = cg::reduce(warp, block_acc[warp.thread_rank()], cg::plus<float>{});
        for (int t3 = block.thread_rank(); t3 <= t; t3 += BlockSize) {
            float acc = __ldcs(att_bth + t3) * (__ldcs(datt_bth + t3) - local_sum);
            __stcs(dpreatt_bth + t3, scale * acc);
        }
    }
}

__global__ void __launch_bounds__(16 * 16) matmul_forward_kernel4(float* out, const float* inp, const float* weight, const float* bias, int C, int OC) {
    int oc = 8 * (blockIdx.y * blockDim.y + threadIdx.y);
    __shared__ float lhs_s[128][32];
    __shared__ float rhs_s[128][32];
    inp += 128 * blockIdx.x * C;
    weight += 128 * blockIdx.y * C;
    out += 128 * blockIdx.x * OC + 128 * blockIdx.y;
    float vals[8][8] = {};
    if (bias != NULL) {
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j += 4) {
                float4 b = __ldcs(reinterpret_cast<const float4*>(bias + oc + j));
                vals[i][j + 0] = b.x; vals[i][j + 1] = b.y; vals[i][j + 2] = b.z; vals[i][j + 3] = b.w;
            }
    }
    int si_start = 4 * (16 * threadIdx.y + threadIdx.x);
    for (int so = 0; so < C; so += 32) {
        __syncthreads();
        int xmod8 = threadIdx.x % 8, xby8 = threadIdx.x / 8, xo = 4 * xmod8;
        for (int y = 2 * threadIdx.y + xby8; y < 128; y += 32) {
            *reinterpret_cast<float4*>(&lhs_s[y][xo]) = __ldcs(reinterpret_cast<const float4*>(inp + y * C + so + xo));
            *reinterpret_cast<float4*>(&rhs_s[y][xo]) = __ldcs(reinterpret_cast<const float4*>(weight + y * C + so + xo));
        }
        __syncthreads();
        for (int si = si_start; si < si_start + 32; si += 4) {
            float4 rhs[8];
            for (int u = 0; u < 8; ++u) rhs[u] = *reinterpret_cast<float4*>(&rhs_s[u + 8 * threadIdx.y][si % 32]);
            for (int ii = 0; ii < 8; ++ii) {
                float4 lhs = *reinterpret_cast<float4*>(&lhs_s[ii + 8 * threadIdx.x][si % 32]);
                for (int ji = 0; ji < 8; ++ji) {
                    vals[ii][ji] += lhs.x * rhs[ji].x; vals[ii][ji] += lhs.y * rhs[ji].y;
                    vals[ii][ji] += lhs.z * rhs[ji].z; vals[ii][ji] += lhs.w * rhs[ji].w;
                }
            }
        }
    }
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; j += 4) {
            float4 result = make_float4(vals[i][j], vals[i][j + 1], vals[i][j + 2], vals[i][j + 3]);
            __stcs(reinterpret_cast<float4*>(out + (8 * threadIdx.x + i) * OC + 8 * threadIdx.y + j), result);
        }
}

__global__ void residual_forward_kernel(__nv_bfloat16* out, const __nv_bfloat16* inp1, const __nv_bfloat16* inp2, int N) {
    int idx = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
    if (idx < N) {
        __nv_bfloat162 a = *reinterpret_cast<const __nv_bfloat162*>(inp1 + idx);
        __nv_bfloat162 b = *reinterpret_cast<const __nv_bfloat162*>(inp2 + idx);
        float2 fa = __bfloat1622float2(a), fb = __bfloat1622float2(b);
        *reinterpret_cast<__nv_bfloat162*>(out + idx) = __floats2bfloat162_rn(fa.x + fb.x, fa.y + fb.y);
    }
}

#if __CUDA_ARCH__ >= 800
// flash-style tile: one warp per 16 query rows, K/V tiles of 64 rows x 64 dims staged with cp.async
template <int D>
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void mma_bf16_16816(float* c, const unsigned* a, const unsigned* b) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <int D, int BKV>
__global__ void __launch_bounds__(128) flash_tile_kernel(float* __restrict__ out, const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                                                        const __nv_bfloat16* __restrict__ v, int Tn, float scale) {
    __shared__ alignas(128) __nv_bfloat16 ks[2][BKV][D];
    __shared__ alignas(128) __nv_bfloat16 vs[2][BKV][D];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int qrow = blockIdx.x * 64 + warp * 16;
    const __nv_bfloat16* qb = q + (size_t)blockIdx.y * Tn * D;
    const __nv_bfloat16* kb = k + (size_t)blockIdx.y * Tn * D;
    const __nv_bfloat16* vb = v + (size_t)blockIdx.y * Tn * D;
    unsigned qa[D / 16][4];
    for (int kk = 0; kk < D / 16; ++kk)
        for (int r = 0; r < 4; ++r) {
            int row = qrow + (lane / 4) + 8 * (r % 2), col = kk * 16 + (lane % 4) * 2 + 8 * (r / 2);
            qa[kk][r] = *reinterpret_cast<const unsigned*>(qb + row * D + col);
        }
    float m_i[2] = {-INFINITY, -INFINITY}, l_i[2] = {0.f, 0.f};
    float acc[D / 8][4] = {};
    int ntiles = (blockIdx.x * 64 + 64 + BKV - 1) / BKV;
    auto load_tile = [&](int stage, int tile) {
        for (int c = threadIdx.x; c < BKV * D / 8; c += blockDim.x) {
            int r = c / (D / 8), cc = (c % (D / 8)) * 8;
            cp_async16<D>(&ks[stage][r][cc], kb + (tile * BKV + r) * D + cc);
            cp_async16<D>(&vs[stage][r][cc], vb + (tile * BKV + r) * D + cc);
        }
        asm volatile("cp.async.commit_group;\n" ::);
    };
    load_tile(0, 0);
    for (int t = 0; t < ntiles; ++t) {
        if (t + 1 < ntiles) { load_tile((t + 1) & 1, t + 1); asm volatile("cp.async.wait_group 1;\n" ::); }
        else asm volatile("cp.async.wait_group 0;\n" ::);
        __syncthreads();
        int st = t & 1;
        float s[BKV / 8][4] = {};
        for (int n = 0; n < BKV / 8; ++n)
            for (int kk = 0; kk < D / 16; ++kk) {
                unsigned bfrag[2];
                bfrag[0] = *reinterpret_cast<const unsigned*>(&ks[st][n * 8 + lane / 4][kk * 16 + (lane % 4) * 2]);
                bfrag[1] = *reinterpret_cast<const unsigned*>(&ks[st][n * 8 + lane / 4][kk * 16 + (lane % 4) * 2 + 8]);
                mma_bf16_16816(s[n], qa[kk], bfrag);
            }
        for (int h = 0; h < 2; ++h) {
            float mx = m_i[h];
            for (int n = 0; n < BKV / 8; ++n) {
                int col = t * BKV + n * 8 + (lane % 4) * 2;
                int row = qrow + lane / 4 + 8 * h;
                for (int e = 0; e < 2; ++e) {
                    float& x = s[n][2 * h + e];
                    x = (col + e > row) ? -INFINITY : x * scale;
                    mx = fmaxf(mx, x);
                }
            }
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, 2));
            float corr = __expf(m_i[h] - mx), rs = 0.f;
            for (int n = 0; n < BKV / 8; ++n)
                for (int e = 0; e < 2; ++e) { float& x = s[n][2 * h + e]; x = __expf(x - mx); rs += x; }
            l_i[h] = l_i[h] * corr + rs;
            m_i[h] = mx;
            for (int n = 0; n < D / 8; ++n) { acc[n][2 * h] *= corr; acc[n][2 * h + 1] *= corr; }
        }
        for (int kk = 0; kk < BKV / 16; ++kk) {
            unsigned pa[4];
            for (int r = 0; r < 4; ++r) {
                __nv_bfloat162 p2 = __floats2bfloat162_rn(s[2 * kk + r / 2][(r % 2) * 2], s[2 * kk + r / 2][(r % 2) * 2 + 1]);
                pa[r] = *reinterpret_cast<unsigned*>(&p2);
            }
            for (int n = 0; n < D / 8; ++n) {
                unsigned bfrag[2];
                for (int e = 0; e < 2; ++e) {
                    __nv_bfloat162 v2;
                    v2.x = vs[st][kk * 16 + (lane % 4) * 2 + 8 * e][n * 8 + lane / 4];
                    v2.y = vs[st][kk * 16 + (lane % 4) * 2 + 8 * e + 1][n * 8 + lane / 4];
                    bfrag[e] = *reinterpret_cast<unsigned*>(&v2);
                }
                mma_bf16_16816(acc[n], pa, bfrag);
            }
        }
        __syncthreads();
    }
    for (int h = 0; h < 2; ++h) {
        float l = l_i[h];
        l += __shfl_xor_sync(0xffffffff, l, 1);
        l += __shfl_xor_sync(0xffffffff, l, 2);
        int row = qrow + lane / 4 + 8 * h;
        for (int n = 0; n < D / 8; ++n) {
            float2 o = make_float2(acc[n][2 * h] / l, acc[n][2 * h + 1] / l);
            __stcs(reinterpret_cast<float2*>(out + ((size_t)blockIdx.y * Tn + row) * D + n * 8 + (lane % 4) * 2), o);
        }
    }
}
template __global__ void flash_tile_kernel<64, 64>(float*, const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, int, float);
template __global__ void flash_tile_kernel<32, 32>(float*, const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, int, float);
#endif

template __global__ void permute_kernel<float>(float*, float*, float*, const float*, int, int, int, int);
template __global__ void permute_kernel<__nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, const __nv_bfloat16*, int, int, int, int);
template __global__ void unpermute_kernel<float>(float*, float*, int, int, int, int);
template __global__ void unpermute_kernel<__half>(__half*, __half*, int, int, int, int);
template __global__ void softmax_autoregressive_backward_kernel<256>(float*, const float*, const float*, int, int, int, float);
template __global__ void softmax_autoregressive_backward_kernel<512>(float*, const float*, const float*, int, int, int, float);
