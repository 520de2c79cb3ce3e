"""Read any cubin into an :class:`~cubinemit.elf.model.ElfObject`, losslessly.

The reader recovers the ELFW history a cubin implies: creation order from the order of names in
``.shstrtab``, string-table slots (renames, blanked and leftover names), symbols and relocations
by reference. Then it lays the model out with the ptxas rules and compares; whatever a file does
differently from those rules (a foreign producer, a corrupted field) is recorded as a named
quirk so that writing the model gives the input back byte for byte. ptxas 13.0.88 output needs
no quirk; the tests hold that.

Every malformed input raises :class:`CubinFormatError` naming the table or section and file
offset; memory stays bounded by the file size whatever sizes the file claims.
"""

from __future__ import annotations

import struct

from .elf.constants import (
    EHDR_SIZE,
    ELFCLASS64,
    ELFDATA2LSB,
    ELFMAG,
    EM_CUDA,
    REL_SIZE,
    RELA_SIZE,
    SHDR_SIZE,
    SHF_EXECINSTR,
    SHF_INFO_LINK,
    SHN_LORESERVE,
    SHN_XINDEX,
    SHT_CUDA_CAPMERC_TEXT,
    SHT_CUDA_MERC_RELA,
    SHT_CUDA_MERC_SYMTAB,
    SHT_CUDA_RESOLVED_RELA,
    SHT_REL,
    SHT_RELA,
    SHT_STRTAB,
    SHT_SYMTAB,
    SHT_SYMTAB_SHNDX,
    SYM_SIZE,
    NOBITS_LIKE_TYPES,
    SHT_NOBITS,
    SHF_CUDA_MERCURY,
    STT_SECTION,
)
from .elf.layout import layout
from .elf.model import ElfObject, Relocation, Role, Section, Symbol, final_name
from .elf.order import header_order, symbol_order
from .elf.strtab import StringTable, StrSlot, split_table
from .elf.structs import SYM_ROW, Ehdr, Phdr, Reloc, Shdr, ShdrRow, ident, read_shdrs
from .elf.writer import write
from .errors import CubinFormatError

_MAX_REPORTED = 64


def _read_table(data: bytes, shdr: ShdrRow, where: str) -> tuple[StringTable, dict[int, StrSlot]]:
    """The table, and its slots by offset (what :func:`_slot_map` gives: the split has them)."""
    raw = data[shdr.sh_offset : shdr.sh_offset + shdr.sh_size]
    if raw and raw[-1] != 0:
        raise CubinFormatError("string table does not end with NUL", offset=shdr.sh_offset + shdr.sh_size - 1, where=where)
    if raw and raw[0] != 0:
        raise CubinFormatError("string table does not start with NUL", offset=shdr.sh_offset, where=where)
    table = StringTable(slots=[])
    at: dict[int, StrSlot] = {}
    append = table.slots.append
    for offset, text, width in split_table(raw):
        slot = StrSlot(text, width)
        append(slot)
        at[offset] = slot
    return table, at


def _slot_map(table: StringTable) -> dict[int, StrSlot]:
    pos = 0
    out = {}
    for slot in table.slots:
        out[pos] = slot
        pos += slot.size
    return out


class _Reader:
    def __init__(self, data: bytes, quirks: bool = True):
        self.data = data
        self.quirks = quirks

    def fail(self, message: str, offset: int | None = None, where: str | None = None) -> CubinFormatError:
        return CubinFormatError(message, offset=offset, where=where)

    # --- headers --------------------------------------------------------------------------------
    def header(self) -> Ehdr:
        d = self.data
        if len(d) < EHDR_SIZE:
            raise self.fail(f"file is {len(d)} bytes, shorter than an ELF64 header", 0, "ELF header")
        if d[:4] != ELFMAG:
            raise self.fail("not an ELF file (bad magic)", 0, "ELF header")
        if d[4] != ELFCLASS64 or d[5] != ELFDATA2LSB:
            raise self.fail("not a little-endian ELF64 file", 4, "ELF header")
        eh = Ehdr.unpack(d)
        if eh.e_machine != EM_CUDA:
            raise self.fail(f"e_machine is {eh.e_machine}, not EM_CUDA (190)", 18, "ELF header")
        if eh.e_shoff == 0:
            raise self.fail("no section header table (e_shoff is 0)", 40, "ELF header")
        if eh.e_shentsize != SHDR_SIZE:
            raise self.fail(f"e_shentsize is {eh.e_shentsize}, not 64", 58, "ELF header")
        return eh

    def section_headers(self, eh: Ehdr) -> list[ShdrRow]:
        d = self.data
        if eh.e_shoff + SHDR_SIZE > len(d):
            raise self.fail(f"section header table at {eh.e_shoff:#x} lies past the end of the file ({len(d):#x} bytes)", eh.e_shoff, "section header table")
        shnum = eh.e_shnum
        if shnum == 0:
            shnum = Shdr.unpack(d, eh.e_shoff).sh_size  # more than 0xff00 sections
        if shnum == 0 or eh.e_shoff + SHDR_SIZE * shnum > len(d):
            raise self.fail(f"section header table claims {shnum} entries, which do not fit in the file", eh.e_shoff, "section header table")
        shdrs = read_shdrs(d, eh.e_shoff, shnum)
        for i, sh in enumerate(shdrs[1:], start=1):
            nobits = sh.sh_type == SHT_NOBITS or (sh.sh_type in NOBITS_LIKE_TYPES and not sh.sh_flags & SHF_CUDA_MERCURY)
            if not nobits and sh.sh_offset + sh.sh_size > len(d):
                raise self.fail(
                    f"section [{i}] claims {sh.sh_size:#x} bytes at {sh.sh_offset:#x}, past the end of the file ({len(d):#x} bytes)",
                    eh.e_shoff + SHDR_SIZE * i,
                    f"section header [{i}]",
                )
        return shdrs

    # --- main -----------------------------------------------------------------------------------
    def read(self) -> ElfObject:
        d = self.data
        eh = self.header()
        shdrs = self.section_headers(eh)
        shnum = len(shdrs)
        shstrndx = eh.e_shstrndx
        if shstrndx == SHN_XINDEX:
            shstrndx = shdrs[0].sh_link
        if not 0 < shstrndx < shnum or shdrs[shstrndx].sh_type != SHT_STRTAB:
            raise self.fail(f"e_shstrndx {eh.e_shstrndx} does not name a string table", 62, "ELF header")
        shstrtab, shstr_slots = _read_table(d, shdrs[shstrndx], "section [%d] .shstrtab" % shstrndx)

        obj = ElfObject(sm=(eh.e_flags >> 8) & 0xFF, e_type=eh.e_type, abi_version=eh.e_ident[8], shstrtab=shstrtab)

        def shdr_where(i: int) -> str:
            return f"section header [{i}]"

        # sections, bound to their .shstrtab slots
        sections: list[Section] = [None]  # type: ignore[list-item]
        for i, sh in enumerate(shdrs[1:], start=1):
            slot = shstr_slots.get(sh.sh_name)
            if slot is None:
                raise self.fail(f"sh_name {sh.sh_name:#x} is not the start of a string in .shstrtab", eh.e_shoff + SHDR_SIZE * i, shdr_where(i))
            s = Section(name_slot=slot, sh_type=sh.sh_type, flags=sh.sh_flags, addralign=sh.sh_addralign, entsize=sh.sh_entsize)
            if s.nobits:
                s.nobits_size = sh.sh_size
            else:
                s.data = d[sh.sh_offset : sh.sh_offset + sh.sh_size]
            sections.append(s)
        sections[shstrndx].role = Role.SHSTRTAB

        def section_ref(idx: int, what: str, i: int) -> Section | int:
            if idx == 0:
                return 0
            if not 0 < idx < shnum:
                raise self.fail(f"{what} {idx} is not a section index (there are {shnum})", eh.e_shoff + SHDR_SIZE * i, f"section [{i}] {sections[i].name}")
            return sections[idx]

        symtab_i = next((i for i, sh in enumerate(shdrs) if sh.sh_type == SHT_SYMTAB), None)
        strtab_i = None
        if symtab_i is not None:
            strtab_i = shdrs[symtab_i].sh_link
            if not 0 < strtab_i < shnum or shdrs[strtab_i].sh_type != SHT_STRTAB:
                raise self.fail(f".symtab sh_link {strtab_i} is not a string table", eh.e_shoff + SHDR_SIZE * symtab_i, f"section [{symtab_i}] .symtab")
            sections[symtab_i].role = Role.SYMTAB
            sections[strtab_i].role = Role.STRTAB
            obj.strtab, str_slots = _read_table(d, shdrs[strtab_i], f"section [{strtab_i}] .strtab")
        else:
            str_slots = _slot_map(obj.strtab)
        for i, sh in enumerate(shdrs):
            if sh.sh_type == SHT_SYMTAB_SHNDX:
                sections[i].role = Role.SYMTAB_SHNDX
            elif sh.sh_type == SHT_CUDA_MERC_SYMTAB:
                sections[i].role = Role.MERC_SYMTAB

        # symbols
        xindex: list[int] = []
        shndx_i = next((i for i, sh in enumerate(shdrs) if sh.sh_type == SHT_SYMTAB_SHNDX), None)
        if shndx_i is not None:
            raw = sections[shndx_i].data
            xindex = list(struct.unpack_from(f"<{len(raw) // 4}I", raw))

        def read_symbols(i: int, use_xindex: bool) -> list[Symbol]:
            sh = shdrs[i]
            where = f"section [{i}] {sections[i].name}"
            if sh.sh_size % SYM_SIZE:
                raise self.fail(f"size {sh.sh_size:#x} is not a multiple of {SYM_SIZE}", sh.sh_offset, where)
            out = []
            first = sh.sh_offset + SYM_SIZE
            rows = SYM_ROW.iter_unpack(d[first : first + SYM_SIZE * max(0, sh.sh_size // SYM_SIZE - 1)])
            for k, (st_name, st_info, st_other, st_shndx, st_value, st_size) in enumerate(rows, start=1):
                off = sh.sh_offset + SYM_SIZE * k
                if st_name == 0:
                    slot = None
                else:
                    slot = str_slots.get(st_name)
                    if slot is None:
                        raise self.fail(f"symbol {k}: st_name {st_name:#x} is not the start of a string in .strtab", off, where)
                sym = Symbol(name_slot=slot, info=st_info, other=st_other, value=st_value, size=st_size)
                shndx = st_shndx
                if shndx == SHN_XINDEX and use_xindex:
                    if k >= len(xindex):
                        raise self.fail(f"symbol {k} ({sym.name!r}) uses SHN_XINDEX but .symtab_shndx has no entry for it", off, where)
                    shndx = xindex[k]
                # ptxas writes index 0xff00 itself into st_shndx (it escapes only larger ones)
                direct = 0 < shndx < SHN_LORESERVE or (shndx == SHN_LORESERVE and shnum > SHN_LORESERVE)
                if direct or (st_shndx == SHN_XINDEX and use_xindex):
                    if not 0 < shndx < shnum:
                        raise self.fail(f"symbol {k} ({sym.name!r}): st_shndx {shndx} is not a section index", off, where)
                    sym.section = sections[shndx]
                else:
                    sym.shndx = shndx
                out.append(sym)
            return out

        if symtab_i is not None:
            obj.symbols = read_symbols(symtab_i, True)
        merc_i = next((i for i, sh in enumerate(shdrs) if sh.sh_type == SHT_CUDA_MERC_SYMTAB), None)
        if merc_i is not None:
            obj.merc_symbols = read_symbols(merc_i, False)

        # links, infos, relocations
        for i, sh in enumerate(shdrs[1:], start=1):
            s = sections[i]
            s.link = section_ref(sh.sh_link, "sh_link", i)
            if s.role in (Role.SYMTAB, Role.MERC_SYMTAB):
                s.info = sh.sh_info  # derived by the layout; checked below
            elif sh.sh_flags & SHF_INFO_LINK or sh.sh_type in (SHT_REL, SHT_RELA, SHT_CUDA_MERC_RELA, SHT_CUDA_RESOLVED_RELA):
                s.info = section_ref(sh.sh_info, "sh_info", i)
            elif (sh.sh_flags & SHF_EXECINSTR or sh.sh_type == SHT_CUDA_CAPMERC_TEXT) and obj.symbols:
                idx = sh.sh_info if sh.sh_info <= len(obj.symbols) else sh.sh_info & 0xFFFFFF
                if 0 < idx <= len(obj.symbols):
                    s.info, s.info_high = obj.symbols[idx - 1], sh.sh_info - idx
                else:
                    s.info = sh.sh_info
            else:
                s.info = sh.sh_info
            if sh.sh_type in (SHT_REL, SHT_RELA, SHT_CUDA_MERC_RELA, SHT_CUDA_RESOLVED_RELA):
                s.relocs = self.relocations(s, sh, i, sections, obj)

        # creation order: the order of the names in .shstrtab
        slot_pos = {id(slot): n for n, slot in enumerate(shstrtab.slots)}
        live = sections[1:]
        obj.sections = sorted(live, key=lambda s: slot_pos[id(s.name_slot)])
        if shndx_i is None:
            self.revive_symtab_shndx(obj, sections, symtab_i, slot_pos)

        self.link_clones(obj)
        if self.quirks:
            self.reconcile(obj, eh, shdrs, sections)
        return obj

    def relocations(self, s: Section, sh: ShdrRow, i: int, sections: list[Section], obj: ElfObject) -> list[Relocation]:
        where = f"section [{i}] {s.name}"
        rela = sh.sh_type != SHT_REL
        size = RELA_SIZE if rela else REL_SIZE
        if sh.sh_size % size:
            raise self.fail(f"size {sh.sh_size:#x} is not a multiple of {size}", sh.sh_offset, where)
        table = obj.symbols
        if isinstance(s.link, Section) and s.link.role is Role.MERC_SYMTAB:
            table = obj.merc_symbols
        out = []
        for k in range(sh.sh_size // size):
            off = sh.sh_offset + size * k
            r = Reloc.unpack(self.data, off, rela)
            if r.r_sym > len(table):
                raise self.fail(f"relocation {k} names symbol {r.r_sym}, past the {len(table)} symbols of its table", off, where)
            sym = table[r.r_sym - 1] if r.r_sym else None
            out.append(Relocation(r.r_offset, sym, r.r_type, r.r_addend))
        return out

    def revive_symtab_shndx(self, obj: ElfObject, sections: list[Section], symtab_i: int | None, slot_pos: dict[int, int]) -> None:
        """ptxas always creates .symtab_shndx and drops it unless there are more than 0xff00
        sections; its name stays in .shstrtab. Give the model the section back so the layout
        decides, as ptxas does, whether it exists."""
        slot = next((sl for sl in obj.shstrtab.slots if sl.text == ".symtab_shndx"), None)
        if slot is None or symtab_i is None:
            return
        s = Section(name_slot=slot, sh_type=SHT_SYMTAB_SHNDX, addralign=4, entsize=4, link=sections[symtab_i], role=Role.SYMTAB_SHNDX)
        obj.sections.append(s)
        obj.sections.sort(key=lambda x: slot_pos[id(x.name_slot)])

    def link_clones(self, obj: ElfObject) -> None:
        """Mercury clones: .nv.capmerc.text.<f> of .text.<f>; .nv.merc.<X> of the section created
        as <X>. A clone's section symbol in .nv.merc.symtab sits at the index of its original's
        in .symtab; a clone without one is found by name, through ptxas's renames."""
        for m, y in zip(obj.merc_symbols, obj.symbols):
            if m.type == STT_SECTION and m.section is not None and m.section.mercury and y.section is not None and not y.section.mercury:
                m.section.clone_of = y.section
        by_name: dict[str, Section] = {}
        for s in obj.sections:
            if not s.mercury:
                by_name.setdefault(s.name, s)
        for s in obj.sections:
            if not s.mercury or s.clone_of is not None:
                continue
            if s.name.startswith(".nv.capmerc."):
                s.clone_of = by_name.get(s.name[len(".nv.capmerc") :])
            elif s.name.startswith(".nv.merc."):
                base = s.name[len(".nv.merc") :]
                s.clone_of = by_name.get(base) or by_name.get(final_name(base), None)

    def reconcile(self, obj: ElfObject, eh: Ehdr, shdrs: list[ShdrRow], sections: list[Section]) -> None:
        """Compare the rule-derived layout with the file and record each difference as a quirk."""
        q = obj.quirks
        file_order = sections[1:]
        if [id(s) for s in header_order(obj) if s.role is not Role.SYMTAB_SHNDX or s in file_order] != [id(s) for s in file_order]:
            q.header_order = [s for s in file_order]
            # keep a revived .symtab_shndx out of an explicit order
        file_syms = list(obj.symbols)
        if [id(s) for s in symbol_order(obj)] != [id(s) for s in file_syms]:
            q.keep_symbol_order = True
        if eh.e_ident != ident(abiversion=obj.abi_version):
            q.e_ident = eh.e_ident
        lay = layout(obj)
        index_of = {id(s): i for i, s in enumerate(sections)}
        # string-table slack: the gap before the next section
        for role, attr in ((Role.SHSTRTAB, "shstrtab_slack"), (Role.STRTAB, "strtab_slack")):
            s = obj.role(role)
            if s is None:
                continue
            pos = lay.order.index(s)
            if pos + 1 < len(lay.order):
                nxt = lay.order[pos + 1]
                want = shdrs[index_of[id(nxt)]].sh_offset
                if lay.offsets[id(nxt)] != want:
                    setattr(q, attr, max(0, want - (shdrs[index_of[id(s)]].sh_offset + shdrs[index_of[id(s)]].sh_size)))
                    lay = layout(obj)
        for s in lay.order:
            want = shdrs[index_of[id(s)]].sh_offset
            if lay.offsets[id(s)] != want:
                s.forced_offset = want
                lay = layout(obj)
        headers = (q.e_flags, q.phdrs, q.e_phentsize)
        if lay.ehdr.e_flags != eh.e_flags:
            q.e_flags = eh.e_flags
        if eh.e_phnum:
            file_ph = [Phdr.unpack(self.data, eh.e_phoff + 56 * k) for k in range(eh.e_phnum) if eh.e_phoff + 56 * (k + 1) <= len(self.data)]
            if file_ph != lay.phdrs:
                q.phdrs = file_ph
        elif lay.phdrs:
            q.phdrs = []
        if lay.ehdr.e_phentsize != eh.e_phentsize:
            q.e_phentsize = eh.e_phentsize
        if (q.e_flags, q.phdrs, q.e_phentsize) != headers:  # a header quirk: lay out again
            lay = layout(obj)
        out = write(obj, lay)
        if len(out) != len(self.data):
            q.file_size = len(self.data)  # write() applies it; the layout stands
            out = write(obj, lay)
        if out != self.data:
            q.overlay = _diff_runs(out, self.data)


def _diff_runs(ours: bytes, theirs: bytes) -> list[tuple[int, bytes]]:
    runs: list[tuple[int, bytes]] = []
    i = 0
    n = len(theirs)
    while i < n:
        if ours[i] == theirs[i]:
            i += 1
            continue
        j = i
        while j < n and ours[j] != theirs[j]:
            j += 1
        runs.append((i, theirs[i:j]))
        i = j
    return runs


def read_cubin(data: bytes, *, quirks: bool = True) -> ElfObject:
    """Parse ``data`` (a cubin) into an ElfObject. Raises CubinFormatError if malformed.

    With ``quirks=False`` the file's departures from the layout rules are not looked for (that
    check lays the object out and writes it again): the object then writes as the rules lay it
    out. The semantic level reads only leaf data and takes this cheaper path."""
    try:
        return _Reader(bytes(data), quirks).read()
    except CubinFormatError:
        raise
    except (struct.error, IndexError, ValueError, KeyError, UnicodeDecodeError) as exc:  # pragma: no cover - safety net
        raise CubinFormatError(f"malformed cubin ({type(exc).__name__}: {exc})") from None
