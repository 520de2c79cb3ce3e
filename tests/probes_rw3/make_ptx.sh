#!/bin/sh
# Regenerate the third set of real-world probes' PTX from src/*.cu with nvcc 13.0:
# compute_75 PTX for every source, plus pipeline_copy for compute_90 (cp.async.bulk-era
# pipeline lowering) and warp_intrinsics for compute_80 (__reduce_add_sync).
# PWD=/proc/self/cwd keeps this machine's paths out of the PTX.
set -e
cd "$(dirname "$0")/src"
for cu in $(ls *.cu | grep -v 'tma_wgmma\|rdc_lib'); do
    PWD=/proc/self/cwd nvcc -arch=compute_75 -ptx "$cu" -o "../${cu%.cu}.ptx"
done
PWD=/proc/self/cwd nvcc -arch=compute_90 -ptx pipeline_copy.cu -o ../pipeline_copy_90.ptx
PWD=/proc/self/cwd nvcc -arch=compute_80 -ptx warp_intrinsics.cu -o ../warp_intrinsics_80.ptx
PWD=/proc/self/cwd nvcc -arch=compute_90a -ptx tma_wgmma.cu -o ../tma_wgmma_90a.ptx
PWD=/proc/self/cwd nvcc -arch=compute_75 -rdc=true -ptx rdc_lib.cu -o ../rdc_lib.ptx
