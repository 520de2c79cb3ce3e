"""A short synthetic-kernel generator: many kernels from one SASS template.

    python examples/synthetic_kernels.py examples/cubins/vadd_plain.sm_90.cubin 16 /tmp/synthetic.cubin

Test generators use this shape: take a known-good kernel body, vary what the test is about
(here: names, launch bounds and register counts), and let cubinemit write a cubin the driver
and NVIDIA's tools accept, laid out exactly as ptxas would lay it out.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cubinemit.nvinfo.facts import FunctionFacts, ModuleFacts, Param, to_json
from cubinemit.reader import read_cubin
from cubinemit.semantic import DebugSection, Function, Module, Relocation
from cubinemit.semantic.build import build

# one CIE and one FDE per kernel, as ptxas writes them for a leaf kernel (the DWARF is leaf data)
_CIE_FDE = 104


def synthetic_module(template: str, n: int) -> Module:
    """``n`` copies of the template's kernel, ``synthetic_000``..., kernel i bounded to
    32 * (1 + i % 8) threads."""
    ptxas = read_cubin(Path(template).read_bytes())
    sass = ptxas.section(".text.vadd").data
    frame = ptxas.section(".debug_frame").data
    cie, fde = frame[:48], frame[48:_CIE_FDE]
    functions, debug, relocs = [], bytearray(), []
    for i in range(n):
        name = f"synthetic_{i:03d}"
        facts = FunctionFacts(
            name=name,
            is_kernel=True,
            register_count=12,
            params=(Param(8, 8), Param(8, 8), Param(8, 8), Param(4, 4)),
            exit_offsets=(0x70, 0x130),
            maxntid=(32 * (1 + i % 8), 1, 1),
        )
        functions.append(Function(name, is_kernel=True, sass=sass, facts={"nvinfo": to_json(facts)}))
    # whole program lays kernels out in reverse declaration order; so does the frame
    for i in reversed(range(n)):
        base = len(debug)
        pointer = base.to_bytes(8, "little")  # the FDE points at the CIE just before it
        debug += cie + fde[:12] + pointer + fde[20:]
        relocs.append(Relocation(base + 68, 2, f"synthetic_{i:03d}", 0))
    module = Module(
        target="sm_90",
        options={"arch": "sm_90"},
        ptx_target=75,
        functions=functions,
        debug=[DebugSection(".debug_frame", bytes(debug), relocs[::-1])],
        facts={"nvinfo": to_json(ModuleFacts(target="sm_90"))},
    )
    return module


def main(template: str, count: str, out: str) -> int:
    n = int(count)
    data = build(synthetic_module(template, n))
    Path(out).write_bytes(data)
    print(f"wrote {out}: {n} kernels, {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
