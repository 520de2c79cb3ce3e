// Three kernels share the module's extern (dynamic) shared array, one does not use it.
// Under -g ptxas keeps the kept kernels' code when one goes or the order changes.
extern __shared__ float sh[];
__global__ void k_stage(float *a, float *b) { int i = threadIdx.x; sh[i] = a[i]; __syncthreads(); a[i] = sh[i + 1] / b[i] + 1.0f; }
__global__ void k_sum(float *a, float *b) { int i = threadIdx.x; float s = 0; for (int j = 0; j < 4; j++) s += a[i + j] / b[i * j]; sh[i] = s; __syncthreads(); a[i] = sh[i ^ 1]; }
__global__ void k_plain(float *a, float *b, int n) { int i = threadIdx.x; float s = 0; for (int j = 0; j < n; j++) s += a[i + j] / b[i * j]; a[i] = s; }
__global__ void k_mirror(float *a) { int i = threadIdx.x; sh[i] = a[i]; __syncthreads(); a[i] = sh[31 - i]; }
