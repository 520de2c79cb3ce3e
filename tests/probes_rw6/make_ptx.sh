#!/bin/sh
# Regenerate the sixth set of real-world probes' PTX from src/*.cu with nvcc 13.0: compute_75 PTX
# for the portable sources (also compute_89 for the fp8 one, where the conversions are native),
# compute_90 for the cluster kernels, and a -rdc=true build of the dynamic-parallelism source
# (device-side launches need cudadevrt, so that PTX builds with -c only).
# PWD=/proc/self/cwd keeps this machine's paths out of the PTX.
set -e
cd "$(dirname "$0")/src"
for cu in cg_algos lowp_math params_spill; do
    PWD=/proc/self/cwd nvcc -arch=compute_75 -ptx "$cu.cu" -o "../$cu.ptx"
done
PWD=/proc/self/cwd nvcc -arch=compute_75 --extended-lambda -ptx thrust_like.cu -o ../thrust_like.ptx
PWD=/proc/self/cwd nvcc -arch=compute_89 -ptx lowp_math.cu -o ../lowp_math_89.ptx
PWD=/proc/self/cwd nvcc -arch=compute_90 -ptx cluster_sm90.cu -o ../cluster_sm90_90.ptx
PWD=/proc/self/cwd nvcc -arch=compute_75 -rdc=true -ptx dynpar.cu -o ../dynpar_rdc.ptx
# device-debug (nvcc -G: `.target sm_XX, debug`) and -lineinfo variants
PWD=/proc/self/cwd nvcc -arch=compute_75 -G -ptx params_spill.cu -o ../params_spill_G.ptx
PWD=/proc/self/cwd nvcc -arch=compute_90 -G -ptx cluster_sm90.cu -o ../cluster_sm90_G_90.ptx
PWD=/proc/self/cwd nvcc -arch=compute_75 -G -rdc=true -ptx dynpar.cu -o ../dynpar_G_rdc.ptx
PWD=/proc/self/cwd nvcc -arch=compute_75 -lineinfo -ptx lowp_math.cu -o ../lowp_math_li.ptx
