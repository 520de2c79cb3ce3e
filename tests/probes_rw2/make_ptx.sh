#!/bin/sh
# Regenerate the real-world probes' PTX from src/*.cu with nvcc 13.0.
# compute_75 PTX (accepted by every target) for every source but the sm_90-only ones;
# a compute_90 variant (suffix _90) for sources that use sm_90 features or gain from them.
# PWD=/proc/self/cwd keeps this machine's paths out of the PTX (see tests/probes_debug).
set -e
cd "$(dirname "$0")/src"
SM90_ONLY="cluster_sm90"
SM90_TOO="attention_bf16 softmax_warp wmma_gemm"
for cu in *.cu; do
    stem=${cu%.cu}
    case " $SM90_ONLY " in *" $stem "*) ;; *)
        PWD=/proc/self/cwd nvcc -arch=compute_75 -ptx "$cu" -o "../${stem}.ptx" ;;
    esac
    case " $SM90_ONLY $SM90_TOO " in *" $stem "*)
        PWD=/proc/self/cwd nvcc -arch=compute_90 -ptx "$cu" -o "../${stem}_90.ptx" ;;
    esac
done
