// Regenerate (from tests/probes_rw/src): see ../README.md
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void __cluster_dims__(2,1,1) clus(int *o) {
  cg::cluster_group c = cg::this_cluster();
  __shared__ int s; s = blockIdx.x; c.sync();
  int *r = c.map_shared_rank(&s, (c.block_rank() + 1) % 2); o[blockIdx.x] = *r; c.sync();
}
extern "C" __global__ void bulk(float *dst, const float *src) {
  __shared__ alignas(128) float buf[256];
  __shared__ unsigned long long bar;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" :: "r"((unsigned)__cvta_generic_to_shared(buf)), "l"(src), "r"((unsigned)__cvta_generic_to_shared(&bar)) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], 1024;" :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
  }
  __syncthreads();
  asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared.b64 p, [%0], 0; @!p bra W; }" :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
  dst[threadIdx.x] = buf[threadIdx.x];
}
