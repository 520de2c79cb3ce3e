#!/usr/bin/env bash
# Regenerate the bundled golden cubins with ptxas 13.0.88 (never with cubinemit).
set -euo pipefail
cd "$(dirname "$0")/vadd"
ptxas=${PTXAS:-ptxas}
"$ptxas" --version | grep -q V13.0.88
for arch in sm_75 sm_86 sm_90a sm_100a sm_120; do
  "$ptxas" -arch "$arch" vadd.ptx -o "../cubins/vadd.$arch.cubin"
  "$ptxas" -arch "$arch" -c vadd.ptx -o "../cubins/vadd.$arch.rel.cubin"
done
for arch in sm_90 sm_100a; do
  "$ptxas" -arch "$arch" vadd_plain.ptx -o "../cubins/vadd_plain.$arch.cubin"
done
"$ptxas" -arch sm_90 ../blocksum/blocksum.ptx -o ../cubins/blocksum.sm_90.cubin
