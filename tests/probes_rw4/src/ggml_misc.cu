// ggml-style odds and ends (own code): NO_DEVICE_CODE-style printf + __trap fallbacks,
// device globals (an error flag, a work counter), a large __grid_constant__ argument struct,
// top-k with a per-thread local array indexed at run time, argmax with shared scratch,
// __noinline__ helpers, half atomics via CAS, clock64/__nanosleep spin waits, match/any
// warp votes, non-template kernels with internal linkage, stream-k style fixup loop.
#include "ggml_common.cuh"
#include <cstdio>
#include <float.h>

#define NO_DEVICE_CODE                                                                                        \
    do {                                                                                                      \
        printf("%s:%d: ERROR: CUDA kernel %s has no device code compatible with CUDA arch %d.\n", __FILE__,  \
               __LINE__, __FUNCTION__, __CUDA_ARCH__);                                                        \
        __trap();                                                                                             \
    } while (0)
#define GGML_UNUSED(x) (void)(x)

__device__ int ggml_cuda_error_flag;
__device__ unsigned int ggml_cuda_work_counter = 0;
static __device__ float ggml_cuda_scratch_max[64];

struct ggml_cuda_mm_fusion_args_device {
    const void* x_bias;
    const void* gate;
    const void* gate_bias;
    int glu_op;
};
struct ggml_tensor_view {
    const char* data;
    int64_t ne[4];
    size_t nb[4];
    int type;
    float op_params[16];
};

template <int type>
static __global__ void mul_mat_vec_f(const __grid_constant__ ggml_tensor_view src0, const float* __restrict__ y, float* __restrict__ dst,
                                     const __grid_constant__ ggml_cuda_mm_fusion_args_device fusion) {
#if __CUDA_ARCH__ >= 700
    const int row = blockIdx.x;
    const int tid = threadIdx.x;
    const char* xrow = src0.data + row * src0.nb[1];
    float sumf = 0.0f;
    for (int col = tid; col < src0.ne[0]; col += blockDim.x) {
        float xv;
        if constexpr (type == 0) xv = ((const float*)xrow)[col];
        else xv = __half2float(((const half*)xrow)[col]);
        sumf += xv * y[col];
    }
    sumf = warp_reduce_sum(sumf);
    __shared__ float buf[32];
    if (blockDim.x > WARP_SIZE) {
        if (tid % WARP_SIZE == 0) buf[tid / WARP_SIZE] = sumf;
        __syncthreads();
        sumf = tid < blockDim.x / WARP_SIZE ? buf[tid] : 0.f;
        sumf = warp_reduce_sum(sumf);
    }
    if (tid == 0) {
        float v = sumf * src0.op_params[0];
        if (fusion.x_bias) v += ((const float*)fusion.x_bias)[row];
        if (fusion.gate) {
            float g = ((const float*)fusion.gate)[row];
            if (fusion.gate_bias) g += ((const float*)fusion.gate_bias)[row];
            v = fusion.glu_op == 0 ? v * (g / (1.f + expf(-g))) : v * fmaxf(g, 0.f);
        }
        dst[row] = v;
    }
#else
    GGML_UNUSED(src0); GGML_UNUSED(y); GGML_UNUSED(dst); GGML_UNUSED(fusion);
    NO_DEVICE_CODE;
#endif
}

template <int K>
static __global__ void topk_f32(const float* __restrict__ x, int* __restrict__ dst_idx, float* __restrict__ dst_val, const int ncols) {
    float vals[K];
    int idx[K];
#pragma unroll
    for (int i = 0; i < K; ++i) { vals[i] = -FLT_MAX; idx[i] = -1; }
    const float* row = x + (int64_t)blockIdx.x * ncols;
    for (int c = threadIdx.x; c < ncols; c += blockDim.x) {
        float v = row[c];
        int pos = K;
        while (pos > 0 && vals[pos - 1] < v) --pos;  // run-time index: local memory
        if (pos < K) {
            for (int j = K - 1; j > pos; --j) { vals[j] = vals[j - 1]; idx[j] = idx[j - 1]; }
            vals[pos] = v;
            idx[pos] = c;
        }
    }
    for (int i = 0; i < K; ++i) {
        float best = vals[0];
        int bi = idx[0];
        for (int off = 16; off > 0; off >>= 1) {
            float ob = __shfl_xor_sync(0xffffffff, best, off);
            int oi = __shfl_xor_sync(0xffffffff, bi, off);
            if (ob > best || (ob == best && oi < bi)) { best = ob; bi = oi; }
        }
        if (threadIdx.x == 0) { dst_idx[blockIdx.x * K + i] = bi; dst_val[blockIdx.x * K + i] = best; }
        if (idx[0] == bi) {
            for (int j = 0; j < K - 1; ++j) { vals[j] = vals[j + 1]; idx[j] = idx[j + 1]; }
            vals[K - 1] = -FLT_MAX;
            idx[K - 1] = -1;
        }
    }
}

static __global__ void argmax_f32(const float* __restrict__ x, int32_t* __restrict__ dst, const int64_t ncols) {
    const int64_t row = blockIdx.x;
    float maxval = -FLT_MAX;
    int argmax = -1;
    const float* rowx = x + row * ncols;
    for (int32_t col = threadIdx.x; col < ncols; col += blockDim.x) {
        const float val = rowx[col];
        if (val > maxval) { maxval = val; argmax = col; }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        const float val = __shfl_xor_sync(0xFFFFFFFF, maxval, offset, WARP_SIZE);
        const int col = __shfl_xor_sync(0xFFFFFFFF, argmax, offset, WARP_SIZE);
        if (val > maxval) { maxval = val; argmax = col; }
    }
    const int n_warps = blockDim.x / WARP_SIZE;
    const int lane_id = threadIdx.x % WARP_SIZE;
    const int warp_id = threadIdx.x / WARP_SIZE;
    if (n_warps > 1) {
        constexpr int max_warps = 1024 / WARP_SIZE;
        __shared__ float shared_maxval[max_warps];
        __shared__ int shared_argmax[max_warps];
        if (lane_id == 0) { shared_maxval[warp_id] = maxval; shared_argmax[warp_id] = argmax; }
        __syncthreads();
        if (warp_id == 0) {
            if (lane_id < n_warps) { maxval = shared_maxval[lane_id]; argmax = shared_argmax[lane_id]; }
#pragma unroll
            for (int offset = 16; offset > 0; offset >>= 1) {
                const float val = __shfl_xor_sync(0xFFFFFFFF, maxval, offset, WARP_SIZE);
                const int col = __shfl_xor_sync(0xFFFFFFFF, argmax, offset, WARP_SIZE);
                if (val > maxval) { maxval = val; argmax = col; }
            }
        }
    }
    if (warp_id == 0 && lane_id == 0) dst[row] = argmax;
}

static __device__ __noinline__ float ggml_compute_fp16_to_fp32_slow(uint16_t h) {
    const uint32_t w = (uint32_t)h << 16;
    const uint32_t sign = w & 0x80000000u;
    const uint32_t two_w = w + w;
    const float exp_scale = __uint_as_float(0x7800000u);
    const float normalized = __uint_as_float((two_w >> 4) + (0x70u << 23)) * exp_scale;
    const float denormalized = __uint_as_float((two_w >> 17) | (126u << 23)) - 0.5f;
    const uint32_t result = sign | (two_w < (1u << 27) ? __float_as_uint(denormalized) : __float_as_uint(normalized));
    return __uint_as_float(result);
}
static __device__ __noinline__ void atomic_add_half(half* address, half val) {
    unsigned int* base = (unsigned int*)((size_t)address & ~(size_t)2);
    unsigned int old = *base, assumed;
    do {
        assumed = old;
        __half_raw hr;
        hr.x = ((size_t)address & 2) ? (old >> 16) : (old & 0xffff);
        half sum = __hadd(half(hr), val);
        __half_raw sr = sum;
        unsigned int nv = ((size_t)address & 2) ? ((old & 0xffff) | ((unsigned)sr.x << 16)) : ((old & 0xffff0000u) | sr.x);
        old = atomicCAS(base, assumed, nv);
    } while (assumed != old);
}
static __global__ void convert_and_accumulate(const uint16_t* __restrict__ src, half* __restrict__ acc, float* __restrict__ out, const int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float f = ggml_compute_fp16_to_fp32_slow(src[i]);
    out[i] = f;
    atomic_add_half(acc + (i & 63), __float2half(f));
    if (!isfinite(f)) atomicExch(&ggml_cuda_error_flag, 1);
}

// stream-k like fixup: blocks that finish a partial tile publish it and the last one sums
static __global__ void __launch_bounds__(256) streamk_fixup(float* __restrict__ dst, const float* __restrict__ tmp_last_tile, int* __restrict__ flags,
                                                           const int ntiles, const int nparts) {
    const int tile = blockIdx.x;
    if (tile >= ntiles) return;
    if (threadIdx.x == 0) {
        long long t0 = clock64();
        while (atomicAdd(&flags[tile], 0) < nparts - 1) {
            __nanosleep(64);
            if (clock64() - t0 > (1ll << 32)) { ggml_cuda_error_flag = 2; break; }
        }
    }
    __syncthreads();
    float sum = 0.f;
    for (int p = 0; p < nparts; ++p) sum += tmp_last_tile[(p * ntiles + tile) * blockDim.x + threadIdx.x];
    dst[tile * blockDim.x + threadIdx.x] += sum;
    unsigned int mask = __match_any_sync(__activemask(), tile & 3);
    if (__popc(mask) == 32 && threadIdx.x % 32 == 0) atomicInc(&ggml_cuda_work_counter, 0xffffffffu);
    if (threadIdx.x < 64) atomicMax((int*)&ggml_cuda_scratch_max[threadIdx.x], __float_as_int(fabsf(sum)));
}

static __global__ void count_equal(const int* __restrict__ x, const int* __restrict__ y, int64_t* __restrict__ dst, const int64_t dk, const int64_t k) {
    const int64_t i0 = (int64_t)blockIdx.x * dk;
    const int64_t i1 = min(i0 + dk, k);
    int nequal = 0;
    for (int64_t i = i0 + threadIdx.x; i < i1; i += WARP_SIZE) nequal += x[i] == y[i];
#if __CUDA_ARCH__ >= 800
    nequal = __reduce_add_sync(0xffffffff, nequal);
#else
    for (int off = 16; off > 0; off >>= 1) nequal += __shfl_xor_sync(0xffffffff, nequal, off);
#endif
    if (threadIdx.x != 0) return;
    atomicAdd((unsigned long long*)dst, (unsigned long long)nequal);
}

// ssm-conv / rwkv-like recurrence with shared staging and dynamic shared memory
template <int block_size, int head_size>
static __global__ void rwkv_wkv_f32(const int B, const int T, const int C, const int H, const float* k, const float* v, const float* r, const float* tf,
                                    const float* td, const float* s, float* dst) {
    const int tid = threadIdx.x;
    const int bid = blockIdx.x;
    const int head_size_ = head_size;
    const int batch_i = bid / H;
    const int head_i = bid % H;
    const int state_size = C * head_size_;
    const int n_seq_tokens = T / B;
    float state[head_size];
    __shared__ float _k[head_size], _r[head_size], _tf[head_size], _td[head_size];
#pragma unroll
    for (int i = 0; i < head_size; i++) state[i] = s[batch_i * state_size + head_i * head_size * head_size + i * head_size + tid];
    __syncthreads();
    _tf[tid] = tf[head_i * head_size + tid];
    __syncthreads();
    for (int t = batch_i * n_seq_tokens * C + head_i * head_size + tid; t < (batch_i + 1) * n_seq_tokens * C + head_i * head_size + tid; t += C) {
        __syncthreads();
        _k[tid] = k[t];
        _r[tid] = r[t];
        _td[tid] = td[t];
        __syncthreads();
        const float _v = v[t];
        float y = 0;
        for (int j = 0; j < head_size; j += 4) {
            const float4& k4 = (float4&)(_k[j]);
            const float4& r4 = (float4&)(_r[j]);
            const float4& tf4 = (float4&)(_tf[j]);
            const float4& td4 = (float4&)(_td[j]);
            float4& s4 = (float4&)(state[j]);
            float4 kv;
            kv.x = k4.x * _v; kv.y = k4.y * _v; kv.z = k4.z * _v; kv.w = k4.w * _v;
            y += r4.x * (tf4.x * kv.x + s4.x) + r4.y * (tf4.y * kv.y + s4.y) + r4.z * (tf4.z * kv.z + s4.z) + r4.w * (tf4.w * kv.w + s4.w);
            s4.x = s4.x * td4.x + kv.x; s4.y = s4.y * td4.y + kv.y; s4.z = s4.z * td4.z + kv.z; s4.w = s4.w * td4.w + kv.w;
        }
        dst[t] = y;
    }
#pragma unroll
    for (int i = 0; i < head_size; i++) dst[T * C + batch_i * state_size + head_i * head_size * head_size + i * head_size + tid] = state[i];
}

template __global__ void mul_mat_vec_f<0>(const __grid_constant__ ggml_tensor_view, const float* __restrict__, float* __restrict__, const __grid_constant__ ggml_cuda_mm_fusion_args_device);
template __global__ void mul_mat_vec_f<1>(const __grid_constant__ ggml_tensor_view, const float* __restrict__, float* __restrict__, const __grid_constant__ ggml_cuda_mm_fusion_args_device);
template __global__ void topk_f32<4>(const float* __restrict__, int* __restrict__, float* __restrict__, int);
template __global__ void topk_f32<16>(const float* __restrict__, int* __restrict__, float* __restrict__, int);
template __global__ void rwkv_wkv_f32<64, 64>(int, int, int, int, const float*, const float*, const float*, const float*, const float*, const float*, float*);
void launch_misc2(const float* x, int* d, int64_t* d64, const uint16_t* s, half* a, float* o, int* fl, cudaStream_t st) {
    argmax_f32<<<1, 32, 0, st>>>(x, d, 32);
    convert_and_accumulate<<<1, 32, 0, st>>>(s, a, o, 32);
    streamk_fixup<<<1, 256, 0, st>>>(o, x, fl, 1, 2);
    count_equal<<<1, 32, 0, st>>>(d, d, d64, 32, 32);
}

// register pressure under __launch_bounds__(1024, 2) (32 registers): a 4x4-tile outer product
// with 16 accumulators and double-precision corrections spills to local memory
template <int TILE>
static __global__ void __launch_bounds__(1024, 2) outer_acc_spill(const float* __restrict__ a, const float* __restrict__ b, double* __restrict__ out, const int n) {
    float acc[TILE][TILE];
    double corr[TILE];
#pragma unroll
    for (int i = 0; i < TILE; ++i) {
        corr[i] = 0.0;
#pragma unroll
        for (int j = 0; j < TILE; ++j) acc[i][j] = 0.f;
    }
    for (int k = threadIdx.x; k < n; k += blockDim.x) {
        float av[TILE], bv[TILE];
#pragma unroll
        for (int i = 0; i < TILE; ++i) { av[i] = a[k * TILE + i]; bv[i] = b[k * TILE + i]; }
#pragma unroll
        for (int i = 0; i < TILE; ++i) {
#pragma unroll
            for (int j = 0; j < TILE; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
            corr[i] += (double)av[i] * (double)bv[(i + 1) % TILE];
        }
    }
#pragma unroll
    for (int i = 0; i < TILE; ++i) {
        double s = corr[i];
#pragma unroll
        for (int j = 0; j < TILE; ++j) s += acc[i][j];
        out[(blockIdx.x * blockDim.x + threadIdx.x) * TILE + i] = s;
    }
}
template __global__ void outer_acc_spill<6>(const float* __restrict__, const float* __restrict__, double* __restrict__, int);
