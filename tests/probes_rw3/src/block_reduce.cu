// cub-style block reductions: warp shuffles, a shared scratch per warp, templated on the op.
template <typename T> struct Sum { __device__ T operator()(T a, T b) const { return a + b; } };
template <typename T> struct Max { __device__ T operator()(T a, T b) const { return a > b ? a : b; } };
template <typename T, typename Op>
__device__ T warp_reduce(T v, Op op) {
    for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_down_sync(0xffffffff, v, o));
    return v;
}
template <typename T, typename Op, int THREADS>
__device__ T block_reduce(T v, Op op) {
    __shared__ T scratch[THREADS / 32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_reduce(v, op);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = threadIdx.x < THREADS / 32 ? scratch[lane] : T(0);
    if (warp == 0) v = warp_reduce(v, op);
    return v;
}
template <typename T, typename Op, int THREADS>
__global__ void __launch_bounds__(THREADS) reduce_kernel(const T* in, T* out, int n) {
    T v = 0;
    for (int i = blockIdx.x * THREADS + threadIdx.x; i < n; i += gridDim.x * THREADS) v = Op()(v, in[i]);
    v = block_reduce<T, Op, THREADS>(v, Op());
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}
template __global__ void reduce_kernel<float, Sum<float>, 256>(const float*, float*, int);
template __global__ void reduce_kernel<int, Max<int>, 128>(const int*, int*, int);
template __global__ void reduce_kernel<double, Sum<double>, 512>(const double*, double*, int);
