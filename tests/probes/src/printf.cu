// cd tests/probes/src && nvcc -arch=compute_75 -ptx printf.cu -o ../printf.ptx
// printf from a kernel: an extern call to vprintf with a local argument buffer.
#include <cstdio>

__global__ void k_printf(int a, double b)
{
    printf("tid %d a=%d b=%f\n", (int)threadIdx.x, a, b);
}
