// cd tests/probes/src && nvcc -arch=compute_75 -ptx spills.cu -o ../spills.ptx
// Register spills: a register-heavy kernel limited to 16 registers with
// __maxnreg__(16) (PTX .maxnreg 16), so ptxas spills to local memory.
__global__ void __maxnreg__(16) k_spill(const float *in, float *out)
{
    float v[24];
#pragma unroll
    for (int i = 0; i < 24; ++i) v[i] = in[threadIdx.x + i * 32];
    float acc = 0.f;
#pragma unroll
    for (int i = 0; i < 24; ++i)
#pragma unroll
        for (int j = i + 1; j < 24; ++j) acc += v[i] * v[j];
    out[threadIdx.x] = acc;
}
