// CUTLASS-style Ampere GEMMs: templated threadblock/warp shapes, a multi-stage cp.async mainloop
// into XOR-swizzled dynamic shared memory (> 48 KB), ldmatrix fragments, mma.sync via inline
// PTX for f16, bf16 (m16n8k16), tf32 (m16n8k8) and s8 (m16n8k32), epilogue functors as
// template parameters and serial split-K with a semaphore in global memory.
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

template <int M, int N, int K> struct GemmShape {
    static constexpr int kM = M, kN = N, kK = K;
};

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, bool pred) {
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n @p cp.async.cg.shared.global [%0], [%1], 16;\n}\n" ::"r"(dst), "l"(src), "r"((int)pred));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x2_trans(uint32_t (&r)[2], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
}

// Swizzle<B, M, S>: XOR bits [M+S, M+S+B) of the offset into bits [M, M+B) (CuTe's Swizzle functor)
template <int B, int M, int S> struct Swizzle {
    __device__ __forceinline__ static int apply(int off) {
        constexpr int mask = ((1 << B) - 1) << (M + S);
        return off ^ ((off & mask) >> S);
    }
};

struct ArchMmaF16 {
    using Element = __half;
    static constexpr int kK = 16;
    __device__ __forceinline__ static void mma(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
};
struct ArchMmaBF16 {
    using Element = __nv_bfloat16;
    static constexpr int kK = 16;
    __device__ __forceinline__ static void mma(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
};
struct ArchMmaTF32 {
    using Element = float;
    static constexpr int kK = 8;
    __device__ __forceinline__ static void mma(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
};

template <class T> struct LinearCombination {
    float alpha, beta;
    __device__ __forceinline__ float operator()(float acc, T src) const { return alpha * acc + beta * (float)src; }
};
template <class T> struct LinearCombinationRelu {
    float alpha, beta, threshold;
    __device__ __forceinline__ float operator()(float acc, T src) const { return fmaxf(alpha * acc + beta * (float)src, threshold); }
};
template <class T> struct LinearCombinationGelu {
    float alpha, beta;
    __device__ __forceinline__ float operator()(float acc, T src) const {
        float x = alpha * acc + beta * (float)src;
        return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
    }
};

struct Semaphore {
    int* lock;
    __device__ __forceinline__ void wait(int status) {
        if (threadIdx.x == 0) {
            int s;
            do { asm volatile("ld.global.acquire.gpu.b32 %0, [%1];\n" : "=r"(s) : "l"(lock)); } while (s != status);
        }
        __syncthreads();
    }
    __device__ __forceinline__ void release(int status) {
        __syncthreads();
        if (threadIdx.x == 0) asm volatile("st.global.release.gpu.b32 [%0], %1;\n" ::"l"(lock), "r"(status));
    }
};

template <class Shape, class WarpShape, class Mma, int kStages, class Epilogue, bool SplitK>
__global__ void __launch_bounds__((Shape::kM / WarpShape::kM) * (Shape::kN / WarpShape::kN) * 32)
gemm_multistage(int M, int N, int K, const typename Mma::Element* __restrict__ A, const typename Mma::Element* __restrict__ B,
                float* __restrict__ C, const float* __restrict__ Csrc, Epilogue epi, int* semaphores, int splits) {
    using T = typename Mma::Element;
    constexpr int kWarpsM = Shape::kM / WarpShape::kM, kWarpsN = Shape::kN / WarpShape::kN;
    constexpr int kThreads = kWarpsM * kWarpsN * 32;
    constexpr int kElemsPerChunk = 16 / sizeof(T);
    constexpr int kTileA = Shape::kM * Shape::kK, kTileB = Shape::kN * Shape::kK;
    constexpr int kMmaM = WarpShape::kM / 16, kMmaN = WarpShape::kN / 8;
    using SwzA = Swizzle<3, 3, 3>;
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    T* sA = reinterpret_cast<T*>(smem_raw);
    T* sB = sA + kStages * kTileA;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = warp % kWarpsM, wn = warp / kWarpsM;
    const int k_per_split = (K + splits - 1) / splits;
    const int k_begin = blockIdx.z * k_per_split, k_end = min(K, k_begin + k_per_split);
    const int ktiles = (k_end - k_begin + Shape::kK - 1) / Shape::kK;
    const T* gA = A + (size_t)blockIdx.y * Shape::kM * K + k_begin;
    const T* gB = B + (size_t)blockIdx.x * Shape::kN * K + k_begin;

    auto load_stage = [&](int stage, int kt) {
#pragma unroll
        for (int c = threadIdx.x; c < kTileA / kElemsPerChunk; c += kThreads) {
            int row = c / (Shape::kK / kElemsPerChunk), col = (c % (Shape::kK / kElemsPerChunk)) * kElemsPerChunk;
            int off = SwzA::apply(row * Shape::kK + col);
            bool ok = (blockIdx.y * Shape::kM + row) < M && (k_begin + kt * Shape::kK + col) < k_end;
            cp_async16(smem_u32(sA + stage * kTileA + off), gA + (size_t)row * K + kt * Shape::kK + col, ok);
        }
#pragma unroll
        for (int c = threadIdx.x; c < kTileB / kElemsPerChunk; c += kThreads) {
            int row = c / (Shape::kK / kElemsPerChunk), col = (c % (Shape::kK / kElemsPerChunk)) * kElemsPerChunk;
            int off = SwzA::apply(row * Shape::kK + col);
            bool ok = (blockIdx.x * Shape::kN + row) < N && (k_begin + kt * Shape::kK + col) < k_end;
            cp_async16(smem_u32(sB + stage * kTileB + off), gB + (size_t)row * K + kt * Shape::kK + col, ok);
        }
    };

    float acc[kMmaM][kMmaN][4];
#pragma unroll
    for (int i = 0; i < kMmaM; i++)
#pragma unroll
        for (int j = 0; j < kMmaN; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) acc[i][j][r] = 0.f;

#pragma unroll
    for (int s = 0; s < kStages - 1; s++) {
        if (s < ktiles) load_stage(s, s);
        cp_async_commit();
    }
    for (int kt = 0; kt < ktiles; kt++) {
        cp_async_wait<kStages - 2>();
        __syncthreads();
        int next = kt + kStages - 1;
        if (next < ktiles) load_stage(next % kStages, next);
        cp_async_commit();
        const T* tA = sA + (kt % kStages) * kTileA;
        const T* tB = sB + (kt % kStages) * kTileB;
#pragma unroll
        for (int kk = 0; kk < Shape::kK; kk += Mma::kK) {
            uint32_t fa[kMmaM][4], fb[kMmaN][2];
#pragma unroll
            for (int i = 0; i < kMmaM; i++) {
                int row = wm * WarpShape::kM + i * 16 + (lane % 16);
                int col = kk + (lane / 16) * (Mma::kK / 2);
                ldmatrix_x4(fa[i], smem_u32(tA + SwzA::apply(row * Shape::kK + col)));
            }
#pragma unroll
            for (int j = 0; j < kMmaN; j++) {
                int row = wn * WarpShape::kN + j * 8 + (lane % 8);
                int col = kk + ((lane / 8) % 2) * (Mma::kK / 2);
                ldmatrix_x2_trans(fb[j], smem_u32(tB + SwzA::apply(row * Shape::kK + col)));
            }
#pragma unroll
            for (int i = 0; i < kMmaM; i++)
#pragma unroll
                for (int j = 0; j < kMmaN; j++) Mma::mma(acc[i][j], fa[i], fb[j]);
        }
    }
    cp_async_wait<0>();

    Semaphore sem{semaphores + blockIdx.y * gridDim.x + blockIdx.x};
    if (SplitK && splits > 1) sem.wait(blockIdx.z);
#pragma unroll
    for (int i = 0; i < kMmaM; i++)
#pragma unroll
        for (int j = 0; j < kMmaN; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) {
                int row = blockIdx.y * Shape::kM + wm * WarpShape::kM + i * 16 + (lane / 4) + (r / 2) * 8;
                int col = blockIdx.x * Shape::kN + wn * WarpShape::kN + j * 8 + (lane % 4) * 2 + (r % 2);
                if (row < M && col < N) {
                    size_t o = (size_t)row * N + col;
                    float src = (SplitK && blockIdx.z > 0) ? C[o] : Csrc[o];
                    C[o] = (SplitK && blockIdx.z > 0) ? src + acc[i][j][r] : epi(acc[i][j][r], src);
                }
            }
    if (SplitK && splits > 1) sem.release(blockIdx.z + 1 == splits ? 0 : blockIdx.z + 1);
}

template __global__ void gemm_multistage<GemmShape<128, 128, 32>, GemmShape<64, 32, 32>, ArchMmaF16, 3, LinearCombination<float>, false>(
    int, int, int, const __half*, const __half*, float*, const float*, LinearCombination<float>, int*, int);
template __global__ void gemm_multistage<GemmShape<64, 128, 32>, GemmShape<32, 64, 32>, ArchMmaBF16, 4, LinearCombinationRelu<float>, true>(
    int, int, int, const __nv_bfloat16*, const __nv_bfloat16*, float*, const float*, LinearCombinationRelu<float>, int*, int);
template __global__ void gemm_multistage<GemmShape<64, 64, 16>, GemmShape<32, 32, 16>, ArchMmaTF32, 5, LinearCombinationGelu<float>, true>(
    int, int, int, const float*, const float*, float*, const float*, LinearCombinationGelu<float>, int*, int);

// int8 tensor-core tile: m16n8k32 s8 x s8 -> s32, dequantised in the epilogue
template <int kTilesK>
__global__ void gemm_s8_tile(const int8_t* __restrict__ A, const int8_t* __restrict__ B, float* __restrict__ C,
                             const float* __restrict__ scale_a, const float* __restrict__ scale_b, int lda, int ldb, int ldc) {
    __shared__ __align__(128) int8_t sA[16 * 32 * kTilesK];
    __shared__ __align__(128) int8_t sB[8 * 32 * kTilesK];
    const int lane = threadIdx.x;
    for (int i = lane * 16; i < 16 * 32 * kTilesK; i += 32 * 16)
        cp_async16(smem_u32(sA + i), A + blockIdx.y * 16 * lda + (i / (32 * kTilesK)) * lda + (i % (32 * kTilesK)), true);
    for (int i = lane * 16; i < 8 * 32 * kTilesK; i += 32 * 16)
        cp_async16(smem_u32(sB + i), B + blockIdx.x * 8 * ldb + (i / (32 * kTilesK)) * ldb + (i % (32 * kTilesK)), true);
    cp_async_commit();
    cp_async_wait<0>();
    __syncwarp();
    int d[4] = {0, 0, 0, 0};
#pragma unroll
    for (int kt = 0; kt < kTilesK; kt++) {
        const int* pa = reinterpret_cast<const int*>(sA);
        const int* pb = reinterpret_cast<const int*>(sB);
        int rowa = lane / 4, cola = kt * 8 + lane % 4;
        uint32_t a0 = pa[rowa * 8 * kTilesK + cola], a1 = pa[(rowa + 8) * 8 * kTilesK + cola];
        uint32_t a2 = pa[rowa * 8 * kTilesK + cola + 4], a3 = pa[(rowa + 8) * 8 * kTilesK + cola + 4];
        uint32_t b0 = pb[rowa * 8 * kTilesK + cola], b1 = pb[rowa * 8 * kTilesK + cola + 4];
        asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
#pragma unroll
    for (int r = 0; r < 4; r++) {
        int row = blockIdx.y * 16 + lane / 4 + (r / 2) * 8, col = blockIdx.x * 8 + (lane % 4) * 2 + (r % 2);
        C[row * ldc + col] = (float)d[r] * scale_a[row] * scale_b[col];
    }
}
template __global__ void gemm_s8_tile<2>(const int8_t*, const int8_t*, float*, const float*, const float*, int, int, int);
template __global__ void gemm_s8_tile<4>(const int8_t*, const int8_t*, float*, const float*, const float*, int, int, int);
