// A resolved subroutine call after the first resolved reference (sm_80-89 -g): a store to
// extern shared memory, then the atom.cas loop of a bf16 atomicAdd; plus the orders already
// known (the call first; an atom in a loop).
#include <cuda_bf16.h>
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
