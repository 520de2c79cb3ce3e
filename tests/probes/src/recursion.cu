// cd tests/probes/src && nvcc -arch=compute_75 -ptx recursion.cu -o ../recursion.ptx
// A recursive device function (non-tail recursion, needs a call stack).
__device__ __noinline__ int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__global__ void k_fib(int *out, int n)
{
    out[threadIdx.x] = fib(n + (int)threadIdx.x);
}
