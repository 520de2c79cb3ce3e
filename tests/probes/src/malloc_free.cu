// cd tests/probes/src && nvcc -arch=compute_75 -ptx malloc_free.cu -o ../malloc_free.ptx
// Device-side malloc and free (extern calls to malloc/free).
__global__ void k_malloc(int **out, int n)
{
    int *p = (int *)malloc(n * sizeof(int));
    if (p) {
        for (int i = 0; i < n; ++i) p[i] = i;
        out[threadIdx.x] = p;
    }
}

__global__ void k_free(int **in)
{
    free(in[threadIdx.x]);
}
