// cd tests/probes/src && nvcc -arch=compute_75 -ptx mangled_names.cu -o ../mangled_names.ptx
// Kernels with C++ mangled names: an overloaded kernel in a namespace and two
// instantiations of a kernel template.
namespace ns {
__global__ void scale(float *p, float s) { p[threadIdx.x] *= s; }
__global__ void scale(double *p, double s) { p[threadIdx.x] *= s; }
}

template <typename T, int N>
__global__ void fill(T *p, T v)
{
    for (int i = 0; i < N; ++i) p[threadIdx.x * N + i] = v;
}

template __global__ void fill<int, 4>(int *, int);
template __global__ void fill<unsigned char, 3>(unsigned char *, unsigned char);
