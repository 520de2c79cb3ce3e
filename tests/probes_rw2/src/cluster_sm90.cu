// sm_90: thread block clusters (compile-time cluster dims), cluster barrier, no shared memory.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void __cluster_dims__(2, 1, 1) cluster_kernel(float* out, const float* in, int n) {
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * (rank + 1);
    cluster.sync();
}
__global__ void __launch_bounds__(256, 2) lb_kernel(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = sqrtf(fabsf(x[i])) + __sinf(x[i]);
}
__global__ void __maxnreg__(64) maxnreg_kernel(double* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = exp(x[i]) * log1p(fabs(x[i]));
}
