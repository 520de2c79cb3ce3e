// Cooperative-groups algorithms in the style of the CUDA samples (reductionMultiBlockCG,
// warpAggregatedAtomicsCG, binomialOptions) and of cub users: tiled partitions of every size,
// cg::reduce / cg::inclusive_scan / cg::exclusive_scan, labeled and coalesced groups, and a
// cooperative (grid.sync) multi-phase kernel launched with cudaLaunchCooperativeKernel.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_fp16.h>

namespace cg = cooperative_groups;

// ---------------------------------------------------------------------------------------------
// reductionMultiBlockCG: per-block reduction with tiles, then grid.sync and a final pass
// ---------------------------------------------------------------------------------------------
template <typename T, int TILE>
__device__ T block_reduce_sum(cg::thread_block block, T *sdata, T val)
{
    cg::thread_block_tile<TILE> tile = cg::tiled_partition<TILE>(block);
    val = cg::reduce(tile, val, cg::plus<T>());
    if (tile.thread_rank() == 0) sdata[tile.meta_group_rank()] = val;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        val = tile.thread_rank() < tile.meta_group_size() ? sdata[tile.thread_rank()] : T(0);
        val = cg::reduce(tile, val, cg::plus<T>());
    }
    block.sync();
    return val;
}

extern "C" __global__ void reduceSinglePassMultiBlockCG(const float *__restrict__ g_idata,
                                                       float *__restrict__ g_odata, unsigned int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    __shared__ float sdata[32];

    float sum = 0.0f;
    for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) sum += g_idata[i];
    sum = block_reduce_sum<float, 32>(block, sdata, sum);
    if (block.thread_rank() == 0) g_odata[block.group_index().x] = sum;

    grid.sync();

    if (grid.block_rank() == 0) {
        sum = 0.0f;
        for (unsigned int i = block.thread_rank(); i < grid.num_blocks(); i += block.size()) sum += g_odata[i];
        sum = block_reduce_sum<float, 32>(block, sdata, sum);
        if (block.thread_rank() == 0) g_odata[0] = sum;
    }
}

// A multi-phase solver step (Jacobi-like) with grid-wide barriers between phases.
__global__ void jacobiCooperative(const float *__restrict__ A, const double *__restrict__ b,
                                  float conv, double *x, double *x_new, double *sum, int n, int iters)
{
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ double partial[32];

    for (int k = 0; k < iters; ++k) {
        double err = 0.0;
        for (int row = grid.thread_rank(); row < n; row += grid.size()) {
            double acc = 0.0;
            for (int j = 0; j < n; ++j)
                if (j != row) acc += A[row * n + j] * x[j];
            double xi = (b[row] - acc) / A[row * n + row];
            x_new[row] = xi;
            err += fabs(xi - x[row]);
        }
        err = cg::reduce(warp, err, cg::plus<double>());
        if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = err;
        block.sync();
        if (warp.meta_group_rank() == 0) {
            err = warp.thread_rank() < warp.meta_group_size() ? partial[warp.thread_rank()] : 0.0;
            err = cg::reduce(warp, err, cg::plus<double>());
            if (warp.thread_rank() == 0) atomicAdd(sum, err);
        }
        grid.sync();
        if (*sum < conv) break;
        double *t = x; x = x_new; x_new = t;
        grid.sync();
        if (grid.thread_rank() == 0) *sum = 0.0;
        grid.sync();
    }
}

// ---------------------------------------------------------------------------------------------
// warpAggregatedAtomicsCG: coalesced groups and labeled partitions
// ---------------------------------------------------------------------------------------------
__device__ int atomicAggInc(int *counter)
{
    cg::coalesced_group active = cg::coalesced_threads();
    int res;
    if (active.thread_rank() == 0) res = atomicAdd(counter, active.size());
    res = active.shfl(res, 0);
    return res + active.thread_rank();
}

__global__ void filter_arr(int *dst, int *nres, const int *src, int n)
{
    for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += gridDim.x * blockDim.x)
        if (src[i] > 0) dst[atomicAggInc(nres)] = src[i];
}

__device__ int atomicAggIncMulti(const int bucket, int *counter)
{
    cg::coalesced_group active = cg::coalesced_threads();
    auto labeled = cg::labeled_partition(active, bucket);
    int res;
    if (labeled.thread_rank() == 0) res = atomicAdd(&counter[bucket], labeled.size());
    res = labeled.shfl(res, 0);
    return res + labeled.thread_rank();
}

__global__ void mapToBuckets(const int *srcArr, int *indicesBuckets, int *bucketCounters,
                             int srcSize, int numOfBuckets)
{
    cg::grid_group grid = cg::this_grid();
    for (int i = grid.thread_rank(); i < srcSize; i += grid.size()) {
        const int key = srcArr[i];
        if (key < numOfBuckets) indicesBuckets[i] = atomicAggIncMulti(key, bucketCounters);
    }
}

// ---------------------------------------------------------------------------------------------
// tile-sized scans and reductions, templated on tile size and operator
// ---------------------------------------------------------------------------------------------
template <int TILE, typename T, typename Op>
__global__ void tile_scan(const T *__restrict__ in, T *__restrict__ inc, T *__restrict__ exc,
                          T *__restrict__ tot, int n, Op op)
{
    cg::thread_block block = cg::this_thread_block();
    auto tile = cg::tiled_partition<TILE>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    T v = i < n ? in[i] : T(0);
    T a = cg::inclusive_scan(tile, v, op);
    T b = cg::exclusive_scan(tile, v, op);
    T r = cg::reduce(tile, v, op);
    if (i < n) {
        inc[i] = a;
        exc[i] = b;
    }
    if (tile.thread_rank() == tile.num_threads() - 1 && i < n) tot[i / TILE] = r;
}

template __global__ void tile_scan<4, int, cg::plus<int>>(const int *, int *, int *, int *, int, cg::plus<int>);
template __global__ void tile_scan<8, int, cg::plus<int>>(const int *, int *, int *, int *, int, cg::plus<int>);
template __global__ void tile_scan<16, unsigned, cg::bit_xor<unsigned>>(const unsigned *, unsigned *, unsigned *, unsigned *, int, cg::bit_xor<unsigned>);
template __global__ void tile_scan<32, float, cg::plus<float>>(const float *, float *, float *, float *, int, cg::plus<float>);
template __global__ void tile_scan<32, int, cg::greater<int>>(const int *, int *, int *, int *, int, cg::greater<int>);
template __global__ void tile_scan<16, double, cg::less<double>>(const double *, double *, double *, double *, int, cg::less<double>);
template __global__ void tile_scan<32, long long, cg::plus<long long>>(const long long *, long long *, long long *, long long *, int, cg::plus<long long>);

// Dynamic (runtime-sized) partitions, as binomialOptions-style code uses them.
__global__ void dynamic_tiles(const float *__restrict__ in, float *__restrict__ out, int tileSize, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group tile = cg::tiled_partition(block, tileSize);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    extern __shared__ float smem[];
    smem[threadIdx.x] = i < n ? in[i] : 0.0f;
    tile.sync();
    float s = 0.0f;
    int base = threadIdx.x - tile.thread_rank();
    for (unsigned k = 0; k < tile.size(); ++k) s += smem[base + k];
    tile.sync();
    if (i < n) out[i] = s / tile.size();
}

// Half-precision warp reduction through a tile (llama.cpp-style warp_reduce_sum of half2).
__global__ void half2_rows(const __half2 *__restrict__ x, __half2 *__restrict__ y, int ncols)
{
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    __half2 acc = __float2half2_rn(0.0f);
    for (int c = warp.thread_rank(); c < ncols; c += 32) acc = __hadd2(acc, x[blockIdx.x * ncols + c]);
    for (int off = 16; off > 0; off >>= 1) acc = __hadd2(acc, __shfl_xor_sync(0xffffffffu, acc, off));
    if (warp.thread_rank() == 0) y[blockIdx.x] = acc;
    if (warp.any(__low2float(acc) < 0.0f)) {
        unsigned m = warp.ballot(__high2float(acc) > 0.0f);
        if (warp.thread_rank() == 0) y[gridDim.x + blockIdx.x] = __halves2half2(__int2half_rn(__popc(m)), __int2half_rn(0));
    }
}
