// Asynchronous global->shared copies with cuda::pipeline (cp.async on sm_80+) and a block sum.
#include <cuda/pipeline>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
template <int TILE>
__global__ void staged_sum(const float* __restrict__ in, float* out, int n) {
    __shared__ float tile[2][TILE];
    auto block = cg::this_thread_block();
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    float acc = 0.f;
    int stages = (n + TILE - 1) / TILE;
    for (int s = 0; s < stages; ++s) {
        int idx = s * TILE + threadIdx.x;
        pipe.producer_acquire();
        if (idx < n) cuda::memcpy_async(&tile[s & 1][threadIdx.x], &in[idx], sizeof(float), pipe);
        pipe.producer_commit();
        pipe.consumer_wait();
        block.sync();
        if (idx < n) acc += tile[s & 1][threadIdx.x];
        pipe.consumer_release();
    }
    atomicAdd(out, acc);
}
template __global__ void staged_sum<128>(const float*, float*, int);
template __global__ void staged_sum<256>(const float*, float*, int);
