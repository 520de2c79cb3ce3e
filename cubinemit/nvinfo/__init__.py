"""CUDA metadata sections of a cubin: ``.nv.info*``, ``.nv.compat``, ``.nv.callgraph``,
``.nv.prototype`` and the ``.note.nv.tkinfo`` / ``.note.nv.cuinfo`` descriptors, decoded into
typed, frozen records and encoded back byte for byte as ptxas 13.0.88 writes them."""

from __future__ import annotations

from .callgraph import (
    CallEdge,
    CallGraph,
    FunctionMark,
    Prototype,
    decode_callgraph,
    decode_prototype,
    encode_callgraph,
    encode_prototype,
)
from .catalogue import (
    COMPAT_SPECS,
    EIATTR_SPECS,
    AttrSpec,
    EIAttr,
    EICompatAttr,
    EIFormat,
    Scope,
    attr_name,
    compat_attr_name,
    format_name,
)
from .codec import (
    WireRecord,
    decode_compat,
    decode_nvinfo,
    decode_record,
    encode_compat,
    encode_compat_record,
    encode_nvinfo,
    encode_record,
    iter_wire_records,
)
from .gating import (
    Emission,
    Gate,
    Target,
    check_record,
    compat_records,
    every_function_constants,
    gate,
    gating_table,
    has_compat_section,
    parse_target,
)
from .jsonform import (
    compat_record_from_json,
    compat_record_to_json,
    compat_record_to_text,
    record_from_json,
    record_to_json,
    record_to_text,
)
from .notes import (
    CuInfo,
    PtxasOptions,
    TkInfo,
    decode_cuinfo,
    decode_tkinfo,
    encode_cuinfo,
    encode_tkinfo,
)
from .records import (
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

__all__ = [name for name in dir() if not name.startswith("_") and name != "annotations"]
