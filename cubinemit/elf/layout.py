"""The layout pass: from an :class:`ElfObject` to indices, tables, offsets and headers.

A pure function of the model. Everything a cubin holds besides section payloads is computed
here: header order, section indices, ``.shstrtab``/``.strtab`` bytes and the zero slack ptxas
leaves after them, ``.symtab``/``.symtab_shndx``/``.nv.merc.symtab``, relocation entries,
file offsets and padding, program headers and the ELF header. sh_link/sh_info are resolved in
one place (:func:`_link_info`).
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from ..arch import facts
from ..errors import ModelError
from .constants import (
    EHDR_SIZE,
    ET_EXEC,
    PF_R,
    PF_W,
    PF_X,
    PHDR_SIZE,
    PT_LOAD,
    PT_PHDR,
    SHDR_SIZE,
    SHN_LORESERVE,
    SHN_XINDEX,
    SHT_CUDA_GLOBAL_INIT,
    SHT_PROGBITS,
    STB_GLOBAL,
    STT_SECTION,
    SHT_CUDA_CONSTANT,
    ET_REL,
)
from .model import ElfObject, Role, Section, Symbol
from .order import (
    CLASS_BSS,
    CLASS_CONST,
    CLASS_DATA,
    CLASS_LATE_BANK0,
    CLASS_TEXT,
    header_order,
    late_banks,
    relocated_banks,
    section_class,
    symbol_order,
)
from .strtab import name_bytes
from .structs import Ehdr, Phdr, Reloc, Shdr, Sym, align_up, ident, pack_sym

#: Mercury clone types that may share their original's file bytes when equal (ptxas 13.0.88
#: writes such a clone once): debug clones, .nv.merc.nv.constant.user/.pic, .nv.merc.nv.global.init.
_SHARABLE_CLONE_TYPES = frozenset({SHT_PROGBITS, SHT_CUDA_CONSTANT + 0x18, SHT_CUDA_CONSTANT + 0x19, SHT_CUDA_GLOBAL_INIT})


@attrs.define
class Layout:
    order: list[Section]
    index: dict[int, int]
    symbols: list[Symbol]
    sym_index: dict[int, int]
    merc_index: dict[int, int]
    contents: dict[int, bytes]
    offsets: dict[int, int]
    shdrs: list[Shdr]
    phdrs: list[Phdr]
    ehdr: Ehdr
    file_size: int

    def index_of(self, section: Section) -> int:
        return self.index[id(section)]

    def offset_of(self, section: Section) -> int:
        return self.offsets[id(section)]


def shstrtab_slack(obj: ElfObject) -> int:
    """Zero bytes after .shstrtab. ptxas sizes the table before dropping names it reserved:
    sm_90 reserves ``.symtab_shndx`` and a ``.nv.capmerc.text.<f>`` per function with code,
    sm_100+ ``.symtab_shndx`` and ``.nv.merc.symtab_shndx``; below sm_90 nothing."""
    if obj.quirks.shstrtab_slack is not None:
        return obj.quirks.shstrtab_slack
    rule = facts(obj.sm).shstrtab_slack
    if rule == "capmerc":
        names = [s.name for s in obj.sections if s.name.startswith(".text.") and not s.mercury]
        return len(".symtab_shndx") + 1 + sum(len(".nv.capmerc.text.") + len(n) - len(".text.") + 1 for n in names)
    if rule == "merc_shndx":
        return len(".symtab_shndx") + 1 + len(".nv.merc.symtab_shndx") + 1
    return 0


def strtab_slack(obj: ElfObject) -> int:
    """Zero bytes after .strtab on sm_100+, one term per bank that ptxas renames after sizing
    the table: 3 for the user bank (.nv.constant3), 23 for the global-address bank
    (.nv.constant4), 70 + len(f) for the texture-index bank of f (a .nv.constant0.<f> that
    carries relocations), 36 + len(f) for a jump-table bank .nv.constant2.<f> (8 for one
    without a relocation section). Only the slack
    modulo the next section's alignment shows in a file; the per-function values are the single
    ones consistent with names of 1 to 24 characters (tests/test_slack.py). The cause is not
    known (a function-address bank whose relocation section is made later does not fit)."""
    if obj.quirks.strtab_slack is not None:
        return obj.quirks.strtab_slack
    if not facts(obj.sm).strtab_slack:
        return 0
    slack = 0
    texture_banks = relocated_banks(obj)
    # the sections a relocation section targets
    targets = {id(r.info) for r in obj.relocation_sections() if not r.mercury}
    for s in obj.sections:
        if s.mercury:
            continue
        if s.name == ".nv.constant3":
            # 22 more when the user bank has a relocation section (a .const initialised with an
            # address: mix probe, sm_100a/sm_120), kept empty too (a .const function table
            # whose addresses ptxas resolved: tests/probes_data/init_across_sections)
            slack += 3 + (22 if any(r.info is s and r.relocs is not None for r in obj.sections if not r.mercury) else 0)
        elif s.name == ".nv.constant4":
            slack += 23
        elif id(s) in texture_banks:
            slack += 70 + len(name_bytes(s.name)) - len(".nv.constant0.")
        elif s.name.startswith(".nv.constant2."):
            # 8 for a bank without a relocation section (a kernel of a module without the ABI:
            # tests/probes_directives module_local, names of 1 to 24 characters)
            slack += 36 + len(name_bytes(s.name)) - len(".nv.constant2.") if id(s) in targets else 8
    return slack


def _needs_shndx(obj: ElfObject) -> bool:
    """ptxas decides on .symtab_shndx while the empty relocation sections it deletes at the end
    still exist: it keeps the table once NULL + the live sections + those deleted .rel/.rela
    sections reach 0xff00 (measured with tests/probes/big.py: 13053 kernels give 65277 and no
    table, 13054 give 65282 and the table; the other deleted sections do not count)."""
    live = {id(s.name_slot) for s in obj.sections}
    deleted_relocs = sum(1 for slot in obj.shstrtab.slots if id(slot) not in live and slot.text.startswith((".rel.", ".rela.")))
    count = 1 + sum(1 for s in obj.sections if s.role is not Role.SYMTAB_SHNDX) + deleted_relocs
    return count >= SHN_LORESERVE


def _symtab_bytes(
    symbols: list[Symbol],
    str_off: dict[int, int],
    index: dict[int, int],
    where: str,
    ordinal: dict[int, int] | None = None,
    late: set[int] | None = None,
) -> tuple[bytes, list[int], int]:
    """Encode a symbol table; returns bytes, the .symtab_shndx column and sh_info (last local + 1).

    ptxas fills .symtab_shndx for every symbol: the real index where st_shndx is SHN_XINDEX,
    otherwise the section's creation ordinal (the position of its name in .shstrtab, deleted
    sections counted), and 0 for symbols without a section and for the late section symbols
    created after the column was filled. ptxas escapes only indices *above* 0xff00: index 0xff00
    itself is written into st_shndx as is (measured on the >0xff00 probe, tests/test_big.py)."""
    out = bytearray(Sym().pack())
    xindex = [0]
    last_local = 0
    for i, sym in enumerate(symbols, start=1):
        if sym.section is not None:
            try:
                shndx = index[id(sym.section)]
            except KeyError:
                raise ModelError(f"{where}: symbol {sym.name!r} names section {sym.section.name!r}, which is not in the file") from None
        else:
            shndx = sym.shndx
        x = 0
        if sym.section is not None:
            if shndx > SHN_LORESERVE:
                x, shndx = shndx, SHN_XINDEX
            elif ordinal is not None and not (late and id(sym.section) in late and sym.type == STT_SECTION):
                x = ordinal.get(id(sym.section.name_slot), 0)
        xindex.append(x)
        name = str_off[id(sym.name_slot)] if sym.name_slot is not None else 0
        out += pack_sym(name, sym.info, sym.other, shndx, sym.value, sym.size)
        if sym.bind != STB_GLOBAL:
            last_local = i
    return bytes(out), xindex, last_local + 1


def _reloc_bytes(section: Section, sym_index: dict[int, int]) -> bytes:
    out = bytearray()
    for r in section.relocs or ():
        if r.symbol is None:
            sym = 0
        else:
            try:
                sym = sym_index[id(r.symbol)]
            except KeyError:
                raise ModelError(f"{section.name}: relocation at {r.offset:#x} names symbol {r.symbol.name!r}, which is not in its symbol table") from None
        out += Reloc(r.offset, sym, r.type, r.addend).pack()
    return bytes(out)


def _link_info(section: Section, index: dict[int, int], sym_index: dict[int, int], merc_index: dict[int, int]) -> tuple[int, int]:
    """The one place that turns sh_link/sh_info references into numbers."""
    link = _resolve(section, section.link, "sh_link", index, sym_index, merc_index)
    return link, _resolve(section, section.info, "sh_info", index, sym_index, merc_index) | section.info_high


def _resolve(
    section: Section, ref: Section | Symbol | int, what: str, index: dict[int, int], sym_index: dict[int, int], merc_index: dict[int, int]
) -> int:
    """The number ``section``'s sh_link or sh_info (``what``) reference ``ref`` stands for."""
    if isinstance(ref, int):
        return ref
    if isinstance(ref, Section):
        try:
            return index[id(ref)]
        except KeyError:
            raise ModelError(f"{section.name}: {what} names section {ref.name!r}, which is not in the file") from None
    table = merc_index if section.mercury and id(ref) in merc_index else sym_index
    try:
        return table[id(ref)]
    except KeyError:
        raise ModelError(f"{section.name}: {what} names symbol {ref.name!r}, which is not in the symbol table") from None


def _is_shared_clone(section: Section, obj: ElfObject) -> bool:
    """ptxas writes a Mercury clone once when its bytes equal its original's, except
    .nv.merc.debug_info in relocatable output, which always gets its own copy."""
    orig = section.clone_of
    if orig is None or section.sh_type not in _SHARABLE_CLONE_TYPES or orig.nobits:
        return False
    if obj.e_type == ET_REL and section.name == ".nv.merc.debug_info":
        return False
    return section.data == orig.data


def section_order(obj: ElfObject, late: set[int] | None = None) -> list[Section]:
    """The sections in the header table (index 1 onwards): :func:`header_order`, with
    ``.symtab_shndx`` only when it is needed. ``late`` is :func:`late_banks`, when known."""
    order = header_order(obj, late)
    if not _needs_shndx(obj):
        order = [s for s in order if s.role is not Role.SYMTAB_SHNDX]
    return order


def layout(obj: ElfObject, order: list[Section] | None = None) -> Layout:
    """Lay out ``obj``. Raises ModelError for a dangling reference. ``order``:
    :func:`section_order` of ``obj``, when the caller has it (it follows the sections, their
    names, types, flags and links, not their bytes, relocations or symbols)."""
    late = late_banks(obj)
    if order is None:
        order = section_order(obj, late)
    index = {id(s): i for i, s in enumerate(order, start=1)}

    shstr_bytes, shstr_off = obj.shstrtab.layout()
    str_bytes, str_off = obj.strtab.layout()

    symbols = symbol_order(obj, late)
    sym_index = {id(s): i for i, s in enumerate(symbols, start=1)}
    merc_index = {id(s): i for i, s in enumerate(obj.merc_symbols, start=1)}

    contents: dict[int, bytes] = {}
    info_override: dict[int, int] = {}
    ordinal = {id(slot): n for n, slot in enumerate(obj.shstrtab.slots)}
    symtab_bytes, xindex, symtab_info = _symtab_bytes(symbols, str_off, index, ".symtab", ordinal, late)
    for section in order:
        if section.role is Role.SHSTRTAB:
            contents[id(section)] = shstr_bytes
        elif section.role is Role.STRTAB:
            contents[id(section)] = str_bytes
        elif section.role is Role.SYMTAB:
            contents[id(section)] = symtab_bytes
            info_override[id(section)] = symtab_info
        elif section.role is Role.SYMTAB_SHNDX:
            contents[id(section)] = b"".join(x.to_bytes(4, "little") for x in xindex)
        elif section.role is Role.MERC_SYMTAB:
            data, _, info = _symtab_bytes(obj.merc_symbols, str_off, index, ".nv.merc.symtab")
            contents[id(section)] = data
            info_override[id(section)] = info
        elif section.relocs is not None:
            table = merc_index if isinstance(section.link, Section) and section.link.role is Role.MERC_SYMTAB else sym_index
            contents[id(section)] = _reloc_bytes(section, table)

    def size_of(s: Section) -> int:
        if s.nobits:
            return s.nobits_size
        return len(contents.get(id(s), s.data))

    # --- file offsets: 64, then each section aligned, NOBITS-like ones occupying nothing ------
    offsets: dict[int, int] = {}
    cur = EHDR_SIZE
    sh_slack, st_slack = shstrtab_slack(obj), strtab_slack(obj)
    for s in order:
        if s.forced_offset is not None:
            offsets[id(s)] = s.forced_offset
            cur = max(cur, s.forced_offset + (0 if s.nobits else size_of(s)))
            continue
        if _is_shared_clone(s, obj):
            offsets[id(s)] = offsets[id(s.clone_of)]
            continue
        cur = align_up(cur, s.addralign)
        offsets[id(s)] = cur
        if not s.nobits:
            cur += size_of(s)
        if s.role is Role.SHSTRTAB:
            cur += sh_slack
        elif s.role is Role.STRTAB:
            cur += st_slack
    shoff = align_up(cur, 8)
    shnum = len(order) + 1

    # --- section headers ---------------------------------------------------------------------
    shdrs = [Shdr()]
    if shnum >= SHN_LORESERVE:
        shdrs[0].sh_size = shnum
    for s in order:
        link, info = _link_info(s, index, sym_index, merc_index)
        if id(s) in info_override:
            info = info_override[id(s)]
        shdrs.append(
            Shdr(
                sh_name=shstr_off[id(s.name_slot)],
                sh_type=s.sh_type,
                sh_flags=s.flags,
                sh_offset=offsets[id(s)],
                sh_size=size_of(s),
                sh_link=link,
                sh_info=info,
                sh_addralign=s.addralign,
                sh_entsize=s.entsize,
            )
        )

    # --- program headers (EXEC only), then the ELF header --------------------------------------
    phoff = shoff + SHDR_SIZE * shnum
    if obj.quirks.phdrs is not None:
        phdrs = list(obj.quirks.phdrs)
    elif obj.e_type == ET_EXEC:
        phdrs = _program_headers(obj, order, offsets, size_of, phoff, late)
    else:
        phdrs = []
    if obj.e_type == ET_EXEC:
        phentsize = PHDR_SIZE
    else:
        phentsize = facts(obj.sm).rel_phentsize
    if obj.quirks.e_phentsize is not None:
        phentsize = obj.quirks.e_phentsize
    file_size = phoff + PHDR_SIZE * len(phdrs)

    cuinfo = next((i for i, s in enumerate(order, start=1) if s.name == ".note.nv.cuinfo"), 0)
    e_flags = (cuinfo << 24) | (obj.sm << 8) | facts(obj.sm).eflags_low
    if obj.quirks.e_flags is not None:
        e_flags = obj.quirks.e_flags
    shstrndx = next((i for i, s in enumerate(order, start=1) if s.role is Role.SHSTRTAB), 0)
    ehdr = Ehdr(
        e_ident=obj.quirks.e_ident or ident(abiversion=obj.abi_version),
        e_type=obj.e_type,
        e_phoff=phoff if phdrs else 0,
        e_shoff=shoff,
        e_flags=e_flags,
        e_phentsize=phentsize,
        e_phnum=len(phdrs),
        e_shnum=0 if shnum >= SHN_LORESERVE else shnum,
        e_shstrndx=shstrndx,
    )
    return Layout(order, index, symbols, sym_index, merc_index, contents, offsets, shdrs, phdrs, ehdr, file_size)


def _program_headers(
    obj: ElfObject, order: list[Section], offsets: dict[int, int], size_of: Callable[[Section], int], phoff: int, late: set[int]
) -> list[Phdr]:
    """EXEC program headers. sm_90+: PHDR and LOAD over the table, then one LOAD per
    non-empty group (read-only banks, code, data+bss, late banks). Below sm_90: PHDR, LOAD over
    banks+code, LOAD over data+bss, then LOAD over the table, last. ``late`` is :func:`late_banks`."""
    groups: dict[int, list[Section]] = {}
    for s in order:
        if s.mercury:
            continue  # program headers never cover Mercury sections
        groups.setdefault(section_class(s, late), []).append(s)

    def load(sections: list[Section], flags: int) -> Phdr:
        start = offsets[id(sections[0])]
        filesz = max(offsets[id(s)] + (0 if s.nobits else size_of(s)) for s in sections) - start
        # memory image: the file's bytes, then the NOBITS sections stacked from 0 at their
        # alignment, each taking its size (every EXEC data segment of the caches, 9,547 in a
        # third of them: 128 file bytes, then .nv.shared.k1 (128 bytes, alignment 128), a
        # .nv.global of alignment 256 and .nv.shared.k0 take 128 + 512)
        pos = 0
        for s in sections:
            if s.nobits:
                pos = align_up(pos, s.addralign) + size_of(s)
        return Phdr(PT_LOAD, flags, start, 0, 0, filesz, filesz + pos, 8)

    if facts(obj.sm).phdr_style == "hopper":
        spec = [
            (groups.get(CLASS_CONST, []), PF_R),
            (groups.get(CLASS_TEXT, []), PF_R | PF_X),
            (groups.get(CLASS_DATA, []) + groups.get(CLASS_BSS, []), PF_R | PF_W),
            (groups.get(CLASS_LATE_BANK0, []), PF_R),
        ]
        loads = [load(secs, flags) for secs, flags in spec if secs]
        n = 2 + len(loads)
        table = n * PHDR_SIZE
        return [Phdr(PT_PHDR, PF_R, phoff, 0, 0, table, table, 8), Phdr(PT_LOAD, PF_R, phoff, 0, 0, table, table, 8), *loads]
    spec = [
        (groups.get(CLASS_CONST, []) + groups.get(CLASS_TEXT, []), PF_R | PF_X),
        (groups.get(CLASS_DATA, []) + groups.get(CLASS_BSS, []), PF_R | PF_W),
    ]
    loads = [load(secs, flags) for secs, flags in spec if secs]
    n = 2 + len(loads)
    table = n * PHDR_SIZE
    rx = PF_R | PF_X
    return [Phdr(PT_PHDR, rx, phoff, 0, 0, table, table, 8), *loads, Phdr(PT_LOAD, rx, phoff, 0, 0, table, table, 8)]
