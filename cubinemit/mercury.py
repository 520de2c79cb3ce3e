"""The Mercury tail of sm_100+ cubins: the ``.nv.merc.*`` clones and ``.nv.merc.symtab``, derived
from the originals plus the leaf facts of the Mercury code.

On sm_100+ ptxas 13.0.88 keeps, next to the SASS of every function, its *Mercury* form (the
capsule ``.nv.capmerc.text.<f>``, a leaf section like ``.text.<f>``) and clones the metadata that
describes the code: ``.nv.merc.nv.info*``, ``.nv.merc.rela.*``, ``.nv.merc.debug_*``, the data
banks and ``.nv.merc.symtab``. A clone says the same thing as its original, but about the Mercury
code: every code address in it is a *Mercury* address (the reconstituted Mercury instruction
stream, which is longer than the SASS and not a function of it), relocations use the R_MERCURY
numbering, and the data banks are left unresolved for the finalizer.

This module states the rules that turn originals into clones. Where a clone carries a fact of the
Mercury code that the originals do not hold, that fact is a named leaf in :class:`MercuryFacts`
(the Mercury analogue of a SASS leaf: the size of a function's Mercury code, the Mercury address
of a SASS instruction, the Mercury CFA program of a frame, ...). :func:`facts_from_cubin` reads
those leaves from a ptxas cubin; the ``derive_*`` functions rebuild every clone from the
originals and the leaves; :func:`check_cubin` compares the result with the file clone by clone.

Rules (ptxas 13.0.88, measured on the probe corpus on sm_100/100a/103/110/120/121):

* ``.nv.merc.symtab`` = ``.symtab`` without the trailing late ``.nv.constant0.<f>`` section
  symbols (so every kept symbol keeps its index), with st_shndx moved to the section's clone
  (``.text.<f>`` -> ``.nv.capmerc.text.<f>``; a section without clone keeps its index);
  renamed banks' section symbols named by their creation strings (:func:`creation_name`);
  defined variables typed REL-style even in EXEC (STT_CUDA_OBJECT, st_other |= 0x80 constant,
  0x20 global, 0x40 shared, 0xa0 reserved shared); undefined ``.nv.reservedSmem.*`` at 0 and the
  symbols defined in ``.nv.shared.reserved.0`` without the 0x40-byte EXEC window; under EXEC -g
  shared variables without the 0x400-byte debugger window; function st_size and whole-program
  clone st_value in Mercury terms (leaves).
* ``.nv.merc.nv.info``: the original bytes, FRAME_SIZE of some whole-program clones excepted.
* ``.nv.merc.nv.info.<f>``: the original without CBANK_PARAM_SIZE, PARAM_CBANK, SW_WAR,
  BINDLESS_TEXTURE_BANK and BINDLESS_SURFACE_BANK; MERCURY_FINALIZER_OPTIONS inserted right after
  CUDA_API_VERSION; every instruction offset (the OFFSET_ATTRS lists, MBARRIER, ANNOTATIONS,
  INDIRECT_BRANCH_TARGETS, ATOM16_EMUL_INSTR_REG_MAP) mapped to its Mercury address; symbol
  indices unchanged.
* ``.nv.merc.rela.*``: same order and symbols as the original, types per
  :func:`mercury_reloc_type`; code: offset = Mercury address of the instruction + the field's
  position in the Mercury instruction (+8 call target, +12 immediates), return-address addends
  mapped; ``.debug_frame``: offsets moved with their FDE, CIE pointers to the CIE's new offset,
  code addends mapped; line tables: one ABS64 per sequence, descending offsets; texture banks:
  offsets relative to the index area; jump tables and function-address tables: see
  :func:`_optimizer_relocs`; plus the Mercury-only code relocations (leaf).
* data clones: ``.nv.merc.nv.constant.pic/.user`` and ``.nv.merc.nv.global.init`` are the
  original bytes (EXEC code pointers zeroed, see ``code_pointers``);
  ``.nv.merc.nv.shared.reserved.0`` is :func:`_reserved_smem`;
  ``.nv.merc.nv.constant.entry_image_header_indices.<f>`` is the bank from its first relocated
  word on; ``.nv.merc.nv.constant.optimizer.<f>`` is the bank with its code addresses zeroed.
* ``.nv.merc.debug_frame``: :func:`derive_merc_debug_frame` (CIEs with code alignment 1, FDE
  ranges in Mercury bytes, CFA programs by :func:`rule_cfa` or leaf).
* line tables (``.nv.merc.debug_line``, ``.nv.merc.nv_debug_line_sass``): the original's header
  and ptxas's encoder (:func:`encode_line_events`, exact on every SASS and Mercury table) over the
  Mercury rows (leaf) where they differ from the original.
* ``.nv.merc.debug_abbrev/info/loc/macinfo`` and ``.nv.merc.nv_debug_ptx_txt``: the original
  bytes (their code addresses live in the relocations).

Leaves (:class:`MercuryFacts`): everything that describes the Mercury instruction stream, which
the SASS does not determine (the Mercury code of a function is longer than its SASS, by 0 to 40+
instructions, with its own scheduling, frames and line attribution): per ``.text.<f>`` the
Mercury address of each SASS instruction that metadata names, the Mercury st_size of each
function, the Mercury-only code relocations; per FDE the Mercury CFA program (when no rule
gives it); Mercury line rows and ``-g`` register maps; Mercury FRAME_SIZE of some clones; the
finalizer options payload (a function of the ptxas options only); EXEC function-pointer
initializers (PTX data). They are the information the capsule ``.nv.capmerc.text.<f>`` stands
for; only its header is understood here (:func:`capsule_header`: u32 header index of
``.text.<f>``, u32 0xC0000001, u32 instruction count), so they cannot yet be computed from it.
"""

from __future__ import annotations

import bisect
import struct
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import attrs

from .elf.constants import (
    ET_EXEC,
    STT_CUDA_OBJECT,
    STT_FUNC,
    STT_OBJECT,
    STT_SECTION,
)
from .elf.model import ElfObject, Relocation, Section, Symbol
from .errors import CubinemitError, CubinFormatError
from .nvinfo.records import OFFSET_ATTRS

if TYPE_CHECKING:
    from .nvinfo.codec import WireRecord

__all__ = [
    "R_MERCURY_NAMES",
    "MercuryError",
    "MercuryFacts",
    "MercReloc",
    "FunctionFacts",
    "CloneCheck",
    "capsule_header",
    "check_cubin",
    "decode_line_events",
    "encode_line_events",
    "line_header",
    "rule_cfa",
    "creation_name",
    "Derivation",
    "derive_merc_data",
    "derive_merc_debug_frame",
    "derive_merc_info",
    "derive_merc_relocations",
    "derive_merc_symbols",
    "facts_from_cubin",
    "mercury_reloc_type",
]


class MercuryError(CubinemitError):
    """A clone cannot be derived: a leaf fact is missing or an original breaks a rule."""


# --- R_MERCURY ---------------------------------------------------------------------------------
#: R_MERCURY_* names by number (type = 0x10000 + number), in the order ptxas 13.0.88 lists them.
R_MERCURY_NAMES = (
    "R_MERCURY_NONE", "R_MERCURY_G64", "R_MERCURY_ABS64", "R_MERCURY_ABS32", "R_MERCURY_ABS16",
    "R_MERCURY_ABS32_LO", "R_MERCURY_ABS32_HI", "R_MERCURY_PROG_REL64", "R_MERCURY_PROG_REL32",
    "R_MERCURY_PROG_REL32_LO", "R_MERCURY_PROG_REL32_HI", "R_MERCURY_TEX_HEADER_INDEX",
    "R_MERCURY_SAMP_HEADER_INDEX", "R_MERCURY_SURF_HEADER_INDEX", "R_MERCURY_UNUSED_CLEAR64",
    "R_MERCURY_FUNC_DESC_64",
    *(f"R_MERCURY_8_{b}" for b in range(0, 64, 8)),
    *(f"R_MERCURY_G8_{b}" for b in range(0, 64, 8)),
    *(f"R_MERCURY_FUNC_DESC_8_{b}" for b in range(0, 64, 8)),
    "R_MERCURY_ABS_PROG_REL32_LO", "R_MERCURY_ABS_PROG_REL32_HI",
    *(f"R_MERCURY_PROG_REL8_{b}" for b in range(0, 64, 8)),
    "R_MERCURY_UNIFIED", "R_MERCURY_UNIFIED_32",
    *(f"R_MERCURY_UNIFIED_8_{b}" for b in range(0, 64, 8)),
    "R_MERCURY_ABS_PROG_REL32", "R_MERCURY_ABS_PROG_REL64", "R_MERCURY_UNIFIED32_LO",
    "R_MERCURY_UNIFIED32_HI", "R_MERCURY_NONE_LAST",
)  # fmt: skip

_M = {name[len("R_MERCURY_"):]: 0x10000 + n for n, name in enumerate(R_MERCURY_NAMES)}

#: R_CUDA type of a code relocation -> (R_MERCURY type for an address inside the relocated
#: function itself, for any other symbol, byte offset of the relocated field inside the 16-byte
#: Mercury instruction).
_TEXT_TYPES: dict[int, tuple[int, int, int]] = {
    55: (_M["ABS32"], _M["ABS32"], 12),  # ABS32_32
    59: (_M["ABS16"], _M["ABS16"], 12),  # ABS16_32
    56: (_M["ABS_PROG_REL32_LO"], _M["ABS32_LO"], 12),  # ABS32_LO_32
    57: (_M["ABS_PROG_REL32_HI"], _M["ABS32_HI"], 12),  # ABS32_HI_32
    # a kernel's address for a device-side launch (dynpar_rdc -c, tests/probes_rw6, sm_100+):
    # ABS32 halves when a kernel launches itself, UNIFIED32 halves for another kernel
    62: (_M["ABS32_LO"], _M["UNIFIED32_LO"], 12),  # FUNC_DESC32_LO_32
    63: (_M["ABS32_HI"], _M["UNIFIED32_HI"], 12),  # FUNC_DESC32_HI_32
    66: (_M["ABS16"], _M["ABS16"], 12),  # CONST_FIELD21_38
    75: (_M["ABS64"], _M["ABS64"], 8),  # ABS55_16_34 (call target)
    112: (_M["UNIFIED32_LO"], _M["UNIFIED32_LO"], 12),  # UNIFIED32_LO_32
    113: (_M["UNIFIED32_HI"], _M["UNIFIED32_HI"], 12),  # UNIFIED32_HI_32
    114: (_M["ABS64"], _M["ABS64"], 8),  # ABS56_16_34
    115: (_M["ABS32"], _M["ABS32"], 12),  # CONST_FIELD22_37
}

#: R_CUDA types of code relocations the Mercury clone has no counterpart for: the YIELD hint
#: pair (YIELD_OPCODE9_0, YIELD_CLEAR_PRED4_87, against no symbol) that relocatable code for a
#: PTX target below sm_70 carries (gpuocelot's vm, MC-GPU and thrust bfs, -c;
#: tests/probes_directives yield_hints); the clone drops them
_NO_MERCURY_TEXT = frozenset({68, 69})

#: R_CUDA type of a data relocation -> R_MERCURY type (a code address in debug data uses
#: ABS_PROG_REL64, except in the line tables; see :func:`mercury_reloc_type`).
_DATA_TYPES: dict[int, int] = {
    1: _M["ABS32"],  # R_CUDA_32
    2: _M["ABS64"],  # R_CUDA_64
    4: _M["G64"],  # R_CUDA_G64
    6: _M["TEX_HEADER_INDEX"],
    35: _M["FUNC_DESC_64"],  # R_CUDA_FUNC_DESC_64: a kernel's address (init_kernel_addresses)
    52: _M["SURF_HEADER_INDEX"],
    73: _M["UNUSED_CLEAR64"],
    101: _M["SAMP_HEADER_INDEX"],  # R_CUDA_SAMP_HEADER_INDEX_0
    102: _M["UNIFIED"],
}

_LINE_TABLES = (".debug_line", ".nv_debug_line_sass")


def mercury_reloc_type(r_type: int, target: str, symbol: Symbol | None, owner: str | None = None, addend: int | None = None) -> int:
    """The R_MERCURY type of a relocation of type ``r_type`` in the section named ``target``.

    Code (``.text.<f>``, owned by function ``owner``): :data:`_TEXT_TYPES`; a 32-bit half of an
    address inside the function itself (a return address) is ABS_PROG_REL32_LO/HI, any other
    address ABS32_LO/HI, the function's own address taken too (``addend`` 0: no return
    address; tests/probes_fp/fp_self_take -g, sm_100+; a kernel's own launch descriptor keeps
    its own pair, dynpar_rdc). Debug data: a code address (against a function) is
    ABS_PROG_REL64 / PROG_REL32, except in the line tables, whose DW_LNE_set_address stays ABS64; the
    DW_AT_stmt_list reference to ``.debug_line`` is PROG_REL32. Other data: :data:`_DATA_TYPES`."""
    if target.startswith(".text."):
        try:
            func, data, _ = _TEXT_TYPES[r_type]
        except KeyError:
            raise MercuryError(f"no Mercury type known for code relocation type {r_type}") from None
        own = symbol is not None and symbol.type == STT_FUNC and symbol.name == owner
        if own and addend == 0 and r_type in (56, 57):
            return data  # the function's own address taken, no return address
        return func if own else data
    is_func = symbol is not None and symbol.type == STT_FUNC
    if target.startswith((".debug_", ".nv_debug_")) and target not in _LINE_TABLES:
        if is_func and r_type == 2:
            return _M["ABS_PROG_REL64"]
        if r_type == 1 and (is_func or (symbol is not None and symbol.type == STT_SECTION and symbol.name == ".debug_line")):
            return _M["PROG_REL32"]
    try:
        return _DATA_TYPES[r_type]
    except KeyError:
        raise MercuryError(f"no Mercury type known for data relocation type {r_type} in {target}") from None


def text_field_offset(merc_type: int) -> int:
    """Byte offset of the relocated field inside a Mercury instruction (16 bytes)."""
    for func, data, field in _TEXT_TYPES.values():
        if merc_type in (func, data):
            return field
    if merc_type in (_M["PROG_REL32"],):
        return 12
    raise MercuryError(f"no field offset known for {merc_type:#x}")


# --- leaf facts --------------------------------------------------------------------------------
@attrs.frozen
class MercReloc:
    """A relocation of the Mercury code that has no SASS counterpart (by symbol name)."""

    offset: int
    symbol: str
    type: int
    addend: int


@attrs.frozen
class FunctionFacts:
    """Leaf facts of one ``.text.<f>`` section's Mercury code.

    ``pc`` maps the byte offset of a SASS instruction to the byte offset of the Mercury
    instruction that stands for it, for every instruction some metadata names (exits, calls,
    relocated instructions, branch targets, clone entry points...). ``sizes`` is the Mercury
    st_size of each function symbol defined in the section (the function, and its
    whole-program clones ``$k$f``). ``extra_relocs`` are the Mercury relocations without a SASS
    counterpart (e.g. the ``.nv.reservedSmem.cap`` base of shared-memory addresses)."""

    pc: Mapping[int, int] = attrs.field(factory=dict)
    sizes: Mapping[str, int] = attrs.field(factory=dict)
    extra_relocs: tuple[MercReloc, ...] = ()
    #: relocated instructions whose Mercury offset differs from ``pc`` at the same SASS offset:
    #: Mercury may put an instruction of its own first, so the function's entry (its symbol,
    #: ``pc[0] == 0``) and its first SASS instruction part (a -c weak function whose first
    #: instruction reads a .const variable: tests/probes_lib lib_calls, sm_100a)
    insn: Mapping[int, int] = attrs.field(factory=dict)
    #: return addresses whose Mercury address differs from ``pc`` at the same SASS offset:
    #: Mercury may put instructions of its own between a call's return point and the
    #: instruction .nv.info records there (a CUTLASS implicit-GEMM conv kernel, -c sm_121a:
    #: nv.info says SASS 0xcd00 is Mercury 0x432a0, the call returns to 0x431e0)
    returns: Mapping[int, int] = attrs.field(factory=dict)


@attrs.frozen
class MercuryFacts:
    """Every fact of the Mercury code that a clone needs and the originals do not hold.

    * ``finalizer_options``: the MERCURY_FINALIZER_OPTIONS (0x5a) payload. One per module, a
      function of the ptxas options alone (the same for every target; 9 values in the corpus).
    * ``functions``: :class:`FunctionFacts` by the name of the function owning ``.text.<f>``.
    * ``frame_sizes``: the Mercury FRAME_SIZE of a function whose SASS one differs (only
      whole-program clones ``$k$f`` of address-taken or recursive functions, in the corpus).
    * ``cfa``: the Mercury CFA program (bytes without DW_CFA_nop padding) of an FDE of
      ``.nv.merc.debug_frame``, by FDE ordinal, for the FDEs :func:`rule_cfa` cannot derive from
      the SASS program; ``fde_ranges`` an FDE's address_range where :func:`_fde_range` cannot.
    * ``lines``: the rows of a Mercury line table (``.nv.merc.debug_line``,
      ``.nv.merc.nv_debug_line_sass``) that differs from its original, as line events
      (:func:`decode_line_events`, with each sequence's function named), by clone name; the
      header and the encoding are the original's (:func:`encode_line_events`).
    * ``debug``: bytes of debug clones that describe the Mercury code itself and have no
      derivation (the ``-g`` register maps ``.nv.merc.nv_debug_info_reg_sass/_type``), by name.
    * ``code_pointers``: in EXEC, the (offset, function) of every initializer word of
      ``.nv.global.init`` that holds a code address: ptxas resolves them in the SASS bytes and
      keeps no relocation, so only the PTX initializer (leaf data) knows them.
    """

    finalizer_options: bytes | None = None
    functions: Mapping[str, FunctionFacts] = attrs.field(factory=dict)
    frame_sizes: Mapping[str, int] = attrs.field(factory=dict)
    cfa: Mapping[int, bytes] = attrs.field(factory=dict)
    fde_ranges: Mapping[int, int] = attrs.field(factory=dict)
    lines: Mapping[str, tuple[tuple[object, ...], ...]] = attrs.field(factory=dict)
    debug: Mapping[str, bytes] = attrs.field(factory=dict)
    code_pointers: Mapping[str, tuple[tuple[int, str], ...]] = attrs.field(factory=dict)
    #: sm_110: where the stale section header in ``.nv.merc.nv.shared.reserved.0`` starts
    #: (:func:`_reserved_smem`), None when ptxas left the bytes zero. It is heap garbage:
    #: 0x40 in ~97% of the cached cubins, else 0x50, 0x60, 0x70 or none, following no size
    #: or name the module holds, so the decomposer records it like a leaf.
    stale_header_at: int | None = 0x40

    def pc(self, func: str, offset: int) -> int:
        try:
            return self.functions[func].pc[offset]
        except KeyError:
            raise MercuryError(f"no Mercury address for SASS offset {offset:#x} of {func}") from None

    def return_pc(self, func: str, offset: int) -> int:
        """The Mercury address a call returning to SASS ``offset`` returns to."""
        ff = self.functions.get(func)
        moved = ff.returns.get(offset) if ff is not None else None
        return self.pc(func, offset) if moved is None else moved

    def insn_pc(self, func: str, offset: int) -> int:
        """The Mercury offset of the relocated instruction at SASS ``offset``."""
        ff = self.functions.get(func)
        moved = ff.insn.get(offset) if ff is not None else None
        return self.pc(func, offset) if moved is None else moved


# --- helpers -----------------------------------------------------------------------------------
#: Creation names of renamed sections (final name prefix -> creation prefix), sm_100+.
_CREATED_AS = (
    (".nv.constant4", ".nv.constant.pic"),
    (".nv.constant3", ".nv.constant.user"),
    (".nv.constant2.", ".nv.constant.optimizer."),
)


def creation_name(section: Section, obj: ElfObject, targets: Container[int] | None = None) -> str:
    """The name ``section`` was created under, which its Mercury clone and its section symbol in
    ``.nv.merc.symtab`` keep: banks 4 and 3 were ``.nv.constant.pic`` / ``.user``, bank 2 of a
    function ``.nv.constant.optimizer.<f>``, and a bank 0 that carries relocations (texture,
    surface and sampler indices) ``.nv.constant.entry_image_header_indices.<f>``.
    ``targets`` is :func:`_reloc_targets` of ``obj``, when the caller has it."""
    name = section.name
    if not name.startswith(".nv.constant"):  # (no rename below concerns any other section)
        return name
    for new, old in _CREATED_AS:
        if name == new or (new.endswith(".") and name.startswith(new)):
            return old + name[len(new) :]
    if targets is None:
        targets = _reloc_targets(obj)
    if name.startswith(".nv.constant0.") and id(section) in targets:
        return ".nv.constant.entry_image_header_indices." + name[len(".nv.constant0.") :]
    return name


def clone_of(obj: ElfObject, section: Section) -> Section | None:
    """The Mercury clone of ``section`` (``.nv.capmerc.text.<f>`` for ``.text.<f>``), or None."""
    for s in obj.sections:
        if s.mercury and s.clone_of is section:
            return s
    return None


def _text_owner(section: Section) -> str:
    """The function a ``.text.<f>`` section belongs to (its sh_info symbol)."""
    if isinstance(section.info, Symbol):
        return section.info.name
    return section.name[len(".text.") :]


def _leb(data: bytes, i: int, signed: bool) -> tuple[int, int]:
    """A LEB128 number at ``data[i]``: (value, index after it)."""
    b = data[i]
    if b < 0x80:  # one byte, the common case
        return (b - 0x80 if signed and b & 0x40 else b), i + 1
    value = shift = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            if signed and b & 0x40:
                value -= 1 << shift
            return value, i


def _uleb(data: bytes, i: int) -> tuple[int, int]:
    return _leb(data, i, False)


# --- .nv.merc.symtab ---------------------------------------------------------------------------
#: st_other memory-space bits of a REL-style variable (STT_CUDA_OBJECT), by section name prefix.
_SPACE_BITS = (
    (".nv.shared.reserved.", 0xA0),
    (".nv.constant", 0x80),
    (".nv.global", 0x20),
    (".nv.shared.", 0x40),
    (".nv_debug.shared", 0x40),
)

#: Symbols of the reserved shared-memory window: the undefined ones are 0 in Mercury, the ones
#: defined in .nv.shared.reserved.0 lose the EXEC window (0x40 bytes, absent in Mercury).
_RESERVED_SMEM = (".nv.reservedSmem.", "__nv_reservedSMEM_")

#: Bytes the debugger reserves at the start of shared memory under -g (EXEC); shared variables'
#: values include them in .symtab but not in .nv.merc.symtab.
DEBUG_SHARED_WINDOW = 0x400


_EXEC_SMEM_WINDOW = 0x40


def _space_bits(section: Section | None) -> int:
    if section is None:
        return 0
    for prefix, bits in _SPACE_BITS:
        if section.name.startswith(prefix):
            return bits
    return 0


def _late_const0(obj: ElfObject) -> int:
    """How many trailing .symtab entries are the late .nv.constant0.<f> section symbols."""
    n = 0
    for sym in reversed(obj.symbols):
        if sym.type == STT_SECTION and sym.section is not None and sym.section.name.startswith(".nv.constant0."):
            n += 1
        else:
            break
    return n


def _is_debug_g(obj: ElfObject) -> bool:
    """EXEC under -g: shared-memory addresses include the debugger's window."""
    if obj.e_type != ET_EXEC:
        return False
    if obj.find_section(".nv_debug.shared") is not None or any(s.name.startswith(".nv_debug_info_reg") for s in obj.sections):
        return True
    # -g -suppress-debug-info drops those sections but keeps the window (t1 -g
    # -suppress-debug-info sm_100a: tests/probes_flags suppress_debug_shared)
    from .nvinfo.notes import object_options

    return object_options(obj).debug


def derive_merc_symbols(obj: ElfObject, facts: MercuryFacts) -> list[Symbol]:
    """The ``.nv.merc.symtab`` entries (null symbol excluded), in order."""
    late = _late_const0(obj)
    main = obj.symbols[: len(obj.symbols) - late] if late else list(obj.symbols)
    clones = {id(s.clone_of): s for s in obj.sections if s.mercury and s.clone_of is not None}
    func_of_text = {id(s): _text_owner(s) for s in obj.sections if s.name.startswith(".text.") and not s.mercury}
    strslot = {slot.text: slot for slot in obj.strtab.slots if slot.text}
    debug_g = _is_debug_g(obj)
    targets = _reloc_targets(obj)
    out: list[Symbol] = []
    for sym in main:
        sec = sym.section
        new = Symbol(sym.name_slot, sym.info, sym.other, sec, sym.shndx, sym.value, sym.size)
        if sec is not None:
            new.section = clones.get(id(sec), sec)
            created = creation_name(sec, obj, targets) if sym.type == STT_SECTION else sym.name
            if created != sym.name:
                slot = strslot.get(created)
                if slot is None:
                    raise MercuryError(f"no .strtab string for the creation name of {sec.name}")
                new.name_slot = slot
        if sym.type == STT_OBJECT and sec is not None:
            new.info = (sym.info & 0xF0) | STT_CUDA_OBJECT
            new.other = sym.other | _space_bits(sec)
        if sym.name.startswith(_RESERVED_SMEM):
            if sec is None:
                new.value = 0
            elif obj.e_type == ET_EXEC and sec.name == ".nv.shared.reserved.0":
                new.value = sym.value - _EXEC_SMEM_WINDOW
        elif debug_g and sym.type in (STT_OBJECT, STT_CUDA_OBJECT) and sec is not None and sec.name.startswith((".nv.shared.", ".nv_debug.shared")):
            new.value = sym.value - DEBUG_SHARED_WINDOW
        if sym.type == STT_FUNC and sec is not None and id(sec) in func_of_text:
            owner = func_of_text[id(sec)]
            ff = facts.functions.get(owner)
            if ff is None or sym.name not in ff.sizes:
                # (a function added to a module read from a cubin: its facts come with ptxas's
                # capsule for its code)
                why = "" if ff is not None else f": the module's Mercury facts know no function {owner!r} (a function added to an sm_100+ module needs ptxas's Mercury facts for its code, fact 'mercury')"
                raise MercuryError(f"no Mercury size for function {sym.name}{why}")
            new.size = ff.sizes[sym.name]
            if sym.value:
                new.value = facts.pc(owner, sym.value)
        out.append(new)
    return out


# --- .nv.merc.nv.info* -------------------------------------------------------------------------
_DROPPED = frozenset({0x19, 0x0A, 0x36, 0x15, 0x16})  # CBANK_PARAM_SIZE PARAM_CBANK SW_WAR BINDLESS_*
_CUDA_API_VERSION = 0x37
_FINALIZER_OPTIONS = 0x5A
_FRAME_SIZE = 0x11
_MIN_STACK_SIZE = 0x12
_OFFSET_LISTS = frozenset(int(a) for a in OFFSET_ATTRS)
_MBARRIER = 0x39
_ANNOTATIONS = 0x55
_INDIRECT_BRANCH = 0x34
_ATOM16_REGMAP = 0x2E
_UNUSED_LOAD = 0x44
_SVAL = 4


def _wire(fmt: int, code: int, body: bytes) -> bytes:
    if fmt == _SVAL:
        return bytes((fmt, code)) + struct.pack("<H", len(body)) + body
    return bytes((fmt, code)) + body


def _map_u32(body: bytes, positions: Iterable[int], pc: Callable[[int], int]) -> bytes:
    out = bytearray(body)
    for p in positions:
        (v,) = struct.unpack_from("<I", body, p)
        struct.pack_into("<I", out, p, pc(v))
    return bytes(out)


def _offset_positions(code: int, body: bytes, fmt: int = _SVAL) -> list[int]:
    """Byte positions of the instruction offsets in a record body (per layout)."""
    if fmt != _SVAL:
        return []
    if code in _OFFSET_LISTS:
        return list(range(0, len(body), 4))
    if code == _MBARRIER:
        return list(range(0, len(body), 16))
    if code == _ANNOTATIONS:
        from .nvinfo.codec import annotation_parts

        return [p.offset_at for p in annotation_parts(body) or () if p.offset_at is not None]
    if code in (_ATOM16_REGMAP, _UNUSED_LOAD):  # (offset, register) / (offset, used-byte mask) pairs
        return list(range(0, len(body), 8))
    if code == _INDIRECT_BRANCH:
        pos, out = 0, []
        while pos < len(body):
            (n,) = struct.unpack_from("<I", body, pos + 8)
            out.append(pos)
            out.extend(pos + 12 + 4 * k for k in range(n))
            pos += 12 + 4 * n
        return out
    return []


def derive_merc_info(obj: ElfObject, original: Section, facts: MercuryFacts) -> bytes:
    """``.nv.merc.nv.info`` or ``.nv.merc.nv.info.<f>`` from its original."""
    from .nvinfo import iter_wire_records

    per_function = original.name.startswith(".nv.info.")
    owner = _text_owner(original.info) if per_function and isinstance(original.info, Section) else None
    out = bytearray()
    records = list(iter_wire_records(original.data, section=original.name))
    frames = dict(struct.unpack("<II", w.body) for w in records if w.code == _FRAME_SIZE and not per_function)
    data = original.data
    for w in records:
        body = w.body
        if per_function:
            if w.code in _DROPPED:
                continue
            positions = _offset_positions(w.code, body, w.fmt)
            if positions:
                assert owner is not None
                body = _map_u32(body, positions, lambda v: facts.pc(owner, v))
            else:  # the record as it stands (the framing _wire would give it again)
                out += data[w.offset : w.offset + 4 + (len(body) if w.fmt == _SVAL else 0)]
                if w.code == _CUDA_API_VERSION:
                    if facts.finalizer_options is None:
                        raise MercuryError("no MERCURY_FINALIZER_OPTIONS payload")
                    out += _wire(_SVAL, _FINALIZER_OPTIONS, facts.finalizer_options)
                continue
        elif w.code in (_FRAME_SIZE, _MIN_STACK_SIZE):
            sym_index, value = struct.unpack("<II", body)
            name = obj.symbols[sym_index - 1].name
            # a bounded MIN_STACK_SIZE is the function's frame, so it follows the Mercury one
            # (texquery sm_100a: $k_local$with_local 0x40 -> 0; UNBOUNDED, or a stack deeper
            # than the frame, stays)
            if name in facts.frame_sizes and (w.code == _FRAME_SIZE or value == frames.get(sym_index)):
                body = struct.pack("<II", sym_index, facts.frame_sizes[name])
        out += _wire(w.fmt, w.code, body)
        if per_function and w.code == _CUDA_API_VERSION:
            if facts.finalizer_options is None:
                raise MercuryError("no MERCURY_FINALIZER_OPTIONS payload")
            out += _wire(_SVAL, _FINALIZER_OPTIONS, facts.finalizer_options)
    return bytes(out)


# --- data clones -------------------------------------------------------------------------------


def _branch_targets(obj: ElfObject, owner: str) -> set[int]:
    """Every INDIRECT_BRANCH_TARGETS target of ``owner`` (SASS offsets)."""
    from .nvinfo import iter_wire_records

    info = obj.find_section(".nv.info." + owner)
    out: set[int] = set()
    if info is None:
        return out
    for w in iter_wire_records(info.data, section=info.name):
        if w.code == _INDIRECT_BRANCH and w.fmt == _SVAL:
            pos = _offset_positions(w.code, w.body)
            out.update(struct.unpack_from("<I", w.body, p)[0] for p in pos)
    return out


def _branch_tables(obj: ElfObject, owner: str) -> list[list[int]]:
    """The target list of each INDIRECT_BRANCH_TARGETS entry of ``owner``, in record order."""
    from .nvinfo import iter_wire_records

    info = obj.find_section(".nv.info." + owner)
    tables: list[list[int]] = []
    if info is None:
        return tables
    for w in iter_wire_records(info.data, section=info.name):
        if w.code == _INDIRECT_BRANCH and w.fmt == _SVAL:
            pos = 0
            while pos + 12 <= len(w.body):
                (n,) = struct.unpack_from("<I", w.body, pos + 8)
                tables.append(list(struct.unpack_from(f"<{n}I", w.body, pos + 12)))
                pos += 12 + 4 * n
    return tables


def _take_run(words: list[int], run: list[int], used: set[int]) -> int | None:
    """The first index where ``run`` stands in ``words`` clear of ``used``, which then takes
    its indices; None where it stands nowhere."""
    n = len(run)
    start = next((i for i in range(len(words) - n + 1) if words[i : i + n] == run and not used & set(range(i, i + n))), None)
    if start is not None:
        used.update(range(start, start + n))
    return start


def _jump_table_order(bank: bytes, tables: list[list[int]], offsets: list[int]) -> list[int] | None:
    """The order of the jump-table relocations: ptxas emits each BRX's table (record order) entry
    by entry and prepends every relocation, so the last table comes first, each one from its
    last entry down (switch_fp64 probe: tables at 12..24 and 0..8 give 8, 4, 0, 24, ..., 12).
    None when the tables cannot be found as runs of the bank."""
    words = [struct.unpack_from("<I", bank, o)[0] for o in range(0, len(bank) - 3, 4)]
    used: set[int] = set()
    emitted: list[int] = []
    for targets in tables:
        start = _take_run(words, targets, used)
        if start is None:
            return None
        emitted.extend(4 * i for i in range(start, start + len(targets)))
    if sorted(emitted) != sorted(offsets):
        return None
    return emitted[::-1]


def bank_blocks(obj: ElfObject, owner: str) -> list[tuple[str, list[int], list[list[int]]]] | None:
    """The jump tables ``.nv.constant2.<owner>`` holds, by function: (function, each table's
    start offset, its tables in record order) for ``owner`` itself and for every function it
    reaches (``.nv.callgraph``) that has INDIRECT_BRANCH_TARGETS and no bank of its own, callees
    in reverse .text order. A whole-program kernel's bank carries its callees' tables at the
    offsets their code loads, the same in every caller's bank, zero where another kernel's
    tables sit (r0004 -g: k0's own table at 0 and f0's at 8; k1, which only calls f0, zero
    at 0..7 and f0's at 8). None when some table is not found in the bank."""
    from .elf.order import symbol_order, text_sections
    from .nvinfo import decode_callgraph

    bank = obj.find_section(".nv.constant2." + owner)
    if bank is None:
        return None
    graph_sec = obj.find_section(".nv.callgraph")
    calls: dict[str, list[str]] = {}
    if graph_sec is not None:
        names = [""] + [y.name for y in symbol_order(obj)]
        for edge in decode_callgraph(graph_sec.data, symbol_name=lambda i: names[i]).calls:
            calls.setdefault(edge.caller, []).append(edge.callee)
    reached: set[str] = set()
    todo = [owner]
    while todo:
        for callee in calls.get(todo.pop(), ()):
            if callee not in reached:
                reached.add(callee)
                todo.append(callee)
    texts = [s.name[len(".text.") :] for s in text_sections(obj)]
    owners = [owner] + [f for f in reversed(texts) if f in reached and f != owner and obj.find_section(".nv.constant2." + f) is None]
    words = [struct.unpack_from("<I", bank.data, o)[0] for o in range(0, len(bank.data) - 3, 4)]
    used: set[int] = set()
    blocks: list[tuple[str, list[int], list[list[int]]]] = []
    for f in owners:
        tables = _branch_tables(obj, f)
        if not tables:
            continue
        starts: list[int] = []
        for t in tables:
            i = _take_run(words, t, used)
            if i is None:
                return None
            starts.append(4 * i)
        blocks.append((f, starts, tables))
    return blocks


def _optimizer_relocs(
    obj: ElfObject, bank: Section, facts: MercuryFacts, function_order: Sequence[str] | None = None
) -> tuple[bytes, list[tuple[int, Symbol, int, int]]]:
    """``.nv.constant2.<f>`` (``.nv.constant.optimizer.<f>``) for Mercury: its code addresses
    zeroed and turned into relocations (offset, symbol, type, addend).

    A u32 that is a target of the function's BRX (INDIRECT_BRANCH_TARGETS) is a jump-table entry:
    PROG_REL32 against the function, addend its Mercury address; these come in descending offset
    order. A u64 equal to the entry offset of a whole-program clone ``$f$g`` (a function address
    table) is PROG_REL64 against the clone, addend 0, in the module's G order of the functions
    copied (``function_order``: non-static functions in declaration order, then static ones;
    funcorder.g_order), whatever their place in the table: ftab with f_three declared first
    lists f_three@24 f_one@8 f_two@16; fo_fptr's indirect-call table op_b@24 (visible) op_a@16
    op_c@8 (static); sm_100a, sm_120. Without it, in ascending offset order."""
    data = bytearray(bank.data)
    owner = bank.name[len(".nv.constant2.") :]
    func = next((y for y in obj.symbols if y.name == owner and y.type == STT_FUNC), None)
    targets = _branch_targets(obj, owner)
    relocs: list[tuple[int, Symbol, int, int]] = []
    blocks = bank_blocks(obj, owner)
    if blocks and any(f != owner for f, _, _ in blocks):
        # callees' tables too (whole program): each function's block relocated against that
        # function (PROG_REL32, addend its Mercury address), blocks in bank order, each in the
        # order of a bank of its own (r0004 -g, sm_100a: k0 4, 0 then f0 0xc, 0x8; jumptable
        # -g: dev_static_jt 4, 0; dev_weak_jt 20..8; dev_jt 36..24)
        for f, starts, tables in sorted(blocks, key=lambda b: min(b[1])):
            sym = next(y for y in obj.symbols if y.name == f and y.type == STT_FUNC)
            offsets = [start + 4 * j for start, t in zip(starts, tables) for j in range(len(t))]
            for off in reversed(offsets):
                (v,) = struct.unpack_from("<I", bank.data, off)
                relocs.append((off, sym, _M["PROG_REL32"], facts.pc(f, v)))
                struct.pack_into("<I", data, off, 0)
        return bytes(data), relocs
    # function-address table entries first (u64 clone entry offsets), in G order; then a
    # jump table's entries: a kernel whose inlined factory switches over five classes and
    # stores their vtables has both in one bank, the 20 clone addresses listed before the
    # three jump entries (tests/probes_rw6/rules/vtable_factory, sm_100a)
    clones = {y.value: y for y in obj.symbols if y.type == STT_FUNC and y.name.startswith(f"${owner}$")}
    covered: set[int] = set()
    for off in range(0, len(bank.data) - 7, 8):
        (v,) = struct.unpack_from("<Q", bank.data, off)
        target = clones.get(v)
        if target is not None:
            relocs.append((off, target, _M["PROG_REL64"], 0))
            struct.pack_into("<Q", data, off, 0)
            covered |= {off, off + 4}
    if function_order is not None and relocs:
        rank = {n: i for i, n in enumerate(function_order)}
        prefix = len(f"${owner}$")
        if any(r[1].name[prefix:] not in rank for r in relocs):
            raise MercuryError(f"{bank.name}: a function-address table entry outside the function order")
        relocs.sort(key=lambda r: rank[r[1].name[prefix:]])
    if targets:
        assert func is not None
        jumps: list[tuple[int, Symbol, int, int]] = []
        for off in range(0, len(bank.data) - 3, 4):
            (v,) = struct.unpack_from("<I", bank.data, off)
            if v in targets and off not in covered:
                jumps.append((off, func, _M["PROG_REL32"], facts.pc(owner, v)))
                struct.pack_into("<I", data, off, 0)
        order = _jump_table_order(bank.data, _branch_tables(obj, owner), [r[0] for r in jumps])
        if order is None:
            jumps.sort(key=lambda r: -r[0])
        else:
            rank = {off: k for k, off in enumerate(order)}
            jumps.sort(key=lambda r: rank[r[0]])
        relocs += jumps
    return bytes(data), relocs


@attrs.define
class Derivation:
    """What several clones of one module derive alike, worked out once: ``.nv.merc.debug_frame``
    (its bytes are the clone's, its entry offsets move the clone's relocations) and the Mercury
    line tables (the clone's bytes, and where its relocations go). A builder makes one for the
    clones of one object and passes it to :func:`derive_merc_data` and
    :func:`derive_merc_relocations`; the object and the facts must not change meanwhile."""

    obj: ElfObject
    facts: MercuryFacts
    _frame: tuple[bytes, dict[int, int]] | None = None
    _lines: dict[str, bytes] = attrs.field(factory=dict)

    def debug_frame(self) -> tuple[bytes, dict[int, int]]:
        """:func:`derive_merc_debug_frame`."""
        if self._frame is None:
            self._frame = derive_merc_debug_frame(self.obj, self.facts)
        return self._frame

    def line_table(self, orig: Section, clone_name: str) -> bytes:
        """The Mercury line table ``clone_name`` (in ``facts.lines``) of the original ``orig``:
        the original's header, the clone's rows."""
        data = self._lines.get(clone_name)
        if data is None:
            # (the original's header only: its rows are not the clone's)
            data = self._lines[clone_name] = encode_line_events(line_header(orig.data), self.facts.lines[clone_name])
        return data


def derive_merc_data(obj: ElfObject, clone: Section, facts: MercuryFacts, *, shared: Derivation | None = None) -> bytes:
    """Bytes of a data or debug clone (``.nv.merc.nv.constant.*``, ``.nv.merc.nv.global.init``,
    ``.nv.merc.nv.shared.reserved.0``, ``.nv.merc.debug_*``). ``shared``: the
    :class:`Derivation` of ``obj`` and ``facts``, when the caller derives several clones."""
    orig = clone.clone_of
    if orig is None:
        raise MercuryError(f"{clone.name} has no original")
    shared = shared if shared is not None else Derivation(obj, facts)
    name = clone.name
    if name in facts.lines:
        return shared.line_table(orig, name)
    if name in facts.debug:
        return facts.debug[name]
    if name == ".nv.merc.debug_frame":
        return shared.debug_frame()[0]
    if name == ".nv.merc.nv.shared.reserved.0":
        return _reserved_smem(obj, orig, facts.stale_header_at)
    if name.startswith(".nv.merc.nv.constant.entry_image_header_indices."):
        start = _index_area(obj, orig)
        return orig.data[start:]
    if name.startswith(".nv.merc.nv.constant.optimizer."):
        return _optimizer_relocs(obj, orig, facts)[0]
    if orig.name in facts.code_pointers:
        data = bytearray(orig.data)
        for off, _ in facts.code_pointers[orig.name]:
            struct.pack_into("<Q", data, off, 0)
        return bytes(data)
    return orig.data


def _late_phase_offset(obj: ElfObject) -> int:
    """Offset in .shstrtab of the first name ptxas creates after its per-function phase: a late
    ``.nv.constant0.<f>`` parameter bank, else the first ``.nv.capmerc.*`` / ``.nv.merc.*``."""
    targeted = {id(s.info) for s in obj.sections if s.relocs is not None and not s.mercury and isinstance(s.info, Section)}
    late = {s.name for s in obj.sections if s.name.startswith(".nv.constant0.") and not s.mercury and id(s) not in targeted}
    pos = 0
    for slot in obj.shstrtab.slots:
        if slot.text in late or slot.text.startswith((".nv.capmerc.", ".nv.merc.")):
            return pos
        pos += slot.size
    raise MercuryError("no late section name in .shstrtab")


def _reserved_smem(obj: ElfObject, orig: Section, at: int | None = 0x40) -> bytes:
    """``.nv.merc.nv.shared.reserved.0``: the original size without the EXEC window (0x40 bytes
    that Mercury does not have), zero bytes; where the gb10b WAR variable exists (sm_110),
    ptxas leaves stale bytes of a freed ELF section header table in it, two Elf64_Shdr of an
    image it wrote earlier:

    * ``at``: {sh_name 1, SHT_STRTAB, offset 0x40, size L, align 1} (its .shstrtab),
    * ``at`` + 0x40: {sh_name 0xb, SHT_STRTAB, offset L + 0x40} (its .strtab), if the
      tcgen05 partition makes the section that long,

    cut at the section's end, where L is the .shstrtab offset of the first name created after
    the per-function phase (:func:`_late_phase_offset`: that image's .shstrtab size). ``at``
    (MercuryFacts.stale_header_at) is 0x40 in ~97% of the cached cubins; None leaves the
    bytes zero."""
    size = orig.size - (_EXEC_SMEM_WINDOW if obj.e_type == ET_EXEC else 0)
    data = bytearray(max(size, 0))
    names = {y.name for y in obj.symbols if y.section is orig}
    if "__nv_reservedSMEM_gb10b_war_var" in names and len(data) >= 0x80 and at is not None:
        mark = _late_phase_offset(obj)
        stale = struct.pack("<16I", 1, 3, 0, 0, 0, 0, 0x40, 0, mark, 0, 0, 0, 1, 0, 0, 0)
        if "__nv_reservedSMEM_tcgen05_partition" in names:
            stale += struct.pack("<8I", 0xB, 3, 0, 0, 0, 0, mark + 0x40, 0)
        stale = stale[: max(0, len(data) - at)]
        data[at : at + len(stale)] = stale
    return bytes(data)


def _reloc_section_of(obj: ElfObject, target: Section) -> Section | None:
    for s in obj.sections:
        if s.relocs is not None and not s.mercury and s.info is target:
            return s
    return None


def _reloc_targets(obj: ElfObject) -> set[int]:
    """ids of the sections that have a (non-Mercury) relocation section: where
    :func:`_reloc_section_of` finds one."""
    return {id(s.info) for s in obj.sections if s.relocs is not None and not s.mercury and isinstance(s.info, Section)}


def _index_area(obj: ElfObject, bank: Section) -> int:
    rel = _reloc_section_of(obj, bank)
    if rel is None or not rel.relocs:
        raise MercuryError(f"{bank.name} has no index relocations")
    return min(r.offset for r in rel.relocs)


# --- .nv.merc.debug_frame ----------------------------------------------------------------------
def _frame_entries(data: bytes) -> list[tuple[int, int, bytes]]:
    """(offset, length-field size, body after the length) of each CIE/FDE (64-bit DWARF)."""
    out, i = [], 0
    while i < len(data):
        (l32,) = struct.unpack_from("<I", data, i)
        if l32 != 0xFFFFFFFF:
            raise MercuryError(f".debug_frame entry at {i:#x} is not 64-bit DWARF")
        (length,) = struct.unpack_from("<Q", data, i + 4)
        out.append((i, 12, data[i + 12 : i + 12 + length]))
        i += 12 + length
    return out


def cfa_length(program: bytes) -> int:
    """Length of a CFA program without its trailing DW_CFA_nop padding."""
    i = end = 0
    while i < len(program):
        op = program[i]
        i += 1
        if op == 0:
            continue
        if op == 0x04:
            i += 4
        elif op in (0x0C, 0x05):  # def_cfa, offset_extended
            _, i = _uleb(program, i)
            _, i = _uleb(program, i)
        elif op & 0xC0 == 0x80 or op in (0x06, 0x0E, 0x08, 0x07, 0x0D):
            _, i = _uleb(program, i)
        elif op in (0x10, 0x16):  # expression, val_expression
            _, i = _uleb(program, i)
            n, i = _uleb(program, i)
            i += n
        elif op == 0x0F:
            n, i = _uleb(program, i)
            i += n
        elif op == 0x09:  # register
            _, i = _uleb(program, i)
            _, i = _uleb(program, i)
        elif op & 0xC0 in (0x40, 0xC0):
            pass
        else:
            raise MercuryError(f"unknown CFA opcode {op:#x}")
        end = i
    return end


def _is_cie(body: bytes) -> bool:
    return body[:8] == b"\xff" * 8


def _function_spans(obj: ElfObject) -> dict[tuple[int, int, int], Symbol]:
    """The first function symbol (in symbol order) covering each (id(section), start, end)."""
    spans: dict[tuple[int, int, int], Symbol] = {}
    for y in obj.symbols:
        if y.type == STT_FUNC and y.section is not None:
            spans.setdefault((id(y.section), y.value, y.value + y.size), y)
    return spans


def _fde_range(spans: Mapping[tuple[int, int, int], Symbol], facts: MercuryFacts, reloc: Relocation | None, length: int) -> int:
    """Mercury address_range of an FDE whose initial_location relocation is ``reloc`` and whose
    SASS address_range is ``length``: the Mercury size of the function it covers; for a
    kernel's FDE that stops where its first whole-program clone starts, the Mercury distance.
    ``spans`` is :func:`_function_spans` of the object."""
    if reloc is None or reloc.symbol is None or reloc.symbol.section is None:
        raise MercuryError("FDE without an initial_location relocation")
    sym = reloc.symbol
    owner = _func_owner(sym)
    start = sym.value + (reloc.addend or 0)
    end = start + length
    ff = facts.functions.get(owner)
    y = spans.get((id(sym.section), start, end))
    if y is not None:
        if ff is None or y.name not in ff.sizes:
            raise MercuryError(f"no Mercury size for {y.name}")
        return ff.sizes[y.name]
    return facts.pc(owner, end) - facts.pc(owner, start)


def _cfa_rows(program: bytes, code_align: int, end: int | None = None) -> list[tuple[int, bytes]] | None:
    """A CFA program as rows (location, instruction bytes at that location); None if it uses an
    advance other than DW_CFA_advance_loc4. ``end``: :func:`cfa_length` of the program, when
    the caller has it."""
    rows: list[tuple[int, bytes]] = []
    loc = 0
    cur = bytearray()
    i = 0
    if end is None:
        end = cfa_length(program)
    started = False
    while i < end:
        op = program[i]
        if op == 0x04:
            if started or cur:
                rows.append((loc, bytes(cur)))
            (d,) = struct.unpack_from("<I", program, i + 1)
            loc = (loc + d * code_align) & 0xFFFFFFFF
            cur = bytearray()
            started = True
            i += 5
            continue
        if op & 0xC0 == 0x40 or op in (0x02, 0x03):
            return None
        j = _cfa_op_end(program, i)
        cur += program[i:j]
        i = j
    rows.append((loc, bytes(cur)))
    return rows


def _cfa_op_end(program: bytes, i: int) -> int:
    """End offset of the CFA instruction at ``i``."""
    op = program[i]
    i += 1
    if op == 0x04:
        return i + 4
    if op in (0x0C, 0x05, 0x09):
        _, i = _uleb(program, i)
        _, i = _uleb(program, i)
        return i
    if op & 0xC0 == 0x80 or op in (0x06, 0x0E, 0x08, 0x07, 0x0D):
        _, i = _uleb(program, i)
        return i
    if op in (0x10, 0x16):
        _, i = _uleb(program, i)
        n, i = _uleb(program, i)
        return i + n
    if op == 0x0F:
        n, i = _uleb(program, i)
        return i + n
    if op == 0 or op & 0xC0 in (0x40, 0xC0):
        return i
    raise MercuryError(f"unknown CFA opcode {op:#x}")


def rule_cfa(sass_program: bytes, owner: str, start: int, facts: MercuryFacts) -> bytes:
    """The Mercury CFA program of an FDE, from its SASS program, where a rule is known.

    * A kernel whose only CFA row is the frame release after its EXIT (SASS: advance to the
      EXIT E, advance one instruction, def_cfa) becomes: advance 16, advance pc(E), def_cfa,
      advance -16 (ptxas 13.0.88 writes exactly this; E' = pc(E) is the Mercury EXIT).
    * An empty program stays empty.
    * Otherwise, when every SASS row location has a Mercury address, the rows are moved to
      their Mercury addresses and every row gets its own advance (Mercury writes a zero advance
      where SASS omits it).
    Anything else needs the Mercury program as a leaf (MercuryError)."""
    end = cfa_length(sass_program)
    if end == 0:
        return b""
    rows = _cfa_rows(sass_program, 4, end)
    if rows is None:
        raise MercuryError("SASS CFA program with short advances")
    if len(rows) == 2 and rows[0][1] == b"" and rows[1][0] == rows[0][0] + 16 and rows[1][1][:1] == b"\x0c":
        exit_m = facts.pc(owner, start + rows[0][0]) - facts.pc(owner, start)
        return (
            b"\x04" + struct.pack("<I", 16) + b"\x04" + struct.pack("<I", exit_m) + rows[1][1]
            + b"\x04" + struct.pack("<I", (-16) & 0xFFFFFFFF)
        )
    out = bytearray()
    prev = 0
    base = facts.pc(owner, start)
    for loc, ops in rows:
        m = facts.pc(owner, start + loc) - base
        out += b"\x04" + struct.pack("<I", (m - prev) & 0xFFFFFFFF) + ops
        prev = m
    return bytes(out)


def derive_merc_debug_frame(obj: ElfObject, facts: MercuryFacts) -> tuple[bytes, dict[int, int]]:
    """``.nv.merc.debug_frame`` bytes, and where each original entry starts in it (original
    offset -> clone offset, to move the relocations).

    The CIEs are copied with code_alignment_factor 1 (Mercury advances count bytes, SASS ones
    4-byte units). Each FDE keeps its CIE (pointer moved to the CIE's new offset) and its
    initial_location (in EXEC the field holds the resolved code offset: mapped to Mercury),
    gets the Mercury address_range (:func:`_fde_range`) and the Mercury CFA program (leaf),
    padded with DW_CFA_nop so that the whole entry is a multiple of 8 bytes."""
    orig = obj.section(".debug_frame")
    rel = _reloc_section_of(obj, orig)
    func_at: dict[int, Relocation] = {}
    if rel is not None:
        for r in rel.relocs or ():
            if r.symbol is not None and r.symbol.type == STT_FUNC and r.type == 2:
                func_at[r.offset] = r
    entries = _frame_entries(orig.data)
    new_at: dict[int, int] = {}
    programs: list[bytes] = []
    pos = 0
    for off, hdr, body in entries:  # where each clone entry lands
        new_at[off] = pos
        if _is_cie(body):
            pos += hdr + len(body)
            continue
        k = len(programs)
        if k in facts.cfa:
            prog = facts.cfa[k]
        else:
            init = func_at.get(off + 12 + 8)
            if init is None or init.symbol is None:
                raise MercuryError(f"FDE at {off:#x} has no function")
            prog = rule_cfa(body[24:], _func_owner(init.symbol), init.symbol.value + (init.addend or 0), facts)
        programs.append(prog)
        n = 24 + len(prog)
        pos += 12 + n + (-(12 + n)) % 8
    out = bytearray()
    fde_no = 0
    spans = _function_spans(obj)
    for off, hdr, body in entries:
        if _is_cie(body):
            # version 3, augmentation "", then code_alignment_factor (ULEB 4 -> 1)
            if body[8] != 3 or body[9] != 0 or body[10] != 4:
                raise MercuryError(f"unexpected CIE at {off:#x}")
            new = body[:10] + b"\x01" + body[11:]
            out += struct.pack("<IQ", 0xFFFFFFFF, len(new)) + new
            continue
        cie, stored, length = struct.unpack_from("<QQQ", body, 0)
        if cie not in new_at:
            raise MercuryError(f"FDE at {off:#x} points at no CIE ({cie:#x})")
        init = func_at.get(off + 12 + 8)
        if fde_no in facts.fde_ranges:
            rng = facts.fde_ranges[fde_no]
        else:
            rng = _fde_range(spans, facts, init, length)
        if stored:
            if init is None or init.symbol is None:
                raise MercuryError(f"FDE at {off:#x}: stored location without a function")
            stored = facts.pc(_func_owner(init.symbol), stored)
        fixed = struct.pack("<QQQ", new_at[cie], stored, rng) + programs[fde_no]
        fixed += bytes((-(12 + len(fixed))) % 8)
        out += struct.pack("<IQ", 0xFFFFFFFF, len(fixed)) + fixed
        fde_no += 1
    return bytes(out), new_at


#: the data sections whose initializers may hold code addresses ptxas resolves in EXEC
#: (``code_pointers``): .nv.global.init, and bank 3 from a ``.const`` function table
#: (sm_100a: `.const .u64 tbl[2] = {f1, f2}`, two PROG_REL64 in .nv.merc.rela.nv.constant.user;
#: tests/probes_data/init_across_sections)
_CODE_POINTER_HOLDERS = (".nv.global.init", ".nv.constant3")


# --- .nv.merc.rela.* ---------------------------------------------------------------------------
def _entry_index(starts: Sequence[int], offset: int) -> int:
    """The index of the last of the ascending ``starts`` at or before ``offset`` (0 if none)."""
    return max(bisect.bisect_right(starts, offset) - 1, 0)


def derive_merc_relocations(
    obj: ElfObject,
    merc_rela: Section,
    facts: MercuryFacts,
    *,
    function_order: Sequence[str] | None = None,
    shared: Derivation | None = None,
    data_order: Sequence[str] | None = None,
) -> list[tuple[int, int, int, int]]:
    """The entries of a ``.nv.merc.rela.X`` as (offset, .nv.merc.symtab index, type, addend).
    ``function_order``: the module's functions in G order, which orders the entries of a
    function-address table (:func:`_optimizer_relocs`). ``shared``: see :func:`derive_merc_data`.
    ``data_order``: the module's variables in declaration order, where the symbols do not give
    it (weak variables' symbols come in walk order).

    ``.nv.merc.symtab`` is a prefix of ``.symtab`` (only the late bank symbols are dropped), so
    a symbol keeps its index."""
    orig = merc_rela.clone_of
    if orig is None or orig.relocs is None:
        raise MercuryError(f"{merc_rela.name} has no original")
    target = orig.info
    if not isinstance(target, Section):
        raise MercuryError(f"{orig.name} has no target section")
    main_index = {id(y): i for i, y in enumerate(obj.symbols, start=1)}
    n_merc = len(obj.symbols) - _late_const0(obj)
    by_name: dict[str, int] = {}
    for i, y in enumerate(obj.symbols[:n_merc], start=1):
        by_name.setdefault(y.name, i)

    def idx(sym: Symbol | None) -> int:
        if sym is None:
            return 0
        i = main_index[id(sym)]
        if i > n_merc:
            raise MercuryError(f"relocation against {sym.name}, which .nv.merc.symtab lacks")
        return i

    out: list[tuple[int, int, int, int]] = []
    tname = target.name
    if tname.startswith(".text."):
        owner = _text_owner(target)
        for r in orig.relocs:
            if r.type in _NO_MERCURY_TEXT:
                continue
            mtype = mercury_reloc_type(r.type, tname, r.symbol, owner, r.addend)
            insn = r.offset & ~0xF
            off = facts.insn_pc(owner, insn) + text_field_offset(mtype)
            addend = r.addend or 0
            if r.symbol is not None and r.symbol.type == STT_FUNC and r.symbol.name == owner and mtype in (
                _M["ABS_PROG_REL32_LO"],
                _M["ABS_PROG_REL32_HI"],
            ):
                addend = facts.return_pc(owner, addend)
            out.append((off, idx(r.symbol), mtype, addend))
        ff = facts.functions.get(owner)
        for x in ff.extra_relocs if ff else ():
            if x.symbol not in by_name:
                # (%reserved_smem_offset_begin: .nv.reservedSmem.begin, which no rule makes yet)
                raise NotImplementedError(f".nv.merc.rela{tname}: a relocation at {x.offset:#x} names {x.symbol!r}, a symbol the build does not make yet")
            out.append((x.offset, by_name[x.symbol], x.type, x.addend))
        out.sort(key=lambda e: -e[0])
        return out
    shared = shared if shared is not None else Derivation(obj, facts)
    if tname == ".debug_frame":
        _, new_at = shared.debug_frame()
        starts = sorted(new_at)
        cies = [off for off, _, body in _frame_entries(target.data) if _is_cie(body)]
        for r in orig.relocs:
            k = starts[_entry_index(starts, r.offset)]
            off = new_at[k] + (r.offset - k)
            addend = r.addend or 0
            if r.symbol is not None and r.symbol.type == STT_SECTION and r.symbol.section is target:
                # the CIE pointer of an FDE: the offset of its CIE (the last CIE before it) in
                # the clone. (In REL the original's addend is that same clone offset, not the
                # SASS one: ptxas 13.0.88 computes it once.)
                addend = new_at[cies[_entry_index(cies, k)]]
            elif r.symbol is not None and r.symbol.type == STT_FUNC and addend:
                addend = facts.pc(_func_owner(r.symbol), addend)
            out.append((off, idx(r.symbol), mercury_reloc_type(r.type, tname, r.symbol), addend))
        return out
    if tname.startswith(".nv.constant2."):
        _, rel = _optimizer_relocs(obj, target, facts, function_order)
        return [(o, idx(s), t, a) for o, s, t, a in rel]
    funcs_by_name = {y.name: y for y in obj.symbols if y.type == STT_FUNC}
    if tname in facts.code_pointers:
        # every relocation, the original's and the code pointers', variable by variable in
        # symbol (declaration) order, each from its last word back: ptxas makes them walking
        # the variables from the last declared, each from its first word, and lists them last
        # made first (global_tables sm_100a: g_values+8 at 0, g_name+2, g_name, then $k$dbl,
        # $k$inc; declared g_ops first, $k$dbl and $k$inc come first; virtual_shapes: the
        # vtables of Shape, Square, Circle although Circle's is placed first). A weak variable's
        # symbol is made in walk order, not declaration order: ``data_order`` ranks them then
        # (clang's weak vtables declared last: tests/probes_weak/weak_vtable_last, sm_100+)
        rel = [(r.offset, idx(r.symbol), mercury_reloc_type(r.type, tname, r.symbol), r.addend or 0) for r in orig.relocs]
        declared = {name: n for n, name in enumerate(data_order or ())}
        owners = [(declared.get(y.name, len(declared) + n) if data_order is not None else n, y.value, y.value + y.size) for n, y in enumerate(obj.symbols) if y.section is target and y.type != STT_SECTION and y.size]

        def owner(offset: int) -> int:
            return next((n for n, lo, hi in owners if lo <= offset < hi), len(owners))

        pointers = [(o, idx(funcs_by_name[f]), _M["PROG_REL64"], 0) for o, f in facts.code_pointers[tname]]
        return sorted(rel + pointers, key=lambda e: (owner(e[0]), -e[0]))
    if tname.startswith(".nv.constant0."):
        start = _index_area(obj, target)
        return [(r.offset - start, idx(r.symbol), mercury_reloc_type(r.type, tname, r.symbol), r.addend or 0) for r in orig.relocs]
    if tname in _LINE_TABLES and ".nv.merc" + tname in facts.lines:
        events = facts.lines[".nv.merc" + tname]
        data = shared.line_table(target, ".nv.merc" + tname)
        funcs = [funcs_by_name[str(ev[1])] for ev in events if ev[0] == "seq"]
        positions = _set_address_positions(data)
        if len(positions) != len(funcs):
            raise MercuryError(f"{tname}: {len(positions)} sequences for {len(funcs)} functions")
        rel = [(p, idx(f), _M["ABS64"], 0) for p, f in zip(positions, funcs)]
        strings = obj.find_section(".debug_str")
        if tname == ".debug_line" and strings is not None and obj.e_type != ET_EXEC and _names_offset_in_header(data):
            # PTX with inlined-at line info: the header ends with a 32-bit offset into
            # .debug_str (the function names). The relocatable original leaves it unrelocated;
            # its Mercury clone relocates it against .debug_str (ABS32; nvcc -lineinfo
            # dbg_inline, -c, sm_100+). A header without it (the inlined calls gone from the
            # code: CUDA-samples nv12_resize's tex2D, -lineinfo -c sm_110a) gets no relocation
            (hdr_len,) = struct.unpack_from("<I", data, 6)
            sym = next(y for y in obj.symbols if y.type == STT_SECTION and y.section is strings)
            rel.append((10 + hdr_len - 4, idx(sym), _M["ABS32"], 0))
        rel.sort(key=lambda e: -e[0])
        return rel
    for r in orig.relocs:
        addend = r.addend or 0
        if r.symbol is not None and r.symbol.type == STT_FUNC and addend:
            addend = facts.pc(_func_owner(r.symbol), addend)
        out.append((r.offset, idx(r.symbol), mercury_reloc_type(r.type, tname, r.symbol), addend))
    return out


def _func_owner(sym: Symbol) -> str:
    if sym.section is not None and sym.section.name.startswith(".text."):
        return _text_owner(sym.section)
    return sym.name


def _names_offset_in_header(data: bytes) -> bool:
    """Whether the first line-table header holds more than its DWARF 2 fields: after the file
    table, the 32-bit .debug_str offset of an inlined-at table."""
    (hdr_len,) = struct.unpack_from("<I", data, 6)
    end = 10 + hdr_len
    p = 15 + data[14] - 1  # past the standard opcode lengths
    while p < end and data[p]:  # include directories
        p = data.index(b"\0", p) + 1
    p += 1
    while p < end and data[p]:  # file names: name, directory, time, length
        p = data.index(b"\0", p) + 1
        for _ in range(3):
            _, p = _uleb(data, p)
    return p + 1 + 4 <= end


def _set_address_positions(data: bytes) -> list[int]:
    """Offsets of the operands of every DW_LNE_set_address in a line table."""
    out = []
    i = 0
    while i < len(data):
        (unit_len,) = struct.unpack_from("<I", data, i)
        end = i + 4 + unit_len
        (hdr_len,) = struct.unpack_from("<I", data, i + 6)
        p = i + 10 + hdr_len
        # DWARF 2/3 header: min_inst_length, default_is_stmt, line_base, line_range, opcode_base
        ob = data[i + 14]
        std = data[i + 15 : i + 15 + ob - 1]
        while p < end:
            op = data[p]
            p += 1
            if op >= ob:
                continue
            if op == 0:
                n, q = _uleb(data, p)
                if data[q] == 2:
                    out.append(q + 1)
                p = q + n
            elif op == 9:
                p += 2
            else:
                for _ in range(std[op - 1]):
                    _, p = _uleb(data, p)
        i = end
    return out


# --- DWARF line tables ---------------------------------------------------------------------------
#: A line-table event: ("seq", function) opens a sequence (DW_LNE_set_address, relocated against
#: the function), ("file", n), ("ext", sub_opcode, body) an extended opcode other than
#: set_address / end_sequence (the Mercury tables carry NVIDIA's 0x92), ("advance", n) an
#: advance_pc written right after such an opcode (not part of a row), ("row", address, line)
#: appends a row, ("end", address) closes the sequence.
LineEvent = tuple


def _sleb_bytes(v: int) -> bytes:
    if -0x40 <= v < 0x40:  # one byte, the common case
        return bytes((v & 0x7F,))
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if (v == 0 and not b & 0x40) or (v == -1 and b & 0x40):
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


def _uleb_bytes(v: int) -> bytes:
    if 0 <= v < 0x80:  # one byte, the common case
        return bytes((v,))
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _sleb(data: bytes, i: int) -> tuple[int, int]:
    return _leb(data, i, True)


@attrs.frozen
class LineHeader:
    """The fixed part of a DWARF 2 line-table unit (everything after unit_length up to the
    program), kept as bytes, and the parameters the program encoding depends on."""

    raw: bytes
    line_base: int
    line_range: int
    opcode_base: int
    std_lengths: tuple[int, ...]


def _line_unit(data: bytes) -> tuple[LineHeader, bytes]:
    (unit_len,) = struct.unpack_from("<I", data, 0)
    if unit_len == 0xFFFFFFFF or 4 + unit_len != len(data):
        raise MercuryError("line table is not one 32-bit DWARF unit")
    (version,) = struct.unpack_from("<H", data, 4)
    (hdr_len,) = struct.unpack_from("<I", data, 6)
    if version not in (2, 3) or data[10] != 1:
        raise MercuryError(f"unsupported line table (version {version}, min_inst {data[10]})")
    line_base = struct.unpack_from("<b", data, 12)[0]
    line_range, opcode_base = data[13], data[14]
    std = tuple(data[15 : 15 + opcode_base - 1])
    end = 10 + hdr_len
    return LineHeader(data[4:end], line_base, line_range, opcode_base, std), data[end:]


def line_header(data: bytes) -> LineHeader:
    """The header of a line table, as :func:`decode_line_events` gives it, without decoding
    the program."""
    return _line_unit(data)[0]


def decode_line_events(data: bytes) -> tuple[LineHeader, list[LineEvent]]:
    """Split a line table (one unit, as ptxas writes them) into header and events."""
    hdr, prog = _line_unit(data)
    events: list[LineEvent] = []
    i = addr = 0
    line = 1
    last_event_end = -1
    size, opcode_base, line_range, line_base = len(prog), hdr.opcode_base, hdr.line_range, hdr.line_base
    while i < size:
        n_events = len(events)
        op = prog[i]
        follows_ext = bool(events) and events[-1][0] == "ext" and last_event_end == i
        i += 1
        if op >= opcode_base:
            adj = op - opcode_base
            addr += adj // line_range
            line += line_base + adj % line_range
            events.append(("row", addr, line))
        elif op == 0:
            n, j = _uleb(prog, i)
            sub, body = prog[j], bytes(prog[j + 1 : j + n])
            i = j + n
            if sub == 1:
                events.append(("end", addr))
                addr, line = 0, 1
            elif sub == 2:
                if any(body):
                    raise MercuryError("DW_LNE_set_address with a stored address")
                events.append(("seq", None))
                addr = 0
            else:
                events.append(("ext", sub, body))
        elif op == 1:
            events.append(("row", addr, line))
        elif op == 2:
            v, i = _uleb(prog, i)
            addr += v
            # kept as an event where no row consumes it at once: after an extended opcode, and
            # wherever the next opcode is neither DW_LNS_copy nor DW_LNE_end_sequence: a special
            # opcode that adds its own step (sh_callgraph -g, sm_100a/sm_120
            # .nv.merc.nv_debug_line_sass: `02 b001 f4` for a row 0xc0 further on), or a row
            # with its own line and address steps (nvcc -lineinfo realistic_lineinfo, sm_120
            # .nv.merc.nv_debug_line_sass: `02 f000 03 0a 02 10 01`)
            # (after an extended opcode too, but not when a copy follows at once: `02 b001 01`
            # is a row with no line step, nvcc -lineinfo sm_100a .nv.merc.debug_line)
            ends = prog[i : i + 3] == b"\x00\x01\x01"
            nxt = prog[i] if i < size else None
            if (follows_ext and nxt != 1) or (nxt is not None and nxt != 1 and not ends):
                events.append(("advance", v))
        elif op == 3:
            v, i = _sleb(prog, i)
            line += v
        elif op == 4:
            v, i = _uleb(prog, i)
            events.append(("file", v))
        else:
            raise MercuryError(f"line opcode {op} not produced by ptxas")
        if len(events) != n_events:
            last_event_end = i
    return hdr, events


def name_sequences(where: str, events: Iterable[LineEvent], names: Sequence[str]) -> list[LineEvent]:
    """``events`` with each sequence's ``("seq", None)`` naming its function: the next of
    ``names``, the symbols its set_address operands are relocated against, in offset order."""
    out: list[LineEvent] = []
    k = 0
    for ev in events:
        if ev[0] == "seq":
            if k >= len(names):
                raise MercuryError(f"{where}: a sequence without a relocation")
            ev = ("seq", names[k])
            k += 1
        out.append(tuple(ev))
    return out


def encode_line_events(hdr: LineHeader, events: Iterable[LineEvent]) -> bytes:
    """The line table ptxas writes for ``events``: DW_LNE_set_address (address 0, relocated)
    opens a sequence; a row at the same address as the previous one is DW_LNS_advance_line +
    DW_LNS_copy (even for a zero line step); a row that moves both address and line by steps
    that fit a special opcode is that opcode; any other row (a zero line step included) is advance_line (omitted for a zero step) + advance_pc + copy; the
    sequence ends with advance_pc to its end address and DW_LNE_end_sequence. ptxas writes the
    advance_pc operand as a *signed* LEB128 (0x60 is ``e0 00``), a valid but longer ULEB."""
    prog = bytearray()
    addr = 0
    line = 1
    for ev in events:
        kind = ev[0]
        if kind == "seq":
            prog += b"\x00\x09\x02" + bytes(8)
            addr, line = 0, 1
        elif kind == "file":
            prog += b"\x04" + _uleb_bytes(ev[1])
        elif kind == "ext":
            prog += b"\x00" + _uleb_bytes(len(ev[2]) + 1) + bytes((ev[1],)) + ev[2]
        elif kind == "row":
            da, dl = ev[1] - addr, ev[2] - line
            if da < 0:
                raise MercuryError("line rows go backwards")
            special = None
            # a special opcode only where both the address and the line move: a row on the
            # same line is advance_pc + copy even where `(0 - line_base) + line_range * da +
            # opcode_base` would fit (ptxas 13.0.88, every SASS and Mercury line table of the
            # probe corpus; nvcc -lineinfo realistic_lineinfo, sm_100a/sm_120: `02 10 01`)
            if da and dl and 0 <= dl - hdr.line_base < hdr.line_range:
                op = (dl - hdr.line_base) + hdr.line_range * da + hdr.opcode_base
                if op <= 255:
                    special = op
            if special is not None:
                prog.append(special)
            elif da == 0:
                prog += b"\x03" + _sleb_bytes(dl) + b"\x01"
            else:
                if dl:
                    prog += b"\x03" + _sleb_bytes(dl)
                prog += b"\x02" + _sleb_bytes(da) + b"\x01"
            addr, line = ev[1], ev[2]
        elif kind == "advance":
            prog += b"\x02" + _sleb_bytes(ev[1])
            addr += ev[1]
        elif kind == "end":
            if ev[1] != addr:
                prog += b"\x02" + _sleb_bytes(ev[1] - addr)
            prog += b"\x00\x01\x01"
            addr, line = 0, 1
        else:
            raise MercuryError(f"unknown line event {kind!r}")
    body = hdr.raw + bytes(prog)
    return struct.pack("<I", len(body)) + body


# --- capsule header ----------------------------------------------------------------------------
CAPSULE_MAGIC = 0xC0000001


def capsule_header(capsule: bytes) -> tuple[int, int, int]:
    """(ordinal, magic, instruction count) of a ``.nv.capmerc.text.<f>`` capsule."""
    if len(capsule) < 12:
        raise MercuryError("capsule shorter than its 12-byte header")
    return struct.unpack_from("<III", capsule, 0)


# --- reading the leaves of a ptxas cubin -------------------------------------------------------
def _text_sections(obj: ElfObject) -> list[Section]:
    return [s for s in obj.sections if s.name.startswith(".text.") and not s.mercury]


class _PcCollector:
    def __init__(self) -> None:
        self.maps: dict[str, dict[int, int]] = {}
        self.insn: dict[str, dict[int, int]] = {}
        self.returns: dict[str, dict[int, int]] = {}
        self.conflicts: list[str] = []
        #: (function, SASS offset) whose map entry only a relocated instruction gave
        self.from_relocation: set[tuple[str, int]] = set()

    def add(self, func: str, sass: int, merc: int, source: str) -> None:
        m = self.maps.setdefault(func, {})
        key = (func, sass)
        old = m.get(sass)
        if old is None:
            m[sass] = merc
            if source == "relocation":
                self.from_relocation.add(key)
        elif old == merc:
            if source != "relocation":
                self.from_relocation.discard(key)  # an address says so too
        elif source == "relocation":
            self.insn.setdefault(func, {})[sass] = merc  # see FunctionFacts.insn
        elif key in self.from_relocation:
            # the address itself (a return address, a symbol) differs from where the relocated
            # instruction there sits: the instruction goes to insn (-c, a call returning to an
            # instruction that reads .shared: Mercury 0x230 returns, the instruction is at 0x240)
            self.insn.setdefault(func, {})[sass] = old
            self.from_relocation.discard(key)
            m[sass] = merc
        elif source == "return address" and self.returns.get(func, {}).get(sass, merc) == merc:
            self.returns.setdefault(func, {})[sass] = merc  # see FunctionFacts.returns
        else:
            self.conflicts.append(f"{func}: SASS {sass:#x} -> {old:#x} and {merc:#x} ({source})")


def _info_pairs(orig: bytes, merc: Sequence[WireRecord], name: str) -> list[tuple[int, int]]:
    """(SASS, Mercury) offset pairs of an original .nv.info.<f> and its clone's records."""
    from .nvinfo import iter_wire_records

    a = [w for w in iter_wire_records(orig, section=name) if w.code not in _DROPPED]
    b = [w for w in merc if w.code != _FINALIZER_OPTIONS]
    pairs: list[tuple[int, int]] = []
    for x, y in zip(a, b):
        if x.code != y.code:
            raise MercuryError(f"{name}: record {x.code:#04x} against {y.code:#04x}")
        pos = _offset_positions(x.code, x.body, x.fmt)
        if pos and len(x.body) == len(y.body):
            for p in pos:
                pairs.append((struct.unpack_from("<I", x.body, p)[0], struct.unpack_from("<I", y.body, p)[0]))
    return pairs


def facts_from_cubin(obj: ElfObject) -> MercuryFacts:
    """Read the leaf facts of the Mercury code from a cubin that has its Mercury tail.

    Every Mercury address comes from the clones: the instruction offsets of
    ``.nv.merc.nv.info.<f>``, the relocations of ``.nv.merc.rela.text.<f>`` matched to their SASS
    counterparts, the clone symbols' values, the code addends of the debug relocations and the
    jump-table relocations. A SASS offset given two Mercury addresses raises MercuryError: the
    map must be one function per ``.text`` section."""
    from .nvinfo import iter_wire_records

    pcs = _PcCollector()
    texts = _text_sections(obj)
    owner_of = {id(t): _text_owner(t) for t in texts}
    merc = obj.merc_symbols
    # the per-function clones' records, split once for the two passes below
    merc_infos = [
        (s, list(iter_wire_records(s.data, section=s.name)))
        for s in obj.sections
        if s.mercury and s.name.startswith(".nv.merc.nv.info.")
    ]
    # finalizer options
    options = None
    for s, wires in merc_infos:
        for w in wires:
            if w.code == _FINALIZER_OPTIONS:
                if options is not None and w.body != options:
                    raise MercuryError("two MERCURY_FINALIZER_OPTIONS payloads in one module")
                options = w.body
    # nv.info offsets
    for s, wires in merc_infos:
        if s.clone_of is not None:
            o = s.clone_of
            if isinstance(o.info, Section):
                for a, b in _info_pairs(o.data, wires, s.name):
                    pcs.add(owner_of[id(o.info)], a, b, "nv.info")
    # function symbols: sizes and clone entry points
    sizes: dict[str, dict[str, int]] = {}
    for y, m in zip(obj.symbols, merc):
        if y.type == STT_FUNC and y.section is not None and id(y.section) in owner_of:
            f = owner_of[id(y.section)]
            sizes.setdefault(f, {})[y.name] = m.size
            pcs.add(f, y.value, m.value, "symbol")
    # text relocations
    extras: dict[str, list[MercReloc]] = {}
    pointers: dict[str, tuple[tuple[int, str], ...]] = {}
    for s in obj.sections:
        if not (s.mercury and s.relocs is not None and s.clone_of is not None):
            continue
        o = s.clone_of
        target = o.info
        if not isinstance(target, Section):
            continue
        if target.name.startswith(".text."):
            f = owner_of[id(target)]
            j = 0
            used = set()
            for r in o.relocs or ():
                if r.type in _NO_MERCURY_TEXT:
                    continue
                mtype = mercury_reloc_type(r.type, target.name, r.symbol, f, r.addend)
                while j < len(s.relocs):
                    q = s.relocs[j]
                    j += 1
                    if q.type == mtype and (q.symbol.name if q.symbol else None) == (r.symbol.name if r.symbol else None):
                        used.add(j - 1)
                        pcs.add(f, r.offset & ~0xF, q.offset - text_field_offset(mtype), "relocation")
                        if mtype in (_M["ABS_PROG_REL32_LO"], _M["ABS_PROG_REL32_HI"]) and r.symbol is not None and r.symbol.name == f:
                            pcs.add(f, r.addend or 0, q.addend or 0, "return address")
                        break
                else:
                    raise MercuryError(f"{s.name}: no Mercury relocation for SASS {r.offset:#x}")
            extras[f] = [
                MercReloc(q.offset, q.symbol.name if q.symbol else "", q.type, q.addend or 0)
                for k, q in enumerate(s.relocs)
                if k not in used
            ]
        elif target.name.startswith(".nv.constant2."):
            for q in s.relocs:
                if q.type == _M["PROG_REL32"]:
                    # against the bank's function, or in a -g kernel's late bank against the
                    # callee whose table it is (bank_blocks)
                    f = q.symbol.name if q.symbol is not None else target.name[len(".nv.constant2.") :]
                    pcs.add(f, struct.unpack_from("<I", target.data, q.offset)[0], q.addend or 0, "jump table")
        elif target.name in _CODE_POINTER_HOLDERS and len(s.relocs) > len(o.relocs or ()):
            known = {r.offset for r in o.relocs or ()}
            past = next((q.offset for q in s.relocs if q.offset + 8 > len(target.data)), None)
            if past is not None:
                raise CubinFormatError(f"a relocation at {past:#x} patches past the {len(target.data):#x} bytes of {target.name}", where=f"section {s.name}")
            pointers[target.name] = tuple(
                sorted((q.offset, q.symbol.name) for q in s.relocs if q.offset not in known and q.symbol is not None)
            )
        elif len(o.relocs or ()) == len(s.relocs) and target.name not in _LINE_TABLES:
            for r, q in zip(o.relocs or (), s.relocs):
                if r.symbol is not None and r.symbol.type == STT_FUNC and (r.addend or 0):
                    pcs.add(_func_owner(r.symbol), r.addend or 0, q.addend or 0, target.name)
    if pcs.conflicts:
        raise MercuryError("Mercury address map is not a function: " + "; ".join(pcs.conflicts[:4]))
    functions = {
        f: FunctionFacts(pc=pcs.maps.get(f, {}), sizes=sizes.get(f, {}), extra_relocs=tuple(extras.get(f, ())), insn=pcs.insn.get(f, {}), returns=pcs.returns.get(f, {}))
        for f in owner_of.values()
    }
    # frame sizes of whole-program clones
    frame_sizes: dict[str, int] = {}
    mi = obj.find_section(".nv.merc.nv.info")
    if mi is not None and mi.clone_of is not None:
        sass_frames = {}
        for w in iter_wire_records(mi.clone_of.data, section=mi.clone_of.name):
            if w.code == _FRAME_SIZE:
                k, v = struct.unpack("<II", w.body)
                sass_frames[k] = v
        for w in iter_wire_records(mi.data, section=mi.name):
            if w.code == _FRAME_SIZE:
                k, v = struct.unpack("<II", w.body)
                if k and sass_frames.get(k) != v:
                    frame_sizes[merc[k - 1].name] = v
    # CFA programs the rule does not give
    cfa: dict[int, bytes] = {}
    ranges: dict[int, int] = {}
    mf = obj.find_section(".nv.merc.debug_frame")
    facts = MercuryFacts(options, functions, frame_sizes, code_pointers=pointers)
    if mf is not None:
        merc_fdes = [body for _, _, body in _frame_entries(mf.data) if not _is_cie(body)]
        orig = obj.section(".debug_frame")
        rel = _reloc_section_of(obj, orig)
        func_at = {r.offset: r for r in (rel.relocs or () if rel else ()) if r.symbol is not None and r.symbol.type == STT_FUNC and r.type == 2}
        n = 0
        for off, _, body in _frame_entries(orig.data):
            if _is_cie(body):
                continue
            mprog = merc_fdes[n][24:]
            mprog = mprog[: cfa_length(mprog)]
            init = func_at.get(off + 20)
            try:
                assert init is not None and init.symbol is not None
                derived = rule_cfa(body[24:], _func_owner(init.symbol), init.symbol.value + (init.addend or 0), facts)
            except (MercuryError, AssertionError):
                derived = None
            if derived != mprog:
                cfa[n] = mprog
            ranges[n] = struct.unpack_from("<Q", merc_fdes[n], 16)[0]
            n += 1
    facts = attrs.evolve(facts, cfa=cfa)
    # FDE ranges that are not a whole function's Mercury size
    if mf is not None:
        derived_ranges = _default_fde_ranges(obj, facts)
        fde_ranges = {k: v for k, v in ranges.items() if derived_ranges.get(k) != v}
        facts = attrs.evolve(facts, fde_ranges=fde_ranges)
    # debug clones that describe the Mercury code
    debug: dict[str, bytes] = {}
    lines: dict[str, tuple[tuple[object, ...], ...]] = {}
    for s in obj.sections:
        if s.mercury and s.clone_of is not None and s.relocs is None and (
            s.name.startswith(".nv.merc.debug_") or s.name.startswith(".nv.merc.nv_debug_")
        ):
            if s.name == ".nv.merc.debug_frame" or s.data == s.clone_of.data:
                continue
            if s.name[len(".nv.merc") :] in _LINE_TABLES:
                rel = next((r for r in obj.sections if r.mercury and r.relocs is not None and r.clone_of is not None and r.clone_of.info is s.clone_of), None)
                # the sequences' relocations only (not the header's .debug_str offset)
                at = set(_set_address_positions(s.data))
                names = [q.symbol.name if q.symbol else "" for q in sorted(rel.relocs if rel else (), key=lambda q: q.offset) if q.offset in at]
                lines[s.name] = tuple(name_sequences(s.name, decode_line_events(s.data)[1], names))
            else:
                debug[s.name] = s.data
    return attrs.evolve(facts, debug=debug, lines=lines)


def _default_fde_ranges(obj: ElfObject, facts: MercuryFacts) -> dict[int, int]:
    orig = obj.find_section(".debug_frame")
    if orig is None:
        return {}
    rel = _reloc_section_of(obj, orig)
    func_at = {r.offset: r for r in (rel.relocs or () if rel else ()) if r.symbol is not None and r.symbol.type == STT_FUNC and r.type == 2}
    spans = _function_spans(obj)
    out: dict[int, int] = {}
    n = 0
    for off, _, body in _frame_entries(orig.data):
        if _is_cie(body):
            continue
        try:
            out[n] = _fde_range(spans, facts, func_at.get(off + 20), struct.unpack_from("<Q", body, 16)[0])
        except MercuryError:
            pass
        n += 1
    return out


# --- checking a cubin ----------------------------------------------------------------------------
def _kind(name: str) -> str:
    for prefix in (
        ".nv.merc.nv.info.",
        ".nv.merc.rela.text.",
        ".nv.merc.nv.constant.entry_image_header_indices.",
        ".nv.merc.rela.nv.constant.entry_image_header_indices.",
        ".nv.merc.nv.constant.optimizer.",
        ".nv.merc.rela.nv.constant.optimizer.",
        ".nv.merc.nv_debug_ptx_txt",
    ):
        if name.startswith(prefix):
            return prefix + "<f>" if prefix.endswith(".") else prefix
    return name


@attrs.frozen
class CloneCheck:
    """The outcome of deriving one Mercury clone: ``exact`` when the derived bytes (or
    relocation entries, or symbols) equal the file's; ``tier`` says what it took: ``"rule"``
    (the originals alone), ``"rule+leaf"`` (the originals and Mercury leaf facts), ``"leaf"``
    (the clone's bytes are themselves a leaf); ``reason`` says why a clone was not derived."""

    name: str
    kind: str
    exact: bool
    tier: str
    reason: str = ""


def _derive_one(obj: ElfObject, s: Section | None, facts: MercuryFacts) -> object:
    """What :func:`check_cubin` compares for one clone (``s`` None: .nv.merc.symtab)."""
    if s is None:
        return [_sym_key(y) for y in derive_merc_symbols(obj, facts)]
    if s.relocs is not None:
        return derive_merc_relocations(obj, s, facts)
    if s.name.startswith(".nv.merc.nv.info"):
        assert s.clone_of is not None
        return derive_merc_info(obj, s.clone_of, facts)
    return derive_merc_data(obj, s, facts)


def _actual_one(obj: ElfObject, s: Section | None) -> object:
    if s is None:
        return [_sym_key(y) for y in obj.merc_symbols]
    if s.relocs is not None:
        index = {id(y): i for i, y in enumerate(obj.merc_symbols, start=1)}
        return [(r.offset, index[id(r.symbol)] if r.symbol else 0, r.type, r.addend or 0) for r in s.relocs]
    return s.data


def check_cubin(obj: ElfObject, facts: MercuryFacts | None = None) -> list[CloneCheck]:
    """Derive every Mercury clone of ``obj`` (and ``.nv.merc.symtab``) from its originals and
    ``facts`` (default: the leaves read from ``obj`` itself, :func:`facts_from_cubin`) and
    compare with the file, clone by clone. Each clone is derived a second time with no leaf at
    all to tell the clones the rules alone give from those that need Mercury facts."""
    if facts is None:
        facts = facts_from_cubin(obj)
    empty = MercuryFacts()
    targets: list[Section | None] = [None]
    targets += [s for s in obj.sections if s.mercury and not s.name.startswith(".nv.capmerc.") and s.name != ".nv.merc.symtab"]
    out: list[CloneCheck] = []
    for s in targets:
        name = ".nv.merc.symtab" if s is None else s.name
        kind = _kind(name)
        want = _actual_one(obj, s)
        try:
            got = _derive_one(obj, s, facts)
        except MercuryError as exc:
            out.append(CloneCheck(name, kind, False, "rule+leaf", str(exc)))
            continue
        exact = got == want
        reason = "" if exact else (_byte_diff(want, got) if isinstance(want, bytes) else _first_diff(want, got))  # type: ignore[arg-type]
        if name in facts.debug:
            tier = "leaf"
        else:
            try:
                tier = "rule" if _derive_one(obj, s, empty) == want else "rule+leaf"
            except MercuryError:
                tier = "rule+leaf"
        out.append(CloneCheck(name, kind, exact, tier, reason))
    return out


def _sym_key(y: Symbol) -> tuple[object, ...]:
    return (id(y.name_slot) if y.name_slot is not None else None, y.info, y.other, id(y.section) if y.section is not None else y.shndx, y.value, y.size)


def _first_diff(want: Sequence[object], got: Sequence[object]) -> str:
    if len(want) != len(got):
        return f"{len(got)} entries, file has {len(want)}"
    for k, (a, b) in enumerate(zip(want, got)):
        if a != b:
            return f"entry {k}: derived {b!r}, file {a!r}"
    return ""


def _byte_diff(want: bytes, got: bytes) -> str:
    if len(want) != len(got):
        return f"{len(got)} bytes, file has {len(want)}"
    k = next(i for i, (a, b) in enumerate(zip(want, got)) if a != b)
    return f"first difference at byte {k:#x}"
