// Device globals that point at each other and at functions; a device-side function table.
__device__ int g_values[4] = {1, 2, 3, 4};
__device__ int* g_ptr = &g_values[2];
__device__ const char g_name[] = "table";
__device__ const char* g_names[2] = {g_name, g_name + 2};
typedef int (*op_t)(int);
__device__ int inc(int x) { return x + 1; }
__device__ int dbl(int x) { return x * 2; }
__device__ op_t g_ops[2] = {inc, dbl};
__constant__ float c_coeffs[8] = {0.5f, 0.25f, 0.125f, 1.f, 2.f, 4.f, 8.f, 16.f};
__global__ void use_tables(int* out, int sel) {
    int i = threadIdx.x;
    out[i] = g_ops[sel & 1](*g_ptr + g_values[i & 3]) + (int)c_coeffs[i & 7] + g_names[sel & 1][0];
}
