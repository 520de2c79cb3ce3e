"""Typed records of ``.nv.info*`` and ``.nv.compat`` sections.

One frozen attrs class per payload layout that ptxas 13.0.88 writes. Classes that serve several
codes (a u32 offset list, a symbol + u32 pair, ...) carry the code in ``attr``; classes for a
single code do not. Symbols are held by name: symbol indices depend on the symbol-table order,
which belongs to the ELF writer, and are resolved only by the codec's callbacks.

A record the codec cannot type (unknown code, unexpected format for the code, a payload that
does not fit the layout) becomes :class:`RawRecord` / :class:`RawCompatRecord`, which keep the
bytes so that re-encoding is exact; their ``raw`` attribute is True (False on every other class).
"""

from __future__ import annotations

import re
import types
from collections.abc import Callable, Iterable
from typing import Any, ClassVar, TypeVar

import attrs

from .catalogue import COMPAT_SPECS, EIATTR_SPECS, EIAttr, EICompatAttr, EIFormat

_Validator = Callable[[Any, "attrs.Attribute[Any]", Any], None]
_R = TypeVar("_R")


def _u(bits: int) -> _Validator:
    """Validator: an unsigned integer of ``bits`` bits."""
    limit = 1 << bits

    def check(inst: object, attribute: attrs.Attribute[Any], value: int) -> None:
        if type(value) is int and 0 <= value < limit:  # the usual case, in two tests
            return
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{type(inst).__name__}.{attribute.name} must be an int, got {value!r}")
        if not 0 <= value < limit:
            raise ValueError(f"{type(inst).__name__}.{attribute.name} must be a u{bits}, got {value!r}")

    return check


def _u32_tuple(inst: object, attribute: attrs.Attribute[Any], value: tuple[int, ...]) -> None:
    if _all_u32(value):  # at C speed; the loop below names the first bad value
        return
    for v in value:
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"{type(inst).__name__}.{attribute.name} holds a non-int {v!r}")
        if not 0 <= v < 1 << 32:
            raise ValueError(f"{type(inst).__name__}.{attribute.name} holds a non-u32 {v!r}")


def _all_u32(values: tuple[int, ...]) -> bool:
    """Every value a plain int (no bool, no subclass) in 0 .. 2**32 - 1."""
    if len(values) <= 8:  # most lists are short: a plain loop beats the generator and min/max
        for v in values:
            if type(v) is not int or not 0 <= v < 1 << 32:
                return False
        return True
    return all(type(v) is int for v in values) and (min(values) >= 0 and max(values) < 1 << 32)


def _str_tuple(inst: object, attribute: attrs.Attribute[Any], value: tuple[str, ...]) -> None:
    for v in value:
        if not isinstance(v, str):
            raise TypeError(f"{type(inst).__name__}.{attribute.name} holds a non-string {v!r}")


def _attr_in(*codes: EIAttr) -> _Validator:
    """Validator: ``attr`` is one of the codes this layout is used for."""
    allowed = frozenset(codes)

    def check(inst: object, attribute: attrs.Attribute[Any], value: EIAttr) -> None:
        if value not in allowed:
            names = ", ".join(sorted(a.cuobjdump_name for a in allowed))
            raise ValueError(f"{type(inst).__name__} cannot carry {value!r}; allowed: {names}")

    return check


def _to_attr(value: int) -> EIAttr:
    # records are mostly built from EIAttr members: skip the enum lookup then (a hot path)
    return value if type(value) is EIAttr else EIAttr(value)


#: the converter of the integer-tuple fields: tuple itself (a C call; a function wrapping it
#: cost a Python call per field per record)
_ints: Callable[[Iterable[int]], tuple[int, ...]] = tuple


def _strs(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(values)


def _mbar_entries(values: Iterable[MbarrierEntry]) -> tuple[MbarrierEntry, ...]:
    return tuple(values)


def _regmap_entries(values: Iterable[RegMapEntry]) -> tuple[RegMapEntry, ...]:
    return tuple(values)


def _branches(values: Iterable[IndirectBranch]) -> tuple[IndirectBranch, ...]:
    return tuple(values)


def _generic_fmt_ok(inst: object, attribute: attrs.Attribute[Any], value: EIAttr) -> None:
    """A generic record may only carry a code whose known format is its own (or unknown)."""
    fmt: EIFormat = inst.fmt  # type: ignore[attr-defined]
    expected = EIATTR_SPECS[value].fmt
    if expected is not None and expected is not fmt:
        raise ValueError(f"{value.cuobjdump_name} is written as {expected.cuobjdump_name}, not {fmt.cuobjdump_name}")


# ---------------------------------------------------------------------------------------------
# Codes grouped by the layout ptxas uses for them.

#: SVAL, one u32 (no symbol): CUDA_API_VERSION 0x82, SW_WAR, CRS_STACK_SIZE, MAX_CLUSTER_RANK.
U32_ATTRS = (EIAttr.CUDA_API_VERSION, EIAttr.SW_WAR, EIAttr.CRS_STACK_SIZE, EIAttr.MAX_CLUSTER_RANK)
#: SVAL, u32 .text offsets of instructions.
OFFSET_ATTRS = (
    EIAttr.EXIT_INSTR_OFFSETS,
    EIAttr.S2RCTAID_INSTR_OFFSETS,
    EIAttr.LD_CACHEMOD_INSTR_OFFSETS,
    EIAttr.ATOM_SYS_INSTR_OFFSETS,
    EIAttr.COOP_GROUP_INSTR_OFFSETS,
    EIAttr.ATOMF16_EMUL_INSTR_OFFSETS,
    EIAttr.INT_WARP_WIDE_INSTR_OFFSETS,
    EIAttr.SYSCALL_OFFSETS,
    EIAttr.SW_WAR_MEMBAR_SYS_INSTR_OFFSETS,
    EIAttr.STACK_CANARY_TRAP_OFFSETS,
    EIAttr.LOCAL_CTA_ASYNC_STORE_OFFSETS,
    EIAttr.IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS,
)
#: SVAL, u32 words that are not offsets: COOP_GROUP_MASK_REGIDS (0xffffffff, or 0x05000000|Rn
#: for a mask held in Rn), AT_ENTRY_FRAGMENTS (fragment ids 6/7), INSTR_REG_MAP (3 words),
#: UNUSED_LOAD_BYTE_OFFSET (pairs: a vector load's .text offset, the mask of the bytes it uses).
WORDS_ATTRS = (
    EIAttr.COOP_GROUP_MASK_REGIDS,
    EIAttr.AT_ENTRY_FRAGMENTS,
    EIAttr.INSTR_REG_MAP,
    EIAttr.UNUSED_LOAD_BYTE_OFFSET,
)
#: SVAL, u32 symbol index + u32 value.
SYMBOL_VALUE_ATTRS = (
    EIAttr.REGCOUNT,
    EIAttr.FRAME_SIZE,
    EIAttr.MIN_STACK_SIZE,
    EIAttr.MAX_STACK_SIZE,
    EIAttr.SAMPLER_FORCE_UNNORMALIZED,
)
#: SVAL, u32 symbol indices.
SYMBOL_LIST_ATTRS = (EIAttr.EXTERNS,)
#: SVAL, u32 x, y, z.
DIM3_ATTRS = (EIAttr.MAX_THREADS, EIAttr.REQNTID, EIAttr.CTA_PER_CLUSTER)


# ---------------------------------------------------------------------------------------------
# Generic records, typed by their format byte alone.


@attrs.frozen
class Flag:
    """EIFMT_NVAL: the attribute is present (``01 cc 00 00``)."""

    attr: EIAttr = attrs.field(converter=_to_attr, validator=_generic_fmt_ok)
    fmt: ClassVar[EIFormat] = EIFormat.NVAL
    raw: ClassVar[bool] = False


@attrs.frozen
class ByteValue:
    """EIFMT_BVAL: u8 value in byte 2, byte 3 zero (NUM_BARRIERS, VRC_CTA_INIT_COUNT, BINDLESS_*)."""

    attr: EIAttr = attrs.field(converter=_to_attr, validator=_generic_fmt_ok)
    value: int = attrs.field(validator=_u(8))
    fmt: ClassVar[EIFormat] = EIFormat.BVAL
    raw: ClassVar[bool] = False


@attrs.frozen
class HalfValue:
    """EIFMT_HVAL: u16 LE value in bytes 2-3 (MAXREG_COUNT, CBANK_PARAM_SIZE, MERCURY_ISA_VERSION...).

    MERCURY_ISA_VERSION holds major in the high byte and minor in the low byte: cuobjdump prints
    bytes ``07 01`` as 1.7.
    """

    attr: EIAttr = attrs.field(converter=_to_attr, validator=_generic_fmt_ok)
    value: int = attrs.field(validator=_u(16))
    fmt: ClassVar[EIFormat] = EIFormat.HVAL
    raw: ClassVar[bool] = False


@attrs.frozen
class RawRecord:
    """A record kept as bytes because its code, format or payload is not understood.

    ``payload`` is the SVAL payload, or bytes 2-3 of a 4-byte record.
    """

    fmt: int = attrs.field(validator=_u(8))
    code: int = attrs.field(validator=_u(8))
    payload: bytes = attrs.field(converter=bytes)
    raw: ClassVar[bool] = True

    @property
    def attr(self) -> EIAttr | int:
        try:
            return EIAttr(self.code)
        except ValueError:
            return self.code


# ---------------------------------------------------------------------------------------------
# SVAL layouts.


@attrs.frozen
class U32Value:
    """SVAL with one u32 and no symbol (CUDA_API_VERSION = 0x82 for CUDA 13.0, SW_WAR, ...)."""

    attr: EIAttr = attrs.field(converter=_to_attr, validator=_attr_in(*U32_ATTRS))
    value: int = attrs.field(validator=_u(32))
    fmt: ClassVar[EIFormat] = EIFormat.SVAL
    raw: ClassVar[bool] = False


@attrs.frozen
class InstrOffsets:
    """SVAL list of u32 .text byte offsets of the instructions the attribute names."""

    attr: EIAttr = attrs.field(converter=_to_attr, validator=_attr_in(*OFFSET_ATTRS))
    offsets: tuple[int, ...] = attrs.field(converter=_ints, validator=_u32_tuple)
    fmt: ClassVar[EIFormat] = EIFormat.SVAL
    raw: ClassVar[bool] = False


#: AT_ENTRY_FRAGMENTS values, as cuobjdump names them (ptxas writes 6 or 7 for tcgen05 kernels).
AT_ENTRY_FRAGMENTS = types.MappingProxyType(
    {
        1: "AT_ENTRY_FRAGMENT_TEST1",
        2: "AT_ENTRY_FRAGMENT_TEST2",
        3: "AT_ENTRY_FRAGMENT_TEST3",
        4: "AT_ENTRY_FRAGMENT_TMEM_CTA1",
        5: "AT_ENTRY_FRAGMENT_TMEM_CTA2",
        6: "AT_ENTRY_FRAGMENT_TMEM_CTA1_V2",
        7: "AT_ENTRY_FRAGMENT_TMEM_CTA2_V2",
    }
)
#: SPARSE_MMA_MASK bits, as cuobjdump names them (ptxas writes 0, or 0x10 = HMMA.SP for mma.sp).
SPARSE_MMA_BITS = types.MappingProxyType(
    {
        0: "QGMMA.SP",
        1: "HGMMA.SP",
        2: "IGMMA.SP",
        3: "QMMA.SP",
        4: "HMMA.SP",
        5: "IMMA.SP",
        6: "UTC*MMASparse",
        7: "OMMA.SP",
    }
)


@attrs.frozen
class U32List:
    """SVAL list of u32 words that are not offsets (mask register ids, fragment ids...)."""

    attr: EIAttr = attrs.field(converter=_to_attr, validator=_attr_in(*WORDS_ATTRS))
    values: tuple[int, ...] = attrs.field(converter=_ints, validator=_u32_tuple)
    fmt: ClassVar[EIFormat] = EIFormat.SVAL
    raw: ClassVar[bool] = False


@attrs.frozen
class SymbolValue:
    """SVAL ``{u32 symbol, u32 value}``: REGCOUNT, FRAME_SIZE, MIN/MAX_STACK_SIZE, SAMPLER_FORCE_UNNORMALIZED.

    These are the global ``.nv.info`` records; the symbol is the function (or the samplerref).
    """

    attr: EIAttr = attrs.field(converter=_to_attr, validator=_attr_in(*SYMBOL_VALUE_ATTRS))
    symbol: str = attrs.field(validator=attrs.validators.instance_of(str))
    value: int = attrs.field(validator=_u(32))
    fmt: ClassVar[EIFormat] = EIFormat.SVAL
    raw: ClassVar[bool] = False


@attrs.frozen
class SymbolList:
    """SVAL list of u32 symbol indices: EXTERNS (the undefined functions a function calls)."""

    attr: EIAttr = attrs.field(converter=_to_attr, validator=_attr_in(*SYMBOL_LIST_ATTRS))
    symbols: tuple[str, ...] = attrs.field(converter=_strs, validator=_str_tuple)
    fmt: ClassVar[EIFormat] = EIFormat.SVAL
    raw: ClassVar[bool] = False


@attrs.frozen
class Dim3:
    """SVAL ``{u32 x, u32 y, u32 z}``: MAX_THREADS (.maxntid), REQNTID, CTA_PER_CLUSTER."""

    attr: EIAttr = attrs.field(converter=_to_attr, validator=_attr_in(*DIM3_ATTRS))
    x: int = attrs.field(validator=_u(32))
    y: int = attrs.field(validator=_u(32))
    z: int = attrs.field(validator=_u(32))
    fmt: ClassVar[EIFormat] = EIFormat.SVAL
    raw: ClassVar[bool] = False


@attrs.frozen
class ParamCbank:
    """PARAM_CBANK: ``{u32 symbol, u16 base, u16 size}``.

    ptxas points the symbol at the ``.nv.constant0.<f>`` *section symbol*; base is where the
    parameters start in bank 0 (0x160 sm_75-89, 0x1a80 there for > 4352 B of params, 0x210 sm_90,
    0x380 sm_100+) and size their total in bytes (= CBANK_PARAM_SIZE).
    """

    symbol: str = attrs.field(validator=attrs.validators.instance_of(str))
    base: int = attrs.field(validator=_u(16))
    size: int = attrs.field(validator=_u(16))
    attr: ClassVar[EIAttr] = EIAttr.PARAM_CBANK
    fmt: ClassVar[EIFormat] = EIFormat.SVAL
    raw: ClassVar[bool] = False


#: KPARAM_INFO ``param_space`` values, as cuobjdump names them (bit 17 of the last word).
PARAM_SPACE_CBANK = 0
PARAM_SPACE_SMEM = 1


@attrs.frozen
class KParamInfo:
    """KPARAM_INFO (12 bytes): ``u32 index | u16 ordinal | u16 offset | u32 w``.

    ``w`` packs, low to high: log2 pointee alignment (8 bits), pointee space (4), cbank (5; ptxas
    writes 0x1f), parameter space (1; 0 CBANK, 1 SMEM), size in bytes (14). Field names follow
    cuobjdump's rendering. ptxas writes one per parameter, highest ordinal first.
    """

    index: int = attrs.field(validator=_u(32))
    ordinal: int = attrs.field(validator=_u(16))
    offset: int = attrs.field(validator=_u(16))
    size: int = attrs.field(validator=_u(14))
    log_alignment: int = attrs.field(default=0, validator=_u(8))
    space: int = attrs.field(default=0, validator=_u(4))
    cbank: int = attrs.field(default=0x1F, validator=_u(5))
    param_space: int = attrs.field(default=PARAM_SPACE_CBANK, validator=_u(1))
    attr: ClassVar[EIAttr] = EIAttr.KPARAM_INFO
    fmt: ClassVar[EIFormat] = EIFormat.SVAL
    raw: ClassVar[bool] = False


@attrs.frozen
class KParamInfoV2:
    """KPARAM_INFO_V2 (12 bytes): ``u32 index | u16 ordinal | u16 offset | u16 size | u8 log-align | u8 space``.

    ptxas uses it instead of KPARAM_INFO for every parameter of a kernel whose parameters
    exceed 4352 bytes (a 14-bit size no longer fits).
    """

    index: int = attrs.field(validator=_u(32))
    ordinal: int = attrs.field(validator=_u(16))
    offset: int = attrs.field(validator=_u(16))
    size: int = attrs.field(validator=_u(16))
    log_alignment: int = attrs.field(default=0, validator=_u(8))
    space: int = attrs.field(default=0, validator=_u(8))
    attr: ClassVar[EIAttr] = EIAttr.KPARAM_INFO_V2
    fmt: ClassVar[EIFormat] = EIFormat.SVAL
    raw: ClassVar[bool] = False


#: MBARRIER_INSTR_OFFSETS instruction kinds (low 4 bits of byte 12), as cuobjdump names them.
MBARRIER_KINDS = types.MappingProxyType(
    {
        0: "MBARRIER_INIT",
        1: "MBARRIER_ARRIVE",
        2: "MBARRIER_ARRIVE_NOCOMPLETE",
        3: "MBARRIER_ARRIVE_DROP",
        4: "MBARRIER_ARRIVE_DROP_NOCOMPLETE",
        5: "MBARRIER_TEST_WAIT",
        6: "MBARRIER_TEST_WAIT_PARITY",
        7: "MBARRIER_CP_ASYNC_ARRIVE",
        8: "MBARRIER_INVAL",
        9: "MBARRIER_TRY_WAIT",
        10: "MBARRIER_TRY_WAIT_PARITY",
    }
)
#: MBARRIER stride codes (bits 4-5 of byte 12), as cuobjdump names them.
MBARRIER_STRIDES = types.MappingProxyType(
    {0: "MBARRIER_STRIDE_X4", 1: "MBARRIER_STRIDE_X8", 2: "MBARRIER_STRIDE_X16", 3: "MBARRIER_STRIDE_X1"}
)


def _i32(inst: object, attribute: attrs.Attribute[Any], value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{type(inst).__name__}.{attribute.name} must be an int, got {value!r}")
    if not -(1 << 31) <= value < 1 << 31:
        raise ValueError(f"{type(inst).__name__}.{attribute.name} must be an i32, got {value!r}")


@attrs.frozen
class MbarrierEntry:
    """One 16-byte MBARRIER_INSTR_OFFSETS entry.

    ``u32 offset | u32 base register (255 = RZ) | i32 immediate | u8 kind | u8 aux | u8 uniform
    base register (255 = URZ; ptxas writes 63 on sm_80-89) | u8 pad``. Byte 12 packs the kind
    (bits 0-3, :data:`MBARRIER_KINDS`) and the stride (bits 4-5, :data:`MBARRIER_STRIDES`; 0 = X4);
    cuobjdump ignores its bits 6-7 (``kind_high``). cuobjdump does not print byte 13 (``aux``),
    which ptxas sets to 1. cuobjdump renders an entry as
    ``offset : Instruction Kind : KIND (R<base> + UR<ubase> + <imm>) Stride : STRIDE``.
    """

    offset: int = attrs.field(validator=_u(32))
    base_reg: int = attrs.field(validator=_u(32))
    imm_offset: int = attrs.field(validator=_i32)
    kind: int = attrs.field(validator=_u(4))
    base_ureg: int = attrs.field(validator=_u(8))
    stride: int = attrs.field(default=0, validator=_u(2))
    aux: int = attrs.field(default=1, validator=_u(8))
    kind_high: int = attrs.field(default=0, validator=_u(2))
    pad: int = attrs.field(default=0, validator=_u(8))


@attrs.frozen
class MbarrierInstrOffsets:
    """MBARRIER_INSTR_OFFSETS: the SASS instructions that touch mbarrier objects."""

    entries: tuple[MbarrierEntry, ...] = attrs.field(converter=_mbar_entries)
    attr: ClassVar[EIAttr] = EIAttr.MBARRIER_INSTR_OFFSETS
    fmt: ClassVar[EIFormat] = EIFormat.SVAL
    raw: ClassVar[bool] = False


@attrs.frozen
class RegMapEntry:
    """One ATOM16_EMUL_INSTR_REG_MAP pair: .text offset of the emulating CAS and a register number."""

    offset: int = attrs.field(validator=_u(32))
    reg: int = attrs.field(validator=_u(32))


@attrs.frozen
class Atom16EmulRegMap:
    """ATOM16_EMUL_INSTR_REG_MAP: 16-bit atomics that ptxas emulates with 32-bit CAS loops."""

    entries: tuple[RegMapEntry, ...] = attrs.field(converter=_regmap_entries)
    attr: ClassVar[EIAttr] = EIAttr.ATOM16_EMUL_INSTR_REG_MAP
    fmt: ClassVar[EIFormat] = EIFormat.SVAL
    raw: ClassVar[bool] = False


@attrs.frozen
class IndirectBranch:
    """One INDIRECT_BRANCH_TARGETS entry: ``u32 branch offset | u32 reserved (0) | u32 n | n x u32 target``."""

    offset: int = attrs.field(validator=_u(32))
    targets: tuple[int, ...] = attrs.field(converter=_ints, validator=_u32_tuple)
    reserved: int = attrs.field(default=0, validator=_u(32))


@attrs.frozen
class IndirectBranchTargets:
    """INDIRECT_BRANCH_TARGETS: every ``brx.idx`` (BRX) of a function and its possible targets."""

    branches: tuple[IndirectBranch, ...] = attrs.field(converter=_branches)
    attr: ClassVar[EIAttr] = EIAttr.INDIRECT_BRANCH_TARGETS
    fmt: ClassVar[EIFormat] = EIFormat.SVAL
    raw: ClassVar[bool] = False


#: ANNOTATIONS sub-record types, as cuobjdump names them.
ANNOTATION_SPILL_REFILL = 1
ANNOTATION_INSTRUCTION_INFO = 2
ANNOTATION_FUNCTION_INFO = 3
ANNOTATION_TYPES = types.MappingProxyType({1: "SpillRefill", 2: "InstructionInfo", 3: "FunctionInfo"})


def _text(inst: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if not isinstance(value, str) or "\0" in value:
        raise ValueError(f"{attribute.name} must be a str without NUL, not {value!r}")
    try:
        value.encode("utf-8")  # the record holds the UTF-8 bytes
    except UnicodeEncodeError:
        raise ValueError(f"{attribute.name} must be text UTF-8 can hold (no lone surrogates), not {value!r}") from None


@attrs.frozen
class AnnotationNote:
    """An InstructionInfo sub-record ``{u32 2, u32 .text offset, u32 length, text NUL, zeros to 4}``:
    a compiler remark on one instruction (-annotate: ``0x80000010 - Not unrolled: ...``)."""

    offset: int = attrs.field(validator=_u(32))
    text: str = attrs.field(validator=_text)


def _notes(v: Iterable[AnnotationNote]) -> tuple[AnnotationNote, ...]:
    return tuple(v)


@attrs.frozen
class Annotations:
    """ANNOTATIONS: SpillRefill sub-records ``{u32 1, u32 .text offset}``, one per spill/refill
    instruction, and InstructionInfo notes, merged by .text offset (the note first at a
    tie); then, under -annotate, one FunctionInfo ``{u32 3, u32 length, text NUL, zeros to 4}``
    (``instr/R-regs: N instructions, R R-regs``). A record in another order decodes raw."""

    spill_refill_offsets: tuple[int, ...] = attrs.field(converter=_ints, validator=_u32_tuple)
    notes: tuple[AnnotationNote, ...] = attrs.field(default=(), converter=_notes)
    function_info: str | None = attrs.field(default=None, validator=attrs.validators.optional(_text))
    attr: ClassVar[EIAttr] = EIAttr.ANNOTATIONS
    fmt: ClassVar[EIFormat] = EIFormat.SVAL
    raw: ClassVar[bool] = False


#: the FunctionInfo text ptxas -annotate writes: instructions, then the register count
_FUNCTION_INFO = re.compile(r"instr/R-regs: (\d+) instructions, (\d+) R-regs")


def function_info_text(instructions: int, registers: int) -> str:
    """ANNOTATIONS FunctionInfo for ``instructions`` and ``registers`` (ptxas -annotate)."""
    return f"instr/R-regs: {instructions} instructions, {registers} R-regs"


def parse_function_info(text: str) -> tuple[int, int] | None:
    """(instructions, registers) of a FunctionInfo :func:`function_info_text` writes; None
    for text in any other form."""
    m = _FUNCTION_INFO.fullmatch(text)
    return None if m is None else (int(m[1]), int(m[2]))


#: SAMPLER_INIT address modes and filters (PTX spelling); 0xff = not given in the initialiser.
SAMPLER_ADDR_MODES = types.MappingProxyType(
    {0: "wrap", 1: "mirror", 3: "clamp_to_edge", 4: "clamp_to_border", 0xFF: None}
)
SAMPLER_FILTERS = types.MappingProxyType({0: "nearest", 1: "linear", 0xFF: None})
SAMPLER_UNSET = 0xFF


@attrs.frozen
class SamplerInit:
    """SAMPLER_INIT: ``{u32 samplerref symbol, u32 packed}`` for an initialised module ``.samplerref``.

    Packed bytes 0/1/2 are addr_mode_0/1/2 and byte 3 the filter mode, 0xff when the PTX
    initialiser leaves them out (an empty initialiser gives 0xffffffff).
    """

    symbol: str = attrs.field(validator=attrs.validators.instance_of(str))
    addr_mode_0: int = attrs.field(default=SAMPLER_UNSET, validator=_u(8))
    addr_mode_1: int = attrs.field(default=SAMPLER_UNSET, validator=_u(8))
    addr_mode_2: int = attrs.field(default=SAMPLER_UNSET, validator=_u(8))
    filter_mode: int = attrs.field(default=SAMPLER_UNSET, validator=_u(8))
    attr: ClassVar[EIAttr] = EIAttr.SAMPLER_INIT
    fmt: ClassVar[EIFormat] = EIFormat.SVAL
    raw: ClassVar[bool] = False


NvInfoRecord = (
    Flag
    | ByteValue
    | HalfValue
    | RawRecord
    | U32Value
    | InstrOffsets
    | U32List
    | SymbolValue
    | SymbolList
    | Dim3
    | ParamCbank
    | KParamInfo
    | KParamInfoV2
    | MbarrierInstrOffsets
    | Atom16EmulRegMap
    | IndirectBranchTargets
    | Annotations
    | SamplerInit
)


def _unchecked_maker(cls: type[_R]) -> Callable[..., _R]:
    names = tuple(a.name for a in attrs.fields(cls))
    new, setattr_ = object.__new__, object.__setattr__

    def make(*values: Any) -> _R:
        inst = new(cls)
        for name, value in zip(names, values):
            setattr_(inst, name, value)
        return inst

    make.__name__ = f"unchecked_{cls.__name__}"
    return make


#: Constructors of the records the codec decodes most, taking every field in order and running
#: neither converters nor validators: for values that hold by construction (u32/u16/u8 out of
#: struct.unpack, an EIAttr the decoder dispatched on, tuples, a symbol name checked as a str).
#: Validating 14,000 such records was a tenth of decomposing a 1,000-kernel module.
UNCHECKED: types.MappingProxyType[type, Callable[..., Any]] = types.MappingProxyType(
    {
        cls: _unchecked_maker(cls)
        for cls in (Flag, ByteValue, HalfValue, U32Value, InstrOffsets, U32List, SymbolValue, Dim3, ParamCbank, KParamInfo, KParamInfoV2)
    }
)

# ---------------------------------------------------------------------------------------------
# .nv.compat


def _to_compat(value: int) -> EICompatAttr:
    return EICompatAttr(value)


def _compat_fmt_ok(attr: EICompatAttr, fmt: EIFormat) -> None:
    expected = COMPAT_SPECS[attr].fmt
    if expected is not None and expected is not fmt:
        raise ValueError(f"{attr.cuobjdump_name} is written as {expected.cuobjdump_name}, not {fmt.cuobjdump_name}")


@attrs.frozen
class CompatValue:
    """A ``.nv.compat`` BVAL/HVAL record (ISA_CLASS, CUDA_ACCELERATOR_TARGET, MERCURY_ISA_MAJOR_MINOR...)."""

    attr: EICompatAttr = attrs.field(converter=_to_compat)
    fmt: EIFormat = attrs.field(converter=EIFormat)
    value: int = attrs.field(validator=_u(16))
    raw: ClassVar[bool] = False

    def __attrs_post_init__(self) -> None:
        if self.fmt not in (EIFormat.BVAL, EIFormat.HVAL):
            raise ValueError(f"CompatValue holds BVAL or HVAL, not {self.fmt.cuobjdump_name}")
        if self.fmt is EIFormat.BVAL and self.value > 0xFF:
            raise ValueError(f"BVAL value {self.value:#x} does not fit a byte")
        _compat_fmt_ok(self.attr, self.fmt)


@attrs.frozen
class CompatFlag:
    """A ``.nv.compat`` NVAL record."""

    attr: EICompatAttr = attrs.field(converter=_to_compat)
    fmt: ClassVar[EIFormat] = EIFormat.NVAL
    raw: ClassVar[bool] = False

    def __attrs_post_init__(self) -> None:
        _compat_fmt_ok(self.attr, self.fmt)


@attrs.frozen
class CompatWords:
    """A ``.nv.compat`` SVAL record of u32 words (CAN_FASTPATH_FINALIZE: ``{u32 mask, u32 0}``)."""

    attr: EICompatAttr = attrs.field(converter=_to_compat)
    values: tuple[int, ...] = attrs.field(converter=_ints, validator=_u32_tuple)
    fmt: ClassVar[EIFormat] = EIFormat.SVAL
    raw: ClassVar[bool] = False

    def __attrs_post_init__(self) -> None:
        _compat_fmt_ok(self.attr, self.fmt)


@attrs.frozen
class RawCompatRecord:
    """A ``.nv.compat`` record kept as bytes (unknown code, or a payload that is not u32 words)."""

    fmt: int = attrs.field(validator=_u(8))
    code: int = attrs.field(validator=_u(8))
    payload: bytes = attrs.field(converter=bytes)
    raw: ClassVar[bool] = True

    @property
    def attr(self) -> EICompatAttr | int:
        try:
            return EICompatAttr(self.code)
        except ValueError:
            return self.code


CompatRecord = CompatValue | CompatFlag | CompatWords | RawCompatRecord
