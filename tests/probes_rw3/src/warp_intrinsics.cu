// Warp-level intrinsics (match, vote, reduce), float/double atomics, nanosleep, clock.
__device__ unsigned long long g_clock;
__global__ void warp_ops(const int* keys, int* groups, float* fsum, double* dsum, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int k = i < n ? keys[i] : -1;
    unsigned peers = __match_any_sync(0xffffffff, k);
    unsigned ballot = __ballot_sync(0xffffffff, k > 0);
#if __CUDA_ARCH__ >= 800
    int total = __reduce_add_sync(0xffffffff, k);
#else
    int total = __popc(ballot);
#endif
    if (i < n) groups[i] = __popc(peers) + total + __any_sync(0xffffffff, k == 0);
    atomicAdd(fsum, (float)k);
    atomicAdd(dsum, (double)k);
    if ((threadIdx.x & 31) == 0) { __nanosleep(100); atomicMax(&g_clock, (unsigned long long)clock64()); }
}
