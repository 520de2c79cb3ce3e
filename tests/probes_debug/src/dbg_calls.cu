// Two kernels sharing __noinline__ device functions, one calling another; a static one.
__device__ __noinline__ int square(int x)
{
    return x * x;
}

static __device__ __noinline__ int poly(int x, int c)
{
    int r = 0;
    for (int i = 0; i < c; ++i)
        r = r * x + square(i);
    return r;
}

__device__ __noinline__ float blend(float a, float b, float t)
{
    return a + (b - a) * t;
}

__global__ void k_poly(const int *in, int *out, int n)
{
    int t = threadIdx.x;
    if (t < n)
        out[t] = poly(in[t], 4) + square(t);
}

__global__ void k_blend(const float *a, const float *b, float *out, float t)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = blend(a[i], b[i], t);
}
