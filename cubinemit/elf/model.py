"""The ELFW object: sections, symbols and string tables held by reference, not by index.

This mirrors ptxas's emitter state just before it writes the file. Sections are kept in
*creation order* and symbols in *creation order*; the header order, symbol indices, string
offsets, file offsets, padding, program headers and the generated tables (``.shstrtab``,
``.strtab``, ``.symtab``, ``.symtab_shndx``, ``.nv.merc.symtab``) are derived by
:mod:`cubinemit.elf.layout`, never stored.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterator

import attrs

from ..errors import ModelError
from .constants import (
    ELFABIVERSION_CUDA,
    ET_EXEC,
    NOBITS_LIKE_TYPES,
    SHF_CUDA_MERCURY,
    SHT_NOBITS,
    STB_GLOBAL,
    STB_LOCAL,
    STT_SECTION,
)
from .strtab import StringTable, StrSlot
from .structs import Phdr


#: Sections ptxas creates under one name and renames before writing (creation name -> final).
#: The creation name stays visible: in .strtab, in the zero-filled tail of the in-place rename in
#: .shstrtab, and as the name of the section's Mercury clone.
RENAMES = (
    (".nv.constant.pic", ".nv.constant4"),
    (".nv.constant.user", ".nv.constant3"),
    (".nv.constant.entry_image_header_indices.", ".nv.constant0."),  # + function name
    (".nv.constant.optimizer.", ".nv.constant2."),  # + function name: jump and address tables
)


#: what every creation name of RENAMES holds: a name without it is kept as it is (final_name
#: runs for every section and relocation name; most are neither renamed nor relocate one)
_RENAMED_PART = os.path.commonprefix([old for old, _ in RENAMES])


def final_name(created: str) -> str:
    """The name a section created as ``created`` ends up with (itself if ptxas keeps it)."""
    if _RENAMED_PART not in created:
        return created
    for old, new in RENAMES:
        if created == old or (old.endswith(".") and created.startswith(old)):
            return new + created[len(old) :]
    for old, new in RENAMES:  # relocation sections of renamed targets follow them
        for prefix in (".rel", ".rela"):
            if created.startswith(prefix + old):
                return prefix + final_name(created[len(prefix) :])
    return created


class Role(enum.Enum):
    """Sections whose contents the layout generates from the model."""

    SHSTRTAB = ".shstrtab"
    STRTAB = ".strtab"
    SYMTAB = ".symtab"
    SYMTAB_SHNDX = ".symtab_shndx"
    MERC_SYMTAB = ".nv.merc.symtab"


@attrs.define(eq=False)
class Relocation:
    """A REL (``addend is None``) or RELA entry; the symbol is held by reference."""

    offset: int
    symbol: Symbol | None
    type: int
    addend: int | None = None


@attrs.define(eq=False, repr=False)
class Section:
    """One section. ``name_slot`` is its string in ``.shstrtab``; ``strtab_slot`` the copy of its
    name ptxas appends to ``.strtab`` when it creates the section (None if it has none)."""

    name_slot: StrSlot
    sh_type: int
    flags: int = 0
    addralign: int = 1
    entsize: int = 0
    data: bytes = b""
    #: size of a NOBITS-like section (it has no file bytes)
    nobits_size: int = 0
    #: sh_link: a section, or a raw number when it names nothing we model
    link: Section | int = 0
    #: sh_info: a section, a symbol (its .symtab index), or a raw number
    info: Section | Symbol | int = 0
    #: bits above the symbol index in sh_info (sm<90 .text: REGCOUNT << 24)
    info_high: int = 0
    relocs: list[Relocation] | None = None
    #: the original section of a Mercury clone (.nv.merc.*, .nv.capmerc.text.<f>)
    clone_of: Section | None = None
    role: Role | None = None
    strtab_slot: StrSlot | None = None
    #: set when this section's layout takes an explicit file offset (foreign producers only)
    forced_offset: int | None = None

    @property
    def name(self) -> str:
        return self.name_slot.text

    @property
    def nobits(self) -> bool:
        """Occupies no file bytes: NOBITS, or the REL-mode NVIDIA global/shared types (never
        for Mercury clones, which ptxas gives real bytes even with those types)."""
        if self.sh_type == SHT_NOBITS:
            return True
        return self.sh_type in NOBITS_LIKE_TYPES and not self.flags & SHF_CUDA_MERCURY

    @property
    def mercury(self) -> bool:
        return bool(self.flags & SHF_CUDA_MERCURY)

    @property
    def size(self) -> int:
        return self.nobits_size if self.nobits else len(self.data)

    def __repr__(self) -> str:
        return f"Section({self.name!r}, type={self.sh_type:#x})"


@attrs.define(eq=False, repr=False)
class Symbol:
    """One symbol. ``name_slot`` is None for the all-zero entries ptxas leaves behind."""

    name_slot: StrSlot | None
    info: int = 0
    other: int = 0
    section: Section | None = None
    #: st_shndx when ``section`` is None: 0 (UND), SHN_ABS, SHN_COMMON...
    shndx: int = 0
    value: int = 0
    size: int = 0

    @property
    def name(self) -> str:
        return self.name_slot.text if self.name_slot is not None else ""

    @property
    def bind(self) -> int:
        return self.info >> 4

    @property
    def type(self) -> int:
        return self.info & 0xF

    def __repr__(self) -> str:
        return f"Symbol({self.name!r}, info={self.info:#x})"


@attrs.define(eq=False)
class Quirks:
    """Where a file departs from the ptxas rules the layout applies, the reader records the
    file's own value here so the model stays lossless. ptxas 13.0.88 output never needs one;
    tests assert that, so a rule that stops matching is caught instead of papered over."""

    header_order: list[Section] | None = None
    keep_symbol_order: bool = False
    shstrtab_slack: int | None = None
    strtab_slack: int | None = None
    e_flags: int | None = None
    e_ident: bytes | None = None
    e_phentsize: int | None = None
    phdrs: list[Phdr] | None = None  # taken verbatim
    #: (file offset, bytes) written last: whatever else the rules could not reproduce
    overlay: list[tuple[int, bytes]] | None = None
    file_size: int | None = None

    def used(self, sections: list[Section] | None = None) -> list[str]:
        """Names of the quirks in force (``sections`` adds explicit section offsets)."""
        names = []
        if sections and any(s.forced_offset is not None for s in sections):
            names.append("section_offsets")
        for field in attrs.fields(Quirks):
            value = getattr(self, field.name)
            if value not in (None, False):
                names.append(field.name)
        return names


@attrs.define(eq=False)
class ElfObject:
    """The ELFW object: a cubin before layout."""

    sm: int
    e_type: int = ET_EXEC
    #: e_ident[EI_ABIVERSION]: 8, or what the target writes when ptxas disables the ABI
    #: (cubinemit.arch.ArchFacts.no_abi_version)
    abi_version: int = ELFABIVERSION_CUDA
    shstrtab: StringTable = attrs.field(factory=StringTable)
    strtab: StringTable = attrs.field(factory=StringTable)
    #: every live section in creation order (the NULL section is implicit)
    sections: list[Section] = attrs.field(factory=list)
    #: .symtab entries in creation order (the null symbol is implicit)
    symbols: list[Symbol] = attrs.field(factory=list)
    #: .nv.merc.symtab entries in order (sm_100+); they may name Mercury clones
    merc_symbols: list[Symbol] = attrs.field(factory=list)
    quirks: Quirks = attrs.field(factory=Quirks)

    # --- creation (the section creator) -------------------------------------------------------
    def create_section(
        self,
        name: str,
        sh_type: int,
        *,
        flags: int = 0,
        addralign: int = 1,
        entsize: int = 0,
        data: bytes = b"",
        nobits_size: int = 0,
        in_strtab: bool = True,
        role: Role | None = None,
        share: bool = False,
    ) -> Section:
        """Create a section as ptxas does: its name is appended to ``.shstrtab`` and, for every
        section but the tables created before ``.strtab`` exists, to ``.strtab`` as well.
        ``share``: reuse the slots of a name made before (a dropped section's)."""
        section = Section(
            name_slot=self.shstrtab.add(name, share=share),
            sh_type=sh_type,
            flags=flags,
            addralign=addralign,
            entsize=entsize,
            data=data,
            nobits_size=nobits_size,
            role=role,
        )
        if in_strtab:
            section.strtab_slot = self.strtab.add(name, share=share)
        self.sections.append(section)
        return section

    def delete_section(self, section: Section) -> None:
        """Drop a section as ptxas does: its names stay behind in .shstrtab and .strtab."""
        for sym in self.symbols:
            if sym.section is section:
                raise ModelError(f"cannot delete section {section.name!r}: symbol {sym.name!r} is defined in it")
        # searched from the end: the section dropped is mostly one just made
        for i in range(len(self.sections) - 1, -1, -1):
            if self.sections[i] is section:
                del self.sections[i]
                return
        raise ValueError(f"section {section.name!r} is not in the object")

    def leave_names(self, name: str, *, in_strtab: bool = True, share: bool = False) -> None:
        """What creating a section and deleting it at once leaves behind (ptxas asks for
        sections it then drops): its name in .shstrtab and, unless ``in_strtab`` is False, in
        .strtab, as :meth:`create_section` adds them (no section exists in between, so no
        symbol can be defined in it)."""
        self.shstrtab.add(name, share=share)
        if in_strtab:
            self.strtab.add(name, share=share)

    def rename_section(self, section: Section, new: str, *, strtab: str = "in_place") -> None:
        """Rename as ptxas does: in place in .shstrtab (tail zero-filled). In .strtab the name is
        renamed in place (``"in_place"``, below sm_100), left as created (``"keep"``, e.g. the
        relocation section of a renamed bank), or kept and the new name appended (``"append"``,
        sm_100+, where .nv.merc.symtab still names the section by its creation name)."""
        section.name_slot.rename_in_place(new)
        if section.strtab_slot is None or strtab == "keep":
            return
        if strtab == "in_place":
            section.strtab_slot.rename_in_place(new)
        elif strtab == "append":
            section.strtab_slot = self.strtab.add(new, share=False)
        else:
            raise ModelError(f"unknown strtab rename mode {strtab!r}")

    def add_symbol(self, symbol: Symbol) -> Symbol:
        self.symbols.append(symbol)
        return symbol

    def new_symbol(self, name: str, *, info: int, other: int = 0, section: Section | None = None, value: int = 0, size: int = 0) -> Symbol:
        """Create a symbol; its name is appended to .strtab now (identical strings shared)."""
        return self.add_symbol(Symbol(self.strtab.add(name), info, other, section, 0, value, size))

    def tombstone(self, symbol: Symbol) -> None:
        """Delete a symbol the way ptxas does below sm_100: the entry stays, all zero but
        st_other = 1, and its name is zero-filled in place in .strtab."""
        if symbol.name_slot is not None:
            symbol.name_slot.blank()
        symbol.name_slot, symbol.info, symbol.other, symbol.section = None, 0, 1, None
        symbol.shndx = symbol.value = symbol.size = 0

    # --- queries ------------------------------------------------------------------------------
    def section(self, name: str) -> Section:
        found = self.find_section(name)
        if found is None:
            raise ModelError(f"no section named {name!r}")
        return found

    def find_section(self, name: str) -> Section | None:
        for section in self.sections:
            if section.name_slot.text == name:  # Section.name, without a property call per section
                return section
        return None

    def role(self, role: Role) -> Section | None:
        for section in self.sections:
            if section.role is role:
                return section
        return None

    def symbol(self, name: str) -> Symbol:
        for symbol in self.symbols:
            if symbol.name == name:
                return symbol
        raise ModelError(f"no symbol named {name!r}")

    def relocation_sections(self) -> Iterator[Section]:
        return (s for s in self.sections if s.relocs is not None)

    def section_symbol(self, section: Section) -> Symbol | None:
        for symbol in self.symbols:
            if symbol.type == STT_SECTION and symbol.section is section:
                return symbol
        return None


def is_global_like(symbol: Symbol) -> bool:
    """GLOBAL symbols come after every LOCAL and WEAK one in ptxas's .symtab."""
    return symbol.bind == STB_GLOBAL


def is_local(symbol: Symbol) -> bool:
    return symbol.bind == STB_LOCAL
