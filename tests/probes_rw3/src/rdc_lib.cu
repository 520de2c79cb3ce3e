// Separate compilation (nvcc -rdc=true): device functions with external linkage called across
// translation units, a kernel calling an extern one, a device global defined elsewhere.
extern __device__ float scale_factor;
extern __device__ float remote_scale(float x);
__device__ float local_poly(float x) { return x * x + 1.f; }
__device__ int counter;
__global__ void k_rdc(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = remote_scale(local_poly(out[i])) * scale_factor;
    if (i == 0) atomicAdd(&counter, 1);
}
