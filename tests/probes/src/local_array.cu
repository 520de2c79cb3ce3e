// cd tests/probes/src && nvcc -arch=compute_75 -ptx local_array.cu -o ../local_array.ptx
// Local memory: a per-thread histogram array written and read at data-dependent
// indices, so it has to live in .local (a __local_depot) instead of registers.
__global__ void k_local(const int *in, int *out, int n)
{
    int hist[64];
    for (int i = 0; i < 64; ++i) hist[i] = 0;
    for (int i = 0; i < n; ++i) hist[in[i * 32 + threadIdx.x] & 63] += i;
    int idx = in[threadIdx.x] & 63;
    out[threadIdx.x] = hist[idx] + hist[(idx * 7) & 63];
}
