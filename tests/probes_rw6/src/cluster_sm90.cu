// Hopper thread-block clusters the way the CUDA programming guide and cluster-aware libraries
// write them: the distributed-shared-memory histogram, __launch_bounds__ with maxBlocksPerCluster,
// compile-time __cluster_dims__, split cluster barriers (arrive.relaxed / wait), remote
// mbarrier signalling with st.async, cluster-wide softmax statistics, fp8 epilogues.
#include <cooperative_groups.h>
#include <cuda_fp8.h>
#include <cuda_bf16.h>
#include <cstdint>

namespace cg = cooperative_groups;

// The programming guide's clusterHist_kernel (runtime cluster size, dynamic shared memory).
__global__ void clusterHist_kernel(int *bins, const int nbins, const int bins_per_block, const int *__restrict__ input,
                                   size_t array_size)
{
    extern __shared__ int smem[];
    namespace cg = cooperative_groups;
    int tid = cg::this_grid().thread_rank();
    cg::cluster_group cluster = cg::this_cluster();
    unsigned int clusterBlockRank = cluster.block_rank();
    int cluster_size = cluster.dim_blocks().x;
    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) smem[i] = 0;
    cluster.sync();
    for (int i = tid; i < array_size; i += blockDim.x * gridDim.x) {
        int ldata = input[i];
        int binid = ldata;
        if (ldata < 0) binid = 0;
        else if (ldata >= nbins) binid = nbins - 1;
        int dst_block_rank = (int)(binid / bins_per_block);
        int dst_offset = binid % bins_per_block;
        int *dst_smem = cluster.map_shared_rank(smem, dst_block_rank);
        atomicAdd(dst_smem + dst_offset, 1);
    }
    cluster.sync();
    int *lbins = bins + cluster.block_rank() * bins_per_block;
    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) atomicAdd(&lbins[i], smem[i]);
    (void)clusterBlockRank;
    (void)cluster_size;
}

// Split-phase cluster barrier around independent work (overlap the barrier latency).
__device__ __forceinline__ void cluster_arrive_relaxed() { asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); }

template <int CLUSTER, int THREADS>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS)
cluster_softmax_stats(const float *__restrict__ x, float *__restrict__ y, int cols)
{
    __shared__ float s_max[THREADS / 32], s_sum[THREADS / 32];
    __shared__ float block_stat[2];
    cg::cluster_group cluster = cg::this_cluster();
    const int row = blockIdx.x / CLUSTER, part = cluster.block_rank();
    const int chunk = cols / CLUSTER;
    const float *xr = x + (long)row * cols + part * chunk;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < chunk; c += THREADS) m = fmaxf(m, xr[c]);
    for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(~0u, m, o));
    if ((threadIdx.x & 31) == 0) s_max[threadIdx.x / 32] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        float bm = -INFINITY;
        for (int w = 0; w < THREADS / 32; ++w) bm = fmaxf(bm, s_max[w]);
        block_stat[0] = bm;
    }
    cluster_arrive_relaxed();
    float s = 0.0f;  // independent work while the cluster barrier completes: a local sum
    for (int c = threadIdx.x; c < chunk; c += THREADS) s += xr[c];
    cluster_wait();
    float gm = -INFINITY;
    for (int r = 0; r < CLUSTER; ++r) gm = fmaxf(gm, *cluster.map_shared_rank(&block_stat[0], r));
    float e = 0.0f;
    for (int c = threadIdx.x; c < chunk; c += THREADS) e += __expf(xr[c] - gm);
    for (int o = 16; o; o >>= 1) e += __shfl_xor_sync(~0u, e, o);
    if ((threadIdx.x & 31) == 0) s_sum[threadIdx.x / 32] = e;
    __syncthreads();
    if (threadIdx.x == 0) {
        float bs = 0.0f;
        for (int w = 0; w < THREADS / 32; ++w) bs += s_sum[w];
        block_stat[1] = bs;
    }
    cluster.sync();
    float gs = 0.0f;
    for (int r = 0; r < CLUSTER; ++r) gs += *cluster.map_shared_rank(&block_stat[1], r);
    cluster.sync();
    for (int c = threadIdx.x; c < chunk; c += THREADS) y[(long)row * cols + part * chunk + c] = __expf(xr[c] - gm) / gs + 0.0f * s;
}

template __global__ void cluster_softmax_stats<2, 128>(const float *, float *, int);
template __global__ void cluster_softmax_stats<4, 256>(const float *, float *, int);
template __global__ void cluster_softmax_stats<8, 128>(const float *, float *, int);

// __launch_bounds__(maxThreads, minBlocks, maxBlocksPerCluster) with a runtime cluster shape
__global__ void __launch_bounds__(256, 1, 4) ring_exchange(const float4 *__restrict__ in, float4 *__restrict__ out, int n)
{
    __shared__ float4 buf[256];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank(), size = cluster.num_blocks();
    int i = blockIdx.x * 256 + threadIdx.x;
    buf[threadIdx.x] = i < n ? in[i] : make_float4(0, 0, 0, 0);
    cluster.sync();
    float4 *nbr = cluster.map_shared_rank(buf, (rank + 1) % size);
    float4 v = nbr[threadIdx.x];
    cluster.sync();
    if (i < n) out[i] = make_float4(v.x + buf[threadIdx.x].x, v.y, v.z, v.w + (float)cluster.dim_threads().x);
}

// Remote mbarrier signalling with st.async (producer block writes into its neighbour's smem).
__device__ __forceinline__ uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ uint32_t map_to_rank(uint32_t addr, uint32_t rank)
{
    uint32_t r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
    return r;
}

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128) push_to_neighbour(const uint32_t *__restrict__ in, uint32_t *__restrict__ out)
{
    __shared__ alignas(16) uint32_t inbox[128];
    __shared__ alignas(8) uint64_t full;
    cg::cluster_group cluster = cg::this_cluster();
    const uint32_t rank = cluster.block_rank();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(&full)), "r"(1));
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(&full)), "r"(128 * 4));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    cluster.sync();
    const uint32_t peer = rank ^ 1;
    uint32_t dst = map_to_rank(smem_u32(&inbox[threadIdx.x]), peer);
    uint32_t bar = map_to_rank(smem_u32(&full), peer);
    uint32_t v = in[blockIdx.x * 128 + threadIdx.x];
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];" ::"r"(dst), "r"(v), "r"(bar) : "memory");
    uint32_t done = 0;
    while (!done) {
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(smem_u32(&full)), "r"(0) : "memory");
    }
    out[blockIdx.x * 128 + threadIdx.x] = inbox[threadIdx.x] + rank;
    cluster.sync();
}

// fp8 output epilogue with per-row scales (native e4m3 conversion, bf16 inputs)
__global__ void __launch_bounds__(128, 4) quantize_rows_fp8(const __nv_bfloat162 *__restrict__ x, __nv_fp8x2_e4m3 *__restrict__ q,
                                                           float *__restrict__ row_scale, int cols2)
{
    const int row = blockIdx.x;
    float amax = 0.0f;
    for (int c = threadIdx.x; c < cols2; c += blockDim.x) {
        float2 v = __bfloat1622float2(x[(long)row * cols2 + c]);
        amax = fmaxf(amax, fmaxf(fabsf(v.x), fabsf(v.y)));
    }
    for (int o = 16; o; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(~0u, amax, o));
    __shared__ float wmax[4];
    if ((threadIdx.x & 31) == 0) wmax[threadIdx.x / 32] = amax;
    __syncthreads();
    amax = fmaxf(fmaxf(wmax[0], wmax[1]), fmaxf(wmax[2], wmax[3]));
    const float scale = amax > 0.0f ? 448.0f / amax : 1.0f;
    for (int c = threadIdx.x; c < cols2; c += blockDim.x) {
        float2 v = __bfloat1622float2(x[(long)row * cols2 + c]);
        q[(long)row * cols2 + c] = __nv_fp8x2_e4m3(make_float2(v.x * scale, v.y * scale));
    }
    if (threadIdx.x == 0) row_scale[row] = 1.0f / scale;
}
