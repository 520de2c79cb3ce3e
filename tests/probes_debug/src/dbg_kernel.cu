// One kernel with a local array, a loop and float math; no device functions.
__global__ void k_scale(const float *in, float *out, int n, float a)
{
    float buf[8];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < 8; ++i)
        buf[i] = in[(t + i) % n] * a;
    float s = 0.0f;
    for (int i = 0; i < 8; ++i)
        s += fmaxf(fabsf(buf[i]), 1.0f) * buf[(i * 3) & 7];
    if (t < n)
        out[t] = s;
}
