// Structs by value, a recursive device function, a local array indexed dynamically.
struct Vec3 { float x, y, z; };

__device__ __noinline__ Vec3 cross(Vec3 a, Vec3 b)
{
    Vec3 r;
    r.x = a.y * b.z - a.z * b.y;
    r.y = a.z * b.x - a.x * b.z;
    r.z = a.x * b.y - a.y * b.x;
    return r;
}

__device__ __noinline__ int fact(int n)
{
    return n <= 1 ? 1 : n * fact(n - 1);
}

__global__ void k_cross(const Vec3 *a, const Vec3 *b, Vec3 *out, int *f)
{
    int i = threadIdx.x;
    int tab[16];
    for (int j = 0; j < 16; ++j)
        tab[j] = j * i;
    out[i] = cross(a[i], b[i]);
    f[i] = fact(i & 7) + tab[(i * 5) & 15];
}
