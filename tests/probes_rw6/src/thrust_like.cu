// Thrust/cub-style generic algorithms: transform, transform_reduce, reduce_by_block, inclusive
// scan by block, fill/sequence/gather/scatter, written as templates over iterators and functors
// (and device lambdas inside kernels), instantiated for many value types and operators the way a
// library's explicit instantiation list or a project's dispatch macros do (one kernel each).
#include <cuda_fp16.h>
#include <cstdint>

namespace mini {

template <typename T> struct plus { __device__ T operator()(const T &a, const T &b) const { return a + b; } };
template <typename T> struct multiplies { __device__ T operator()(const T &a, const T &b) const { return a * b; } };
template <typename T> struct maximum { __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; } };
template <typename T> struct minimum { __device__ T operator()(const T &a, const T &b) const { return b < a ? b : a; } };
template <typename T> struct bit_or { __device__ T operator()(const T &a, const T &b) const { return a | b; } };

template <typename T> struct identity { __device__ T operator()(const T &x) const { return x; } };
template <typename T> struct square { __device__ T operator()(const T &x) const { return x * x; } };
template <typename T> struct negate { __device__ T operator()(const T &x) const { return -x; } };
template <typename T> struct absolute { __device__ T operator()(const T &x) const { return x < T(0) ? -x : x; } };
template <typename T> struct saxpy {
    T a;
    __device__ T operator()(const T &x, const T &y) const { return a * x + y; }
};
template <typename T> struct clamp {
    T lo, hi;
    __device__ T operator()(const T &x) const { return x < lo ? lo : (hi < x ? hi : x); }
};

template <typename T> struct counting_iterator {
    T base;
    __device__ T operator[](long i) const { return base + T(i); }
};

template <typename It, typename F> struct transform_iterator {
    It it;
    F f;
    __device__ auto operator[](long i) const { return f(it[i]); }
};

template <typename T> __device__ T identity_of(plus<T>) { return T(0); }
template <typename T> __device__ T identity_of(multiplies<T>) { return T(1); }
template <typename T> __device__ T identity_of(maximum<T>) { return T(-1000000); }
template <typename T> __device__ T identity_of(minimum<T>) { return T(1000000); }
template <typename T> __device__ T identity_of(bit_or<T>) { return T(0); }

// ---------------------------------------------------------------------------------------------
// kernels
// ---------------------------------------------------------------------------------------------
template <typename InT, typename OutT, typename UnaryOp>
__global__ void transform_kernel(const InT *__restrict__ in, OutT *__restrict__ out, long n, UnaryOp op)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        out[i] = static_cast<OutT>(op(in[i]));
}

template <typename T, typename BinaryOp>
__global__ void transform2_kernel(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ out, long n, BinaryOp op)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        out[i] = op(a[i], b[i]);
}

template <int BLOCK, typename T, typename ReduceOp>
__device__ T block_reduce(T v, ReduceOp op)
{
    __shared__ T warp_sums[BLOCK / 32];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, off));
    if (lane == 0) warp_sums[wid] = v;
    __syncthreads();
    v = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : identity_of(op);
    if (wid == 0) {
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, off));
    }
    return v;
}

template <int BLOCK, typename It, typename T, typename ReduceOp>
__global__ void __launch_bounds__(BLOCK) reduce_kernel(It in, T *__restrict__ partial, long n, ReduceOp op)
{
    T acc = identity_of(op);
    for (long i = blockIdx.x * (long)BLOCK + threadIdx.x; i < n; i += (long)gridDim.x * BLOCK) acc = op(acc, in[i]);
    acc = block_reduce<BLOCK>(acc, op);
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

template <int BLOCK, typename T, typename ScanOp>
__global__ void __launch_bounds__(BLOCK) block_scan_kernel(const T *__restrict__ in, T *__restrict__ out, T *__restrict__ block_totals, long n, ScanOp op)
{
    __shared__ T buf[2][BLOCK];
    long i = blockIdx.x * (long)BLOCK + threadIdx.x;
    int pout = 0, pin = 1;
    buf[pout][threadIdx.x] = i < n ? in[i] : identity_of(op);
    __syncthreads();
    for (int off = 1; off < BLOCK; off <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        T v = buf[pin][threadIdx.x];
        if (threadIdx.x >= off) v = op(buf[pin][threadIdx.x - off], v);
        buf[pout][threadIdx.x] = v;
        __syncthreads();
    }
    if (i < n) out[i] = buf[pout][threadIdx.x];
    if (threadIdx.x == BLOCK - 1) block_totals[blockIdx.x] = buf[pout][threadIdx.x];
}

template <typename T>
__global__ void sequence_kernel(T *__restrict__ out, long n, T init, T step)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) out[i] = init + step * T(i);
}

template <typename T, typename IndexT>
__global__ void gather_kernel(const IndexT *__restrict__ map, const T *__restrict__ src, T *__restrict__ dst, long n)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[map[i]];
}

template <typename T, typename IndexT>
__global__ void scatter_if_kernel(const T *__restrict__ src, const IndexT *__restrict__ map, const bool *__restrict__ stencil, T *__restrict__ dst, long n)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n && stencil[i]) dst[map[i]] = src[i];
}

template <typename T>
__global__ void count_if_kernel(const T *__restrict__ in, unsigned long long *count, long n, T threshold)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    auto pred = [threshold](T x) { return threshold < x; };
    unsigned m = __ballot_sync(0xffffffffu, i < n && pred(in[i]));
    if ((threadIdx.x & 31) == 0) atomicAdd(count, (unsigned long long)__popc(m));
}

template <typename T>
__global__ void adjacent_difference_kernel(const T *__restrict__ in, T *__restrict__ out, long n)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    auto diff = [] __device__(T a, T b) { return b - a; };
    if (i < n) out[i] = i == 0 ? in[0] : diff(in[i - 1], in[i]);
}


// --- explicit instantiations (dispatch-macro style) ---------------------------------------------
#define TRANSFORM(IN, OUT, OP) template __global__ void transform_kernel<IN, OUT, OP>(const IN *, OUT *, long, OP);
TRANSFORM(float, float, identity<float>)
TRANSFORM(float, float, square<float>)
TRANSFORM(float, float, negate<float>)
TRANSFORM(float, float, absolute<float>)
TRANSFORM(float, float, clamp<float>)
TRANSFORM(double, double, square<double>)
TRANSFORM(double, double, absolute<double>)
TRANSFORM(double, float, identity<double>)
TRANSFORM(float, double, identity<float>)
TRANSFORM(int, int, negate<int>)
TRANSFORM(int, int, clamp<int>)
TRANSFORM(int, float, identity<int>)
TRANSFORM(int64_t, int64_t, square<int64_t>)
TRANSFORM(uint8_t, float, identity<uint8_t>)
TRANSFORM(int16_t, int, absolute<int16_t>)
TRANSFORM(__half, float, identity<__half>)

#define TRANSFORM2(T, OP) template __global__ void transform2_kernel<T, OP>(const T *, const T *, T *, long, OP);
TRANSFORM2(float, plus<float>)
TRANSFORM2(float, multiplies<float>)
TRANSFORM2(float, saxpy<float>)
TRANSFORM2(double, saxpy<double>)
TRANSFORM2(double, maximum<double>)
TRANSFORM2(int, minimum<int>)
TRANSFORM2(int, bit_or<int>)
TRANSFORM2(int64_t, plus<int64_t>)
TRANSFORM2(uint32_t, maximum<uint32_t>)

#define REDUCE(B, T, OP) template __global__ void reduce_kernel<B, const T *, T, OP<T>>(const T *, T *, long, OP<T>);
REDUCE(256, float, plus)
REDUCE(256, float, maximum)
REDUCE(256, float, minimum)
REDUCE(512, float, plus)
REDUCE(128, double, plus)
REDUCE(256, double, maximum)
REDUCE(256, int, plus)
REDUCE(256, int, bit_or)
REDUCE(1024, int, minimum)
REDUCE(256, int64_t, plus)
REDUCE(256, uint32_t, maximum)
REDUCE(64, float, multiplies)

template __global__ void reduce_kernel<256, transform_iterator<const float *, square<float>>, float, plus<float>>(transform_iterator<const float *, square<float>>, float *, long, plus<float>);
template __global__ void reduce_kernel<256, transform_iterator<const double *, absolute<double>>, double, maximum<double>>(transform_iterator<const double *, absolute<double>>, double *, long, maximum<double>);
template __global__ void reduce_kernel<128, counting_iterator<int64_t>, int64_t, plus<int64_t>>(counting_iterator<int64_t>, int64_t *, long, plus<int64_t>);
template __global__ void reduce_kernel<256, transform_iterator<counting_iterator<int>, square<int>>, int, plus<int>>(transform_iterator<counting_iterator<int>, square<int>>, int *, long, plus<int>);

#define SCAN(B, T, OP) template __global__ void block_scan_kernel<B, T, OP<T>>(const T *, T *, T *, long, OP<T>);
SCAN(256, float, plus)
SCAN(128, double, plus)
SCAN(256, int, plus)
SCAN(512, int, maximum)
SCAN(256, int64_t, plus)
SCAN(64, uint32_t, bit_or)

#define SEQ(T) template __global__ void sequence_kernel<T>(T *, long, T, T);
SEQ(float) SEQ(double) SEQ(int) SEQ(int64_t) SEQ(uint32_t)

#define GATHER(T, I) template __global__ void gather_kernel<T, I>(const I *, const T *, T *, long); \
                     template __global__ void scatter_if_kernel<T, I>(const T *, const I *, const bool *, T *, long);
GATHER(float, int) GATHER(double, int) GATHER(float, int64_t) GATHER(int, int) GATHER(float4, int)

#define COUNT(T) template __global__ void count_if_kernel<T>(const T *, unsigned long long *, long, T); \
                 template __global__ void adjacent_difference_kernel<T>(const T *, T *, long);
COUNT(float) COUNT(double) COUNT(int) COUNT(int64_t)

} // namespace mini
