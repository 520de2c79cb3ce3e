// CUTLASS-style Blackwell (sm_100a) GEMM tile: TMA loads into swizzled shared memory with an
// mbarrier, a tensor-memory accumulator (tcgen05.alloc / dealloc), tcgen05.mma with smem
// descriptors and an instruction descriptor, tcgen05.commit to an mbarrier, and a tcgen05.ld
// epilogue from tensor memory. Inline PTX in the CUTLASS manner (compute_100a).
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ uint32_t s32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(uint64_t* b, uint32_t n) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(s32(b)), "r"(n)); }
__device__ __forceinline__ void mbar_wait(uint64_t* b, uint32_t ph) {
    asm volatile("{\n .reg .pred P1;\n WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n @!P1 bra WAIT_%=;\n}\n" ::"r"(s32(b)), "r"(ph));
}
__device__ __forceinline__ uint64_t sdesc(const void* p) {
    uint64_t d = (uint64_t)((s32(p) & 0x3FFFF) >> 4);
    d |= (uint64_t)1 << 16;          // leading byte offset (ignored for swizzled K-major)
    d |= (uint64_t)(1024 >> 4) << 32; // stride byte offset: 8 rows x 128 B
    d |= (uint64_t)1 << 46;          // sm100 descriptor version
    d |= (uint64_t)2 << 61;          // 128 B swizzle
    return d;
}

template <int BN, bool kAccumulate>
__global__ void __launch_bounds__(128, 1)
umma_gemm_tile(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB, float* __restrict__ C, int ldc, int k_tiles) {
    constexpr int BM = 128, BK = 64;
    __shared__ alignas(1024) uint16_t sA[BM * BK];
    __shared__ alignas(1024) uint16_t sB[BN * BK];
    __shared__ uint64_t full_bar, mma_bar;
    __shared__ uint32_t tmem_base;
    const int warp = threadIdx.x / 32;
    if (warp == 0) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;\n" ::"r"(s32(&tmem_base)), "n"(BN));
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n");
    }
    if (threadIdx.x == 32) { mbar_init(&full_bar, 1); mbar_init(&mma_bar, 1); asm volatile("fence.mbarrier_init.release.cluster;\n"); }
    asm volatile("tcgen05.fence::before_thread_sync;\n");
    __syncthreads();
    asm volatile("tcgen05.fence::after_thread_sync;\n");
    const uint32_t tmem = tmem_base;
    // instruction descriptor: f32 accumulate, bf16 A/B, K-major, N>>3, M>>4
    constexpr uint32_t idesc = (1u << 4) | (1u << 7) | (1u << 10) | ((uint32_t)(BN >> 3) << 17) | ((uint32_t)(BM >> 4) << 24);
    for (int kt = 0; kt < k_tiles; kt++) {
        if (threadIdx.x == 0) {
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(s32(&full_bar)), "r"((BM + BN) * BK * 2));
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n"
                         ::"r"(s32(sA)), "l"(&tmA), "r"(s32(&full_bar)), "r"(kt * BK), "r"((int)blockIdx.y * BM) : "memory");
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n"
                         ::"r"(s32(sB)), "l"(&tmB), "r"(s32(&full_bar)), "r"(kt * BK), "r"((int)blockIdx.x * BN) : "memory");
        }
        mbar_wait(&full_bar, kt & 1);
        asm volatile("tcgen05.fence::after_thread_sync;\n");
        if (threadIdx.x == 0) {
#pragma unroll
            for (int k = 0; k < BK / 16; k++) {
                uint64_t da = sdesc(sA + k * 16), db = sdesc(sB + k * 16);
                uint32_t acc = (kAccumulate || kt > 0 || k > 0) ? 1u : 0u;
                asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}\n"
                             ::"r"(tmem), "l"(da), "l"(db), "r"(idesc), "r"(acc));
            }
            asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\n" ::"r"(s32(&mma_bar)) : "memory");
        }
        mbar_wait(&mma_bar, kt & 1);
    }
    asm volatile("tcgen05.fence::after_thread_sync;\n");
    const int row = blockIdx.y * BM + warp * 32 + threadIdx.x % 32;
#pragma unroll
    for (int c = 0; c < BN; c += 8) {
        uint32_t r[8];
        uint32_t taddr = tmem + ((uint32_t)(warp * 32) << 16) + c;
        asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0,%1,%2,%3,%4,%5,%6,%7}, [%8];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]) : "r"(taddr));
        asm volatile("tcgen05.wait::ld.sync.aligned;\n" ::: "memory");
#pragma unroll
        for (int j = 0; j < 8; j++) C[(size_t)row * ldc + blockIdx.x * BN + c + j] = __uint_as_float(r[j]);
    }
    asm volatile("tcgen05.fence::before_thread_sync;\n");
    __syncthreads();
    if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;\n" ::"r"(tmem), "n"(BN));
}
template __global__ void umma_gemm_tile<64, false>(const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, float*, int, int);
template __global__ void umma_gemm_tile<128, true>(const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, float*, int, int);
