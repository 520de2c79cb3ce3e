// CUDA-samples-style histograms: 64 bins with per-thread byte counters packed into shared words,
// 256 bins with per-warp sub-histograms and shared-memory atomics, then a merge kernel.
#include <cstdint>
#define HIST64_THREADS 64
#define HIST256_WARPS 6
#define HIST256_BIN 256
#define MERGE_THREADS 256

__device__ __forceinline__ void addByte(unsigned char* s, unsigned data) { s[data * HIST64_THREADS] += 1; }
__device__ __forceinline__ void addWord(unsigned char* s, unsigned w) {
    addByte(s, (w >> 2) & 0x3FU);
    addByte(s, (w >> 10) & 0x3FU);
    addByte(s, (w >> 18) & 0x3FU);
    addByte(s, (w >> 26) & 0x3FU);
}

__global__ void histogram64Kernel(unsigned* d_Partial, const uint4* d_Data, unsigned dataCount) {
    const unsigned threadPos = ((threadIdx.x & ~(16 * 4 - 1)) << 0) | ((threadIdx.x & 15) << 2) | ((threadIdx.x & 48) >> 4);
    __shared__ unsigned char s_Hist[HIST64_THREADS * 64];
    unsigned* s_HistW = (unsigned*)s_Hist;
#pragma unroll
    for (unsigned i = 0; i < 64 / 4; i++) s_HistW[threadIdx.x + i * HIST64_THREADS] = 0;
    __syncthreads();
    for (unsigned pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount; pos += blockDim.x * gridDim.x) {
        uint4 d = d_Data[pos];
        addWord(s_Hist + threadPos, d.x);
        addWord(s_Hist + threadPos, d.y);
        addWord(s_Hist + threadPos, d.z);
        addWord(s_Hist + threadPos, d.w);
    }
    __syncthreads();
    if (threadIdx.x < 64) {
        unsigned char* row = s_Hist + threadIdx.x * HIST64_THREADS;
        unsigned sum = 0;
        unsigned pos = 4 * (threadIdx.x & 15);
#pragma unroll
        for (unsigned i = 0; i < HIST64_THREADS / 4; i++) {
            unsigned v = ((unsigned*)row)[(i + threadIdx.x) % (HIST64_THREADS / 4)];
            sum += (v & 0xFFU) + ((v >> 8) & 0xFFU) + ((v >> 16) & 0xFFU) + (v >> 24);
            pos = (pos + 4) & (HIST64_THREADS - 1);
        }
        d_Partial[blockIdx.x * 64 + threadIdx.x] = sum;
    }
}

__device__ __forceinline__ void addWord256(unsigned* s_WarpHist, unsigned data, unsigned tag) {
    atomicAdd(s_WarpHist + ((data >> 0) & 0xFFU), 1);
    atomicAdd(s_WarpHist + ((data >> 8) & 0xFFU), 1);
    atomicAdd(s_WarpHist + ((data >> 16) & 0xFFU), 1);
    atomicAdd(s_WarpHist + ((data >> 24) & 0xFFU), tag ? 1 : 1);
}

__global__ void histogram256Kernel(unsigned* d_Partial, const unsigned* d_Data, unsigned dataCount) {
    __shared__ unsigned s_Hist[HIST256_WARPS * HIST256_BIN];
    unsigned* s_WarpHist = s_Hist + (threadIdx.x >> 5) * HIST256_BIN;
#pragma unroll
    for (unsigned i = 0; i < (HIST256_WARPS * HIST256_BIN) / (HIST256_WARPS * 32); i++)
        s_Hist[threadIdx.x + i * (HIST256_WARPS * 32)] = 0;
    const unsigned tag = threadIdx.x << (32 - 5);
    __syncthreads();
    for (unsigned pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount; pos += blockDim.x * gridDim.x)
        addWord256(s_WarpHist, d_Data[pos], tag);
    __syncthreads();
    for (unsigned bin = threadIdx.x; bin < HIST256_BIN; bin += HIST256_WARPS * 32) {
        unsigned sum = 0;
        for (unsigned i = 0; i < HIST256_WARPS; i++) sum += s_Hist[bin + i * HIST256_BIN];
        d_Partial[blockIdx.x * HIST256_BIN + bin] = sum;
    }
}

template <int BINS>
__global__ void mergeHistogram(unsigned* d_Histogram, const unsigned* d_Partial, unsigned count) {
    __shared__ unsigned data[MERGE_THREADS];
    unsigned sum = 0;
    for (unsigned i = threadIdx.x; i < count; i += MERGE_THREADS) sum += d_Partial[blockIdx.x + i * BINS];
    data[threadIdx.x] = sum;
    for (unsigned stride = MERGE_THREADS / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        if (threadIdx.x < stride) data[threadIdx.x] += data[threadIdx.x + stride];
    }
    if (threadIdx.x == 0) d_Histogram[blockIdx.x] = data[0];
}
template __global__ void mergeHistogram<64>(unsigned*, const unsigned*, unsigned);
template __global__ void mergeHistogram<256>(unsigned*, const unsigned*, unsigned);
