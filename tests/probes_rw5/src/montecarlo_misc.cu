// CUDA-samples-style odds and ends: a Monte Carlo option pricer with a hand-written xorshift RNG
// and Box-Muller, DXT1-like colour block bit packing, shuffle variants with sub-warp widths,
// matrixMul templated on the block size, a simpleCallback-style worker, printf and assert.
#include <cstdio>
#include <cassert>
#include <cstdint>

struct XorShift128 { uint32_t x, y, z, w; };
__device__ __forceinline__ uint32_t xorshift(XorShift128& s) {
    uint32_t t = s.x ^ (s.x << 11);
    s.x = s.y; s.y = s.z; s.z = s.w;
    s.w = s.w ^ (s.w >> 19) ^ (t ^ (t >> 8));
    return s.w;
}
__device__ __forceinline__ float uniform01(XorShift128& s) { return (xorshift(s) >> 8) * (1.0f / 16777216.0f); }
__device__ float2 boxMuller(XorShift128& s) {
    float u1 = fmaxf(uniform01(s), 1e-7f), u2 = uniform01(s);
    float r = sqrtf(-2.0f * logf(u1));
    float sn, cs;
    sincospif(2.0f * u2, &sn, &cs);
    return make_float2(r * cs, r * sn);
}

struct OptionData { float S, X, T, R, V; };
struct OptionResult { float value, confidence; };
__constant__ OptionData c_options[64];

template <int THREADS>
__global__ void MonteCarloPrice(OptionResult* results, const uint4* seeds, int pathN) {
    __shared__ float s_sum[THREADS], s_sum2[THREADS];
    const int opt = blockIdx.x;
    const OptionData o = c_options[opt];
    uint4 sd = seeds[blockIdx.x * THREADS + threadIdx.x];
    XorShift128 st = {sd.x | 1, sd.y, sd.z, sd.w};
    const float VBySqrtT = o.V * sqrtf(o.T), MuByT = (o.R - 0.5f * o.V * o.V) * o.T;
    float sum = 0, sum2 = 0;
    for (int i = threadIdx.x; i < pathN; i += 2 * THREADS) {
        float2 n = boxMuller(st);
        float a = fmaxf(o.S * __expf(MuByT + VBySqrtT * n.x) - o.X, 0.0f);
        float b = fmaxf(o.S * __expf(MuByT + VBySqrtT * n.y) - o.X, 0.0f);
        sum += a + b;
        sum2 += a * a + b * b;
    }
    s_sum[threadIdx.x] = sum;
    s_sum2[threadIdx.x] = sum2;
    for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        if (threadIdx.x < stride) {
            s_sum[threadIdx.x] += s_sum[threadIdx.x + stride];
            s_sum2[threadIdx.x] += s_sum2[threadIdx.x + stride];
        }
    }
    if (threadIdx.x == 0) {
        float e = __expf(-o.R * o.T);
        float mean = s_sum[0] / pathN;
        float stdDev = sqrtf((s_sum2[0] - pathN * mean * mean) / (pathN - 1));
        results[opt].value = e * mean;
        results[opt].confidence = 1.96f * stdDev / sqrtf((float)pathN);
    }
}
template __global__ void MonteCarloPrice<128>(OptionResult*, const uint4*, int);
template __global__ void MonteCarloPrice<256>(OptionResult*, const uint4*, int);

__device__ __forceinline__ unsigned short rgb565(float3 c) {
    unsigned r = min(31u, (unsigned)__float2uint_rn(c.x * 31.0f));
    unsigned g = min(63u, (unsigned)__float2uint_rn(c.y * 63.0f));
    unsigned b = min(31u, (unsigned)__float2uint_rn(c.z * 31.0f));
    return (unsigned short)((r << 11) | (g << 5) | b);
}
__global__ void compressDXT1(const uchar4* image, uint2* result, int blocksW) {
    __shared__ float3 colors[16];
    __shared__ unsigned idx[16];
    const int bid = blockIdx.x + blockIdx.y * blocksW;
    const int t = threadIdx.x;
    const int px = (blockIdx.x * 4 + (t & 3)) + (blockIdx.y * 4 + (t >> 2)) * blocksW * 4;
    uchar4 p = image[px];
    colors[t] = make_float3(p.x / 255.0f, p.y / 255.0f, p.z / 255.0f);
    __syncthreads();
    float3 lo = colors[0], hi = colors[0];
    for (int i = 1; i < 16; i++) {
        lo.x = fminf(lo.x, colors[i].x); lo.y = fminf(lo.y, colors[i].y); lo.z = fminf(lo.z, colors[i].z);
        hi.x = fmaxf(hi.x, colors[i].x); hi.y = fmaxf(hi.y, colors[i].y); hi.z = fmaxf(hi.z, colors[i].z);
    }
    float3 axis = make_float3(hi.x - lo.x, hi.y - lo.y, hi.z - lo.z);
    float len = axis.x * axis.x + axis.y * axis.y + axis.z * axis.z;
    float proj = ((colors[t].x - lo.x) * axis.x + (colors[t].y - lo.y) * axis.y + (colors[t].z - lo.z) * axis.z) / fmaxf(len, 1e-8f);
    unsigned q = min(3u, (unsigned)__float2uint_rn(proj * 3.0f));
    const unsigned remap[4] = {1, 3, 2, 0};
    idx[t] = remap[q] << (2 * t);
    __syncthreads();
    for (int s = 8; s > 0; s >>= 1) {
        if (t < s) idx[t] |= idx[t + s];
        __syncthreads();
    }
    if (t == 0) result[bid] = make_uint2(((unsigned)rgb565(hi)) | ((unsigned)rgb565(lo) << 16), idx[0]);
}

__global__ void shuffleVariants(const int* in, int* out, float* fout, int width) {
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    int lane = threadIdx.x & 31;
    int a = __shfl_sync(0xffffffffu, v, 0, 8);
    int b = __shfl_up_sync(0xffffffffu, v, 1, 16);
    int c = __shfl_down_sync(0xffffffffu, v, 2, 4);
    int d = __shfl_xor_sync(0xffffffffu, v, 1);
    float f = __int2float_rn(v);
#pragma unroll
    for (int i = 1; i < 32; i *= 2) {
        float n = __shfl_up_sync(0xffffffffu, f, i);
        if (lane >= i) f += n;
    }
    double dd = (double)v * 0.5;
    dd += __shfl_xor_sync(0xffffffffu, dd, 16);
    long long ll = (long long)v << 33;
    ll ^= __shfl_sync(0xffffffffu, ll, (lane + width) & 31);
    out[blockIdx.x * blockDim.x + threadIdx.x] = a + b * 3 + c * 5 + d * 7 + (int)(ll >> 33);
    fout[blockIdx.x * blockDim.x + threadIdx.x] = f + (float)dd;
}

template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float* C, const float* A, const float* B, int wA, int wB) {
    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    int aBegin = wA * BLOCK_SIZE * by, aEnd = aBegin + wA - 1, aStep = BLOCK_SIZE;
    int bBegin = BLOCK_SIZE * bx, bStep = BLOCK_SIZE * wB;
    float Csub = 0;
    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
        __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    C[c + wB * ty + tx] = Csub;
}
template __global__ void MatrixMulCUDA<16>(float*, const float*, const float*, int, int);
template __global__ void MatrixMulCUDA<32>(float*, const float*, const float*, int, int);

__global__ void incKernel(int* data, int N, int workerId) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(workerId >= 0);
    if (i < N) data[i]++;
    if (i == 0 && workerId < 0) printf("worker %d bad (N=%d)\n", workerId, N);
}

__global__ void checkResults(const float* ref, const float* got, int n, float eps, unsigned* errors) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float diff = fabsf(ref[i] - got[i]);
    if (diff > eps * fabsf(ref[i])) {
        unsigned e = atomicAdd(errors, 1u);
        if (e < 4) printf("mismatch at %d: ref %f got %f (rel %.3e)\n", i, ref[i], got[i], (double)(diff / fabsf(ref[i])));
    }
}
