// Dynamic parallelism (CUDA 12 CDP2) in the style of the CUDA samples cdpSimpleQuicksort,
// cdpAdvancedQuicksort, cdpSimplePrint and cdpBezierTessellation: device-side launches into
// non-blocking / fire-and-forget / tail-launch streams, device-side cudaMalloc/cudaFree, recursion
// through launches, managed variables and printf. Built with -rdc=true (it needs cudadevrt).
#include <cstdio>
#include <cuda_runtime.h>

#define MAX_DEPTH 16
#define INSERTION_SORT 32

__managed__ int g_launches;
__device__ unsigned int g_depth_hist[MAX_DEPTH];

__device__ void selection_sort(unsigned int *data, int left, int right)
{
    for (int i = left; i <= right; ++i) {
        unsigned min_val = data[i];
        int min_idx = i;
        for (int j = i + 1; j <= right; ++j) {
            unsigned val_j = data[j];
            if (val_j < min_val) {
                min_idx = j;
                min_val = val_j;
            }
        }
        if (i != min_idx) {
            data[min_idx] = data[i];
            data[i] = min_val;
        }
    }
}

__global__ void cdp_simple_quicksort(unsigned int *data, int left, int right, int depth)
{
    atomicAdd(&g_depth_hist[depth], 1u);
    if (depth >= MAX_DEPTH || right - left <= INSERTION_SORT) {
        selection_sort(data, left, right);
        return;
    }
    unsigned int *lptr = data + left;
    unsigned int *rptr = data + right;
    unsigned int pivot = data[(left + right) / 2];
    while (lptr <= rptr) {
        unsigned int lval = *lptr;
        unsigned int rval = *rptr;
        while (lval < pivot) { lptr++; lval = *lptr; }
        while (rval > pivot) { rptr--; rval = *rptr; }
        if (lptr <= rptr) {
            *lptr++ = rval;
            *rptr-- = lval;
        }
    }
    int nright = rptr - data;
    int nleft = lptr - data;
    if (left < (rptr - data)) {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        cdp_simple_quicksort<<<1, 1, 0, s>>>(data, left, nright, depth + 1);
        cudaStreamDestroy(s);
        atomicAdd(&g_launches, 1);
    }
    if ((lptr - data) < right) {
        cudaStream_t s1;
        cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
        cdp_simple_quicksort<<<1, 1, 0, s1>>>(data, nleft, right, depth + 1);
        cudaStreamDestroy(s1);
        atomicAdd(&g_launches, 1);
    }
}

// cdpSimplePrint: every block of the parent launches a child grid from its thread 0.
__device__ int g_uids = 0;

__device__ void print_info(int depth, int thread, int uid, int parent_uid)
{
    if (threadIdx.x == 0) {
        if (depth == 0)
            printf("BLOCK %d launched by the host\n", uid);
        else {
            char buffer[32];
            for (int i = 0; i < depth; ++i) {
                buffer[3 * i + 0] = '|';
                buffer[3 * i + 1] = ' ';
                buffer[3 * i + 2] = ' ';
            }
            buffer[3 * depth] = '\0';
            printf("%sBLOCK %d launched by thread %d of block %d\n", buffer, uid, thread, parent_uid);
        }
    }
    __syncthreads();
}

__global__ void cdp_kernel(int max_depth, int depth, int thread, int parent_uid)
{
    __shared__ int s_uid;
    if (threadIdx.x == 0) s_uid = atomicAdd(&g_uids, 1);
    __syncthreads();
    print_info(depth, thread, s_uid, parent_uid);
    if (++depth >= max_depth) return;
    cdp_kernel<<<gridDim.x, blockDim.x, 0, cudaStreamFireAndForget>>>(max_depth, depth, threadIdx.x, s_uid);
    if (cudaGetLastError() != cudaSuccess) printf("launch failed at depth %d\n", depth);
}

// cdpBezierTessellation: a child grid per line with device-side allocation.
struct BezierLine {
    float2 CP[3];
    float2 *vertexPos;
    int nVertices;
};

__device__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ float2 operator*(float a, float2 b) { return make_float2(a * b.x, a * b.y); }

__device__ float compute_curvature(const BezierLine &line)
{
    float2 d = make_float2(line.CP[0].x - 2.0f * line.CP[1].x + line.CP[2].x,
                           line.CP[0].y - 2.0f * line.CP[1].y + line.CP[2].y);
    float len = sqrtf((line.CP[2].x - line.CP[0].x) * (line.CP[2].x - line.CP[0].x) +
                      (line.CP[2].y - line.CP[0].y) * (line.CP[2].y - line.CP[0].y));
    return sqrtf(d.x * d.x + d.y * d.y) / len;
}

__global__ void computeBezierLinePositions(int lidx, BezierLine *bLines, int nTessPoints)
{
    int idx = threadIdx.x + blockDim.x * blockIdx.x;
    if (idx < nTessPoints) {
        float u = (float)idx / (float)(nTessPoints - 1);
        float omu = 1.0f - u;
        float B3u[3] = {omu * omu, 2.0f * u * omu, u * u};
        float2 position = {0, 0};
        for (int i = 0; i < 3; i++) position = position + B3u[i] * bLines[lidx].CP[i];
        bLines[lidx].vertexPos[idx] = position;
    }
}

__global__ void computeBezierLinesCDP(BezierLine *bLines, int nLines)
{
    int lidx = threadIdx.x + blockDim.x * blockIdx.x;
    if (lidx < nLines) {
        float curvature = compute_curvature(bLines[lidx]);
        int nTessPoints = min(max((int)(curvature * 16.0f), 4), 128);
        if (bLines[lidx].vertexPos == NULL) {
            bLines[lidx].nVertices = nTessPoints;
            cudaMalloc((void **)&bLines[lidx].vertexPos, nTessPoints * sizeof(float2));
        }
        computeBezierLinePositions<<<(bLines[lidx].nVertices + 31) / 32, 32>>>(lidx, bLines, bLines[lidx].nVertices);
    }
}

__global__ void freeVertexMem(BezierLine *bLines, int nLines)
{
    int lidx = threadIdx.x + blockDim.x * blockIdx.x;
    if (lidx < nLines) cudaFree(bLines[lidx].vertexPos);
}

// A persistent scheduler re-launching itself through the tail-launch stream, with a templated
// child (the way work-queue style codes chain phases).
template <typename T>
__global__ void scale_chunk(T *x, T a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i];
}

template <typename T>
__global__ void chain(T *x, int n, int chunk, int step)
{
    if (threadIdx.x != 0) return;
    int off = step * chunk;
    if (off >= n) {
        printf("chain<%d> done after %d steps (%d launches)\n", (int)sizeof(T), step, g_launches);
        return;
    }
    int len = min(chunk, n - off);
    scale_chunk<T><<<(len + 255) / 256, 256>>>(x + off, T(2), len);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        printf("child launch failed: %d\n", (int)e);
        return;
    }
    chain<T><<<1, 32, 0, cudaStreamTailLaunch>>>(x, n, chunk, step + 1);
}

template __global__ void chain<float>(float *, int, int, int);
template __global__ void chain<double>(double *, int, int, int);
template __global__ void chain<int>(int *, int, int, int);
