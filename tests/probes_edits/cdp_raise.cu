extern __global__ void child(int *p);
__global__ void parent(int *p) { child<<<1, 1>>>(p); }
template <class T> __global__ void empty_k() {}
template __global__ void empty_k<void>();
