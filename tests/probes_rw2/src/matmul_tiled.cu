// Classic shared-memory tiled SGEMM plus a naive register-blocked variant without shared memory.
#define TILE 16
__global__ void sgemm_tiled(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        As[threadIdx.y][threadIdx.x] = (r < M && t * TILE + threadIdx.x < K) ? A[r * K + t * TILE + threadIdx.x] : 0.f;
        Bs[threadIdx.y][threadIdx.x] = (c < N && t * TILE + threadIdx.y < K) ? B[(t * TILE + threadIdx.y) * N + c] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (r < M && c < N) C[r * N + c] = alpha * acc + beta * C[r * N + c];
}

__global__ void sgemm_naive4(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (r >= M || c + 3 >= N) return;
    float4 acc = make_float4(0, 0, 0, 0);
    for (int k = 0; k < K; ++k) {
        float a = A[r * K + k];
        float4 b = *reinterpret_cast<const float4*>(B + k * N + c);
        acc.x += a * b.x; acc.y += a * b.y; acc.z += a * b.z; acc.w += a * b.w;
    }
    *reinterpret_cast<float4*>(C + r * N + c) = acc;
}
