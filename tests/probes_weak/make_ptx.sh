#!/bin/sh
# Regenerates the nvcc-made probes with nvcc 13.0 (the committed PTX is the source of truth).
set -e
cd "$(dirname "$0")/src"
nvcc -rdc=true -arch=compute_80 -ptx tmpl.cu -o ../nvcc_templates_80.ptx
nvcc -rdc=true -arch=compute_80 -G -ptx tmpl.cu -o ../nvcc_templates_G_80.ptx
