#!/bin/sh
# Regenerate the debug probes' PTX: nvcc -G (full DWARF) and nvcc -lineinfo PTX of each .cu.
# PWD=/proc/self/cwd makes cicc write /proc/self/cwd as DW_AT_comp_dir and the .file
# directory instead of this machine's absolute working directory (see tests/probes/MANIFEST.toml,
# dwarf_g). compute_75 PTX is accepted by every target.
set -e
cd "$(dirname "$0")/src"
for cu in *.cu; do
    stem=${cu%.cu}
    PWD=/proc/self/cwd nvcc -arch=compute_75 -G -ptx "$cu" -o "../${stem}_G.ptx"
    PWD=/proc/self/cwd nvcc -arch=compute_75 -lineinfo -ptx "$cu" -o "../${stem}_L.ptx"
done
