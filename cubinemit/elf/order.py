"""ptxas's section and symbol ordering.

Sections exist in creation order; the header table is that order stable-sorted by class
(measured on ptxas 13.0.88, it is *not* the eight priority buckets of the seed notes):

  1 string/symbol tables      5 ALLOC read-only (constant banks; bank 0 below sm_90)
  2 debug PROGBITS            6 ALLOC+EXEC (.text.<f>)
  3 other non-alloc           7 ALLOC+WRITE with bytes (.nv.global.init)
  4 REL/RELA                  8 ALLOC+WRITE NOBITS-like (.nv.global, .nv.shared.*)
  9 sm_90+: the late parameter banks .nv.constant0.<f> (a bank with relocations stays in 5)
 10 sm_100+: the Mercury tail, in creation order (.nv.merc.symtab is created last)
"""

from __future__ import annotations

from ..arch import facts
from .constants import (
    SHF_ALLOC,
    SHF_EXECINSTR,
    SHF_INFO_LINK,
    SHF_WRITE,
    SHT_PROGBITS,
    SHT_REL,
    SHT_RELA,
    STB_GLOBAL,
    STT_SECTION,
)
from .model import ElfObject, Role, Section, Symbol

CLASS_TABLES = 1
CLASS_DEBUG = 2
CLASS_NONALLOC = 3
CLASS_RELOC = 4
CLASS_CONST = 5
CLASS_TEXT = 6
CLASS_DATA = 7
CLASS_BSS = 8
CLASS_LATE_BANK0 = 9
CLASS_MERCURY = 10

_TABLE_ROLES = (Role.SHSTRTAB, Role.STRTAB, Role.SYMTAB, Role.SYMTAB_SHNDX)


def late_banks(obj: ElfObject) -> set[int]:
    """ids of the sm_90+ parameter banks placed after the NOBITS sections."""
    if not facts(obj.sm).late_bank0:
        return set()
    targeted = {id(s.info) for s in obj.relocation_sections() if isinstance(s.info, Section)}
    return {
        id(s)
        for s in obj.sections
        if s.name.startswith(".nv.constant0.") and not s.mercury and id(s) not in targeted
    }


def section_class(section: Section, late: set[int]) -> int:
    if section.mercury:
        return CLASS_MERCURY
    if section.role in _TABLE_ROLES:
        return CLASS_TABLES
    if id(section) in late:
        return CLASS_LATE_BANK0
    if section.sh_type in (SHT_REL, SHT_RELA):
        return CLASS_RELOC
    if not section.flags & SHF_ALLOC:
        if section.sh_type == SHT_PROGBITS and section.name.startswith((".debug_", ".nv_debug_")):
            return CLASS_DEBUG
        return CLASS_NONALLOC
    if section.flags & SHF_EXECINSTR:
        return CLASS_TEXT
    if section.flags & SHF_WRITE:
        return CLASS_BSS if section.nobits else CLASS_DATA
    return CLASS_CONST


#: Relocation sections are ranked by their target (ptxas emits them target kind by target kind);
#: creation order breaks ties, so .rela.text.<f> follow the function order.
_RELOC_TARGET_RANK = (
    (".text.", 0),
    (".debug_line", 1),
    (".nv_debug_line_sass", 2),
    (".debug_loc", 3),
    (".debug_info", 4),
    (".nv.constant0.", 5),
    (".nv.constant4", 6),
    (".nv.global.init", 7),
    (".debug_frame", 8),
)


def _reloc_rank(section: Section) -> int:
    target = section.info.name if isinstance(section.info, Section) else ""
    for prefix, rank in _RELOC_TARGET_RANK:
        if target == prefix or (prefix.endswith(".") and target.startswith(prefix)):
            return rank
    return 5


def _reloc_keys(sections: list[Section]) -> dict[int, tuple[int, int]]:
    """Sort keys of the relocation class. Two texture-bank cases depart from the target rank,
    both explained by when ptxas creates the section: below sm_90 under -g the bank's .rel is
    created with its function (without SHF_INFO_LINK) and ranks with the .text relocations; from
    sm_90 under -g it is created after .rela.debug_frame and comes after it."""
    relocs = [s for s in sections if s.sh_type in (SHT_REL, SHT_RELA) and not s.mercury]
    frame_pos = max(
        (i for i, s in enumerate(relocs) if isinstance(s.info, Section) and s.info.name == ".debug_frame"),
        default=len(relocs),
    )
    keys = {}
    for i, s in enumerate(relocs):
        if not s.flags & SHF_INFO_LINK:
            keys[id(s)] = (1, 0)
        elif i > frame_pos:
            keys[id(s)] = (2, 0)
        else:
            keys[id(s)] = (1, _reloc_rank(s))
    return keys


def header_order(obj: ElfObject) -> list[Section]:
    """Sections in header-table order (index 1 onwards)."""
    if obj.quirks.header_order is not None:
        return list(obj.quirks.header_order)
    late = late_banks(obj)
    rkeys = _reloc_keys(obj.sections)
    return sorted(obj.sections, key=lambda s: (section_class(s, late), rkeys.get(id(s), (0, 0))))


def symbol_order(obj: ElfObject) -> list[Symbol]:
    """.symtab order (index 1 onwards): LOCAL and WEAK in creation order, then GLOBAL, then
    (sm_90+) the section symbols of the late parameter banks."""
    if obj.quirks.keep_symbol_order:
        return list(obj.symbols)
    late = late_banks(obj)

    def key(sym: Symbol) -> int:
        if sym.type == STT_SECTION and sym.section is not None and id(sym.section) in late:
            return 2
        return 1 if sym.bind == STB_GLOBAL else 0

    return sorted(obj.symbols, key=key)
