__device__ float gdata[256];
__shared__ float ns_a[64];
__shared__ int ns_b[16];
__shared__ double ns_unused[8];
__constant__ float cst[4] = {1, 2, 3, 4};
__device__ __noinline__ void fill(int i) { ns_a[i & 63] = gdata[i & 255] * cst[i & 3]; }
__device__ __noinline__ int count(int v) { atomicAdd(&ns_b[v & 15], 1); __syncthreads(); return ns_b[threadIdx.x & 15]; }
__global__ void kA(float* out) { fill(threadIdx.x); __syncthreads(); out[threadIdx.x] = ns_a[(threadIdx.x + 1) & 63]; }
__global__ void kB(int* out) { out[threadIdx.x] = count(threadIdx.x); }
__global__ void kC(float* out, int* o2) {
    __shared__ float local[32];
    fill(threadIdx.x);
    local[threadIdx.x & 31] = ns_a[threadIdx.x & 63];
    __syncthreads();
    out[threadIdx.x] = local[(threadIdx.x + 1) & 31];
    o2[threadIdx.x] = count(threadIdx.x);
}
__global__ void kD(float* out) {
    extern __shared__ float dyn[];
    dyn[threadIdx.x] = threadIdx.x; __syncthreads();
    out[threadIdx.x] = dyn[(threadIdx.x + 1) % blockDim.x];
}
__global__ void kE(float* out) { out[threadIdx.x] = gdata[threadIdx.x]; }
