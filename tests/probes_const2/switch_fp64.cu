// nvcc -arch=sm_75 -ptx switch_fp64.cu -o switch_fp64.ptx  (jump tables, FP64 literals)
__device__ __noinline__ int dev_switch(int s, int v)
{
    switch (s) {
    case 0: return v * 3 + 1;
    case 1: return v ^ 0x55;
    case 2: return v - 17;
    case 3: return v << 3;
    case 4: return v / 7;
    case 5: return v + 1234567;
    case 6: return v * v;
    default: return -v;
    }
}

__global__ void k_switch(int *out, int s, int v)
{
    int r;
    switch (s & 7) {
    case 0: r = v + 11; break;
    case 1: r = v * 13; break;
    case 2: r = v ^ 0x1234; break;
    case 3: r = v - 99; break;
    case 4: r = v >> 2; break;
    case 5: r = v | 0x80; break;
    case 6: r = v & 0x7f; break;
    default: r = 0; break;
    }
    out[0] = r + dev_switch(s >> 3, v);
}

__global__ void k_fp64(double *out, double x)
{
    out[0] = x * 3.14159265358979323846 + 2.71828182845904523536;
    out[1] = x * 0.1234567890123 - 1.0e-300;
}
