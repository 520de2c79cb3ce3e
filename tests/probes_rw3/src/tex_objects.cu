// Bindless textures and surfaces (cudaTextureObject_t), the modern replacement of texrefs.
__global__ void sample(cudaTextureObject_t tex, cudaSurfaceObject_t surf, float* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float v = tex2D<float>(tex, x + 0.5f, y + 0.5f);
    float4 q = tex1Dfetch<float4>(tex, x);
    surf2Dwrite(v + q.x, surf, x * sizeof(float), y);
    out[y * w + x] = v;
}
