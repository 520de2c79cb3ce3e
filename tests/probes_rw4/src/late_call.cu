// A resolved subroutine call after the first resolved reference (sm_80-89 -g): a store to
// extern shared memory, then the atom.cas loop of a bf16 atomicAdd; plus the orders already
// known (the call first; an atom in a loop).
#include <cuda_bf16.h>
__device__ float gsum[64];
extern __shared__ float sm[];
__global__ void k_late(__nv_bfloat16* d, const float* x) {
    sm[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    atomicAdd(d + threadIdx.x, __float2bfloat16(sm[threadIdx.x ^ 1]));
}
__global__ void k_first(__nv_bfloat16* d, const float* x) {
    atomicAdd(d + threadIdx.x, __float2bfloat16(x[threadIdx.x]));
    sm[threadIdx.x] = x[threadIdx.x];
}
__global__ void k_loop(unsigned* h, const unsigned char* x, int n) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) { unsigned o = atomicAdd(h + x[i], 1u); if (o > 100) sm[i & 31] = o; }
}
// the call after a kept relocation (a store to a device global) and after a reference
// that also makes the kernel's constant bank (an FP64 literal)
__global__ void k_late_global(__nv_bfloat16* d, const float* x) {
    gsum[threadIdx.x & 63] = x[threadIdx.x];
    atomicAdd(d + threadIdx.x, __float2bfloat16(x[threadIdx.x ^ 1]));
}
__global__ void k_late_fp64(__nv_bfloat16* d, const double* x) {
    sm[threadIdx.x] = (float)(x[threadIdx.x] * 3.14159265358979);
    atomicAdd(d + threadIdx.x, __float2bfloat16(sm[threadIdx.x ^ 1] + 2.718281828459045));
}
