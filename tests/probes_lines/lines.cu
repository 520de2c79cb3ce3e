// tests/probes_lines: line tables under edits of the PTX text (nvcc -ptx -lineinfo -arch sm_75)
__device__ __noinline__ float square_plus(float x) { return x * x + 1.0f; }
__device__ float twice(float x) { return 2.0f * x; }
__global__ void k_scale(float *a, float b) { a[threadIdx.x] *= square_plus(b); }
__global__ void k_add(float *a, float b)
{
    a[threadIdx.x] += twice(b);
}
__global__ void k_sub(float *a, float b) { a[threadIdx.x] -= square_plus(twice(b)); }
__global__ void k_loop(float *a, int n)
{
    for (int i = 0; i < n; ++i)
        a[i * blockDim.x + threadIdx.x] += twice(a[i]);
}
