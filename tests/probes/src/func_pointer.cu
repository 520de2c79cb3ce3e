// cd tests/probes/src && nvcc -arch=compute_75 -ptx func_pointer.cu -o ../func_pointer.ptx
// An indirect call through a function pointer chosen at run time from a table.
typedef int (*op_t)(int, int);

__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_sub(int a, int b) { return a - b; }

__global__ void k_fptr(int *out, int sel, int a, int b)
{
    op_t ops[3] = {op_add, op_mul, op_sub};
    op_t f = ops[(sel + threadIdx.x) % 3];
    out[threadIdx.x] = f(a, b);
}
