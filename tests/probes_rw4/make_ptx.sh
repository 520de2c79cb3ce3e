#!/bin/sh
# Regenerate the fourth set of real-world probes' PTX from src/*.cu with nvcc 13.0: llm.c-style
# training kernels and ggml-style (llama.cpp CUDA backend) inference kernels. compute_75 PTX for
# the sources that build there, compute_80 for bf16 / cp.async / mma.sync code, compute_90 where
# the PTX differs (native bf16 arithmetic, __reduce_add_sync). PWD=/proc/self/cwd keeps this
# machine's paths out of the PTX.
set -e
cd "$(dirname "$0")/src"
ptx() { PWD=/proc/self/cwd nvcc -arch=compute_$1 -ptx "$2.cu" -o "../$2$3.ptx"; }
for s in llmc_train llmc_attention llmc_misc ggml_mmvq ggml_ops ggml_misc ggml_iq; do ptx 75 $s ""; done
for s in llmc_attention llmc_misc late_call; do ptx 80 $s _80; done
ptx 80 ggml_mma _80
ptx 90 llmc_train _90
ptx 90 ggml_misc _90
# with line directives (nvcc -lineinfo) and a device-debug build (nvcc -G)
PWD=/proc/self/cwd nvcc -arch=compute_75 -lineinfo -ptx llmc_attention.cu -o ../llmc_attention_li.ptx
PWD=/proc/self/cwd nvcc -arch=compute_80 -lineinfo -ptx llmc_attention.cu -o ../llmc_attention_li_80.ptx
PWD=/proc/self/cwd nvcc -arch=compute_75 -G -ptx ggml_misc.cu -o ../ggml_misc_G.ptx
# separate compilation (-rdc=true: -c builds only)
PWD=/proc/self/cwd nvcc -arch=compute_75 -rdc=true -ptx ggml_misc.cu -o ../ggml_misc_rdc.ptx
PWD=/proc/self/cwd nvcc -arch=compute_80 -rdc=true -ptx llmc_misc.cu -o ../llmc_misc_rdc_80.ptx
