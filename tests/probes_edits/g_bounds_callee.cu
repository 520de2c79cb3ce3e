// two kernels share ptxas's f32 division slow path; k_bounded's launch bounds cap its registers
__global__ void __launch_bounds__(1024, 2) k_bounded(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = a[i] / b[i];
}
__global__ void k_free(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int j = 0; j < n; j++) s += a[i + j] / b[j];
    a[i] = s;
}
__global__ void k_other(float *a)
{
    a[threadIdx.x] += 1.0f;
}
