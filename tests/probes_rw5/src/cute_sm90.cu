// CUTLASS 3.x / CuTe-style Hopper GEMM: a warp-specialised kernel (one producer warpgroup that
// issues TMA loads with cp.async.bulk.tensor and multicast into a cluster, two consumer
// warpgroups running wgmma.mma_async on smem descriptors), a multi-stage full/empty mbarrier
// pipeline, setmaxnreg register reallocation, elect.sync, programmatic dependent launch, fences,
// stmatrix and a TMA store epilogue. Hand-written inline PTX in the CUTLASS manner (compute_90a).
#include <cuda.h>
#include <cstdint>
#include <cuda_fp16.h>

namespace cute_like {
__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ uint32_t elect_one() {
    uint32_t pred = 0;
    asm volatile("{\n .reg .b32 %%rx;\n .reg .pred %%px;\n elect.sync %%rx|%%px, 0xffffffff;\n @%%px mov.s32 %0, 1;\n}\n" : "+r"(pred));
    return pred;
}
struct ClusterBarrier {
    uint64_t bar;
    __device__ __forceinline__ void init(uint32_t count) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(&bar)), "r"(count)); }
    __device__ __forceinline__ void arrive_expect_tx(uint32_t bytes) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(&bar)), "r"(bytes));
    }
    __device__ __forceinline__ void arrive_remote(uint32_t cta) {
        asm volatile("{\n .reg .b32 remAddr32;\n mapa.shared::cluster.u32 remAddr32, %0, %1;\n mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remAddr32];\n}\n"
                     ::"r"(smem_u32(&bar)), "r"(cta));
    }
    __device__ __forceinline__ void wait(uint32_t phase) {
        asm volatile("{\n .reg .pred P1;\n LAB_WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1, 10000000;\n @P1 bra DONE;\n bra LAB_WAIT;\n DONE:\n}\n"
                     ::"r"(smem_u32(&bar)), "r"(phase));
    }
};
__device__ __forceinline__ void tma_load_2d_multicast(const CUtensorMap* map, ClusterBarrier& bar, void* dst, int c0, int c1, uint16_t mask) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;\n"
                 ::"r"(smem_u32(dst)), "l"(map), "r"(smem_u32(&bar.bar)), "r"(c0), "r"(c1), "h"(mask) : "memory");
}
__device__ __forceinline__ void tma_load_2d(const CUtensorMap* map, ClusterBarrier& bar, void* dst, int c0, int c1) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n"
                 ::"r"(smem_u32(dst)), "l"(map), "r"(smem_u32(&bar.bar)), "r"(c0), "r"(c1) : "memory");
}
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src, int c0, int c1) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(map), "r"(smem_u32(src)), "r"(c0), "r"(c1) : "memory");
    asm volatile("cp.async.bulk.commit_group;\n");
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}
__device__ __forceinline__ uint64_t make_desc(const void* smem, int layout_type, int lbo, int sbo) {
    uint64_t d = 0;
    d |= (uint64_t)((smem_u32(smem) & 0x3FFFF) >> 4);
    d |= (uint64_t)(lbo >> 4) << 16;
    d |= (uint64_t)(sbo >> 4) << 32;
    d |= (uint64_t)layout_type << 62;
    return d;
}
template <int ScaleD>
__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[32], uint64_t da, uint64_t db) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "%32, %33, p, 1, 1, 0, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(da), "l"(db), "n"(ScaleD));
}
template <int RegCount> __device__ __forceinline__ void warpgroup_reg_alloc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(RegCount)); }
template <int RegCount> __device__ __forceinline__ void warpgroup_reg_dealloc() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(RegCount)); }
__device__ __forceinline__ uint32_t cluster_ctarank() { uint32_t r; asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r)); return r; }
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::);
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::);
}
}  // namespace cute_like

template <int kStages, int kBM, int kBN, int kBK>
struct SharedStorage {
    alignas(1024) __half A[kStages][kBM * kBK];
    alignas(1024) __half B[kStages][kBN * kBK];
    alignas(128) __half C[kBM * kBN];
    cute_like::ClusterBarrier full[kStages];
    cute_like::ClusterBarrier empty[kStages];
};

template <int kStages>
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(384, 1)
gemm_ws_tma_wgmma(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                  const __grid_constant__ CUtensorMap tmC, int k_tiles, float alpha) {
    using namespace cute_like;
    constexpr int BM = 128, BN = 64, BK = 64;
    using Storage = SharedStorage<kStages, BM, BN, BK>;
    extern __shared__ __align__(1024) unsigned char smem_buf[];
    Storage& s = *reinterpret_cast<Storage*>(smem_buf);
    const int wg = threadIdx.x / 128;
    const uint32_t rank = cluster_ctarank();
    if (threadIdx.x == 0) {
        for (int i = 0; i < kStages; i++) { s.full[i].init(1); s.empty[i].init(2 * 2); }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    cluster_sync();
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
    if (wg == 0) {
        warpgroup_reg_dealloc<40>();
        if (threadIdx.x / 32 == 0 && elect_one()) {
            for (int kt = 0, stage = 0, phase = 0; kt < k_tiles; kt++) {
                s.empty[stage].wait(phase ^ 1);
                s.full[stage].arrive_expect_tx((BM + BN * 2) * BK * sizeof(__half) / 2);
                tma_load_2d(&tmA, s.full[stage], s.A[stage], kt * BK, blockIdx.y * BM);
                tma_load_2d_multicast(&tmB, s.full[stage], s.B[stage] + rank * (BN * BK / 2), kt * BK, blockIdx.x * BN + rank * BN / 2, 0x3);
                if (++stage == kStages) { stage = 0; phase ^= 1; }
            }
        }
    } else {
        warpgroup_reg_alloc<232>();
        float acc[32];
#pragma unroll
        for (int i = 0; i < 32; i++) acc[i] = 0.f;
        for (int kt = 0, stage = 0, phase = 0; kt < k_tiles; kt++) {
            s.full[stage].wait(phase);
            asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
            for (int k = 0; k < BK / 16; k++) {
                uint64_t da = make_desc(s.A[stage] + (wg - 1) * 64 * BK + k * 16, 1, 16, 1024);
                uint64_t db = make_desc(s.B[stage] + k * 16, 1, 16, 1024);
                wgmma_m64n64k16<1>(acc, da, db);
            }
            asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
            asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
            if (threadIdx.x % 128 == 0) {
                s.empty[stage].arrive_remote(0);
                s.empty[stage].arrive_remote(1);
            }
            if (++stage == kStages) { stage = 0; phase ^= 1; }
        }
        const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
#pragma unroll
        for (int i = 0; i < 32; i += 8) {
            uint32_t p[4];
#pragma unroll
            for (int j = 0; j < 4; j++) {
                __half2 h = __floats2half2_rn(alpha * acc[i + 2 * j], alpha * acc[i + 2 * j + 1]);
                p[j] = *reinterpret_cast<uint32_t*>(&h);
            }
            __half* dst = s.C + ((wg - 1) * 64 + warp * 16 + (lane % 16)) * BN + (i / 8) * 16 + (lane / 16) * 8;
            asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_u32(dst)), "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]));
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        asm volatile("bar.sync 1, 256;\n" ::: "memory");
        if (threadIdx.x == 128) tma_store_2d(&tmC, s.C, blockIdx.x * BN, blockIdx.y * BM);
    }
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
    cluster_sync();
}
template __global__ void gemm_ws_tma_wgmma<4>(const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, int, float);
template __global__ void gemm_ws_tma_wgmma<6>(const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, int, float);

// A persistent tile scheduler over a static-shared ring, with a cluster-wide reduction through
// distributed shared memory (ld.shared::cluster) and a bulk (non-tensor) copy.
__global__ void __cluster_dims__(4, 1, 1) persistent_dsmem_reduce(const float4* __restrict__ in, float* out, int tiles, int* tile_counter) {
    using namespace cute_like;
    __shared__ alignas(128) float4 buf[2][256];
    __shared__ ClusterBarrier bars[2];
    __shared__ float partial[4];
    __shared__ int next_tile;
    if (threadIdx.x == 0) { bars[0].init(1); bars[1].init(1); }
    __syncthreads();
    float sum = 0.f;
    int phase[2] = {0, 0};
    for (int it = 0;; it++) {
        if (threadIdx.x == 0) next_tile = atomicAdd(tile_counter, 1);
        __syncthreads();
        int tile = next_tile;
        if (tile >= tiles) break;
        int b = it & 1;
        if (threadIdx.x == 0) {
            bars[b].arrive_expect_tx(sizeof(buf[b]));
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
                         ::"r"(smem_u32(buf[b])), "l"(in + tile * 256), "r"((int)sizeof(buf[b])), "r"(smem_u32(&bars[b].bar)) : "memory");
        }
        bars[b].wait(phase[b]);
        phase[b] ^= 1;
        float4 v = buf[b][threadIdx.x];
        sum += v.x + v.y + v.z + v.w;
        __syncthreads();
    }
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (threadIdx.x % 32 == 0) atomicAdd(&partial[threadIdx.x / 32 % 4], sum);
    cluster_sync();
    if (cluster_ctarank() == 0 && threadIdx.x < 4) {
        float tot = 0.f;
        for (uint32_t r = 0; r < 4; r++) {
            uint32_t remote;
            float v;
            asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(smem_u32(&partial[threadIdx.x])), "r"(r));
            asm volatile("ld.shared::cluster.f32 %0, [%1];\n" : "=f"(v) : "r"(remote));
            tot += v;
        }
        atomicAdd(out, tot);
    }
    cluster_sync();
}
