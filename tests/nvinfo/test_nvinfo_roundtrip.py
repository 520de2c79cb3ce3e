"""Every metadata section of every probe cubin: decode -> encode is byte-identical, and the record
sequence and decoded values agree with NVIDIA ``cuobjdump -elf`` 13.2.51."""

from __future__ import annotations

import json

import nvinfo_oracle as oracle
import pytest
from conftest import needs_oracles

from cubinemit.nvinfo import codec, jsonform
from cubinemit.nvinfo.catalogue import COMPAT_SPECS, EIATTR_SPECS, EIAttr, EICompatAttr, Scope, format_name
from cubinemit.nvinfo.records import (
    AT_ENTRY_FRAGMENTS,
    MBARRIER_KINDS,
    MBARRIER_STRIDES,
    SPARSE_MMA_BITS,
    Annotations,
    Atom16EmulRegMap,
    ByteValue,
    CompatRecord,
    CompatValue,
    CompatWords,
    Dim3,
    Flag,
    HalfValue,
    IndirectBranchTargets,
    InstrOffsets,
    KParamInfo,
    KParamInfoV2,
    MbarrierInstrOffsets,
    NvInfoRecord,
    ParamCbank,
    SamplerInit,
    SymbolList,
    SymbolValue,
    U32List,
    U32Value,
)

JOBS = oracle.probe_jobs(oracle.TEST_ARCHS)
IDS = [f"{p.stem}-{a}-{m}" for p, a, m in JOBS]


def _h(v: int) -> str:
    return f"{v:#x}"


def cuobjdump_value(record: NvInfoRecord, cub: oracle.Cubin) -> str:
    """How cuobjdump 13.2.51 prints the value of ``record`` (whitespace collapsed)."""

    def sym(name: str) -> str:
        return f"{name}({_h(cub.symbol_index(name))})"

    if isinstance(record, Flag):
        return ""
    if isinstance(record, (ByteValue, HalfValue, U32Value)):
        if record.attr is EIAttr.MERCURY_ISA_VERSION:
            return f"{record.value >> 8}.{record.value & 0xFF}"
        if record.attr is EIAttr.SPARSE_MMA_MASK and record.value:
            bits = " ".join(SPARSE_MMA_BITS[b] for b in range(8) if record.value >> b & 1)
            return f"Used Sparse Variants : {bits}"
        return _h(record.value)
    if isinstance(record, InstrOffsets):
        return " ".join(map(_h, record.offsets))
    if isinstance(record, U32List):
        if record.attr is EIAttr.AT_ENTRY_FRAGMENTS:
            return "At Entry Fragments : " + " ".join(AT_ENTRY_FRAGMENTS[v] for v in record.values)
        return " ".join(map(_h, record.values))
    if isinstance(record, SymbolValue):
        label = {
            EIAttr.REGCOUNT: f"register count: {record.value}",
            EIAttr.FRAME_SIZE: f"frame size: {_h(record.value)}",
            EIAttr.MIN_STACK_SIZE: f"min stack size: {_h(record.value)}",
        }.get(record.attr)
        if label is None:
            return f"{_h(cub.symbol_index(record.symbol))} {_h(record.value)}"
        return f"function: {sym(record.symbol)} {label}"
    if isinstance(record, SymbolList):
        return "externs: " + " ".join(sym(s) for s in record.symbols)
    if isinstance(record, Dim3):
        return f"{_h(record.x)} {_h(record.y)} {_h(record.z)}"
    if isinstance(record, ParamCbank):
        return f"{_h(cub.symbol_index(record.symbol))} {_h(record.size << 16 | record.base)}"
    if isinstance(record, SamplerInit):
        packed = record.addr_mode_0 | record.addr_mode_1 << 8 | record.addr_mode_2 << 16 | record.filter_mode << 24
        return f"{_h(cub.symbol_index(record.symbol))} {_h(packed)}"
    if isinstance(record, KParamInfo):
        return (
            f"Index : {_h(record.index)} Ordinal : {_h(record.ordinal)} Offset : {_h(record.offset)} "
            f"Size : {_h(record.size)} Pointee's logAlignment : {_h(record.log_alignment)} "
            f"Space : {_h(record.space)} cbank : {_h(record.cbank)} "
            f"Parameter Space : {'SMEM' if record.param_space else 'CBANK'}"
        )
    if isinstance(record, KParamInfoV2):
        return (
            f"Index : {_h(record.index)} Ordinal : {_h(record.ordinal)} Offset : {_h(record.offset)} "
            f"Size : {_h(record.size)} Pointee's logAlignment : {_h(record.log_alignment)} Space : {_h(record.space)}"
        )
    if isinstance(record, MbarrierInstrOffsets):
        return " ".join(
            f"{_h(e.offset)} : Instruction Kind : {MBARRIER_KINDS[e.kind]} (R{e.base_reg} + UR{e.base_ureg}"
            f"{f' + {e.imm_offset}' if e.imm_offset else ''}) Stride : {MBARRIER_STRIDES[e.stride]}"
            for e in record.entries
        )
    if isinstance(record, Atom16EmulRegMap):
        return " ".join(f"({_h(e.offset)}, {e.reg})" for e in record.entries)
    if isinstance(record, IndirectBranchTargets):
        return " ".join(
            f"Offset of Indirect Branch: {_h(b.offset)} Number of targets: {len(b.targets)} "
            f"Targets: {' '.join(map(_h, b.targets))}"
            for b in record.branches
        )
    if isinstance(record, Annotations):
        return " ".join(f"SpillRefill : Offset : {_h(o)}" for o in record.spill_refill_offsets)
    raise AssertionError(f"no cuobjdump rendering for {record!r}")


def cuobjdump_compat_value(record: CompatRecord) -> str:
    if isinstance(record, CompatWords):
        return " ".join(map(_h, record.values))
    assert isinstance(record, CompatValue)
    if record.attr is EICompatAttr.MERCURY_ISA_MAJOR_MINOR_VERSION:
        return f"{record.value >> 8}.{record.value & 0xFF}"
    return _h(record.value)


@needs_oracles
@pytest.mark.parametrize("job", JOBS, ids=IDS)
def test_sections_roundtrip_and_match_cuobjdump(job: tuple, test_cubins: dict) -> None:
    probe, arch, mode = job
    cub: oracle.Cubin = test_cubins[(probe.stem, arch, mode)]
    dumped = oracle.cuobjdump_entries(oracle.cuobjdump_elf(cub.path))
    names = cub.metadata_sections()
    assert sorted(names) == sorted(dumped), "cuobjdump lists other metadata sections"
    assert (".nv.compat" in names) == (oracle.arch_number(arch) >= 90)
    for name in names:
        data = cub.sections[name]
        expected = dumped[name]
        if name == ".nv.compat":
            crecs = codec.decode_compat(data, section=name)
            assert codec.encode_compat(crecs) == data, name
            assert [(r.attr.cuobjdump_name, r.fmt.cuobjdump_name) for r in crecs] == [e[:2] for e in expected]
            for r, (_, _, value) in zip(crecs, expected):
                assert not r.raw
                assert r.fmt is COMPAT_SPECS[r.attr].fmt
                assert cuobjdump_compat_value(r) == value
                assert jsonform.compat_record_from_json(json.loads(json.dumps(jsonform.compat_record_to_json(r)))) == r
            continue
        records = codec.decode_nvinfo(data, section=name, symbol_name=cub.symbol_name)
        assert codec.encode_nvinfo(records, symbol_index=cub.symbol_index) == data, name
        wire = list(codec.iter_wire_records(data, section=name))
        assert len(wire) == len(records) == len(expected)
        for w, r, (attr, fmt, value) in zip(wire, records, expected):
            assert not r.raw, f"{name}: ptxas record left raw: {r!r}"
            assert (r.attr.cuobjdump_name, format_name(w.fmt)) == (attr, fmt)
            spec = EIATTR_SPECS[r.attr]
            assert spec.evidence == "ptxas" and spec.fmt == w.fmt, f"catalogue format of {attr}"
            assert spec.scope is (Scope.GLOBAL if name == ".nv.info" else Scope.FUNCTION), f"scope of {attr}"
            assert cuobjdump_value(r, cub) == value, f"{name}: {attr}"
            assert jsonform.record_from_json(json.loads(json.dumps(jsonform.record_to_json(r)))) == r
            assert jsonform.record_to_text(r).startswith(attr)
