// Cooperative groups: grid-wide sync, coalesced groups, labelled partitions (CUDA samples style).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ float g_accum;
__global__ void grid_two_phase(float* data, int n) {
    cg::grid_group grid = cg::this_grid();
    for (int i = grid.thread_rank(); i < n; i += grid.size()) data[i] = data[i] * 2.f + 1.f;
    grid.sync();
    if (grid.thread_rank() == 0) { float s = 0; for (int i = 0; i < n; ++i) s += data[i]; g_accum = s; }
}
__global__ void coalesced_count(const int* flags, int n, int* counter) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && flags[i]) {
        cg::coalesced_group active = cg::coalesced_threads();
        int base;
        if (active.thread_rank() == 0) base = atomicAdd(counter, active.size());
        base = active.shfl(base, 0);
        (void)base;
    }
}
