#include <cstdio>
struct Shape { __device__ virtual float area() const = 0; __device__ virtual ~Shape() {} };
struct Sq : Shape { float s; __device__ Sq(float x) : s(x) {} __device__ float area() const override { return s * s; } };
struct Ci : Shape { float r; __device__ Ci(float x) : r(x) {} __device__ float area() const override { printf("c\n"); return 3.14f * r * r; } };
__global__ void areas(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  Sq a(in[i]); Ci b(in[i]); Shape *s = (i & 1) ? (Shape *)&a : (Shape *)&b; out[i] = s->area();
}
__global__ void plain(float *out) { out[threadIdx.x] = 1.0f; }
__global__ void heap(int n) { int *p = (int *)malloc(n); if (p) { p[0] = n; free(p); } }
