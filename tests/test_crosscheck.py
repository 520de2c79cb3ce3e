"""Independent readers agree with ours on the generic ELF fields.

pyelftools (read-only; st_other bits 3-4 dropped, so raw bytes are compared instead) and lief
(which loses CUDA section and relocation types) are checked on what each reads faithfully.
"""

from __future__ import annotations

import io

import pytest

from cubinemit.elf.layout import layout
from cubinemit.reader import read_cubin

CASES = [
    ("func_calls", "sm_75", "def"),
    ("global_vars", "sm_90", "c"),
    ("printf", "sm_100a", "def"),
    ("dwarf_g", "sm_120", "g"),
    ("texref_unified", "sm_89", "lineinfo"),
    ("shared_module", "sm_110", "O0"),
]


@pytest.mark.parametrize("probe,target,mode", CASES)
def test_pyelftools_agrees(cubin, probe, target, mode):
    from elftools.elf.elffile import ELFFile

    data = cubin(probe, target, mode)
    obj = read_cubin(data)
    lay = layout(obj)
    elf = ELFFile(io.BytesIO(data))
    assert elf.num_sections() == len(lay.order) + 1
    for ours, theirs in zip(lay.order, list(elf.iter_sections())[1:]):
        assert theirs.name == ours.name
        assert theirs["sh_type"] in (ours.sh_type,) or theirs["sh_type"] == _elftools_type_name(ours.sh_type)
        assert theirs["sh_offset"] == lay.offsets[id(ours)]
        assert theirs["sh_flags"] == ours.flags
        assert theirs["sh_addralign"] == ours.addralign
    symtab = elf.get_section_by_name(".symtab")
    theirs = list(symtab.iter_symbols())[1:]
    assert [s.name for s in theirs] == [s.name for s in lay.symbols]
    assert [s["st_value"] for s in theirs] == [s.value for s in lay.symbols]
    assert [s["st_size"] for s in theirs] == [s.size for s in lay.symbols]
    assert elf.num_segments() == len(lay.phdrs)
    for seg, ph in zip(elf.iter_segments(), lay.phdrs):
        assert (seg["p_offset"], seg["p_filesz"], seg["p_memsz"]) == (ph.p_offset, ph.p_filesz, ph.p_memsz)


def _elftools_type_name(sh_type: int) -> str:
    return {1: "SHT_PROGBITS", 2: "SHT_SYMTAB", 3: "SHT_STRTAB", 4: "SHT_RELA", 7: "SHT_NOTE", 8: "SHT_NOBITS", 9: "SHT_REL"}.get(sh_type, "")


@pytest.mark.parametrize("probe,target,mode", CASES)
def test_lief_agrees(cubin, probe, target, mode):
    import lief

    lief.logging.disable()
    data = cubin(probe, target, mode)
    obj = read_cubin(data)
    lay = layout(obj)
    binary = lief.ELF.parse(list(data))
    sections = list(binary.sections)[1:]
    assert [s.name for s in sections] == [s.name for s in lay.order]
    assert [s.offset for s in sections] == [lay.offsets[id(s)] for s in lay.order]
    assert [s.size for s in sections] == [lay.shdrs[i].sh_size for i in range(1, len(lay.shdrs))]
    names = [s.name for s in binary.symtab_symbols][1:]
    assert names == [s.name for s in lay.symbols]
