"""Fixed-size ELF64 records: plain attrs values with ``pack``/``unpack``.

These hold the *raw* field values. The model (``cubinemit.elf.model``) holds meaning; the layout
pass turns meaning into these records, and the reader does the reverse.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

import attrs

from .constants import (
    EHDR_SIZE,
    ELFABIVERSION_CUDA,
    ELFCLASS64,
    ELFDATA2LSB,
    ELFMAG,
    ELFOSABI_CUDA,
    EM_CUDA,
    EV_CURRENT,
    PHDR_SIZE,
    REL_SIZE,
    RELA_SIZE,
    SHDR_SIZE,
    SYM_SIZE,
)

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_PHDR = struct.Struct("<IIQQQQQQ")
_SYM = struct.Struct("<IBBHQQ")
_REL = struct.Struct("<QQ")
_RELA = struct.Struct("<QQq")
_NHDR = struct.Struct("<III")

assert _EHDR.size == EHDR_SIZE and _SHDR.size == SHDR_SIZE and _PHDR.size == PHDR_SIZE
assert _SYM.size == SYM_SIZE and _REL.size == REL_SIZE and _RELA.size == RELA_SIZE


def ident(osabi: int = ELFOSABI_CUDA, abiversion: int = ELFABIVERSION_CUDA) -> bytes:
    """The 16-byte e_ident ptxas writes: ELF64, LSB, current version, CUDA OSABI/ABI."""
    return ELFMAG + bytes([ELFCLASS64, ELFDATA2LSB, EV_CURRENT, osabi, abiversion]) + bytes(7)


@attrs.define
class Ehdr:
    e_ident: bytes = attrs.field(factory=ident)
    e_type: int = 0
    e_machine: int = EM_CUDA
    e_version: int = EV_CURRENT
    e_entry: int = 0
    e_phoff: int = 0
    e_shoff: int = 0
    e_flags: int = 0
    e_ehsize: int = EHDR_SIZE
    e_phentsize: int = 0
    e_phnum: int = 0
    e_shentsize: int = SHDR_SIZE
    e_shnum: int = 0
    e_shstrndx: int = 0

    def pack(self) -> bytes:
        return _EHDR.pack(*attrs.astuple(self))

    @classmethod
    def unpack(cls, data: bytes, offset: int = 0) -> Ehdr:
        return cls(*_EHDR.unpack_from(data, offset))


@attrs.define
class Shdr:
    sh_name: int = 0
    sh_type: int = 0
    sh_flags: int = 0
    sh_addr: int = 0
    sh_offset: int = 0
    sh_size: int = 0
    sh_link: int = 0
    sh_info: int = 0
    sh_addralign: int = 0
    sh_entsize: int = 0

    def pack(self) -> bytes:
        return _SHDR.pack(
            self.sh_name, self.sh_type, self.sh_flags, self.sh_addr, self.sh_offset,
            self.sh_size, self.sh_link, self.sh_info, self.sh_addralign, self.sh_entsize,
        )  # fmt: skip

    @classmethod
    def unpack(cls, data: bytes, offset: int = 0) -> Shdr:
        return cls(*_SHDR.unpack_from(data, offset))


class ShdrRow(NamedTuple):
    """A section header as read, fields named as :class:`Shdr`'s (a tuple: the reader reads a
    table of thousands at once)."""

    sh_name: int
    sh_type: int
    sh_flags: int
    sh_addr: int
    sh_offset: int
    sh_size: int
    sh_link: int
    sh_info: int
    sh_addralign: int
    sh_entsize: int


def read_shdrs(data: bytes, offset: int, count: int) -> list[ShdrRow]:
    """``count`` section headers from ``offset`` (which the caller has checked lie in ``data``)."""
    make = ShdrRow._make
    return [make(row) for row in _SHDR.iter_unpack(data[offset : offset + _SHDR.size * count])]


@attrs.define
class Phdr:
    p_type: int = 0
    p_flags: int = 0
    p_offset: int = 0
    p_vaddr: int = 0
    p_paddr: int = 0
    p_filesz: int = 0
    p_memsz: int = 0
    p_align: int = 0

    def pack(self) -> bytes:
        return _PHDR.pack(*attrs.astuple(self))

    @classmethod
    def unpack(cls, data: bytes, offset: int = 0) -> Phdr:
        return cls(*_PHDR.unpack_from(data, offset))


@attrs.define
class Sym:
    st_name: int = 0
    st_info: int = 0
    st_other: int = 0
    st_shndx: int = 0
    st_value: int = 0
    st_size: int = 0

    @property
    def bind(self) -> int:
        return self.st_info >> 4

    @property
    def type(self) -> int:
        return self.st_info & 0xF

    def pack(self) -> bytes:
        return _SYM.pack(self.st_name, self.st_info, self.st_other, self.st_shndx, self.st_value, self.st_size)

    @classmethod
    def unpack(cls, data: bytes, offset: int = 0) -> Sym:
        return cls(*_SYM.unpack_from(data, offset))


#: ``Sym(name, info, other, shndx, value, size).pack()`` without making the object (the
#: layout packs every symbol of the file)
pack_sym = _SYM.pack
#: the Elf64_Sym layout, to read a whole table at once (``SYM_ROW.iter_unpack``)
SYM_ROW = _SYM


@attrs.define
class Reloc:
    """A REL or RELA entry; ``addend`` is None for REL."""

    r_offset: int = 0
    r_sym: int = 0
    r_type: int = 0
    r_addend: int | None = None

    def pack(self) -> bytes:
        info = (self.r_sym << 32) | self.r_type
        if self.r_addend is None:
            return _REL.pack(self.r_offset, info)
        return _RELA.pack(self.r_offset, info, self.r_addend)

    @classmethod
    def unpack(cls, data: bytes, offset: int, rela: bool) -> Reloc:
        if rela:
            r_offset, info, addend = _RELA.unpack_from(data, offset)
            return cls(r_offset, info >> 32, info & 0xFFFFFFFF, addend)
        r_offset, info = _REL.unpack_from(data, offset)
        return cls(r_offset, info >> 32, info & 0xFFFFFFFF, None)


def pack_note(name: bytes, n_type: int, desc: bytes) -> bytes:
    """One ELF note: header, name and desc, each padded to 4 bytes (desc already padded by ptxas)."""
    out = _NHDR.pack(len(name), len(desc), n_type) + name
    out += bytes(-len(out) % 4)
    out += desc + bytes(-len(desc) % 4)
    return out


def unpack_notes(data: bytes) -> list[tuple[bytes, int, bytes]]:
    """Split a note section into (name, type, desc); raises ValueError on overrun."""
    notes = []
    pos = 0
    while pos < len(data):
        if pos + _NHDR.size > len(data):
            raise ValueError(f"note header at {pos:#x} runs past the section end")
        namesz, descsz, n_type = _NHDR.unpack_from(data, pos)
        pos += _NHDR.size
        name_end = pos + namesz
        desc_start = name_end + (-namesz % 4)
        desc_end = desc_start + descsz
        if desc_end > len(data):
            raise ValueError(f"note at {pos - _NHDR.size:#x} claims {namesz}+{descsz} bytes past the section end")
        notes.append((data[pos:name_end], n_type, data[desc_start:desc_end]))
        pos = desc_end + (-descsz % 4)
    return notes


def align_up(value: int, alignment: int) -> int:
    """Round ``value`` up to a multiple of ``alignment`` (0 and 1 mean no alignment)."""
    if alignment <= 1:
        return value
    return (value + alignment - 1) // alignment * alignment
