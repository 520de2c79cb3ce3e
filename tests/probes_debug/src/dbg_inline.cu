// Forced-inline device functions (inlined-subroutine DWARF), templates, a switch.
template <typename T>
__device__ __forceinline__ T clampv(T v, T lo, T hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

__device__ __forceinline__ int pick(int k, int a, int b)
{
    switch (k & 3) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    default: return a ^ b;
    }
}

__global__ void k_inline(const int *in, int *out, float *fo, int n)
{
    int t = threadIdx.x;
    int v = clampv(in[t], 0, n);
    out[t] = pick(t, v, n);
    fo[t] = clampv((float)v * 0.5f, 0.0f, 10.0f);
}
