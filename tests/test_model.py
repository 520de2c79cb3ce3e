"""The section creator and symbol operations keep ptxas's leftovers in the string tables."""

from __future__ import annotations

from cubinemit.elf.constants import ET_REL, SHF_ALLOC, SHT_PROGBITS, SHT_STRTAB, SHT_SYMTAB
from cubinemit.elf.layout import layout
from cubinemit.elf.model import ElfObject, Role
from cubinemit.elf.writer import write
from cubinemit.errors import ModelError
from cubinemit.reader import read_cubin

import pytest


def _skeleton(sm: int = 75) -> ElfObject:
    obj = ElfObject(sm=sm, e_type=ET_REL)
    obj.create_section(".shstrtab", SHT_STRTAB, role=Role.SHSTRTAB)
    strtab = obj.create_section(".strtab", SHT_STRTAB, role=Role.STRTAB)
    symtab = obj.create_section(".symtab", SHT_SYMTAB, addralign=8, entsize=24, role=Role.SYMTAB)
    symtab.link = strtab
    return obj


def test_deleted_section_leaves_its_names():
    obj = _skeleton()
    ghost = obj.create_section(".rel.text.k", 9)
    obj.create_section(".rela.text.k", 4, addralign=8, entsize=24)
    obj.delete_section(ghost)
    lay = layout(obj)
    shstr = lay.contents[id(obj.role(Role.SHSTRTAB))]
    assert b"\0.rel.text.k\0.rela.text.k\0" in shstr
    assert [s.name for s in lay.order] == [".shstrtab", ".strtab", ".symtab", ".rela.text.k"]


def test_rename_modes():
    for mode, expect in (
        ("in_place", b".nv.constant4\0\0\0\0"),
        ("keep", b".nv.constant.pic\0"),
        ("append", b".nv.constant.pic\0.nv.constant4\0"),
    ):
        obj = _skeleton(100)
        bank = obj.create_section(".nv.constant.pic", SHT_PROGBITS, flags=SHF_ALLOC, addralign=8, data=bytes(8))
        obj.rename_section(bank, ".nv.constant4", strtab=mode)
        lay = layout(obj)
        assert lay.contents[id(obj.role(Role.SHSTRTAB))].endswith(b".nv.constant4\0\0\0\0")
        assert lay.contents[id(obj.role(Role.STRTAB))].endswith(expect), mode
    with pytest.raises(ModelError, match="unknown strtab rename mode"):
        obj.rename_section(bank, ".x", strtab="sideways")


def test_tombstone_zero_fills_the_name():
    obj = _skeleton()
    cap = obj.new_symbol(".nv.reservedSmem.cap", info=0x21)
    obj.new_symbol("after", info=0x01)
    obj.tombstone(cap)
    lay = layout(obj)
    assert lay.contents[id(obj.role(Role.STRTAB))].endswith(bytes(21) + b"after\0")
    symtab = lay.contents[id(obj.role(Role.SYMTAB))]
    assert symtab[24:48] == bytes(5) + b"\x01" + bytes(18)


def test_a_section_with_symbols_cannot_be_deleted():
    obj = _skeleton()
    text = obj.create_section(".text.k", SHT_PROGBITS, flags=6, addralign=128, data=bytes(128))
    obj.new_symbol("k", info=0x12, section=text)
    with pytest.raises(ModelError, match="symbol 'k' is defined in it"):
        obj.delete_section(text)


def test_built_from_scratch_reads_back_the_same():
    obj = _skeleton(90)
    text = obj.create_section(".text.k", SHT_PROGBITS, flags=6, addralign=128, data=bytes(range(128)))
    text.link = obj.role(Role.SYMTAB)
    sym = obj.new_symbol("k", info=0x12, other=0x10, section=text, size=128)
    text.info = sym
    data = write(obj)
    again = read_cubin(data)
    assert again.quirks.used(again.sections) == []
    assert write(again) == data
