// nvcc -arch=compute_75 -ptx vadd_plain.cu -o vadd_plain.ptx
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
