// Attention-like scores: q.k dot products in bf16 with online softmax, one warp per query (no smem).
#include <cuda_bf16.h>
__global__ void attn_scores(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                            const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o,
                            int T, int D, float scale) {
    int qi = blockIdx.x;
    int lane = threadIdx.x;
    float m = -1e30f, l = 0.f, acc[4] = {0, 0, 0, 0};
    for (int t = 0; t <= qi && t < T; ++t) {
        float s = 0.f;
        for (int d = lane; d < D; d += 32) s += __bfloat162float(q[qi * D + d]) * __bfloat162float(k[t * D + d]);
        for (int off = 16; off; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
        s = __shfl_sync(0xffffffffu, s, 0) * scale;
        float mn = fmaxf(m, s), corr = __expf(m - mn), p = __expf(s - mn);
        l = l * corr + p;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            int d = lane + 32 * j;
            acc[j] = acc[j] * corr + (d < D ? p * __bfloat162float(v[t * D + d]) : 0.f);
        }
        m = mn;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) { int d = lane + 32 * j; if (d < D) o[qi * D + d] = __float2bfloat16(acc[j] / l); }
}
