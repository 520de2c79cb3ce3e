#!/bin/sh
# Regenerate the fifth set of real-world probes' PTX from src/*.cu with nvcc 13.0:
# compute_75 PTX for the CUDA-samples-style sources, compute_80 for the CUTLASS-style
# mma.sync/cp.async GEMMs, compute_90a for the Hopper warp-specialised wgmma/TMA kernel and
# compute_100a for the tcgen05 tile. PWD=/proc/self/cwd keeps this machine's paths out of the PTX.
set -e
cd "$(dirname "$0")/src"
for cu in histogram scan_reduce sort_nbody conv_fdtd montecarlo_misc; do
    PWD=/proc/self/cwd nvcc -arch=compute_75 -ptx "$cu.cu" -o "../$cu.ptx"
done
PWD=/proc/self/cwd nvcc -arch=compute_80 -ptx cutlass_mma.cu -o ../cutlass_mma_80.ptx
PWD=/proc/self/cwd nvcc -arch=compute_90a -ptx cute_sm90.cu -o ../cute_sm90_90a.ptx
PWD=/proc/self/cwd nvcc -arch=compute_100a -ptx tcgen05_gemm.cu -o ../tcgen05_gemm_100a.ptx
# nvcc -rdc for compute_80: weak templates whose DFS place leaves their declaration free
# (decompose._place_externs moves one by the prototype strings)
PWD=/proc/self/cwd nvcc -arch=compute_80 -rdc=true -ptx sort_nbody.cu -o ../sort_nbody_rdc_80.ptx
# nvcc -G for compute_90: the SharedMemory<T> operators stay WEAK functions naming the extern
# __smem themselves; the first of them is made before any kernel, and .nv.reservedSmem.cap
# follows it (data._direct_users)
PWD=/proc/self/cwd nvcc -arch=compute_90 -G -ptx scan_reduce.cu -o ../scan_reduce_G_90.ptx
