// llm.c-style extras (own code): cg::memcpy_async staging into shared memory, bf16 / half2
// atomics, extern "C" kernels, the non-fused classifier pieces (crossentropy fwd/bwd),
// residual backward with Packed128, matmul backward bias with dynamic shared memory, a
// ZeRO-style shard copy with a device-side step counter, and a repkv (grouped query) copy.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cuda/barrier>
namespace cg = cooperative_groups;

typedef __nv_bfloat16 floatX;
struct alignas(16) x128 { floatX v[8]; };

__device__ unsigned long long llmc_step_counter;
__device__ float llmc_loss_accum[4];

extern "C" __global__ void crossentropy_forward_kernel1(float* losses, const float* probs, const int* targets, int B, int T, int V) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * T) {
        int b = i / T, t = i % T;
        const float* probs_bt = probs + b * T * V + t * V;
        int ix = targets[b * T + t];
        losses[b * T + t] = -logf(probs_bt[ix]);
        atomicAdd(&llmc_loss_accum[b & 3], losses[b * T + t]);
    }
}
extern "C" __global__ void crossentropy_softmax_backward_kernel1(float* dlogits, const float* dlosses, const float* probs, const int* targets, int B, int T, int V) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * T * V) {
        int b = i / (T * V), t = (i / V) % T, v = i % V;
        float* dlogits_bt = dlogits + b * T * V + t * V;
        const float* probs_bt = probs + b * T * V + t * V;
        float dloss = dlosses[b * T + t];
        int ix = targets[b * T + t];
        float p = probs_bt[v];
        float indicator = v == ix ? 1.0f : 0.0f;
        dlogits_bt[v] += (p - indicator) * dloss;
    }
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) layernorm_staged(floatX* __restrict__ out, const floatX* __restrict__ inp, const floatX* __restrict__ w,
                                                         const floatX* __restrict__ b, int N, int C) {
    extern __shared__ __align__(16) char smem[];
    floatX* s_in = reinterpret_cast<floatX*>(smem);
    floatX* s_w = s_in + C;
    floatX* s_b = s_w + C;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::memcpy_async(block, s_w, w, sizeof(floatX) * C);
    cg::memcpy_async(block, s_b, b, sizeof(floatX) * C);
    for (int row = blockIdx.x; row < N; row += gridDim.x) {
        cg::memcpy_async(block, s_in, inp + (size_t)row * C, cuda::aligned_size_t<16>(sizeof(floatX) * C));
        cg::wait(block);
        float sum = 0.f, sq = 0.f;
        for (int c = threadIdx.x; c < C; c += BLOCK) { float x = __bfloat162float(s_in[c]); sum += x; sq += x * x; }
        sum = cg::reduce(warp, sum, cg::plus<float>{});
        sq = cg::reduce(warp, sq, cg::plus<float>{});
        __shared__ float red[2][BLOCK / 32];
        if (warp.thread_rank() == 0) { red[0][warp.meta_group_rank()] = sum; red[1][warp.meta_group_rank()] = sq; }
        block.sync();
        sum = warp.thread_rank() < BLOCK / 32 ? red[0][warp.thread_rank()] : 0.f;
        sq = warp.thread_rank() < BLOCK / 32 ? red[1][warp.thread_rank()] : 0.f;
        sum = cg::reduce(warp, sum, cg::plus<float>{});
        sq = cg::reduce(warp, sq, cg::plus<float>{});
        float mean = sum / C, rstd = rsqrtf(sq / C - mean * mean + 1e-5f);
        for (int c = threadIdx.x; c < C; c += BLOCK) {
            float x = (__bfloat162float(s_in[c]) - mean) * rstd;
            out[(size_t)row * C + c] = __float2bfloat16(x * __bfloat162float(s_w[c]) + __bfloat162float(s_b[c]));
        }
        block.sync();
    }
}

__global__ void residual_backward_kernel(floatX* dinp1, floatX* dinp2, const floatX* dout, int N) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
    if (i >= N) return;
    x128 d = *reinterpret_cast<const x128*>(dout + i);
    x128 a = *reinterpret_cast<const x128*>(dinp1 + i);
    x128 b2 = *reinterpret_cast<const x128*>(dinp2 + i);
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        a.v[k] = __float2bfloat16(__bfloat162float(a.v[k]) + __bfloat162float(d.v[k]));
        b2.v[k] = __float2bfloat16(__bfloat162float(b2.v[k]) + __bfloat162float(d.v[k]));
    }
    *reinterpret_cast<x128*>(dinp1 + i) = a;
    *reinterpret_cast<x128*>(dinp2 + i) = b2;
}

template <typename OutT>
__global__ void matmul_backward_bias_dyn(OutT* dbias, const floatX* dout, int BT, int OC) {
    extern __shared__ float smem_bias[];
    const int oc = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane_rows = blockDim.y;
    float acc = 0.f;
    for (int r = threadIdx.y; r < BT; r += lane_rows) if (oc < OC) acc += __bfloat162float(dout[(size_t)r * OC + oc]);
    smem_bias[threadIdx.y * blockDim.x + threadIdx.x] = acc;
    __syncthreads();
    for (int s = lane_rows / 2; s > 0; s >>= 1) {
        if (threadIdx.y < s) smem_bias[threadIdx.y * blockDim.x + threadIdx.x] += smem_bias[(threadIdx.y + s) * blockDim.x + threadIdx.x];
        __syncthreads();
    }
    if (threadIdx.y == 0 && oc < OC) atomicAdd(dbias + oc, (OutT)smem_bias[threadIdx.x]);
}

__global__ void half2_accumulate(__half2* acc, const __half2* grads, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(acc + i, grads[i]);
}

__global__ void zero_shard_copy(floatX* __restrict__ dst, const float* __restrict__ master, size_t shard_size, int shard_idx, int num_shards) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= shard_size) return;
    dst[shard_idx * shard_size + i] = __float2bfloat16_rn(master[i]);
    if (i == 0 && shard_idx == num_shards - 1) atomicAdd(&llmc_step_counter, 1ull);
}

template <class T>
__global__ void repkv_forward_kernel1(T* replicated_qkv, const T* gqa_qkv, int B, int N, int NH, int replicate_factor, int HD) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * N * 3 * NH * HD) return;
    int b = idx / (N * 3 * NH * HD); int rest = idx % (N * 3 * NH * HD);
    int n = rest / (3 * NH * HD); rest = rest % (3 * NH * HD);
    int qkv = rest / (NH * HD); rest = rest % (NH * HD);
    int nh = rest / HD; int h = rest % HD;
    int inp_idx;
    int nh_total = NH + 2 * (NH / replicate_factor);
    if (qkv == 0) inp_idx = b * N * nh_total * HD + n * nh_total * HD + 0 * NH * HD + nh * HD + h;
    else if (qkv == 1) inp_idx = b * N * nh_total * HD + n * nh_total * HD + 1 * NH * HD + (nh / replicate_factor) * HD + h;
    else inp_idx = b * N * nh_total * HD + n * nh_total * HD + (NH + NH / replicate_factor) * HD + (nh / replicate_factor) * HD + h;
    replicated_qkv[idx] = __ldcs(&gqa_qkv[inp_idx]);
}

__global__ void swiglu_forward_kernel(floatX* out, const floatX* inp, int B, int T, int C) {
    int idx = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
    if (idx >= B * T * C) return;
    int bt = idx / C, c = idx % C;
    const floatX* up = inp + bt * 2 * C + c;
    const floatX* gate = up + C;
    x128 u = *reinterpret_cast<const x128*>(up), g = *reinterpret_cast<const x128*>(gate), o;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        float gv = __bfloat162float(g.v[k]);
        o.v[k] = __float2bfloat16(__bfloat162float(u.v[k]) * gv / (1.0f + expf(-gv)));
    }
    __stcs(reinterpret_cast<int4*>(out + idx), *reinterpret_cast<int4*>(&o));
}

template __global__ void layernorm_staged<256>(floatX* __restrict__, const floatX* __restrict__, const floatX* __restrict__, const floatX* __restrict__, int, int);
template __global__ void layernorm_staged<512>(floatX* __restrict__, const floatX* __restrict__, const floatX* __restrict__, const floatX* __restrict__, int, int);
template __global__ void matmul_backward_bias_dyn<float>(float*, const floatX*, int, int);
template __global__ void repkv_forward_kernel1<float>(float*, const float*, int, int, int, int, int);
template __global__ void repkv_forward_kernel1<floatX>(floatX*, const floatX*, int, int, int, int, int);
#if __CUDA_ARCH__ >= 800
template __global__ void matmul_backward_bias_dyn<floatX>(floatX*, const floatX*, int, int);
#endif
