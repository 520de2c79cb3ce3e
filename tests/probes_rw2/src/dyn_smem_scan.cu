// Block-wide inclusive scan in dynamic shared memory (CUDA samples style).
extern __shared__ float sdata[];
__global__ void scan_block(const float* in, float* out, int n) {
    int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.f;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        float t = tid >= off ? sdata[tid - off] : 0.f;
        __syncthreads();
        sdata[tid] += t;
        __syncthreads();
    }
    if (i < n) out[i] = sdata[tid];
}
