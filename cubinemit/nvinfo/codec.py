"""Decode and encode ``.nv.info``, ``.nv.info.<f>`` and ``.nv.compat`` sections.

A section is nothing but back-to-back records ``[fmt:u8][code:u8]`` + 2 bytes (NVAL/BVAL/HVAL)
or ``[fmt][code][u16 size]`` + size bytes (SVAL). ptxas never pads between records (its SVAL
sizes are multiples of 4), so decode -> encode reproduces a section byte for byte.

Structural damage (a format byte outside 1..4, a truncated header, an SVAL size that runs past
the end, a symbol index the caller's ``symbol_name`` rejects) raises
:class:`~cubinemit.errors.CubinFormatError` with ``offset`` = the offset *within the section*
and ``where`` = the section name. Anything merely unfamiliar is kept as a raw record.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from ..errors import CubinemitError, ModelError, SectionFormatError
from .catalogue import (
    COMPAT_SPECS,
    EIATTR_SPECS,
    EIAttr,
    EICompatAttr,
    EIFormat,
    attr_name,
    compat_attr_name,
)
from .records import (
    ANNOTATION_FUNCTION_INFO,
    ANNOTATION_INSTRUCTION_INFO,
    ANNOTATION_SPILL_REFILL,
    AnnotationNote,
    DIM3_ATTRS,
    OFFSET_ATTRS,
    SYMBOL_LIST_ATTRS,
    SYMBOL_VALUE_ATTRS,
    U32_ATTRS,
    WORDS_ATTRS,
    Annotations,
    Atom16EmulRegMap,
    ByteValue,
    CompatFlag,
    CompatRecord,
    CompatValue,
    CompatWords,
    Dim3,
    Flag,
    HalfValue,
    IndirectBranch,
    IndirectBranchTargets,
    InstrOffsets,
    KParamInfo,
    KParamInfoV2,
    MbarrierEntry,
    MbarrierInstrOffsets,
    NvInfoRecord,
    ParamCbank,
    RawCompatRecord,
    RawRecord,
    RegMapEntry,
    SamplerInit,
    SymbolList,
    SymbolValue,
    U32List,
    U32Value,
    UNCHECKED,
)

SymbolName = Callable[[int], str]
SymbolIndex = Callable[[str], int]

#: Exceptions a symbol callback may raise to reject an index or a name.
_CALLBACK_ERRORS = (LookupError, ValueError, TypeError, CubinemitError)


class WireRecord(NamedTuple):
    """One record as it sits in the section: where it starts, its two header bytes, its body.

    ``body`` is the SVAL payload, or bytes 2-3 of a 4-byte record.
    """

    offset: int
    fmt: int
    code: int
    body: bytes


#: the format bytes as plain ints (iter_wire_records compares every record's against them)
_SVAL_BYTE = int(EIFormat.SVAL)
_FIXED_BYTES = frozenset(int(f) for f in (EIFormat.NVAL, EIFormat.BVAL, EIFormat.HVAL))
#: WireRecord from a (offset, fmt, code, body) tuple, without the Python-level __new__ a
#: NamedTuple call goes through (one per record of every section split)
_wire_record = functools.partial(tuple.__new__, WireRecord)


def iter_wire_records(data: bytes, *, section: str, name: Callable[[int], str] = attr_name) -> Iterator[WireRecord]:
    """Split a section into records, checking only the framing."""
    if not isinstance(data, bytes):
        data = bytes(data)  # slices of bytes are bytes: the bodies need no copy
    pos, end = 0, len(data)
    sval, fixed, make = _SVAL_BYTE, _FIXED_BYTES, _wire_record  # (locals: this runs per record)
    while pos < end:
        if end - pos < 4:
            raise SectionFormatError(
                f"truncated record header: {end - pos} byte(s) left, a record needs 4", offset=pos, where=section
            )
        fmt = data[pos]
        if fmt == sval:
            nxt = pos + 4 + (data[pos + 2] | data[pos + 3] << 8)
            if nxt > end:
                size = nxt - pos - 4
                raise SectionFormatError(
                    f"{name(data[pos + 1])}: EIFMT_SVAL size {size:#x} overruns the section ({end - pos - 4} byte(s) left)",
                    offset=pos,
                    where=section,
                )
            yield make((pos, fmt, data[pos + 1], data[pos + 4 : nxt]))
            pos = nxt
        elif fmt in fixed:
            yield make((pos, fmt, data[pos + 1], data[pos + 2 : pos + 4]))
            pos += 4
        else:
            raise SectionFormatError(f"{name(data[pos + 1])}: bad format byte {fmt:#04x}", offset=pos, where=section)


# ---------------------------------------------------------------------------------------------
# .nv.info decoding


class _Ctx(NamedTuple):
    section: str
    symbol_name: SymbolName


#: unpackers of 0..8 u32 words (most payloads: no format string to build per record)
_WORD_STRUCTS = tuple(struct.Struct(f"<{n}I") for n in range(9))


def _words(body: bytes) -> tuple[int, ...] | None:
    n, rest = divmod(len(body), 4)
    if rest:
        return None
    return _WORD_STRUCTS[n].unpack(body) if n < 9 else struct.unpack(f"<{n}I", body)


def _sym(ctx: _Ctx, attr: EIAttr, index: int, offset: int) -> str:
    try:
        name = ctx.symbol_name(index)
    except _CALLBACK_ERRORS as exc:
        raise SectionFormatError(
            f"{attr.cuobjdump_name}: symbol index {index} rejected ({exc})", offset=offset, where=ctx.section
        ) from None
    if not isinstance(name, str):
        raise SectionFormatError(
            f"{attr.cuobjdump_name}: symbol_name({index}) returned {name!r}, not a string",
            offset=offset,
            where=ctx.section,
        )
    return name


def _decode_indirect(body: bytes) -> IndirectBranchTargets | None:
    words = _words(body)
    if words is None:
        return None
    branches: list[IndirectBranch] = []
    i = 0
    while i < len(words):
        if i + 3 > len(words):
            return None
        offset, reserved, count = words[i : i + 3]
        if i + 3 + count > len(words):
            return None
        branches.append(IndirectBranch(offset, words[i + 3 : i + 3 + count], reserved))
        i += 3 + count
    return IndirectBranchTargets(branches)


def _mbarrier_entry(body: bytes, pos: int) -> MbarrierEntry:
    offset, base_reg, imm, kind, aux, ureg, pad = struct.unpack_from("<IIiBBBB", body, pos)
    return MbarrierEntry(offset, base_reg, imm, kind & 0xF, ureg, (kind >> 4) & 3, aux, kind >> 6, pad)


#: the layout groups as sets: every SVAL record is tested against them (a tuple of IntEnum
#: members is scanned with Python-level comparisons)
_U32_SET, _OFFSET_SET, _WORDS_SET = frozenset(U32_ATTRS), frozenset(OFFSET_ATTRS), frozenset(WORDS_ATTRS)
_SYMBOL_VALUE_SET, _SYMBOL_LIST_SET = frozenset(SYMBOL_VALUE_ATTRS), frozenset(SYMBOL_LIST_ATTRS)
_DIM3_SET = frozenset(DIM3_ATTRS)


_U32_VALUE, _INSTR_OFFSETS, _U32_LIST = UNCHECKED[U32Value], UNCHECKED[InstrOffsets], UNCHECKED[U32List]
_SYMBOL_VALUE, _DIM3, _PARAM_CBANK = UNCHECKED[SymbolValue], UNCHECKED[Dim3], UNCHECKED[ParamCbank]
_KPARAM_INFO, _KPARAM_INFO_V2 = UNCHECKED[KParamInfo], UNCHECKED[KParamInfoV2]


def _decode_sval(attr: EIAttr, body: bytes, at: int, ctx: _Ctx) -> NvInfoRecord | None:
    """Type an SVAL payload; None when the layout does not fit (the caller keeps it raw)."""
    size = len(body)
    words = _words(body)
    # (the common layouts through the unchecked constructors: struct.unpack gives their values
    # in range, and attr is one of the codes each layout is for)
    if attr in _U32_SET:
        return _U32_VALUE(attr, words[0]) if size == 4 and words else None
    if attr in _OFFSET_SET:
        return _INSTR_OFFSETS(attr, words) if words is not None else None
    if attr in _WORDS_SET:
        return _U32_LIST(attr, words) if words is not None else None
    if attr in _SYMBOL_VALUE_SET:
        if size != 8 or words is None:
            return None
        return _SYMBOL_VALUE(attr, _sym(ctx, attr, words[0], at), words[1])
    if attr in _SYMBOL_LIST_SET:
        if words is None:
            return None
        return SymbolList(attr, tuple(_sym(ctx, attr, w, at + 4 * i) for i, w in enumerate(words)))
    if attr in _DIM3_SET:
        return _DIM3(attr, *words) if size == 12 and words else None
    if attr is EIAttr.PARAM_CBANK:
        if size != 8:
            return None
        index, base, psize = struct.unpack("<IHH", body)
        return _PARAM_CBANK(_sym(ctx, attr, index, at), base, psize)
    if attr is EIAttr.SAMPLER_INIT:
        if size != 8:
            return None
        index, m0, m1, m2, flt = struct.unpack("<IBBBB", body)
        return SamplerInit(_sym(ctx, attr, index, at), m0, m1, m2, flt)
    if attr is EIAttr.KPARAM_INFO:
        if size != 12:
            return None
        index, ordinal, offset, w = struct.unpack("<IHHI", body)
        # index, ordinal, offset, size, log_alignment, space, cbank, param_space
        return _KPARAM_INFO(index, ordinal, offset, w >> 18, w & 0xFF, (w >> 8) & 0xF, (w >> 12) & 0x1F, (w >> 17) & 1)
    if attr is EIAttr.KPARAM_INFO_V2:
        if size != 12:
            return None
        index, ordinal, offset, psize, log_align, space = struct.unpack("<IHHHBB", body)
        return _KPARAM_INFO_V2(index, ordinal, offset, psize, log_align, space)
    if attr is EIAttr.MBARRIER_INSTR_OFFSETS:
        if size % 16:
            return None
        return MbarrierInstrOffsets(_mbarrier_entry(body, i) for i in range(0, size, 16))
    if attr is EIAttr.ATOM16_EMUL_INSTR_REG_MAP:
        if size % 8 or words is None:
            return None
        return Atom16EmulRegMap(RegMapEntry(words[i], words[i + 1]) for i in range(0, len(words), 2))
    if attr is EIAttr.INDIRECT_BRANCH_TARGETS:
        return _decode_indirect(body)
    if attr is EIAttr.ANNOTATIONS:
        return _decode_annotations(body)
    return None


class AnnotationPart(NamedTuple):
    """One ANNOTATIONS sub-record: its type, its .text offset and that word's byte position in
    the body (SpillRefill, InstructionInfo; None for FunctionInfo), and its text (None for
    SpillRefill)."""

    kind: int
    offset: int | None
    offset_at: int | None
    text: str | None


def annotation_parts(body: bytes) -> list[AnnotationPart] | None:
    """The sub-records of an ANNOTATIONS body, in order: SpillRefill ``{u32 1, u32 offset}``,
    InstructionInfo ``{u32 2, u32 offset, u32 length, text NUL}``, FunctionInfo ``{u32 3,
    u32 length, text NUL}``, each text padded to 4; None where one is unknown or malformed.
    The one reading of the layout (the decoder, and the Mercury clone's offset mapping)."""
    parts: list[AnnotationPart] = []
    pos = 0
    try:
        while pos < len(body):
            (kind,) = struct.unpack_from("<I", body, pos)
            if kind == ANNOTATION_SPILL_REFILL:
                (offset,) = struct.unpack_from("<I", body, pos + 4)
                parts.append(AnnotationPart(kind, offset, pos + 4, None))
                pos += 8
                continue
            offset_at: int | None
            if kind == ANNOTATION_INSTRUCTION_INFO:
                offset, length = struct.unpack_from("<II", body, pos + 4)
                offset_at = pos + 4
                pos += 12
            elif kind == ANNOTATION_FUNCTION_INFO:
                (length,) = struct.unpack_from("<I", body, pos + 4)
                offset, offset_at = None, None
                pos += 8
            else:
                return None
            raw = body[pos : pos + length]
            if length == 0 or len(raw) != length or raw[-1] != 0:
                return None
            parts.append(AnnotationPart(kind, offset, offset_at, raw[:-1].decode("utf-8")))
            pos += (length + 3) & ~3
    except (struct.error, UnicodeDecodeError):
        return None
    return parts


def _decode_annotations(body: bytes) -> Annotations | None:
    """The typed ANNOTATIONS record; None (raw) where a sub-record is unknown or malformed,
    or where they do not stand in the order the encoder writes."""
    parts = annotation_parts(body)
    if parts is None or any(p.kind == ANNOTATION_FUNCTION_INFO for p in parts[:-1]):
        return None  # FunctionInfo closes the record

    try:
        record = Annotations(
            [p.offset for p in parts if p.kind == ANNOTATION_SPILL_REFILL],
            [AnnotationNote(p.offset, p.text) for p in parts if p.kind == ANNOTATION_INSTRUCTION_INFO],
            next((p.text for p in parts if p.kind == ANNOTATION_FUNCTION_INFO), None),
        )
    except ValueError:
        return None
    return record if _annotations_payload(record) == body else None


def _annotations_payload(record: Annotations) -> bytes:
    def text(t: str) -> bytes:
        b = t.encode("utf-8") + b"\0"
        return struct.pack("<I", len(b)) + b + bytes(-len(b) % 4)

    # SpillRefill and InstructionInfo merged by offset, a remark first at a tie, each list in
    # its own order (ptxas -annotate on llm.c layernorm_backward: a remark and a spill at 0x4d0
    # and at 0x23f0; tests/probes_flags annotate_notes)
    spills, notes, parts = list(record.spill_refill_offsets), list(record.notes), []
    while spills or notes:
        if spills and (not notes or spills[0] < notes[0].offset):
            parts.append(struct.pack("<II", ANNOTATION_SPILL_REFILL, spills.pop(0)))
        else:
            n = notes.pop(0)
            parts.append(struct.pack("<II", ANNOTATION_INSTRUCTION_INFO, n.offset) + text(n.text))
    out = b"".join(parts)
    if record.function_info is not None:
        out += struct.pack("<I", ANNOTATION_FUNCTION_INFO) + text(record.function_info)
    return out


_FLAG, _BYTE_VALUE, _HALF_VALUE = UNCHECKED[Flag], UNCHECKED[ByteValue], UNCHECKED[HalfValue]

#: code -> EIAttr, a dict lookup instead of the enum's (decode_record runs per record)
_ATTR_OF_CODE: dict[int, EIAttr] = {a.value: a for a in EIAttr}


#: each code's expected format byte (None: any), as plain ints
_FMT_OF_ATTR: dict[EIAttr, int | None] = {
    a: None if spec.fmt is None else int(spec.fmt) for a, spec in EIATTR_SPECS.items() if isinstance(a, EIAttr)
}
_NVAL_BYTE, _BVAL_BYTE, _HVAL_BYTE = int(EIFormat.NVAL), int(EIFormat.BVAL), int(EIFormat.HVAL)


def decode_record(wire: WireRecord, *, section: str, symbol_name: SymbolName) -> NvInfoRecord:
    """Type one framed record (see :func:`iter_wire_records`)."""
    return _decode_record(wire, _Ctx(section, symbol_name))


def _decode_record(wire: WireRecord, ctx: _Ctx) -> NvInfoRecord:
    offset, fmt, code, body = wire
    attr = _ATTR_OF_CODE.get(code)
    if attr is None:
        return RawRecord(fmt, code, body)
    expected = _FMT_OF_ATTR[attr]
    if expected is not None and expected != fmt:
        return RawRecord(fmt, code, body)
    typed: NvInfoRecord | None
    if fmt == _NVAL_BYTE:
        typed = _FLAG(attr) if body == b"\0\0" else None
    elif fmt == _BVAL_BYTE:
        typed = _BYTE_VALUE(attr, body[0]) if body[1] == 0 else None
    elif fmt == _HVAL_BYTE:
        typed = _HALF_VALUE(attr, int.from_bytes(body, "little"))
    else:
        typed = _decode_sval(attr, body, offset + 4, ctx)
    return typed if typed is not None else RawRecord(fmt, code, body)


def decode_nvinfo(data: bytes, *, section: str, symbol_name: SymbolName) -> list[NvInfoRecord]:
    """Decode a ``.nv.info`` or ``.nv.info.<f>`` section into typed records (raw where unknown).

    ``symbol_name`` maps a ``.symtab`` index to its name; it rejects an index by raising
    LookupError/ValueError (or a cubinemit error), which becomes a CubinFormatError.
    """
    ctx = _Ctx(section, symbol_name)
    return [_decode_record(w, ctx) for w in iter_wire_records(data, section=section)]


# ---------------------------------------------------------------------------------------------
# .nv.info encoding


def _idx(symbol_index: SymbolIndex, name: str, attr: EIAttr) -> int:
    try:
        index = symbol_index(name)
    except _CALLBACK_ERRORS as exc:
        raise ModelError(f"{attr.cuobjdump_name}: unknown symbol {name!r} ({exc})") from None
    if not isinstance(index, int) or not 0 <= index < 1 << 32:
        raise ModelError(f"{attr.cuobjdump_name}: symbol_index({name!r}) returned {index!r}")
    return index


def _pack_words(values: Iterable[int]) -> bytes:
    vals = tuple(values)
    return struct.pack(f"<{len(vals)}I", *vals)


def _sval_payload(record: NvInfoRecord, symbol_index: SymbolIndex) -> bytes:
    if isinstance(record, U32Value):
        return struct.pack("<I", record.value)
    if isinstance(record, InstrOffsets):
        return _pack_words(record.offsets)
    if isinstance(record, U32List):
        return _pack_words(record.values)
    if isinstance(record, SymbolValue):
        return struct.pack("<II", _idx(symbol_index, record.symbol, record.attr), record.value)
    if isinstance(record, SymbolList):
        return _pack_words(_idx(symbol_index, s, record.attr) for s in record.symbols)
    if isinstance(record, Dim3):
        return struct.pack("<III", record.x, record.y, record.z)
    if isinstance(record, ParamCbank):
        return struct.pack("<IHH", _idx(symbol_index, record.symbol, record.attr), record.base, record.size)
    if isinstance(record, SamplerInit):
        return struct.pack(
            "<IBBBB",
            _idx(symbol_index, record.symbol, record.attr),
            record.addr_mode_0,
            record.addr_mode_1,
            record.addr_mode_2,
            record.filter_mode,
        )
    if isinstance(record, KParamInfo):
        w = record.log_alignment | record.space << 8 | record.cbank << 12 | record.param_space << 17 | record.size << 18
        return struct.pack("<IHHI", record.index, record.ordinal, record.offset, w)
    if isinstance(record, KParamInfoV2):
        return struct.pack(
            "<IHHHBB",
            record.index,
            record.ordinal,
            record.offset,
            record.size,
            record.log_alignment,
            record.space,
        )
    if isinstance(record, MbarrierInstrOffsets):
        return b"".join(
            struct.pack(
                "<IIiBBBB",
                e.offset,
                e.base_reg,
                e.imm_offset,
                e.kind | e.stride << 4 | e.kind_high << 6,
                e.aux,
                e.base_ureg,
                e.pad,
            )
            for e in record.entries
        )
    if isinstance(record, Atom16EmulRegMap):
        return b"".join(struct.pack("<II", e.offset, e.reg) for e in record.entries)
    if isinstance(record, IndirectBranchTargets):
        return b"".join(
            struct.pack("<III", b.offset, b.reserved, len(b.targets)) + _pack_words(b.targets) for b in record.branches
        )
    if isinstance(record, Annotations):
        return _annotations_payload(record)
    raise ModelError(f"not an .nv.info record: {record!r}")


def _frame(fmt: int, code: int, body: bytes, what: Callable[[], str]) -> bytes:
    """The record's wire bytes; ``what`` names it in an error (called only then: naming every
    record formatted a string per record)."""
    if fmt == EIFormat.SVAL:
        if len(body) > 0xFFFF:
            raise ModelError(f"{what()}: payload of {len(body)} bytes does not fit EIFMT_SVAL's u16 size")
        return struct.pack("<BBH", fmt, code, len(body)) + body
    if fmt in (EIFormat.NVAL, EIFormat.BVAL, EIFormat.HVAL):
        if len(body) != 2:
            raise ModelError(f"{what()}: a {EIFormat(fmt).cuobjdump_name} record carries 2 bytes, got {len(body)}")
        return bytes((fmt, code)) + body
    raise ModelError(f"{what()}: format byte {fmt:#x} is not EIFMT_NVAL/BVAL/HVAL/SVAL")


_HVAL_HEADER = struct.Struct("<BBH")
_U32_SVAL = struct.Struct("<BBHI")
_SYMBOL_VALUE_SVAL = struct.Struct("<BBHII")
_KPARAM_SVAL = struct.Struct("<BBHIHHI")


def _encode_common(record: NvInfoRecord, symbol_index: SymbolIndex) -> bytes | None:
    """The wire bytes of a record of the layouts most sections are made of, in one pack
    (what :func:`encode_record` gives them); None for any other record."""
    kind = type(record)
    if kind is HalfValue:
        return _HVAL_HEADER.pack(EIFormat.HVAL, record.attr, record.value)  # type: ignore[union-attr]
    if kind is Flag:
        return bytes((EIFormat.NVAL, record.attr, 0, 0))  # type: ignore[union-attr]
    if kind is U32Value:
        return _U32_SVAL.pack(EIFormat.SVAL, record.attr, 4, record.value)  # type: ignore[union-attr]
    if kind is SymbolValue:
        index = _idx(symbol_index, record.symbol, record.attr)  # type: ignore[union-attr]
        return _SYMBOL_VALUE_SVAL.pack(EIFormat.SVAL, record.attr, 8, index, record.value)  # type: ignore[union-attr]
    if kind is KParamInfo:
        r: KParamInfo = record  # type: ignore[assignment]
        w = r.log_alignment | r.space << 8 | r.cbank << 12 | r.param_space << 17 | r.size << 18
        return _KPARAM_SVAL.pack(EIFormat.SVAL, EIAttr.KPARAM_INFO, 12, r.index, r.ordinal, r.offset, w)
    return None


def encode_record(record: NvInfoRecord, *, symbol_index: SymbolIndex) -> bytes:
    """The wire bytes of one record."""
    common = _encode_common(record, symbol_index)
    if common is not None:
        return common
    if isinstance(record, RawRecord):
        return _frame(record.fmt, record.code, record.payload, lambda: f"raw record {attr_name(record.code)}")
    if isinstance(record, Flag):
        return bytes((EIFormat.NVAL, record.attr, 0, 0))
    if isinstance(record, ByteValue):
        return bytes((EIFormat.BVAL, record.attr, record.value, 0))
    if isinstance(record, HalfValue):
        return struct.pack("<BBH", EIFormat.HVAL, record.attr, record.value)
    return _frame(EIFormat.SVAL, record.attr, _sval_payload(record, symbol_index), lambda: record.attr.cuobjdump_name)


def encode_nvinfo(records: Iterable[NvInfoRecord], *, symbol_index: SymbolIndex) -> bytes:
    """Encode records into section bytes; ``symbol_index`` maps a symbol name to its ``.symtab`` index.

    Raises ModelError for a name ``symbol_index`` rejects or a payload too large for its format.
    """
    return b"".join([_encode_common(r, symbol_index) or encode_record(r, symbol_index=symbol_index) for r in records])


# ---------------------------------------------------------------------------------------------
# .nv.compat


def decode_compat(data: bytes, *, section: str = ".nv.compat") -> list[CompatRecord]:
    """Decode a ``.nv.compat`` section (same framing as ``.nv.info``, codes EICOMPAT_ATTR_*)."""
    out: list[CompatRecord] = []
    for w in iter_wire_records(data, section=section, name=compat_attr_name):
        out.append(_decode_compat_record(w))
    return out


def _decode_compat_record(w: WireRecord) -> CompatRecord:
    raw = RawCompatRecord(w.fmt, w.code, w.body)
    if w.code not in COMPAT_SPECS:
        return raw
    attr = EICompatAttr(w.code)
    expected = COMPAT_SPECS[w.code].fmt
    if expected is not None and expected != w.fmt:
        return raw
    if w.fmt == EIFormat.NVAL:
        return CompatFlag(attr) if w.body == b"\0\0" else raw
    if w.fmt == EIFormat.BVAL:
        return CompatValue(attr, EIFormat.BVAL, w.body[0]) if w.body[1] == 0 else raw
    if w.fmt == EIFormat.HVAL:
        return CompatValue(attr, EIFormat.HVAL, int.from_bytes(w.body, "little"))
    words = _words(w.body)
    return CompatWords(attr, words) if words is not None else raw


def encode_compat_record(record: CompatRecord) -> bytes:
    """The wire bytes of one ``.nv.compat`` record."""
    if isinstance(record, RawCompatRecord):
        return _frame(record.fmt, record.code, record.payload, lambda: f"raw record {compat_attr_name(record.code)}")
    if isinstance(record, CompatFlag):
        return bytes((EIFormat.NVAL, record.attr, 0, 0))
    if isinstance(record, CompatValue):
        if record.fmt is EIFormat.BVAL:
            return bytes((EIFormat.BVAL, record.attr, record.value, 0))
        return struct.pack("<BBH", EIFormat.HVAL, record.attr, record.value)
    if isinstance(record, CompatWords):
        return _frame(EIFormat.SVAL, record.attr, _pack_words(record.values), lambda: record.attr.cuobjdump_name)
    raise ModelError(f"not a .nv.compat record: {record!r}")


def encode_compat(records: Iterable[CompatRecord]) -> bytes:
    """Encode ``.nv.compat`` records into section bytes."""
    return b"".join(encode_compat_record(r) for r in records)
