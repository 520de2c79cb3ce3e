"""JSON and one-line text forms of metadata records, for dumps and golden files.

JSON: ``{"attr": <cuobjdump name>, "code": n, "format": "EIFMT_...", <fields>}`` with symbols by
name, nested entries as objects and raw payloads as hex (plus ``"raw": true``).
:func:`record_from_json` inverts :func:`record_to_json` exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..errors import ModelError
from .catalogue import EIAttr, EICompatAttr, EIFormat, attr_name, compat_attr_name, format_name
from .records import (
    AT_ENTRY_FRAGMENTS,
    DIM3_ATTRS,
    MBARRIER_KINDS,
    MBARRIER_STRIDES,
    OFFSET_ATTRS,
    SAMPLER_ADDR_MODES,
    SAMPLER_FILTERS,
    SPARSE_MMA_BITS,
    SYMBOL_LIST_ATTRS,
    SYMBOL_VALUE_ATTRS,
    U32_ATTRS,
    WORDS_ATTRS,
    AnnotationNote,
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
)

_SKIP = frozenset({"attr", "fmt"})


def _plain(value: Any) -> Any:
    if attrs.has(type(value)):
        return {f.name: _plain(getattr(value, f.name)) for f in attrs.fields(type(value)) if f.name not in _SKIP}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, EIFormat):
        return value.cuobjdump_name
    return value


def _to_json(record: Any, raw_type: type, name_of: Any) -> dict[str, Any]:
    """The JSON form shared by .nv.info and .nv.compat records (``name_of`` names a raw code)."""
    if isinstance(record, raw_type):
        return {
            "attr": name_of(record.code),
            "code": record.code,
            "format": format_name(record.fmt),
            "raw": True,
            "payload": record.payload.hex(),
        }
    out: dict[str, Any] = {
        "attr": record.attr.cuobjdump_name,
        "code": int(record.attr),
        "format": record.fmt.cuobjdump_name,
    }
    out.update(_plain(record))
    return out


def record_to_json(record: NvInfoRecord) -> dict[str, Any]:
    """A JSON-ready dict of an ``.nv.info`` record."""
    return _to_json(record, RawRecord, attr_name)


def compat_record_to_json(record: CompatRecord) -> dict[str, Any]:
    """A JSON-ready dict of a ``.nv.compat`` record."""
    return _to_json(record, RawCompatRecord, compat_attr_name)


def _fmt_of(d: dict[str, Any]) -> EIFormat:
    name = d["format"]
    if not name.startswith("EIFMT_") or name[6:] not in EIFormat.__members__:
        raise ModelError(f"unknown format {name!r}")
    return EIFormat[name[6:]]


def _raw_fmt(d: dict[str, Any]) -> int:
    name = d["format"]
    if name.startswith("EIFMT_0x"):
        return int(name[6:], 16)
    return int(_fmt_of(d))


def record_from_json(d: dict[str, Any]) -> NvInfoRecord:
    """Inverse of :func:`record_to_json`; ModelError for a dict it did not produce."""
    try:
        if d.get("raw"):
            return RawRecord(_raw_fmt(d), d["code"], bytes.fromhex(d["payload"]))
        attr, fmt = EIAttr(d["code"]), _fmt_of(d)
        if fmt is EIFormat.NVAL:
            return Flag(attr)
        if fmt is EIFormat.BVAL:
            return ByteValue(attr, d["value"])
        if fmt is EIFormat.HVAL:
            return HalfValue(attr, d["value"])
        return _sval_from_json(attr, d)
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"not a record in JSON form: {d!r} ({exc})") from None


def _sval_from_json(attr: EIAttr, d: dict[str, Any]) -> NvInfoRecord:
    if attr in U32_ATTRS:
        return U32Value(attr, d["value"])
    if attr in OFFSET_ATTRS:
        return InstrOffsets(attr, d["offsets"])
    if attr in WORDS_ATTRS:
        return U32List(attr, d["values"])
    if attr in SYMBOL_VALUE_ATTRS:
        return SymbolValue(attr, d["symbol"], d["value"])
    if attr in SYMBOL_LIST_ATTRS:
        return SymbolList(attr, d["symbols"])
    if attr in DIM3_ATTRS:
        return Dim3(attr, d["x"], d["y"], d["z"])
    simple = {
        EIAttr.PARAM_CBANK: ParamCbank,
        EIAttr.SAMPLER_INIT: SamplerInit,
        EIAttr.KPARAM_INFO: KParamInfo,
        EIAttr.KPARAM_INFO_V2: KParamInfoV2,
    }
    if attr in simple:
        cls = simple[attr]
        return cls(**{f.name: d[f.name] for f in attrs.fields(cls)})  # type: ignore[no-any-return]
    if attr is EIAttr.MBARRIER_INSTR_OFFSETS:
        return MbarrierInstrOffsets(MbarrierEntry(**e) for e in d["entries"])
    if attr is EIAttr.ATOM16_EMUL_INSTR_REG_MAP:
        return Atom16EmulRegMap(RegMapEntry(**e) for e in d["entries"])
    if attr is EIAttr.INDIRECT_BRANCH_TARGETS:
        return IndirectBranchTargets(IndirectBranch(**b) for b in d["branches"])
    if attr is EIAttr.ANNOTATIONS:
        notes = (AnnotationNote(**n) for n in d.get("notes", ()))
        return Annotations(d["spill_refill_offsets"], notes, d.get("function_info"))
    raise ValueError(f"no typed SVAL layout for {attr.cuobjdump_name}")


def compat_record_from_json(d: dict[str, Any]) -> CompatRecord:
    """Inverse of :func:`compat_record_to_json`."""
    try:
        if d.get("raw"):
            return RawCompatRecord(_raw_fmt(d), d["code"], bytes.fromhex(d["payload"]))
        attr, fmt = EICompatAttr(d["code"]), _fmt_of(d)
        if fmt is EIFormat.NVAL:
            return CompatFlag(attr)
        if fmt is EIFormat.SVAL:
            return CompatWords(attr, d["values"])
        return CompatValue(attr, fmt, d["value"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"not a .nv.compat record in JSON form: {d!r} ({exc})") from None


# ---------------------------------------------------------------------------------------------
# One-line text


def _hex(v: int) -> str:
    return f"{v:#x}"


def _text_fields(record: NvInfoRecord) -> str:
    if isinstance(record, RawRecord):
        return f"raw={record.payload.hex() or '-'}"
    if isinstance(record, Flag):
        return ""
    if isinstance(record, (ByteValue, HalfValue, U32Value)):
        if record.attr is EIAttr.MERCURY_ISA_VERSION:
            return f"{record.value >> 8}.{record.value & 0xFF}"
        if record.attr is EIAttr.SPARSE_MMA_MASK and record.value:
            bits = [SPARSE_MMA_BITS.get(b, f"bit{b}") for b in range(16) if record.value >> b & 1]
            return f"{_hex(record.value)} ({' '.join(bits)})"
        return _hex(record.value)
    if isinstance(record, InstrOffsets):
        return " ".join(map(_hex, record.offsets))
    if isinstance(record, U32List):
        if record.attr is EIAttr.AT_ENTRY_FRAGMENTS:
            return " ".join(AT_ENTRY_FRAGMENTS.get(v, _hex(v)) for v in record.values)
        return " ".join(map(_hex, record.values))
    if isinstance(record, SymbolValue):
        return f"{record.symbol} {_hex(record.value)}"
    if isinstance(record, SymbolList):
        return " ".join(record.symbols)
    if isinstance(record, Dim3):
        return f"{record.x} {record.y} {record.z}"
    if isinstance(record, ParamCbank):
        return f"{record.symbol} base={_hex(record.base)} size={_hex(record.size)}"
    if isinstance(record, KParamInfo):
        space = "CBANK" if record.param_space == 0 else "SMEM"
        return (
            f"index={record.index} ordinal={record.ordinal} offset={_hex(record.offset)} size={_hex(record.size)} "
            f"log_align={record.log_alignment} space={record.space} cbank={_hex(record.cbank)} {space}"
        )
    if isinstance(record, KParamInfoV2):
        return (
            f"index={record.index} ordinal={record.ordinal} offset={_hex(record.offset)} size={_hex(record.size)} "
            f"log_align={record.log_alignment} space={record.space}"
        )
    if isinstance(record, MbarrierInstrOffsets):
        return "; ".join(
            f"{_hex(e.offset)} {MBARRIER_KINDS.get(e.kind, _hex(e.kind))} (R{e.base_reg} + UR{e.base_ureg}"
            f"{f' + {e.imm_offset}' if e.imm_offset else ''}) {MBARRIER_STRIDES[e.stride]}"
            for e in record.entries
        )
    if isinstance(record, Atom16EmulRegMap):
        return " ".join(f"({_hex(e.offset)},R{e.reg})" for e in record.entries)
    if isinstance(record, IndirectBranchTargets):
        return "; ".join(f"{_hex(b.offset)} -> {' '.join(map(_hex, b.targets))}" for b in record.branches)
    if isinstance(record, Annotations):
        parts = []
        if record.spill_refill_offsets:
            parts.append("SpillRefill " + " ".join(map(_hex, record.spill_refill_offsets)))
        parts.extend(f"InstructionInfo {_hex(n.offset)} {n.text!r}" for n in record.notes)
        if record.function_info is not None:
            parts.append(f"FunctionInfo {record.function_info!r}")
        return "; ".join(parts)
    if isinstance(record, SamplerInit):

        def mode(v: int, names: Mapping[int, str | None]) -> str:
            name = names.get(v, _hex(v))
            return "-" if name is None else name

        return (
            f"{record.symbol} addr=({mode(record.addr_mode_0, SAMPLER_ADDR_MODES)},"
            f"{mode(record.addr_mode_1, SAMPLER_ADDR_MODES)},{mode(record.addr_mode_2, SAMPLER_ADDR_MODES)}) "
            f"filter={mode(record.filter_mode, SAMPLER_FILTERS)}"
        )
    raise ModelError(f"not an .nv.info record: {record!r}")


def record_to_text(record: NvInfoRecord) -> str:
    """``EIATTR_NAME EIFMT_X fields`` on one line."""
    if isinstance(record, RawRecord):
        head = f"{attr_name(record.code)}[{record.code:#04x}] {format_name(record.fmt)}"
    else:
        head = f"{record.attr.cuobjdump_name} {record.fmt.cuobjdump_name}"
    fields = _text_fields(record)
    return f"{head} {fields}" if fields else head


def compat_record_to_text(record: CompatRecord) -> str:
    """``EICOMPAT_ATTR_NAME EIFMT_X value`` on one line."""
    if isinstance(record, RawCompatRecord):
        return f"{compat_attr_name(record.code)}[{record.code:#04x}] {format_name(record.fmt)} raw={record.payload.hex() or '-'}"
    head = f"{record.attr.cuobjdump_name} {record.fmt.cuobjdump_name}"
    if isinstance(record, CompatFlag):
        return head
    if isinstance(record, CompatWords):
        return f"{head} {' '.join(map(_hex, record.values))}"
    if record.attr is EICompatAttr.MERCURY_ISA_MAJOR_MINOR_VERSION:
        return f"{head} {record.value >> 8}.{record.value & 0xFF}"
    return f"{head} {_hex(record.value)}"
