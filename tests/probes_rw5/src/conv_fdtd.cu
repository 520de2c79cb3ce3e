// CUDA-samples-style image kernels: separable convolution with the filter in a __constant__ array,
// FDTD3d with __constant__ stencil coefficients and a register queue, and the transpose family
// (naive, coalesced, padded to avoid bank conflicts, diagonal block reordering).
#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)
__constant__ float c_Kernel[KERNEL_LENGTH];

#define ROWS_BLOCKDIM_X 16
#define ROWS_BLOCKDIM_Y 4
#define ROWS_RESULT_STEPS 8
#define ROWS_HALO_STEPS 1
__global__ void convolutionRowsKernel(float* d_Dst, const float* d_Src, int imageW, int imageH, int pitch) {
    __shared__ float s_Data[ROWS_BLOCKDIM_Y][(ROWS_RESULT_STEPS + 2 * ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X];
    const int baseX = (blockIdx.x * ROWS_RESULT_STEPS - ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X + threadIdx.x;
    const int baseY = blockIdx.y * ROWS_BLOCKDIM_Y + threadIdx.y;
    d_Src += baseY * pitch + baseX;
    d_Dst += baseY * pitch + baseX;
#pragma unroll
    for (int i = ROWS_HALO_STEPS; i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS; i++)
        s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X] = d_Src[i * ROWS_BLOCKDIM_X];
#pragma unroll
    for (int i = 0; i < ROWS_HALO_STEPS; i++)
        s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X] = (baseX >= -i * ROWS_BLOCKDIM_X) ? d_Src[i * ROWS_BLOCKDIM_X] : 0;
#pragma unroll
    for (int i = ROWS_HALO_STEPS + ROWS_RESULT_STEPS; i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS + ROWS_HALO_STEPS; i++)
        s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X] = (imageW - baseX > i * ROWS_BLOCKDIM_X) ? d_Src[i * ROWS_BLOCKDIM_X] : 0;
    __syncthreads();
#pragma unroll
    for (int i = ROWS_HALO_STEPS; i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS; i++) {
        float sum = 0;
#pragma unroll
        for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++)
            sum += c_Kernel[KERNEL_RADIUS - j] * s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X + j];
        d_Dst[i * ROWS_BLOCKDIM_X] = sum;
    }
}

#define COLUMNS_BLOCKDIM_X 16
#define COLUMNS_BLOCKDIM_Y 8
#define COLUMNS_RESULT_STEPS 4
#define COLUMNS_HALO_STEPS 1
__global__ void convolutionColumnsKernel(float* d_Dst, const float* d_Src, int imageW, int imageH, int pitch) {
    __shared__ float s_Data[COLUMNS_BLOCKDIM_X][(COLUMNS_RESULT_STEPS + 2 * COLUMNS_HALO_STEPS) * COLUMNS_BLOCKDIM_Y + 1];
    const int baseX = blockIdx.x * COLUMNS_BLOCKDIM_X + threadIdx.x;
    const int baseY = (blockIdx.y * COLUMNS_RESULT_STEPS - COLUMNS_HALO_STEPS) * COLUMNS_BLOCKDIM_Y + threadIdx.y;
    d_Src += baseY * pitch + baseX;
    d_Dst += baseY * pitch + baseX;
#pragma unroll
    for (int i = 0; i < COLUMNS_RESULT_STEPS + 2 * COLUMNS_HALO_STEPS; i++) {
        int y = baseY + i * COLUMNS_BLOCKDIM_Y;
        s_Data[threadIdx.x][threadIdx.y + i * COLUMNS_BLOCKDIM_Y] = (y >= 0 && y < imageH) ? d_Src[i * COLUMNS_BLOCKDIM_Y * pitch] : 0;
    }
    __syncthreads();
#pragma unroll
    for (int i = COLUMNS_HALO_STEPS; i < COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS; i++) {
        float sum = 0;
#pragma unroll
        for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++)
            sum += c_Kernel[KERNEL_RADIUS - j] * s_Data[threadIdx.x][threadIdx.y + i * COLUMNS_BLOCKDIM_Y + j];
        d_Dst[i * COLUMNS_BLOCKDIM_Y * pitch] = sum;
    }
}

#define RADIUS 4
__constant__ float stencil[RADIUS + 1];
template <int BX, int BY>
__global__ void FiniteDifferencesKernel(float* output, const float* input, const int dimx, const int dimy, const int dimz) {
    __shared__ float tile[BY + 2 * RADIUS][BX + 2 * RADIUS];
    const int gtidx = blockIdx.x * BX + threadIdx.x;
    const int gtidy = blockIdx.y * BY + threadIdx.y;
    const int stride_y = dimx + 2 * RADIUS;
    const int stride_z = stride_y * (dimy + 2 * RADIUS);
    int inputIndex = 0, outputIndex = 0;
    inputIndex += RADIUS * stride_y + RADIUS;
    inputIndex += gtidy * stride_y + gtidx;
    float infront[RADIUS], behind[RADIUS], current;
    const int tx = threadIdx.x + RADIUS, ty = threadIdx.y + RADIUS;
    const bool validr = gtidx < dimx && gtidy < dimy, validw = validr;
#pragma unroll
    for (int i = RADIUS - 2; i >= 0; i--) { if (validr) behind[i] = input[inputIndex]; inputIndex += stride_z; }
    if (validr) current = input[inputIndex];
    outputIndex = inputIndex;
    inputIndex += stride_z;
#pragma unroll
    for (int i = 0; i < RADIUS; i++) { if (validr) infront[i] = input[inputIndex]; inputIndex += stride_z; }
#pragma unroll 4
    for (int iz = 0; iz < dimz; iz++) {
#pragma unroll
        for (int i = RADIUS - 1; i > 0; i--) behind[i] = behind[i - 1];
        behind[0] = current;
        current = infront[0];
#pragma unroll
        for (int i = 0; i < RADIUS - 1; i++) infront[i] = infront[i + 1];
        if (validr) infront[RADIUS - 1] = input[inputIndex];
        inputIndex += stride_z;
        outputIndex += stride_z;
        __syncthreads();
        if (threadIdx.y < RADIUS) {
            tile[threadIdx.y][tx] = input[outputIndex - RADIUS * stride_y];
            tile[threadIdx.y + BY + RADIUS][tx] = input[outputIndex + BY * stride_y];
        }
        if (threadIdx.x < RADIUS) {
            tile[ty][threadIdx.x] = input[outputIndex - RADIUS];
            tile[ty][threadIdx.x + BX + RADIUS] = input[outputIndex + BX];
        }
        tile[ty][tx] = current;
        __syncthreads();
        float value = stencil[0] * current;
#pragma unroll
        for (int i = 1; i <= RADIUS; i++)
            value += stencil[i] * (infront[i - 1] + behind[i - 1] + tile[ty - i][tx] + tile[ty + i][tx] + tile[ty][tx - i] + tile[ty][tx + i]);
        if (validw) output[outputIndex] = value;
    }
}
template __global__ void FiniteDifferencesKernel<32, 16>(float*, const float*, int, int, int);

#define TILE_DIM 32
#define BLOCK_ROWS 8
__global__ void transposeNaive(float* odata, const float* idata, int width, int height) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x, y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) odata[x * height + y + i] = idata[(y + i) * width + x];
}
template <int PAD>
__global__ void transposeShared(float* odata, const float* idata, int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + PAD];
    int x = blockIdx.x * TILE_DIM + threadIdx.x, y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) tile[threadIdx.y + i][threadIdx.x] = idata[(y + i) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) odata[(y + i) * height + x] = tile[threadIdx.x][threadIdx.y + i];
}
template __global__ void transposeShared<0>(float*, const float*, int, int);
template __global__ void transposeShared<1>(float*, const float*, int, int);
__global__ void transposeDiagonal(float* odata, const float* idata, int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int blockIdx_x, blockIdx_y;
    if (width == height) {
        blockIdx_y = blockIdx.x;
        blockIdx_x = (blockIdx.x + blockIdx.y) % gridDim.x;
    } else {
        int bid = blockIdx.x + gridDim.x * blockIdx.y;
        blockIdx_y = bid % gridDim.y;
        blockIdx_x = ((bid / gridDim.y) + blockIdx_y) % gridDim.x;
    }
    int x = blockIdx_x * TILE_DIM + threadIdx.x, y = blockIdx_y * TILE_DIM + threadIdx.y;
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) tile[threadIdx.y + i][threadIdx.x] = idata[(y + i) * width + x];
    __syncthreads();
    x = blockIdx_y * TILE_DIM + threadIdx.x;
    y = blockIdx_x * TILE_DIM + threadIdx.y;
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) odata[(y + i) * height + x] = tile[threadIdx.x][threadIdx.y + i];
}
