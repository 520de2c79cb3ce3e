// Hopper-style GEMM tile: TMA bulk tensor loads into shared memory with an mbarrier, a
// wgmma.mma_async on the loaded tiles, fences and a cluster-aware epilogue (CUTLASS shape).
#include <cuda.h>
#include <cuda/ptx>
#include <cuda/barrier>
#include <cstdint>
namespace ptx = cuda::ptx;
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128, 1)
gemm_tile(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b, float* out, int ld) {
    __shared__ alignas(128) uint16_t sa[64 * 64];
    __shared__ alignas(128) uint16_t sb[64 * 64];
    __shared__ uint64_t bar;
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_proxy_async(ptx::space_shared);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int32_t ca[2] = {0, (int)blockIdx.x * 64};
        int32_t cb[2] = {0, (int)blockIdx.y * 64};
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, sa, &tmap_a, ca, &bar);
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, sb, &tmap_b, cb, &bar);
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(sa) + sizeof(sb));
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {}
    float d[32];
    for (int i = 0; i < 32; ++i) d[i] = 0.f;
    uint64_t desc_a = (uint64_t)__cvta_generic_to_shared(sa) >> 4;
    uint64_t desc_b = (uint64_t)__cvta_generic_to_shared(sb) >> 4;
    asm volatile("wgmma.fence.sync.aligned;\n");
    asm volatile(
        "{\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "%32, %33, 1, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(desc_a), "l"(desc_b));
    asm volatile("wgmma.commit_group.sync.aligned;\n");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + threadIdx.x) * 32 + i] = d[i];
}
