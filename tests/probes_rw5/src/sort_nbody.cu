// CUDA-samples-style sorting and n-body: a shared-memory bitonic sort (templated on direction),
// a merge-path rank helper for merge sort, and the n-body tile loop over float4 bodies with
// shared tiles and rsqrtf.
#define SHARED_SIZE_LIMIT 1024U

__device__ inline void Comparator(unsigned& keyA, unsigned& valA, unsigned& keyB, unsigned& valB, unsigned dir) {
    if ((keyA > keyB) == dir) {
        unsigned t = keyA; keyA = keyB; keyB = t;
        t = valA; valA = valB; valB = t;
    }
}

__global__ void bitonicSortShared(unsigned* d_DstKey, unsigned* d_DstVal, const unsigned* d_SrcKey,
                                  const unsigned* d_SrcVal, unsigned arrayLength, unsigned dir) {
    __shared__ unsigned s_key[SHARED_SIZE_LIMIT];
    __shared__ unsigned s_val[SHARED_SIZE_LIMIT];
    d_SrcKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_SrcVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_DstKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_DstVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    s_key[threadIdx.x] = d_SrcKey[0];
    s_val[threadIdx.x] = d_SrcVal[0];
    s_key[threadIdx.x + SHARED_SIZE_LIMIT / 2] = d_SrcKey[SHARED_SIZE_LIMIT / 2];
    s_val[threadIdx.x + SHARED_SIZE_LIMIT / 2] = d_SrcVal[SHARED_SIZE_LIMIT / 2];
    for (unsigned size = 2; size < arrayLength; size <<= 1) {
        unsigned ddd = dir ^ ((threadIdx.x & (size / 2)) != 0);
        for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
            Comparator(s_key[pos], s_val[pos], s_key[pos + stride], s_val[pos + stride], ddd);
        }
    }
    for (unsigned stride = arrayLength / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
        Comparator(s_key[pos], s_val[pos], s_key[pos + stride], s_val[pos + stride], dir);
    }
    __syncthreads();
    d_DstKey[0] = s_key[threadIdx.x];
    d_DstVal[0] = s_val[threadIdx.x];
    d_DstKey[SHARED_SIZE_LIMIT / 2] = s_key[threadIdx.x + SHARED_SIZE_LIMIT / 2];
    d_DstVal[SHARED_SIZE_LIMIT / 2] = s_val[threadIdx.x + SHARED_SIZE_LIMIT / 2];
}

template <unsigned sortDir> __device__ __noinline__ unsigned binarySearchInclusive(unsigned val, const unsigned* data, unsigned L, unsigned stride) {
    if (L == 0) return 0;
    unsigned pos = 0;
    for (; stride > 0; stride >>= 1) {
        unsigned newPos = min(pos + stride, L);
        if ((sortDir && (data[newPos - 1] <= val)) || (!sortDir && (data[newPos - 1] >= val))) pos = newPos;
    }
    return pos;
}
template <unsigned sortDir> __device__ __noinline__ unsigned binarySearchExclusive(unsigned val, const unsigned* data, unsigned L, unsigned stride) {
    if (L == 0) return 0;
    unsigned pos = 0;
    for (; stride > 0; stride >>= 1) {
        unsigned newPos = min(pos + stride, L);
        if ((sortDir && (data[newPos - 1] < val)) || (!sortDir && (data[newPos - 1] > val))) pos = newPos;
    }
    return pos;
}

template <unsigned sortDir>
__global__ void mergeRanksAndIndices(unsigned* d_Out, const unsigned* d_Key, unsigned stride, unsigned N) {
    extern __shared__ unsigned s_keys[];
    unsigned pos = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned half = stride;
    s_keys[threadIdx.x] = d_Key[pos];
    __syncthreads();
    unsigned v = s_keys[threadIdx.x];
    unsigned r = (threadIdx.x < half) ? binarySearchExclusive<sortDir>(v, s_keys + half, half, 256)
                                      : binarySearchInclusive<sortDir>(v, s_keys, half, 256);
    if (pos < N) d_Out[pos] = r + (threadIdx.x % half);
}
template __global__ void mergeRanksAndIndices<0>(unsigned*, const unsigned*, unsigned, unsigned);
template __global__ void mergeRanksAndIndices<1>(unsigned*, const unsigned*, unsigned, unsigned);

#define SOFTENING_SQUARED 0.0001f
__device__ float3 bodyBodyInteraction(float3 ai, float4 bi, float4 bj) {
    float3 r;
    r.x = bj.x - bi.x; r.y = bj.y - bi.y; r.z = bj.z - bi.z;
    float distSqr = r.x * r.x + r.y * r.y + r.z * r.z + SOFTENING_SQUARED;
    float invDist = rsqrtf(distSqr);
    float s = bj.w * invDist * invDist * invDist;
    ai.x += r.x * s; ai.y += r.y * s; ai.z += r.z * s;
    return ai;
}

template <int TILE>
__global__ void integrateBodies(float4* __restrict__ newPos, float4* __restrict__ newVel, const float4* __restrict__ oldPos,
                                const float4* __restrict__ oldVel, float deltaTime, float damping, int numBodies) {
    __shared__ float4 sharedPos[TILE];
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= numBodies) return;
    float4 position = oldPos[index];
    float3 acc = {0.0f, 0.0f, 0.0f};
    for (int tile = 0; tile < (numBodies + TILE - 1) / TILE; tile++) {
        int j = tile * TILE + threadIdx.x;
        sharedPos[threadIdx.x] = j < numBodies ? oldPos[j] : make_float4(0, 0, 0, 0);
        __syncthreads();
#pragma unroll 8
        for (int c = 0; c < TILE; c++) acc = bodyBodyInteraction(acc, position, sharedPos[c]);
        __syncthreads();
    }
    float4 vel = oldVel[index];
    vel.x = (vel.x + acc.x * deltaTime) * damping;
    vel.y = (vel.y + acc.y * deltaTime) * damping;
    vel.z = (vel.z + acc.z * deltaTime) * damping;
    position.x += vel.x * deltaTime; position.y += vel.y * deltaTime; position.z += vel.z * deltaTime;
    newPos[index] = position;
    newVel[index] = vel;
}
template __global__ void integrateBodies<128>(float4*, float4*, const float4*, const float4*, float, float, int);
template __global__ void integrateBodies<256>(float4*, float4*, const float4*, const float4*, float, float, int);

__device__ double3 bodyInteractionD(double3 ai, double4_16a bi, double4_16a bj) {
    double rx = bj.x - bi.x, ry = bj.y - bi.y, rz = bj.z - bi.z;
    double d = rx * rx + ry * ry + rz * rz + 1e-6;
    double inv = rsqrt(d);
    double s = bj.w * inv * inv * inv;
    ai.x += rx * s; ai.y += ry * s; ai.z += rz * s;
    return ai;
}
__global__ void integrateBodiesD(double4_16a* pos, double3* acc, int n) {
    extern __shared__ double4_16a shPosD[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double4_16a p = pos[min(i, n - 1)];
    double3 a = {0, 0, 0};
    for (int t = 0; t < n; t += blockDim.x) {
        shPosD[threadIdx.x] = pos[min(t + (int)threadIdx.x, n - 1)];
        __syncthreads();
        for (int c = 0; c < blockDim.x; c++) a = bodyInteractionD(a, p, shPosD[c]);
        __syncthreads();
    }
    if (i < n) acc[i] = a;
}
