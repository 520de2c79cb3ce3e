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
# nvcc -G for compute_100 and later also writes .debug_pubnames/.debug_pubtypes: two probes
# (built on sm_100 and later only)
for stem in dbg_calls dbg_struct; do
    PWD=/proc/self/cwd nvcc -arch=compute_100 -G -ptx "$stem.cu" -o "../${stem}_G100.ptx"
done
