// __constant__ coefficient tables, __device__ globals with initialisers, a struct __grid_constant__ param.
struct Params { float coeffs[16]; int n; float bias; const float* src; float* dst; };
__constant__ float c_filter[9] = {0.0625f, 0.125f, 0.0625f, 0.125f, 0.25f, 0.125f, 0.0625f, 0.125f, 0.0625f};
__constant__ double c_poly[6] = {1.0, 0.5, 0.1666666666, 0.0416666666, 0.0083333333, 0.0013888888};
__device__ int d_calls = 0;
__device__ float d_scale = 2.0f;
__device__ const float* d_lut_ptr;

__global__ void conv3x3(const float* in, float* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    float s = 0.f;
#pragma unroll
    for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
        for (int dx = -1; dx <= 1; ++dx) s += c_filter[(dy + 1) * 3 + dx + 1] * in[(y + dy) * w + x + dx];
    out[y * w + x] = s * d_scale;
}
__global__ void poly_exp(const double* x, double* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = x[i], r = 0.0;
    for (int k = 5; k >= 0; --k) r = r * v + c_poly[k];
    y[i] = r;
    if (i == 0) atomicAdd(&d_calls, 1);
}
__global__ void apply_params(const __grid_constant__ Params p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n) return;
    float v = p.src[i], acc = 0.f;
    for (int k = 0; k < 16; ++k) acc = acc * v + p.coeffs[k];
    p.dst[i] = acc + p.bias + (d_lut_ptr ? d_lut_ptr[i & 15] : 0.f);
}
