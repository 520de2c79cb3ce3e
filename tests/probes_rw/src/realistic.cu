// Regenerate (from tests/probes_rw/src): see ../README.md
#include <cooperative_groups.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cassert>
namespace cg = cooperative_groups;
__constant__ double coeffs[8] = {1,2,3,4,5,6,7,8};
__device__ float gbuf[1024];
__device__ __managed__ int mcount;
template <typename T> __device__ T warp_sum(T v) { for (int o = 16; o; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o); return v; }
extern "C" __global__ void __launch_bounds__(256, 2) reduce(const float *in, float *out, int n) {
  extern __shared__ float sm[];
  cg::thread_block b = cg::this_thread_block();
  float v = 0; for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) sm[threadIdx.x >> 5] = v;
  b.sync();
  if (threadIdx.x == 0) { float s = 0; for (int i = 0; i < blockDim.x / 32; i++) s += sm[i]; atomicAdd(out, s); }
}
extern "C" __global__ void gridsync(int *data) {
  cg::grid_group g = cg::this_grid();
  data[g.thread_rank()] += 1; g.sync(); data[g.thread_rank()] *= 2;
}
extern "C" __global__ void mathy(double *x, __half *h, __nv_bfloat16 *bf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  double d = sqrt(x[i]) / (x[i] + coeffs[i & 7]); x[i] = d + exp(d) + sin(d);
  h[i] = __hadd(h[i], __float2half(1.0f)); bf[i] = __hmul(bf[i], bf[i]);
  assert(i < 1 << 30);
  atomicAdd(&mcount, 1); gbuf[i & 1023] = (float)d;
}
struct Big { float a[300]; };
extern "C" __global__ void bigparam(Big b, float *o) { o[threadIdx.x] = b.a[threadIdx.x % 300]; }
