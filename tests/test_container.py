"""Container-level round trip of every probe × target × mode, compared with cmp.

The rebuilt file comes from the model and the ptxas rules alone: the reader's quirks are
dropped, so the ELF header, section header table, program headers, every offset and padding
byte, .shstrtab, .strtab, .symtab, .symtab_shndx and .nv.merc.symtab are regenerated.
"""

from __future__ import annotations

import pytest

import probes_manifest
from cubinemit.reader import read_cubin
from cubinemit.roundtrip import container_roundtrip, first_difference
from cubinemit.inspect import where_in

MATRIX = probes_manifest.matrix()


@pytest.mark.parametrize("probe,target,mode", MATRIX, ids=["-".join(k) for k in MATRIX])
def test_roundtrip_is_byte_exact(corpus, probe, target, mode):
    data = corpus[(probe, target, mode)].read_bytes()
    obj = read_cubin(data)
    assert obj.quirks.used(obj.sections) == [], "ptxas output needed a quirk: a layout rule does not match"
    rebuilt = container_roundtrip(data)
    off = first_difference(rebuilt, data)
    assert off is None, f"first difference at {off:#x} in {where_in(obj, off)}"


def test_matrix_covers_every_target_and_mode():
    targets = {t for _, t, _ in MATRIX}
    modes = {m for _, _, m in MATRIX}
    assert len(targets) == 23
    assert modes == {"def", "c", "lineinfo", "g", "O0"}
