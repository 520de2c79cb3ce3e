"""Our R_CUDA names are NVIDIA's: every relocation cuobjdump 13.2.51 prints, we name alike."""

from __future__ import annotations

import re
import subprocess

import pytest

from cubinemit import toolchain
from cubinemit.elf.constants import reloc_type_name
from cubinemit.reader import read_cubin

PROBES = ["texref_unified", "texref_independent", "func_calls", "global_vars", "printf", "dwarf_g", "func_pointer", "tex_objects"]
TARGETS = ["sm_75", "sm_86", "sm_90", "sm_100a", "sm_120"]
LINE = re.compile(r"^(0x[0-9a-f]+)\s+(\S+)\s+(R_CUDA_\w+)")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["def", "c", "g"])
def test_relocation_names_match_cuobjdump(cubin, tmp_path, target, mode):
    seen = 0
    for probe in PROBES:
        data = cubin(probe, target, mode)
        path = tmp_path / f"{probe}.cubin"
        path.write_bytes(data)
        out = subprocess.run([str(toolchain.cuobjdump()), "-elf", str(path)], capture_output=True, text=True, check=True).stdout
        theirs: dict[str, list[tuple[int, str]]] = {}
        section = None
        for line in out.splitlines():
            if line.startswith(".section .rel"):
                section = line.split()[1]
                theirs[section] = []
            elif section and (m := LINE.match(line)):
                theirs[section].append((int(m.group(1), 16), m.group(3)))
            elif not line.strip():
                section = None if section and theirs.get(section) else section
        obj = read_cubin(data)
        for s in obj.relocation_sections():
            if s.name not in theirs:
                continue  # cuobjdump does not print Mercury relocations
            ours = [(r.offset, reloc_type_name(r.type)) for r in s.relocs or ()]
            assert ours == theirs[s.name], s.name
            seen += len(ours)
    assert seen > 0
