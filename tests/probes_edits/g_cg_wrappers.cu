#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void reduce(float *in, double *out) {
  cg::thread_block cta = cg::this_thread_block();
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
  double v = in[threadIdx.x];
  cg::sync(cta);
  for (int o = 16; o > 0; o /= 2) v += tile32.shfl_down(v, o);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}
