// Low-precision arithmetic the way inference and training code writes it (TransformerEngine-style
// fp8 casts with amax/scale, vLLM-style fp8 KV-cache (de)quantisation, PyTorch ATen atomics on
// types without a native atomic): fp8 e4m3/e5m2 conversions (native cvt on sm_89+, emulated
// below), half/bfloat16 math intrinsics, and atomicCAS loops on double, half and bfloat16.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cstdint>

// ---------------------------------------------------------------------------------------------
// atomics via compare-and-swap (ATen's AtomicFPOp / gpuAtomicMax shapes)
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ double atomicMaxDouble(double *address, double val)
{
    unsigned long long *addr = reinterpret_cast<unsigned long long *>(address);
    unsigned long long old = *addr, assumed;
    do {
        assumed = old;
        old = atomicCAS(addr, assumed, __double_as_longlong(fmax(val, __longlong_as_double(assumed))));
    } while (assumed != old);
    return __longlong_as_double(old);
}

__device__ __forceinline__ double atomicMulDouble(double *address, double val)
{
    unsigned long long *addr = reinterpret_cast<unsigned long long *>(address);
    unsigned long long old = *addr, assumed;
    do {
        assumed = old;
        old = atomicCAS(addr, assumed, __double_as_longlong(val * __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}

__device__ __forceinline__ float atomicMaxFloat(float *addr, float value)
{
    // the sign trick (int max for positives, unsigned min for negatives)
    return value >= 0 ? __int_as_float(atomicMax((int *)addr, __float_as_int(value)))
                      : __uint_as_float(atomicMin((unsigned int *)addr, __float_as_uint(value)));
}

template <typename T, typename Op>
__device__ __forceinline__ T atomic16_op(T *address, T val, Op op)
{
    // 16-bit CAS inside the aligned 32-bit word (the pre-sm_70 ATen form)
    unsigned int *base = (unsigned int *)((char *)address - ((size_t)address & 2));
    unsigned int old = *base, assumed;
    do {
        assumed = old;
        unsigned short hsum = ((size_t)address & 2) ? (old >> 16) : (old & 0xffff);
        T cur;
        memcpy(&cur, &hsum, 2);
        T nv = op(cur, val);
        unsigned short nb;
        memcpy(&nb, &nv, 2);
        old = ((size_t)address & 2) ? (old & 0xffff) | ((unsigned)nb << 16) : (old & 0xffff0000) | nb;
        old = atomicCAS(base, assumed, old);
    } while (assumed != old);
    unsigned short r = ((size_t)address & 2) ? (old >> 16) : (old & 0xffff);
    T out;
    memcpy(&out, &r, 2);
    return out;
}

struct HalfMul { __device__ __half operator()(__half a, __half b) const { return __hmul(a, b); } };
struct HalfMax { __device__ __half operator()(__half a, __half b) const { return __hmax(a, b); } };
struct Bf16Add { __device__ __nv_bfloat16 operator()(__nv_bfloat16 a, __nv_bfloat16 b) const { return __float2bfloat16(__bfloat162float(a) + __bfloat162float(b)); } };
struct Bf16Min { __device__ __nv_bfloat16 operator()(__nv_bfloat16 a, __nv_bfloat16 b) const { return __bfloat162float(a) < __bfloat162float(b) ? a : b; } };

__global__ void scatter_reduce_double(const double *__restrict__ src, const int *__restrict__ idx,
                                      double *out_max, double *out_prod, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMaxDouble(&out_max[idx[i]], src[i]);
        atomicMulDouble(&out_prod[idx[i]], src[i]);
    }
}

__global__ void scatter_reduce_16bit(const __half *__restrict__ hs, const __nv_bfloat16 *__restrict__ bs,
                                     const int *__restrict__ idx, __half *hmul, __half *hmax,
                                     __nv_bfloat16 *badd, __nv_bfloat16 *bmin, float *fmax_out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = idx[i];
        atomic16_op(&hmul[j], hs[i], HalfMul());
        atomic16_op(&hmax[j], hs[i], HalfMax());
        atomic16_op(&badd[j], bs[i], Bf16Add());
        atomic16_op(&bmin[j], bs[i], Bf16Min());
        atomicMaxFloat(&fmax_out[j], __half2float(hs[i]) * __bfloat162float(bs[i]));
    }
}

// 16-bit atomicCAS directly (sm_70+ unsigned short overload)
__global__ void half_cas_add(__half *acc, const __half *__restrict__ x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned short *a = reinterpret_cast<unsigned short *>(acc + (i & 63));
    unsigned short old = *a, assumed;
    do {
        assumed = old;
        old = atomicCAS(a, assumed, __half_as_ushort(__hadd(__ushort_as_half(assumed), x[i])));
    } while (old != assumed);
}

// ---------------------------------------------------------------------------------------------
// fp8: amax, scaled casts, KV-cache quantisation
// ---------------------------------------------------------------------------------------------
template <typename FP8>
__global__ void cast_to_fp8(const float *__restrict__ in, FP8 *__restrict__ out, const float *__restrict__ scale,
                            float *amax, float *scale_inv, int n)
{
    __shared__ float s_amax[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = *scale;
    float v = i < n ? in[i] : 0.0f;
    float a = fabsf(v);
    for (int off = 16; off > 0; off >>= 1) a = fmaxf(a, __shfl_xor_sync(0xffffffff, a, off));
    if ((threadIdx.x & 31) == 0) s_amax[threadIdx.x >> 5] = a;
    __syncthreads();
    if (threadIdx.x < 32) {
        a = threadIdx.x < (blockDim.x >> 5) ? s_amax[threadIdx.x] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) a = fmaxf(a, __shfl_xor_sync(0xffffffff, a, off));
        if (threadIdx.x == 0) atomicMaxFloat(amax, a);
    }
    if (i < n) out[i] = FP8(v * s);
    if (i == 0) *scale_inv = 1.0f / s;
}

template __global__ void cast_to_fp8<__nv_fp8_e4m3>(const float *, __nv_fp8_e4m3 *, const float *, float *, float *, int);
template __global__ void cast_to_fp8<__nv_fp8_e5m2>(const float *, __nv_fp8_e5m2 *, const float *, float *, float *, int);

__global__ void fp8x2_pack(const float2 *__restrict__ in, __nv_fp8x2_storage_t *__restrict__ e4, __nv_fp8x2_storage_t *__restrict__ e5,
                           const __half2 *__restrict__ hin, __nv_fp8x4_e4m3 *__restrict__ q4, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 v = in[i];
    e4[i] = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);
    e5[i] = __nv_cvt_float2_to_fp8x2(v, __NV_NOSAT, __NV_E5M2);
    __half2 lo = hin[2 * i], hi = hin[2 * i + 1];
    q4[i] = __nv_fp8x4_e4m3(lo, hi);
}

template <typename Tcache, __nv_fp8_interpretation_t KIND>
__global__ void reshape_and_cache_fp8(const __half *__restrict__ key, const __nv_bfloat16 *__restrict__ value,
                                      Tcache *__restrict__ key_cache, Tcache *__restrict__ value_cache,
                                      const long *__restrict__ slot_mapping, int num_tokens, int head_size,
                                      int block_size, float k_scale, float v_scale)
{
    const int token = blockIdx.x;
    const long slot = slot_mapping[token];
    if (slot < 0) return;
    const long block_idx = slot / block_size, block_off = slot % block_size;
    for (int i = threadIdx.x; i < head_size; i += blockDim.x) {
        long tgt = (block_idx * block_size + block_off) * head_size + i;
        float k = __half2float(key[(long)token * head_size + i]) / k_scale;
        float v = __bfloat162float(value[(long)token * head_size + i]) / v_scale;
        key_cache[tgt] = __nv_cvt_float_to_fp8(k, __NV_SATFINITE, KIND);
        value_cache[tgt] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, KIND);
    }
}

template __global__ void reshape_and_cache_fp8<uint8_t, __NV_E4M3>(const __half *, const __nv_bfloat16 *, uint8_t *, uint8_t *, const long *, int, int, int, float, float);
template __global__ void reshape_and_cache_fp8<uint8_t, __NV_E5M2>(const __half *, const __nv_bfloat16 *, uint8_t *, uint8_t *, const long *, int, int, int, float, float);

__global__ void fp8_gemv(const __nv_fp8_e4m3 *__restrict__ W, const __half *__restrict__ x, __half *__restrict__ y,
                         const float *__restrict__ w_scale, int rows, int cols)
{
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    float acc = 0.0f;
    const __nv_fp8x2_storage_t *w2 = reinterpret_cast<const __nv_fp8x2_storage_t *>(W + (long)row * cols);
    const __half2 *x2 = reinterpret_cast<const __half2 *>(x);
    for (int c = lane; c < cols / 2; c += 32) {
        __half2_raw hr = __nv_cvt_fp8x2_to_halfraw2(w2[c], __NV_E4M3);
        __half2 wv = *reinterpret_cast<__half2 *>(&hr);
        float2 p = __half22float2(__hmul2(wv, x2[c]));
        acc += p.x + p.y;
    }
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffff, acc, off);
    if (lane == 0) y[row] = __float2half(acc * w_scale[row]);
}

// ---------------------------------------------------------------------------------------------
// half / bfloat16 math intrinsics (activations, softmax pieces, rounding modes)
// ---------------------------------------------------------------------------------------------
__global__ void half_math(const __half2 *__restrict__ x, __half2 *__restrict__ y, __half *__restrict__ z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 v = x[i];
    __half2 e = h2exp(v), l = h2log(__habs2(v)), s = h2sin(v), c = h2cos(v);
    __half2 r = h2rsqrt(__habs2(v) + __float2half2_rn(1.0f));
    __half2 t = __hfma2(e, r, __hmul2_sat(s, c));
    t = __hmax2(t, __hmin2(l, h2exp2(v)));
    y[i] = __hfma2_relu(t, h2rcp(__hadd2(v, __float2half2_rn(2.0f))), h2floor(v));
    __half a = __low2half(v), b = __high2half(v);
    __half q = hsqrt(__habs(a)) + htrunc(b) + hceil(a) + hrint(b) + hexp10(a) + hlog2(__habs(b) + __float2half(1.f));
    z[i] = __hisnan(q) ? __float2half_rz(0.f) : __hdiv(q, __hadd(__habs(a), __ushort2half_rn(3)));
}

__global__ void bf16_math(const __nv_bfloat162 *__restrict__ x, __nv_bfloat162 *__restrict__ y, float *__restrict__ f, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat162 v = x[i];
    __nv_bfloat162 g = __hmul2(v, h2exp(__hneg2(__habs2(v))));
    __nv_bfloat162 den = __hadd2(__habs2(v), __float2bfloat162_rn(1.0f));
    __nv_bfloat162 rs = h2rsqrt(den);
    __nv_bfloat162 r = __hadd2(__hmul2(g, rs), v);
    y[i] = __hmax2(r, h2sin(v));
    f[i] = __bfloat162float(__hmax(__low2bfloat16(r), __high2bfloat16(r))) + __bfloat162float(__float2bfloat16_rz(__low2float(v) * 3.0f)) +
           (float)__bfloat162int_rn(__high2bfloat16(v)) + __bfloat162float(__ushort2bfloat16_rn(i & 255));
}

// tanh-GELU with fast approximations (the common fused-activation form)
__global__ void gelu_fast(const __half2 *__restrict__ x, __half2 *__restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 v = __half22float2(x[i]);
    float a = 0.79788456f * (v.x + 0.044715f * v.x * v.x * v.x);
    float b = 0.79788456f * (v.y + 0.044715f * v.y * v.y * v.y);
    float ta, tb;
    asm("tanh.approx.f32 %0, %1;" : "=f"(ta) : "f"(a));
    asm("tanh.approx.f32 %0, %1;" : "=f"(tb) : "f"(b));
    y[i] = __floats2half2_rn(0.5f * v.x * (1.0f + ta), 0.5f * v.y * (1.0f + tb));
}
