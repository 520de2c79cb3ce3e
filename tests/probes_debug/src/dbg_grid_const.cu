// nvcc -G: a template kernel with a __grid_constant__ struct parameter. The first entry of
// .debug_loc starts at a label ptxas does not place (an undefined local symbol, $L__tmp1):
// its symbol is made, its relocation asks .rela.debug_loc, then the placed ones
// .rel.debug_loc (a random module's reduce10<double>, d/s0158 -G, every target).
struct Params2 {
    float f0;
    int f1;
    float4 f2;
    float f3;
    float4 f4;
};
template <typename T>
__global__ void reduce(T * out, const float * __restrict__ in, int n, const __grid_constant__ Params2 p, int a0, double a1)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    (void)lane;
    float acc = in[tid % n] * -2.8882f;
    int iacc = tid;
    double dacc = 1.0;
    acc = acc * 0.5f + (p.f4.x + p.f4.w);
for (int i = 0; i < n; ++i) {
        acc += in[i % n];
    }
    if (tid < n) out[tid] = (T)(acc + (float)iacc + (float)dacc);
}

template __global__ void reduce<double>(double *, const float * __restrict__, int, const __grid_constant__ Params2, int, double);
