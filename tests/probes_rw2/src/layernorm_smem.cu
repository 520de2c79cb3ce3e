// LayerNorm forward with a block reduction through static shared memory (llm.c style).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                                  const float* weight, const float* bias, int N, int C) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float partial[32];
    int idx = blockIdx.x;
    const float* x = inp + (size_t)idx * C;
    float sum = 0.f;
    for (int i = threadIdx.x; i < C; i += blockDim.x) sum += x[i];
    sum = cg::reduce(warp, sum, cg::plus<float>());
    if (warp.thread_rank() == 0) partial[threadIdx.x / 32] = sum;
    block.sync();
    if (threadIdx.x < 32) {
        float v = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.f;
        v = cg::reduce(warp, v, cg::plus<float>());
        if (threadIdx.x == 0) partial[0] = v / C;
    }
    block.sync();
    float m = partial[0];
    float var = 0.f;
    for (int i = threadIdx.x; i < C; i += blockDim.x) { float d = x[i] - m; var += d * d; }
    var = cg::reduce(warp, var, cg::plus<float>());
    float s = rsqrtf(var / C + 1e-5f);
    if (threadIdx.x == 0) { mean[idx] = m; rstd[idx] = s; }
    float* o = out + (size_t)idx * C;
    for (int i = threadIdx.x; i < C; i += blockDim.x) o[i] = (x[i] - m) * s * weight[i] + bias[i];
}
