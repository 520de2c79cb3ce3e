"""Build a cubin from scratch with the builder API, the way a compiler backend would.

    python examples/build_from_scratch.py examples/cubins/vadd_plain.sm_90.cubin /tmp/vadd.cubin

A backend knows its SASS, its register count, its parameters and where its EXITs are; here the
SASS bytes and the .debug_frame CFA (both leaf data) are taken from a ptxas cubin of the same
kernel (examples/vadd/vadd_plain.cu), everything else is stated below. cubinemit derives the
rest: sections, string tables, symbols, .nv.info records, notes, banks, offsets, headers.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cubinemit.nvinfo.facts import FunctionFacts, ModuleFacts, Param, to_json
from cubinemit.reader import read_cubin
from cubinemit.semantic import DebugSection, Function, Module, Relocation
from cubinemit.semantic.build import build


def vadd_module(golden: str) -> Module:
    """The vadd kernel as a backend states it; only the SASS and the CFA come from ``golden``."""
    ptxas = read_cubin(Path(golden).read_bytes())
    sass = ptxas.section(".text.vadd").data  # the backend's code
    cfa = ptxas.section(".debug_frame").data  # the backend's DWARF call-frame info

    kernel = Function(
        "vadd",
        is_kernel=True,
        sass=sass,
        facts={
            "nvinfo": to_json(
                FunctionFacts(
                    name="vadd",
                    is_kernel=True,
                    register_count=12,
                    params=(Param(8, 8), Param(8, 8), Param(8, 8), Param(4, 4)),  # a, b, c, n
                    exit_offsets=(0x70, 0x130),
                )
            )
        },
    )
    module = Module(
        target="sm_90",
        options={"arch": "sm_90"},  # ptxas -arch sm_90
        ptx_target=75,  # the PTX said .target sm_75
        functions=[kernel],
        debug=[DebugSection(".debug_frame", cfa, [Relocation(0x44, 2, "vadd", 0)])],  # R_CUDA_64
        facts={"nvinfo": to_json(ModuleFacts(target="sm_90"))},
    )
    return module


def main(golden: str, out: str) -> int:
    data = build(vadd_module(golden))
    Path(out).write_bytes(data)
    same = data == Path(golden).read_bytes()
    print(f"wrote {out}: {len(data)} bytes, {'identical to' if same else 'DIFFERENT from'} ptxas's {golden}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
