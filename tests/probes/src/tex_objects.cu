// cd tests/probes/src && nvcc -arch=compute_75 -ptx tex_objects.cu -o ../tex_objects.ptx
// Bindless texture and surface objects: tex1Dfetch on a cudaTextureObject_t,
// surf2Dread/surf2Dwrite on a cudaSurfaceObject_t, and a kernel using both.
#include <cuda_runtime.h>

__global__ void k_texobj(cudaTextureObject_t t, float *out)
{
    out[threadIdx.x] = tex1Dfetch<float>(t, threadIdx.x);
}

__global__ void k_surfobj(cudaSurfaceObject_t s, int w)
{
    int x = threadIdx.x, y = blockIdx.x;
    int v = surf2Dread<int>(s, x * 4, y);
    surf2Dwrite(v + w, s, x * 4, y);
}

__global__ void k_both(cudaTextureObject_t t, cudaSurfaceObject_t s)
{
    float v = tex1Dfetch<float>(t, threadIdx.x);
    surf2Dwrite(v, s, threadIdx.x * 4, blockIdx.x);
}
