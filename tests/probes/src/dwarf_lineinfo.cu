// cd tests/probes/src && PWD=/proc/self/cwd nvcc -arch=compute_75 -lineinfo -ptx dwarf_lineinfo.cu -o ../dwarf_lineinfo.ptx
// (PWD=/proc/self/cwd makes cicc write /proc/self/cwd as the .file directory
// instead of this machine's absolute working directory.)
// Line info only (-lineinfo): .file/.loc directives in the PTX, with a
// __noinline__ device function with a loop and a kernel calling it.
__device__ __noinline__ int accumulate(const int *p, int n)
{
    int s = 0;
    for (int i = 0; i < n; ++i)
        s += p[i] * (i + 1);
    return s;
}

__global__ void k_lines(const int *in, int *out, int n)
{
    int t = threadIdx.x;
    int v = accumulate(in + t, n);
    out[t] = v > 100 ? v : -v;
}
