// nvcc -arch=sm_75 -ptx fp64.cu -o fp64.ptx  (FP64 literals that are no immediates)
__device__ __noinline__ double dev_poly(double x)
{
    return ((x * 0.3183098861837907 + 1.4142135623730951) * x - 0.5772156649015329) * x + 1.6180339887498949;
}

static __device__ __noinline__ double dev_static(double x)
{
    return x * 2.718281828459045 - 1.0e-300;
}

__global__ void k_fp64(double *out, double x)
{
    out[0] = x * 3.141592653589793 + 2.302585092994046;
    out[1] = dev_poly(x) + dev_static(x);
}

__global__ void k_fp64_b(double *out, const double *in)
{
    out[0] = in[0] * 0.6931471805599453 + 1.2020569031595942;
}
