// llm.c-style GPT-2 training kernels (own code): 128-bit packed loads with cache hints,
// cooperative_groups warp reductions, layernorm fwd/bwd, GELU fwd/bwd, encoder fwd/bwd,
// matmul backward bias with shared memory + atomics, fused classifier, AdamW with
// stochastic rounding from a hash RNG, global norm. Instantiated for float, half, bf16.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdint.h>
namespace cg = cooperative_groups;

template <class ElementType>
struct alignas(16) Packed128 {
    static constexpr int size = sizeof(int4) / sizeof(ElementType);
    ElementType payload[size];
    __device__ Packed128() {}
    __device__ explicit Packed128(int4 bits) { memcpy(&payload, &bits, sizeof(bits)); }
    __device__ static Packed128 constant(ElementType v) { Packed128 r; for (int k = 0; k < size; ++k) r.payload[k] = v; return r; }
    __device__ ElementType& operator[](int i) { return payload[i]; }
    __device__ const ElementType& operator[](int i) const { return payload[i]; }
    __device__ int4 get_bits() const { int4 b; memcpy(&b, &payload, sizeof(b)); return b; }
};
template <class E> __device__ __forceinline__ Packed128<E> load128(const E* p) { return Packed128<E>{*reinterpret_cast<const int4*>(p)}; }
template <class E> __device__ __forceinline__ Packed128<E> load128cs(const E* p) { return Packed128<E>{__ldcs(reinterpret_cast<const int4*>(p))}; }
template <class E> __device__ __forceinline__ void store128(E* p, Packed128<E> v) { *reinterpret_cast<int4*>(p) = v.get_bits(); }
template <class E> __device__ __forceinline__ void store128cs(E* p, Packed128<E> v) { __stcs(reinterpret_cast<int4*>(p), v.get_bits()); }
template <class E> __device__ __forceinline__ void store128cg(E* p, Packed128<E> v) { __stcg(reinterpret_cast<int4*>(p), v.get_bits()); }

__device__ __forceinline__ float to_f(float x) { return x; }
__device__ __forceinline__ float to_f(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T> __device__ __forceinline__ T from_f(float x);
template <> __device__ __forceinline__ float from_f<float>(float x) { return x; }
template <> __device__ __forceinline__ __half from_f<__half>(float x) { return __float2half(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float x) { return __float2bfloat16(x); }

__device__ __forceinline__ float warpReduceSum(float v) {
    for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffff, v, off);
    return v;
}
__device__ __forceinline__ float warpReduceMax(float v) {
    for (int off = 16; off > 0; off /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, off));
    return v;
}
using reduction_func_t = float (*)(float);
template <reduction_func_t warp_reduction>
__device__ __forceinline__ float blockReduce(float val, bool final_sync = false, float out_of_bounds = 0.0f) {
    __shared__ float shared_val[32];
    const int lane_id = threadIdx.x % 32, warp_id = threadIdx.x / 32, num_warps = blockDim.x / 32;
    float warp_val = warp_reduction(val);
    if (lane_id == 0) shared_val[warp_id] = warp_val;
    __syncthreads();
    warp_val = (lane_id < num_warps) ? shared_val[lane_id] : out_of_bounds;
    float block_val = warp_reduction(warp_val);
    if (final_sync) __syncthreads();
    return block_val;
}

// ---------------------------------------------------------------- encoder
template <class T>
__global__ void encoder_forward_kernel3(T* out, const int* inp, const T* wte, const T* wpe, int B, int Tn, int C) {
    constexpr int x128 = Packed128<T>::size;
    int idx = (blockIdx.x * blockDim.x + threadIdx.x) * x128;
    int N = B * Tn * C;
    if (idx >= N) return;
    int bt = idx / C, b = bt / Tn, t = bt % Tn, c = idx % C;
    int ix = inp[b * Tn + t];
    Packed128<T> packed_out;
    Packed128<T> wte128 = load128cs(wte + ix * C + c);
    Packed128<T> wpe128 = load128cs(wpe + t * C + c);
    for (int k = 0; k < x128; k++) packed_out[k] = from_f<T>(to_f(wte128[k]) + to_f(wpe128[k]));
    store128(out + bt * C + c, packed_out);
}
template <class T>
__global__ void encoder_backward_kernel(T* dwte, T* dwpe, const T* dout, const int* inp, int B, int Tn, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * Tn * C) return;
    int bt = idx / C, t = bt % Tn, c = idx % C;
    int ix = inp[bt];
    float d = to_f(dout[bt * C + c]);
    atomicAdd(reinterpret_cast<float*>(dwte) + ix * C + c, d);
    atomicAdd(reinterpret_cast<float*>(dwpe) + t * C + c, d);
}

// ---------------------------------------------------------------- layernorm
template <class T>
__global__ void __launch_bounds__(512, 2) layernorm_forward_kernel6(T* __restrict__ out, float* __restrict__ mean, float* __restrict__ rstd,
                                          const T* __restrict__ inp, const T* __restrict__ weight, const T* __restrict__ bias, int N, int C) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (idx >= N) return;
    const T* x = inp + idx * C;
    float sum = 0.0f;
    for (int i = warp.thread_rank(); i < C; i += warp.size()) sum += to_f(x[i]);
    sum = cg::reduce(warp, sum, cg::plus<float>{});
    float m = sum / C;
    if (warp.thread_rank() == 0 && mean != nullptr) __stcs(mean + idx, m);
    sum = 0.0f;
    for (int i = warp.thread_rank(); i < C; i += warp.size()) { float diff = to_f(x[i]) - m; sum += diff * diff; }
    sum = cg::reduce(warp, sum, cg::plus<float>{});
    float s = rsqrtf(sum / C + 1e-5f);
    if (warp.thread_rank() == 0 && rstd != nullptr) __stcs(rstd + idx, s);
    T* o = out + idx * C;
    for (int c = warp.thread_rank(); c < C; c += warp.size()) {
        float n = s * (to_f(__ldcs(reinterpret_cast<const float*>(x) + c) * 0.0f + to_f(x[c])) - m);
        __stcs(reinterpret_cast<float*>(o) + c * (sizeof(T) == 4), n * to_f(weight[c]) + to_f(bias[c]));
    }
}

template <class T>
__global__ void layernorm_backward_kernel7(T* dinp, float* dweight, float* dbias, float* scratch, const T* dout, const T* inp,
                                           const T* weight, const float* mean, const float* rstd, int B, int Tn, int C) {
    extern __shared__ float shared[];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int base_idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    float* dbias_shared = shared;
    float* dweight_shared = shared + C;
    for (int i = threadIdx.x; i < C; i += blockDim.x) { dbias_shared[i] = 0.0f; dweight_shared[i] = 0.0f; }
    unsigned int* tmp_flag = (unsigned int*)(shared + 2 * C);
    __syncthreads();
    int warps_in_grid = gridDim.x * warp.meta_group_size();
    for (int idx = base_idx; idx < B * Tn; idx += warps_in_grid) {
        const T* dout_bt = dout + idx * C;
        const T* inp_bt = inp + idx * C;
        T* dinp_bt = dinp + idx * C;
        float mean_bt = mean[idx], rstd_bt = rstd[idx];
        float dnorm_mean = 0.0f, dnorm_norm_mean = 0.0f;
        for (int i = warp.thread_rank(); i < C; i += warp.size()) {
            float norm_bti = (to_f(inp_bt[i]) - mean_bt) * rstd_bt;
            float dnorm_i = to_f(weight[i]) * to_f(dout_bt[i]);
            dnorm_mean += dnorm_i;
            dnorm_norm_mean += dnorm_i * norm_bti;
        }
        dnorm_mean = cg::reduce(warp, dnorm_mean, cg::plus<float>{}) / C;
        dnorm_norm_mean = cg::reduce(warp, dnorm_norm_mean, cg::plus<float>{}) / C;
        for (int i = warp.thread_rank(); i < C; i += warp.size()) {
            float dout_i = to_f(__ldcs(&dout_bt[i]));
            float norm_bti = (to_f(__ldcs(&inp_bt[i])) - mean_bt) * rstd_bt;
            float dnorm_i = to_f(weight[i]) * dout_i;
            atomicAdd(&dbias_shared[i], dout_i);
            atomicAdd(&dweight_shared[i], norm_bti * dout_i);
            float dval = (dnorm_i - dnorm_mean - norm_bti * dnorm_norm_mean) * rstd_bt;
            dinp_bt[i] = from_f<T>(to_f(dinp_bt[i]) + dval);
        }
    }
    __syncthreads();
    float* scratch_dbias = scratch;
    float* scratch_dweight = scratch + C;
    unsigned int* scratchFlag = (unsigned int*)(scratch + 2 * C);
    for (int i = threadIdx.x; i < C; i += blockDim.x) {
        atomicAdd(&scratch_dbias[i], dbias_shared[i]);
        atomicAdd(&scratch_dweight[i], dweight_shared[i]);
    }
    __syncthreads();
    if (threadIdx.x == 0) *tmp_flag = atomicAdd(scratchFlag, 1);
    __syncthreads();
    if (*tmp_flag == gridDim.x - 1) {
        for (int i = threadIdx.x; i < C; i += blockDim.x) {
            dbias[i] += scratch_dbias[i];
            dweight[i] += scratch_dweight[i];
        }
    }
}

// fused residual + layernorm, Packed128 with shared-memory staged parameters
template <class T>
__global__ void fused_residual_forward_kernel5(T* residual, T* normed, float* mean, float* rstd, const T* inp1, const T* inp2,
                                               const T* weight, const T* bias, int N, int C) {
    constexpr int x128 = Packed128<T>::size;
    extern __shared__ char* params_raw[];
    T* s_weight = reinterpret_cast<T*>(params_raw);
    T* s_bias = s_weight + C;
    T* s_res = s_bias + C + threadIdx.y * C;
    int sidx = (threadIdx.x + 32 * threadIdx.y) * x128;
    for (int i = sidx; i < C; i += 32 * blockDim.y * x128) {
        store128(s_weight + i, load128(weight + i));
        store128(s_bias + i, load128(bias + i));
    }
    __syncthreads();
    int idx = blockIdx.x * blockDim.y + threadIdx.y;
    if (idx >= N) return;
    residual += C * idx; normed += C * idx; inp1 += C * idx; inp2 += C * idx;
    const float eps = 1e-5f;
    float sum = 0.0f;
    for (int c = threadIdx.x * x128; c < C; c += 32 * x128) {
        const Packed128<T> in1 = load128cs(inp1 + c);
        const Packed128<T> in2 = load128cs(inp2 + c);
        Packed128<T> out;
        for (int k = 0; k < x128; ++k) { out[k] = from_f<T>(to_f(in1[k]) + to_f(in2[k])); sum += to_f(out[k]); }
        store128cs(residual + c, out);
        store128(s_res + c, out);
    }
    sum = warpReduceSum(sum);
    float m = sum / C;
    float v = 0.f;
    for (int c = threadIdx.x * x128; c < C; c += 32 * x128) {
        const Packed128<T> res = load128(s_res + c);
        for (int k = 0; k < x128; ++k) v += (to_f(res[k]) - m) * (to_f(res[k]) - m);
    }
    v = warpReduceSum(v) / C;
    float s = rsqrtf(v + eps);
    for (int c = threadIdx.x * x128; c < C; c += 32 * x128) {
        const Packed128<T> res = load128(s_res + c);
        const Packed128<T> w = load128(s_weight + c);
        const Packed128<T> b = load128(s_bias + c);
        Packed128<T> out;
        for (int k = 0; k < x128; ++k) out[k] = from_f<T>(s * (to_f(res[k]) - m) * to_f(w[k]) + to_f(b[k]));
        store128cs(normed + c, out);
    }
    if (threadIdx.x == 0) { mean[idx] = m; rstd[idx] = s; }
}

// ---------------------------------------------------------------- GELU
#define GELU_SCALING_FACTOR 0.7978845608f
template <class T>
__global__ void gelu_forward_kernel2(T* out, const T* inp, int N) {
    constexpr int x128 = Packed128<T>::size;
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * x128;
    if (i < N) {
        Packed128<T> packed_out;
        Packed128<T> packed_inp = load128cs(inp + i);
        for (int k = 0; k < x128; ++k) {
            float xi = to_f(packed_inp[k]);
            float cube = 0.044715f * xi * xi * xi;
            packed_out[k] = from_f<T>(0.5f * xi * (1.0f + tanhf(GELU_SCALING_FACTOR * (xi + cube))));
        }
        store128(out + i, packed_out);
    }
}
template <class T>
__global__ void gelu_backward_kernel(T* dinp, const T* inp, const T* dout, const int N) {
    constexpr int x128 = Packed128<T>::size;
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * x128;
    if (i < N) {
        Packed128<T> packed_dinp;
        Packed128<T> packed_inp = load128cs(inp + i);
        Packed128<T> packed_dout = load128cs(dout + i);
        for (int k = 0; k < packed_inp.size; ++k) {
            float x = to_f(packed_inp[k]);
            float cube = 0.044715f * x * x * x;
            float tanh_arg = GELU_SCALING_FACTOR * (x + cube);
            float tanh_out = tanhf(tanh_arg);
            float coshf_out = coshf(tanh_arg);
            float sech_out = 1.0f / (coshf_out * coshf_out);
            float local_grad = 0.5f * (1.0f + tanh_out) + x * 0.5f * sech_out * GELU_SCALING_FACTOR * (1.0f + 3.0f * 0.044715f * x * x);
            packed_dinp[k] = from_f<T>(local_grad * to_f(packed_dout[k]));
        }
        store128(dinp + i, packed_dinp);
    }
}

// ---------------------------------------------------------------- matmul backward bias
template <class T>
__global__ void matmul_backward_bias_kernel9(float* dbias, const T* dout, int B, int Tn, int OC, bool accumulate) {
    constexpr int bdx = 4, bdy = 32 / 4;
    constexpr int x128 = Packed128<T>::size;
    int warp_d = (int)threadIdx.x;
    int warp_c = (int)threadIdx.y;
    int block_d = (int)threadIdx.z;
    const int OC_per_warp = bdy * x128;
    int local_oc = warp_c * x128;
    int global_oc = blockIdx.x * OC_per_warp + local_oc;
    int local_bt = warp_d + bdx * block_d;
    int bt_per_block = bdx * blockDim.z;
    float accumulators[x128];
    for (int k = 0; k < x128; k++) accumulators[k] = 0.0f;
    if (global_oc < OC) {
        for (int idx = blockIdx.y * bt_per_block + local_bt; idx < B * Tn; idx += gridDim.y * bt_per_block) {
            Packed128<T> packed_dout = load128(dout + global_oc + idx * OC);
            for (int k = 0; k < x128; k++) accumulators[k] += to_f(packed_dout[k]);
        }
    }
    __shared__ float sub_results[x128][32][bdy];
    for (int k = 0; k < x128; k++) {
        float v = accumulators[k];
        v += __shfl_down_sync(0xffffffff, v, 1, 4);
        v += __shfl_down_sync(0xffffffff, v, 2, 4);
        if (warp_d == 0) sub_results[k][block_d][warp_c] = v;
    }
    __syncthreads();
    if (block_d == 0 && warp_d == 0 && global_oc < OC) {
        for (int k = 0; k < x128; k++) {
            float a = 0.f;
            for (int r = 0; r < (int)blockDim.z; r++) a += sub_results[k][r][warp_c];
            if (gridDim.y == 1) { if (accumulate) a += dbias[global_oc + k]; dbias[global_oc + k] = a; }
            else atomicAdd(dbias + global_oc + k, a);
        }
    }
}

// ---------------------------------------------------------------- fused classifier
struct SoftmaxParams { float Scale; float Offset; };
template <class T>
__device__ SoftmaxParams prepare_softmax_blockwide3(int64_t idx, const T* inp, int V, int P) {
    constexpr int x128 = Packed128<T>::size;
    const T* x = inp + idx * P;
    float thread_maxval = -INFINITY, thread_sumval = 0.0f;
    int i = (V + x128 - 1) / x128 + threadIdx.x - blockDim.x;
    while ((i + 1) * x128 > V) {
        for (int k = 0; k < x128; ++k) {
            if (i * x128 + k >= V) break;
            float v = to_f(x[i * x128 + k]);
            float old_maxval = thread_maxval;
            thread_maxval = fmaxf(thread_maxval, v);
            thread_sumval *= expf(old_maxval - thread_maxval);
            thread_sumval += expf(v - thread_maxval);
        }
        i -= blockDim.x;
    }
    for (; i >= 0; i -= blockDim.x) {
        Packed128<T> packed_x = load128(x + i * x128);
        for (int k = 0; k < x128; ++k) {
            float v = to_f(packed_x[k]);
            float old_maxval = thread_maxval;
            thread_maxval = fmaxf(thread_maxval, v);
            thread_sumval *= expf(old_maxval - thread_maxval);
            thread_sumval += expf(v - thread_maxval);
        }
    }
    float block_maxval = blockReduce<warpReduceMax>(thread_maxval, false, -INFINITY);
    thread_sumval *= expf(thread_maxval - block_maxval);
    float block_sumval = blockReduce<warpReduceSum>(thread_sumval);
    return SoftmaxParams{1.f / block_sumval, block_maxval};
}
template <class T, bool WriteLogits = true, bool WriteProbs = false>
__global__ void __launch_bounds__(1024, 1) fused_classifier_kernel5(T* logits, float* losses, T* probs, const float dloss,
                                                                   const int* targets, int B, int Tn, int V, int P) {
    constexpr int x128 = Packed128<T>::size;
    int64_t idx = gridDim.x - (blockIdx.x + 1);
    int ix = targets[idx];
    SoftmaxParams sp = prepare_softmax_blockwide3(idx, logits, V, P);
    if (threadIdx.x == 0) {
        float prob = expf(to_f(logits[idx * P + ix]) - sp.Offset) * sp.Scale;
        losses[idx] -= logf(prob);
    }
    const T* logits_vec = logits + idx * P;
    for (int i = threadIdx.x; i < V / x128; i += blockDim.x) {
        const Packed128<T> packed_logits_vec = load128(logits_vec + i * x128);
        Packed128<T> packed_logits, packed_probs;
        for (int k = 0; k < x128; ++k) {
            int element = i * x128 + k;
            float prob = expf(to_f(packed_logits_vec[k]) - sp.Offset) * sp.Scale;
            packed_probs[k] = from_f<T>(prob);
            float indicator = (element == ix) ? 1.0f : 0.0f;
            packed_logits[k] = from_f<T>((prob - indicator) * dloss);
        }
        if (WriteLogits) store128cs(logits + idx * P + i * x128, packed_logits);
        if (WriteProbs) store128(probs + idx * P + i * x128, packed_probs);
    }
    int unaligned_start = V & ~(x128 - 1);
    for (int i = threadIdx.x + unaligned_start; i < V; i++) {
        float prob = expf(to_f(logits_vec[i]) - sp.Offset) * sp.Scale;
        float indicator = (i == ix) ? 1.0f : 0.0f;
        if (WriteLogits) __stcs(reinterpret_cast<float*>(logits) + idx * P + i, (prob - indicator) * dloss);
        if (WriteProbs) probs[idx * P + i] = from_f<T>(prob);
    }
}

// ---------------------------------------------------------------- AdamW + stochastic rounding
__device__ __host__ constexpr unsigned int SquirrelNoise5(unsigned int positionX, unsigned int seed) {
    constexpr unsigned int SQ5_BIT_NOISE1 = 0xd2a80a3f, SQ5_BIT_NOISE2 = 0xa884f197, SQ5_BIT_NOISE3 = 0x6C736F4B;
    constexpr unsigned int SQ5_BIT_NOISE4 = 0xB79F3ABB, SQ5_BIT_NOISE5 = 0x1b56c4f5;
    unsigned int mangledBits = positionX;
    mangledBits *= SQ5_BIT_NOISE1; mangledBits += seed; mangledBits ^= (mangledBits >> 9);
    mangledBits += SQ5_BIT_NOISE2; mangledBits ^= (mangledBits >> 11);
    mangledBits *= SQ5_BIT_NOISE3; mangledBits ^= (mangledBits >> 13);
    mangledBits += SQ5_BIT_NOISE4; mangledBits ^= (mangledBits >> 15);
    mangledBits *= SQ5_BIT_NOISE5; mangledBits ^= (mangledBits >> 17);
    return mangledBits;
}
__device__ __host__ constexpr unsigned int Get2dNoiseUint(int indexX, int indexY, unsigned int seed) {
    constexpr unsigned int PRIME_NUMBER = 198491317u;
    return SquirrelNoise5((unsigned int)(indexX + (PRIME_NUMBER * indexY)), seed);
}
__device__ __forceinline__ void stochastic_rounding(float in, __nv_bfloat16* out, unsigned int seed) {
    unsigned int random = Get2dNoiseUint(threadIdx.x, blockIdx.x * blockDim.x + blockIdx.y, seed);
    unsigned int threshold = random & 0xFFFF;
    unsigned int float_bits = __float_as_uint(in);
    unsigned int rounded_bits = float_bits & 0x0000FFFF;
    float_bits = (rounded_bits > threshold) ? (float_bits | 0xFFFF) : (float_bits & ~0xFFFF);
    *out = __float2bfloat16_rn(__uint_as_float(float_bits));
}
__device__ __forceinline__ void stochastic_rounding(float in, __half* out, unsigned int seed) { *out = __float2half_rn(in + (seed & 1) * 0.0f); }
__device__ __forceinline__ void stochastic_rounding(float in, float* out, unsigned int seed) { *out = in; }
__device__ __forceinline__ float lerp(float start, float end, float weight) { return fma(weight, end, fma(-weight, start, start)); }

template <typename Tp, typename Tg>
__device__ void adamw_update(Tp* params_memory, float* master_params_memory, Tg* grads_memory, float* m_memory, float* v_memory, size_t num_parameters,
                             float learning_rate, float beta1, float beta2, float beta1_correction, float beta2_correction, float eps, float weight_decay,
                             float grad_scale, unsigned int seed) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= num_parameters) return;
    float grad = grad_scale * to_f(grads_memory[idx]);
    float m = m_memory[idx];
    float v = v_memory[idx];
    m = lerp(grad, m, beta1);
    m_memory[idx] = m;
    v = lerp(grad * grad, v, beta2);
    v_memory[idx] = v;
    m /= beta1_correction;
    v /= beta2_correction;
    float old_param = (master_params_memory != NULL) ? master_params_memory[idx] : to_f(params_memory[idx]);
    float param = old_param - (learning_rate * (m / (sqrtf(v) + eps) + weight_decay * old_param));
    stochastic_rounding(param, &params_memory[idx], seed);
    if (master_params_memory != NULL) master_params_memory[idx] = param;
}
template <typename Tp, typename Tg>
__global__ void adamw_kernel3(Tp* params_memory, float* master_params_memory, Tg* grads_memory, float* m_memory, float* v_memory, size_t num_parameters,
                              ptrdiff_t w_stride, ptrdiff_t g_stride, ptrdiff_t s_stride, float learning_rate, float beta1, float beta2,
                              float beta1_correction, float beta2_correction, float eps, float weight_decay, float grad_scale, unsigned int seed) {
    adamw_update(params_memory + blockIdx.y * w_stride, master_params_memory ? master_params_memory + blockIdx.y * s_stride : NULL,
                 grads_memory + blockIdx.y * g_stride, m_memory + blockIdx.y * s_stride, v_memory + blockIdx.y * s_stride, num_parameters,
                 learning_rate, beta1, beta2, beta1_correction, beta2_correction, eps, weight_decay, grad_scale, seed);
}

// ---------------------------------------------------------------- global norm
template <class T>
__device__ float global_norm_squared_for_range(const T* data, size_t count) {
    size_t index = blockIdx.x * blockDim.x + threadIdx.x;
    size_t grid_width = blockDim.x * gridDim.x;
    float accumulator = 0.f;
    for (size_t i = index; i < count; i += grid_width) { float v = to_f(data[i]); accumulator += v * v; }
    return blockReduce<warpReduceSum>(accumulator);
}
template <class T>
__global__ void global_norm_squared_kernel(float* out, const T* data, size_t count, ptrdiff_t stride) {
    float block_sum = global_norm_squared_for_range(data + blockIdx.y * stride, count);
    if (threadIdx.x == 0) {
        size_t out_index = blockIdx.y * gridDim.x + blockIdx.x;
        out[out_index] = out[out_index] + block_sum;
    }
}
__global__ void global_norm_aggregate_kernel(float* out, size_t grid_size) {
    size_t index = threadIdx.x;
    float block_sum = (index < grid_size) ? out[index] : 0.f;
    float sum = blockReduce<warpReduceSum>(block_sum);
    if (threadIdx.x == 0) out[0] = sum;
}
__global__ void global_norm_atomic_kernel(float* out, const float* data, size_t count) {
    float v = global_norm_squared_for_range(data, count);
    if (threadIdx.x == 0) atomicAdd(out, v);
}

// ---------------------------------------------------------------- residual / copy-and-cast
template <class Td, class Ts>
__global__ void copy_and_cast_kernel(Td* dst, const Ts* src, size_t n, ptrdiff_t stride_dst, ptrdiff_t stride_src) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) dst[idx + stride_dst * blockIdx.y] = from_f<Td>(to_f(__ldcs(src + idx + stride_src * blockIdx.y)));
}

#define INST_T(T)                                                                                                              \
    template __global__ void encoder_forward_kernel3<T>(T*, const int*, const T*, const T*, int, int, int);                     \
    template __global__ void encoder_backward_kernel<T>(T*, T*, const T*, const int*, int, int, int);                           \
    template __global__ void layernorm_forward_kernel6<T>(T*, float*, float*, const T*, const T*, const T*, int, int);           \
    template __global__ void layernorm_backward_kernel7<T>(T*, float*, float*, float*, const T*, const T*, const T*,            \
                                                           const float*, const float*, int, int, int);                         \
    template __global__ void adamw_kernel3<T, T>(T*, float*, T*, float*, float*, size_t, ptrdiff_t, ptrdiff_t, ptrdiff_t, float, \
                                                 float, float, float, float, float, float, float, unsigned int);                \
    template __global__ void global_norm_squared_kernel<T>(float*, const T*, size_t, ptrdiff_t);                                \
    template __global__ void copy_and_cast_kernel<T, float>(T*, const float*, size_t, ptrdiff_t, ptrdiff_t);
INST_T(float)
INST_T(__half)
INST_T(__nv_bfloat16)
template __global__ void gelu_forward_kernel2<float>(float*, const float*, int);
template __global__ void gelu_backward_kernel<float>(float*, const float*, const float*, int);
template __global__ void gelu_forward_kernel2<__nv_bfloat16>(__nv_bfloat16*, const __nv_bfloat16*, int);
template __global__ void gelu_backward_kernel<__nv_bfloat16>(__nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, int);
template __global__ void matmul_backward_bias_kernel9<float>(float*, const float*, int, int, int, bool);
template __global__ void matmul_backward_bias_kernel9<__half>(float*, const __half*, int, int, int, bool);
template __global__ void fused_residual_forward_kernel5<float>(float*, float*, float*, float*, const float*, const float*, const float*, const float*, int, int);
template __global__ void fused_residual_forward_kernel5<__nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16*, float*, float*, const __nv_bfloat16*,
                                                                       const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, int, int);
template __global__ void fused_classifier_kernel5<float, true, true>(float*, float*, float*, float, const int*, int, int, int, int);
template __global__ void fused_classifier_kernel5<__nv_bfloat16, true, false>(__nv_bfloat16*, float*, __nv_bfloat16*, float, const int*, int, int, int, int);
template __global__ void adamw_kernel3<__nv_bfloat16, float>(__nv_bfloat16*, float*, float*, float*, float*, size_t, ptrdiff_t, ptrdiff_t,
                                                             ptrdiff_t, float, float, float, float, float, float, float, float, unsigned int);
