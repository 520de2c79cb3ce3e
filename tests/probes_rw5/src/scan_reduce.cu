// CUDA-samples-style scan and reductions: a work-efficient (Blelloch) scan with bank-conflict
// padding macros, the reduce0..reduce6 family templated on blockSize and nIsPow2, and the
// threadFenceReduction pattern (__threadfence, a __device__ retirement counter).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

__global__ void prescan(float* g_odata, const float* g_idata, float* g_sums, int n) {
    extern __shared__ float temp[];
    int thid = threadIdx.x;
    int offset = 1;
    int base = blockIdx.x * n;
    int ai = thid, bi = thid + (n / 2);
    int bankOffsetA = CONFLICT_FREE_OFFSET(ai), bankOffsetB = CONFLICT_FREE_OFFSET(bi);
    temp[ai + bankOffsetA] = g_idata[base + ai];
    temp[bi + bankOffsetB] = g_idata[base + bi];
    for (int d = n >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1, b = offset * (2 * thid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            temp[b] += temp[a];
        }
        offset *= 2;
    }
    if (thid == 0) {
        if (g_sums) g_sums[blockIdx.x] = temp[n - 1 + CONFLICT_FREE_OFFSET(n - 1)];
        temp[n - 1 + CONFLICT_FREE_OFFSET(n - 1)] = 0;
    }
    for (int d = 1; d < n; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1, b = offset * (2 * thid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            float t = temp[a];
            temp[a] = temp[b];
            temp[b] += t;
        }
    }
    __syncthreads();
    g_odata[base + ai] = temp[ai + bankOffsetA];
    g_odata[base + bi] = temp[bi + bankOffsetB];
}

__global__ void uniformAdd(float* g_data, const float* uniforms, int n) {
    __shared__ float uni;
    if (threadIdx.x == 0) uni = uniforms[blockIdx.x];
    __syncthreads();
    unsigned address = blockIdx.x * (blockDim.x << 1) + threadIdx.x;
    g_data[address] += uni;
    if (threadIdx.x + blockDim.x < n) g_data[address + blockDim.x] += uni;
}

template <class T> struct SharedMemory {
    __device__ inline operator T*() { extern __shared__ int __smem[]; return (T*)__smem; }
};
template <> struct SharedMemory<double> {
    __device__ inline operator double*() { extern __shared__ double __smem_d[]; return (double*)__smem_d; }
};

template <class T> __global__ void reduce0(T* g_idata, T* g_odata, unsigned n) {
    T* sdata = SharedMemory<T>();
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if ((tid % (2 * s)) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

template <class T> __global__ void reduce3(T* g_idata, T* g_odata, unsigned n) {
    T* sdata = SharedMemory<T>();
    unsigned tid = threadIdx.x, i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    T mySum = (i < n) ? g_idata[i] : 0;
    if (i + blockDim.x < n) mySum += g_idata[i + blockDim.x];
    sdata[tid] = mySum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = mySum;
}

template <class T, unsigned blockSize, bool nIsPow2>
__global__ void reduce6(const T* __restrict__ g_idata, T* __restrict__ g_odata, unsigned n) {
    cg::thread_block cta = cg::this_thread_block();
    T* sdata = SharedMemory<T>();
    unsigned tid = threadIdx.x;
    unsigned gridSize = blockSize * gridDim.x;
    unsigned maskLength = (blockSize & 31);
    maskLength = (maskLength > 0) ? (32 - maskLength) : maskLength;
    const unsigned mask = (0xffffffff) >> maskLength;
    T mySum = 0;
    if (nIsPow2) {
        unsigned i = blockIdx.x * blockSize * 2 + threadIdx.x;
        gridSize = gridSize << 1;
        while (i < n) {
            mySum += g_idata[i];
            if ((i + blockSize) < n) mySum += g_idata[i + blockSize];
            i += gridSize;
        }
    } else {
        unsigned i = blockIdx.x * blockSize + threadIdx.x;
        while (i < n) { mySum += g_idata[i]; i += gridSize; }
    }
    for (int offset = warpSize / 2; offset > 0; offset /= 2) mySum += __shfl_down_sync(mask, mySum, offset);
    if ((tid % warpSize) == 0) sdata[tid / warpSize] = mySum;
    cg::sync(cta);
    const unsigned shmem_extent = (blockSize / warpSize) > 0 ? (blockSize / warpSize) : 1;
    const unsigned ballot_result = __ballot_sync(mask, tid < shmem_extent);
    if (tid < shmem_extent) {
        mySum = sdata[tid];
        for (int offset = warpSize / 2; offset > 0; offset /= 2) mySum += __shfl_down_sync(ballot_result, mySum, offset);
    }
    if (tid == 0) g_odata[blockIdx.x] = mySum;
}

template __global__ void reduce0<int>(int*, int*, unsigned);
template __global__ void reduce3<float>(float*, float*, unsigned);
template __global__ void reduce3<double>(double*, double*, unsigned);
template __global__ void reduce6<int, 256, true>(const int*, int*, unsigned);
template __global__ void reduce6<float, 512, false>(const float*, float*, unsigned);
template __global__ void reduce6<double, 64, true>(const double*, double*, unsigned);
template __global__ void reduce6<float, 1, false>(const float*, float*, unsigned);

__device__ unsigned retirementCount = 0;

template <unsigned blockSize, bool nIsPow2>
__device__ void reduceBlocks(const float* g_idata, float* g_odata, unsigned n) {
    extern __shared__ float sdataf[];
    unsigned tid = threadIdx.x, i = blockIdx.x * (blockSize * 2) + threadIdx.x, gridSize = blockSize * 2 * gridDim.x;
    float mySum = 0;
    while (i < n) {
        mySum += g_idata[i];
        if (nIsPow2 || i + blockSize < n) mySum += g_idata[i + blockSize];
        i += gridSize;
    }
    sdataf[tid] = mySum;
    __syncthreads();
    if (blockSize >= 512) { if (tid < 256) sdataf[tid] = mySum = mySum + sdataf[tid + 256]; __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) sdataf[tid] = mySum = mySum + sdataf[tid + 128]; __syncthreads(); }
    if (blockSize >= 128) { if (tid < 64) sdataf[tid] = mySum = mySum + sdataf[tid + 64]; __syncthreads(); }
    if (tid < 32) {
        if (blockSize >= 64) mySum += sdataf[tid + 32];
        for (int offset = 16; offset > 0; offset /= 2) mySum += __shfl_xor_sync(0xffffffff, mySum, offset);
    }
    if (tid == 0) g_odata[blockIdx.x] = mySum;
}

template <unsigned blockSize, bool nIsPow2>
__global__ void reduceSinglePass(const float* g_idata, float* g_odata, unsigned n) {
    reduceBlocks<blockSize, nIsPow2>(g_idata, g_odata, n);
    if (gridDim.x > 1) {
        const unsigned tid = threadIdx.x;
        __shared__ bool amLast;
        extern __shared__ float smem[];
        if (tid == 0) {
            __threadfence();
            unsigned ticket = atomicInc(&retirementCount, gridDim.x);
            amLast = (ticket == gridDim.x - 1);
        }
        __syncthreads();
        if (amLast) {
            int i = tid;
            float mySum = 0;
            while (i < gridDim.x) { mySum += g_odata[i]; i += blockSize; }
            smem[tid] = mySum;
            __syncthreads();
            for (unsigned s = blockSize / 2; s > 0; s >>= 1) {
                if (tid < s) smem[tid] = mySum = mySum + smem[tid + s];
                __syncthreads();
            }
            if (tid == 0) { g_odata[0] = smem[0]; retirementCount = 0; }
        }
    }
}
template __global__ void reduceSinglePass<256, true>(const float*, float*, unsigned);
template __global__ void reduceSinglePass<128, false>(const float*, float*, unsigned);
