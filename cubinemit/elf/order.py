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
    ET_EXEC,
    SHF_ALLOC,
    SHF_CUDA_MERCURY,
    SHF_INFO_LINK,
    SHF_EXECINSTR,
    SHF_WRITE,
    SHT_CUDA_RESOLVED_RELA,
    SHT_PROGBITS,
    SHT_REL,
    SHT_RELA,
    STB_GLOBAL,
    STT_SECTION,
)
from .model import ElfObject, Role, Section, Symbol, final_name

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
    relocated = relocated_banks(obj)
    # (the Mercury test first: it is the cheaper one, and half the sections of sm_100+ fail it)
    return {id(s) for s in obj.sections if not s.flags & SHF_CUDA_MERCURY and s.name_slot.text.startswith(".nv.constant0.") and id(s) not in relocated}


def relocated_banks(obj: ElfObject) -> set[int]:
    """ids of the .nv.constant0.<f> that carry relocations: texture-index banks (ptxas creates
    them as .nv.constant.entry_image_header_indices.<f> and treats them apart)."""
    targets = {id(s.info) for s in obj.relocation_sections() if isinstance(s.info, Section) and not s.mercury}
    if not targets:
        return set()
    return {id(s) for s in obj.sections if id(s) in targets and s.name.startswith(".nv.constant0.")}


def section_class(section: Section, late: set[int]) -> int:
    flags = section.flags
    if flags & SHF_CUDA_MERCURY:
        return CLASS_MERCURY
    if section.role in _TABLE_ROLES:
        return CLASS_TABLES
    if id(section) in late:
        return CLASS_LATE_BANK0
    if section.sh_type in _RELOC_TYPES:  # section_is_reloc: a Mercury section returned above
        return CLASS_RELOC
    if not flags & SHF_ALLOC:
        if section.sh_type == SHT_PROGBITS and section.name.startswith((".debug_", ".nv_debug_")):
            return CLASS_DEBUG
        return CLASS_NONALLOC
    if section.flags & SHF_EXECINSTR:
        return CLASS_TEXT
    if section.flags & SHF_WRITE:
        return CLASS_BSS if section.nobits else CLASS_DATA
    return CLASS_CONST


def _reloc_key(name: str) -> tuple[str, str] | None:
    """(prefix, target as finally named) of a relocation-section name."""
    for prefix in (".rela", ".rel"):
        if name.startswith(prefix + "."):
            return prefix, final_name(name[len(prefix) :])
    return None


def _reloc_positions(obj: ElfObject) -> dict[int, float]:
    """Where each relocation section stands in the relocation class.

    When ptxas emits X's relocations it asks for ``.rel.<X>`` first, then ``.rela.<X>``,
    creating the names it lacks; the section takes its place in the list then. So a ``.rela``
    section stands where its ``.rel`` twin's name was created (deleted or not): a texture bank's
    ``.rela``, made early with its bank, moves to where its relocations are emitted. This gives
    every order measured on the probes: .text relocations in function order, then the debug
    sections', the banks' and .debug_frame's, and the texture-bank cases of -g and -lineinfo.
    """
    position = {id(slot): n for n, slot in enumerate(obj.shstrtab.slots)}
    rel_names: dict[str, int] = {}
    renamed: set[str] = set()  # targets whose .rel was asked under the name they were created with
    for n, slot in enumerate(obj.shstrtab.slots):
        if slot.text.startswith(".rel."):  # _reloc_key's ".rel" names, without the others' work
            target = final_name(slot.text[len(".rel") :])
            if target not in rel_names and target != slot.text[len(".rel") :]:
                renamed.add(target)
            rel_names.setdefault(target, n)
    kept = {s.name for s in obj.sections if s.sh_type == SHT_REL and not s.flags & SHF_CUDA_MERCURY}
    out: dict[int, float] = {}
    for s in obj.sections:
        if s.sh_type in _RELOC_TYPES and not s.flags & SHF_CUDA_MERCURY:  # section_is_reloc
            own = position.get(id(s.name_slot), 0)
            key = _reloc_key(s.name)
            # beside a kept .rel twin the .rela stands where it was asked itself: the
            # initialisers' walk asks .rel.nv.global.init .rel.nv.constant3 .rela.nv.global.init
            # below sm_90, in that section order (-c; tests/probes_data init_across_sections)
            twin = key is not None and key[0] == ".rela" and ".rel" + s.name[len(".rela") :] not in kept
            if twin and key[1].startswith(".nv.constant2.") and key[1] in renamed and own + 1 < rel_names[key[1]]:  # type: ignore[index]
                # a bank ptxas renames later whose .rela it asked (under the final name) well
                # before the .rel, not with it: the .rela of an optimizer bank holding jump
                # tables, reused for its function addresses in the late phase (sm_90+ whole
                # program; tests/probes_rw6/rules/vtable_factory). Asked together (an address
                # table alone: .rela then .rel) it stands at the .rel (tests/probes_const2), as
                # does a texture-index bank's, made early under its final name
                twin = False
            out[id(s)] = rel_names.get(key[1], own) if twin else own  # type: ignore[index]
    out.update(_texture_bank_positions(obj, position))
    return out


def _texture_bank_positions(obj: ElfObject, position: dict[int, int]) -> dict[int, float]:
    """sm_75-89 executables: ptxas asks for .rel.nv.constant0.<k> (and drops it) when it makes
    bank 0, and later fills a texture-index bank's relocations into a section that reuses that
    name. The section stands where it is really made: the first function's right before
    .rel.debug_frame (after the debug payloads' and module data's relocation sections), every
    other kernel's after .rela.debug_frame, in function order (tex, texind probes; measured in
    def, -O0 and -lineinfo, where the names made late under txq show the same places)."""
    if facts(obj.sm).late_bank0 or obj.e_type != ET_EXEC:
        return {}
    names = {slot.text: position[id(slot)] for slot in reversed(obj.shstrtab.slots)}
    frame = names.get(".debug_frame")
    if frame is None:
        return {}
    first_text = next((s for s in obj.sections if s.name.startswith(".text.") and not s.mercury), None)
    before = names.get(".rel.debug_frame", names.get(".rela.debug_frame", frame)) - 0.5
    after = max(names.get(".rela.debug_frame", frame), names.get(".rel.debug_frame", frame)) + 0.5
    out: dict[int, float] = {}
    for bank_id in relocated_banks(obj):
        bank = next(s for s in obj.sections if id(s) == bank_id)
        for r in obj.relocation_sections():
            own = position.get(id(r.name_slot), 0)
            if r.info is not bank or r.mercury or not r.flags & SHF_INFO_LINK or own > frame:
                continue
            first = first_text is not None and bank.info is first_text
            out[id(r)] = before if first else after + own / (len(position) + 1)
    return out


_RELOC_TYPES = frozenset({SHT_REL, SHT_RELA, SHT_CUDA_RESOLVED_RELA})


def section_is_reloc(section: Section) -> bool:
    """REL/RELA, and the .nv.resolvedrela.* sections of -sanitize=memcheck below sm_90."""
    return section.sh_type in _RELOC_TYPES and not section.mercury


def header_order(obj: ElfObject, late: set[int] | None = None) -> list[Section]:
    """Sections in header-table order (index 1 onwards). ``late`` is :func:`late_banks`, when
    the caller has it."""
    if obj.quirks.header_order is not None:
        return list(obj.quirks.header_order)
    if late is None:
        late = late_banks(obj)
    rpos = _reloc_positions(obj)
    # a stable sort by (class, relocation position), done as buckets: only the buckets holding
    # a section with a position (relocation sections, _reloc_positions) need sorting
    buckets: dict[int, list[Section]] = {}
    positioned: set[int] = set()
    for s in obj.sections:
        c = section_class(s, late)
        buckets.setdefault(c, []).append(s)
        if id(s) in rpos:
            positioned.add(c)
    for c in positioned:
        buckets[c].sort(key=lambda s: rpos.get(id(s), 0))
    return [s for c in sorted(buckets) for s in buckets[c]]


def relocation_order(obj: ElfObject) -> list[Section]:
    """The relocation sections (:func:`section_is_reloc`) as :func:`header_order` lists them,
    without classing and sorting the other sections: they make one class, sorted by
    :func:`_reloc_positions`."""
    if obj.quirks.header_order is not None:
        return [s for s in obj.quirks.header_order if section_is_reloc(s)]
    rpos = _reloc_positions(obj)
    return sorted((s for s in obj.sections if section_is_reloc(s)), key=lambda s: rpos.get(id(s), 0))


def text_sections(obj: ElfObject) -> list[Section]:
    """The code sections (.text.<f>, Mercury clones left out) in header order, without sorting
    the others: they share one class and one position in :func:`header_order`, so they keep
    their creation order (the function order) there."""
    source = obj.quirks.header_order if obj.quirks.header_order is not None else obj.sections
    # (Section.mercury and Section.name spelled out: this runs over every section, often)
    return [s for s in source if not s.flags & SHF_CUDA_MERCURY and s.name_slot.text.startswith(".text.")]


def symbol_order(obj: ElfObject, late: set[int] | None = None) -> list[Symbol]:
    """.symtab order (index 1 onwards): LOCAL and WEAK in creation order, then GLOBAL, then
    (sm_90+) the section symbols of the late parameter banks (``late``: :func:`late_banks`,
    when the caller has it)."""
    if obj.quirks.keep_symbol_order:
        return list(obj.symbols)
    if late is None:
        late = late_banks(obj)

    # a stable sort by that key, done as three lists
    first: list[Symbol] = []
    glob: list[Symbol] = []
    last: list[Symbol] = []
    for sym in obj.symbols:
        if sym.type == STT_SECTION and sym.section is not None and id(sym.section) in late:
            last.append(sym)
        elif sym.bind == STB_GLOBAL:
            glob.append(sym)
        else:
            first.append(sym)
    return first + glob + last
