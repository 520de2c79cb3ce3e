// cd tests/probes/src && PWD=/proc/self/cwd nvcc -arch=compute_75 -G -ptx dwarf_g.cu -o ../dwarf_g.ptx
// (PWD=/proc/self/cwd makes cicc write /proc/self/cwd as the DWARF comp_dir and
// .file directory instead of this machine's absolute working directory.)
// Full device debug info (-G): DWARF sections in the PTX, a __noinline__
// device function with a loop, a __device__ global and a local variable.
__device__ int g_counter;

__device__ __noinline__ int accumulate(const int *p, int n)
{
    int s = 0;
    for (int i = 0; i < n; ++i)
        s += p[i] * (i + 1);
    return s;
}

__global__ void k_debug(const int *in, int *out, int n)
{
    int t = threadIdx.x;
    int v = accumulate(in + t, n);
    if (v > 100)
        g_counter = v;
    out[t] = v;
}
