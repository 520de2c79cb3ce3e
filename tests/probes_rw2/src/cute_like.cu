// CuTe-style compile-time layouts: templated shape/stride functors, static loops, vectorised copies.
#include <cuda_fp16.h>
template <int... Is> struct Seq {};
template <int M, int N, int SM, int SN> struct Layout {
    static constexpr int size = M * N;
    __device__ __forceinline__ static int idx(int i) { return (i % M) * SM + (i / M) * SN; }
};
template <class L, int I = 0> struct ForEach {
    template <class F> __device__ __forceinline__ static void run(F&& f) { f(I); ForEach<L, I + 1>::run(f); }
};
template <int M, int N, int SM, int SN> struct ForEach<Layout<M, N, SM, SN>, M * N> {
    template <class F> __device__ __forceinline__ static void run(F&&) {}
};
template <class T, class SrcL, class DstL>
__global__ void tile_transpose(const T* __restrict__ src, T* __restrict__ dst, int ld) {
    T reg[SrcL::size];
    const T* s = src + blockIdx.x * ld + threadIdx.x * SrcL::size;
    ForEach<SrcL>::run([&](int i) { reg[i] = s[SrcL::idx(i)]; });
    T* d = dst + blockIdx.x * ld + threadIdx.x * DstL::size;
    ForEach<DstL>::run([&](int i) { d[DstL::idx(i)] = reg[i]; });
}
template __global__ void tile_transpose<float, Layout<4, 4, 1, 4>, Layout<4, 4, 4, 1>>(const float*, float*, int);
template __global__ void tile_transpose<__half, Layout<8, 2, 1, 8>, Layout<8, 2, 2, 1>>(const __half*, __half*, int);

__global__ void vec_add_h2(const __half2* a, const __half2* b, __half2* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = __hfma2(a[i], b[i], __float2half2_rn(1.0f));
}
