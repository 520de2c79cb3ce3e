"""Property tests: for any typed record, encode -> decode is the identity (and so is JSON)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from cubinemit.errors import CubinFormatError
from cubinemit.nvinfo import callgraph, codec, jsonform, notes
from cubinemit.nvinfo.catalogue import COMPAT_SPECS, EIATTR_SPECS, EIAttr, EICompatAttr, EIFormat
from cubinemit.nvinfo.records import (
    DIM3_ATTRS,
    OFFSET_ATTRS,
    SYMBOL_LIST_ATTRS,
    SYMBOL_VALUE_ATTRS,
    U32_ATTRS,
    WORDS_ATTRS,
    AnnotationNote,
    Annotations,
    Atom16EmulRegMap,
    ByteValue,
    CompatFlag,
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

SYMBOLS = ["", "k", "f", ".nv.constant0.k", "$k$f", "vprintf", "smp"]
u8 = st.integers(0, 0xFF)
u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFFFFFF)
sym = st.sampled_from(SYMBOLS[1:])
words = st.lists(u32, max_size=12)


RAW_SVAL_CODES = [0x56, 0x60, 0x63, *range(0x67, 0x100), EIAttr.STATISTICS, EIAttr.LANGUAGE, EIAttr.CUDA_REQ]


def _generic_codes(fmt: EIFormat) -> list[EIAttr]:
    return [a for a in EIAttr if EIATTR_SPECS[a].fmt in (None, fmt)]


records = st.one_of(
    st.builds(Flag, st.sampled_from(_generic_codes(EIFormat.NVAL))),
    st.builds(ByteValue, st.sampled_from(_generic_codes(EIFormat.BVAL)), u8),
    st.builds(HalfValue, st.sampled_from(_generic_codes(EIFormat.HVAL)), u16),
    st.builds(U32Value, st.sampled_from(U32_ATTRS), u32),
    st.builds(InstrOffsets, st.sampled_from(OFFSET_ATTRS), words),
    st.builds(U32List, st.sampled_from(WORDS_ATTRS), words),
    st.builds(SymbolValue, st.sampled_from(SYMBOL_VALUE_ATTRS), sym, u32),
    st.builds(SymbolList, st.sampled_from(SYMBOL_LIST_ATTRS), st.lists(sym, max_size=5)),
    st.builds(Dim3, st.sampled_from(DIM3_ATTRS), u32, u32, u32),
    st.builds(ParamCbank, sym, u16, u16),
    st.builds(SamplerInit, sym, u8, u8, u8, u8),
    st.builds(
        KParamInfo, u32, u16, u16, st.integers(0, 0x3FFF), u8, st.integers(0, 15), st.integers(0, 31), st.integers(0, 1)
    ),
    st.builds(KParamInfoV2, u32, u16, u16, u16, u8, u8),
    st.builds(
        MbarrierInstrOffsets,
        st.lists(
            st.builds(
                MbarrierEntry,
                u32,
                u32,
                st.integers(-(1 << 31), (1 << 31) - 1),
                st.integers(0, 15),
                u8,
                st.integers(0, 3),
                u8,
                st.integers(0, 3),
                u8,
            ),
            max_size=4,
        ),
    ),
    st.builds(Atom16EmulRegMap, st.lists(st.builds(RegMapEntry, u32, u32), max_size=4)),
    st.builds(
        IndirectBranchTargets, st.lists(st.builds(IndirectBranch, u32, st.lists(u32, max_size=5), u32), max_size=3)
    ),
    st.builds(
        Annotations,
        words,
        st.lists(st.builds(AnnotationNote, u32, st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=12)), max_size=3),
        st.one_of(st.none(), st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=20)),
    ),
    st.builds(RawRecord, st.sampled_from([1, 2, 3]), u8, st.binary(min_size=2, max_size=2)),
    # SVAL raw records: codes without a typed layout (a typed code would need valid symbol indices)
    st.builds(RawRecord, st.just(4), st.sampled_from(RAW_SVAL_CODES), st.binary(max_size=40)),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(records, max_size=8))
def test_encode_decode_identity(recs: list) -> None:
    data = codec.encode_nvinfo(recs, symbol_index=SYMBOLS.index)
    back = codec.decode_nvinfo(data, section=".nv.info.k", symbol_name=SYMBOLS.__getitem__)
    assert codec.encode_nvinfo(back, symbol_index=SYMBOLS.index) == data
    for rec, got in zip(recs, back, strict=True):
        if isinstance(rec, RawRecord) and not got.raw:
            continue  # raw bytes that form a valid typed record decode typed, with the same bytes
        assert got == rec


@settings(max_examples=300, deadline=None)
@given(records)
def test_json_identity(rec: object) -> None:
    d = json.loads(json.dumps(jsonform.record_to_json(rec)))  # type: ignore[arg-type]
    assert jsonform.record_from_json(d) == rec
    assert isinstance(jsonform.record_to_text(rec), str)  # type: ignore[arg-type]


def _compat_codes(fmt: EIFormat) -> list[EICompatAttr]:
    return [a for a in EICompatAttr if COMPAT_SPECS[a].fmt in (None, fmt)]


compat_records = st.one_of(
    st.builds(CompatValue, st.sampled_from(_compat_codes(EIFormat.BVAL)), st.just(EIFormat.BVAL), u8),
    st.builds(CompatValue, st.sampled_from(_compat_codes(EIFormat.HVAL)), st.just(EIFormat.HVAL), u16),
    st.builds(CompatFlag, st.sampled_from(_compat_codes(EIFormat.NVAL))),
    st.builds(CompatWords, st.sampled_from(_compat_codes(EIFormat.SVAL)), words),
    st.builds(RawCompatRecord, st.just(4), st.integers(0xD, 0xFF), st.binary(max_size=16)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(compat_records, max_size=8))
def test_compat_identity(recs: list) -> None:
    data = codec.encode_compat(recs)
    back = codec.decode_compat(data)
    assert codec.encode_compat(back) == data
    assert back == recs
    for rec in recs:
        assert jsonform.compat_record_from_json(json.loads(json.dumps(jsonform.compat_record_to_json(rec)))) == rec


names = st.sampled_from(SYMBOLS[1:])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.builds(callgraph.CallEdge, names, names), max_size=6),
    st.lists(st.builds(callgraph.FunctionMark, names, st.integers(0, 5)), max_size=4),
    st.lists(st.builds(callgraph.FunctionMark, names), max_size=4),
    st.lists(st.builds(callgraph.CallEdge, names, names), max_size=4),
)
def test_callgraph_identity(calls: list, taken: list, callers: list, targets: list) -> None:
    graph = callgraph.CallGraph(calls, taken, callers, targets)
    data = callgraph.encode_callgraph(graph, symbol_index=SYMBOLS.index)
    assert callgraph.decode_callgraph(data, symbol_name=SYMBOLS.__getitem__) == graph
    protos = [callgraph.Prototype(c.caller, "#i" + "l" * i) for i, c in enumerate(calls)]
    strings = sorted({p.signature for p in protos})

    def offset(s: str) -> int:
        return 1 + strings.index(s)

    data = callgraph.encode_prototype(protos, symbol_index=SYMBOLS.index, string_offset=offset)
    back = callgraph.decode_prototype(data, symbol_name=SYMBOLS.__getitem__, string_at=lambda o: strings[o - 1])
    assert back == protos


opt_text = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_.,", min_size=1, max_size=12)
opt_value = st.one_of(st.none(), st.integers(0, 999), opt_text.filter(lambda s: not s.isdigit()))
options = st.builds(
    notes.PtxasOptions,
    input_name=st.one_of(st.none(), opt_text.map(lambda s: s + ".ptx")),
    arch=st.one_of(st.none(), st.sampled_from(["sm_75", "sm_90a", "sm_100f"])),
    opt_level=st.one_of(st.none(), st.integers(0, 3)),
    maxrregcount=opt_value,
    output_name=st.one_of(st.none(), opt_text.map(lambda s: s + ".cubin")),
    debug=st.booleans(),
    lineinfo=st.booleans(),
    compile_only=st.booleans(),
    verbose=st.booleans(),
    fmad=st.one_of(st.none(), st.sampled_from(["true", "false"])),
    entries=opt_value,
    extensible_whole_program=st.booleans(),
    annotate=st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(options, st.text(alphabet="abc._", max_size=8), st.integers(75, 121))
def test_notes_identity(opts: notes.PtxasOptions, obj: str, sm: int) -> None:
    assert notes.PtxasOptions.parse(opts.render()) == opts
    info = notes.TkInfo(opts, obj)
    desc = notes.encode_tkinfo(info)
    assert len(desc) % 4 == 0
    assert notes.decode_tkinfo(desc) == info
    raw = notes.TkInfo("-not an option ", obj)
    assert notes.decode_tkinfo(notes.encode_tkinfo(raw)) == raw
    cu = notes.CuInfo(sm)
    assert notes.decode_cuinfo(notes.encode_cuinfo(cu)) == cu


def _symbol_name(i: int) -> str:
    return SYMBOLS[i]


wire_records = st.one_of(
    st.tuples(st.integers(1, 3), u8, st.binary(min_size=2, max_size=2)).map(lambda t: bytes(t[:2]) + t[2]),
    st.tuples(u8, st.binary(max_size=48)).map(lambda t: bytes((4, t[0])) + len(t[1]).to_bytes(2, "little") + t[1]),
    st.binary(max_size=6),  # junk: bad format bytes, truncation
)


@settings(max_examples=500, deadline=None)
@given(st.lists(wire_records, max_size=6).map(b"".join))
def test_any_bytes_decode_exactly_or_fail_cleanly(data: bytes) -> None:
    # Whatever decodes re-encodes to the same bytes; everything else is a CubinFormatError.
    try:
        recs = codec.decode_nvinfo(data, section=".nv.info.k", symbol_name=_symbol_name)
    except CubinFormatError as exc:
        assert exc.where == ".nv.info.k" and exc.offset is not None and 0 <= exc.offset <= len(data)
    else:
        assert codec.encode_nvinfo(recs, symbol_index=SYMBOLS.index) == data
    try:
        crecs = codec.decode_compat(data)
    except CubinFormatError:
        pass
    else:
        assert codec.encode_compat(crecs) == data
    try:
        graph = callgraph.decode_callgraph(data, symbol_name=_symbol_name)
    except CubinFormatError:
        pass
    else:
        assert callgraph.encode_callgraph(graph, symbol_index=SYMBOLS.index) == data
    for decode, encode in ((notes.decode_tkinfo, notes.encode_tkinfo), (notes.decode_cuinfo, notes.encode_cuinfo)):
        try:
            info = decode(data)
        except CubinFormatError:
            continue
        assert encode(info) == data  # type: ignore[operator]


def test_annotation_text_must_be_utf8() -> None:
    """The record holds UTF-8 bytes: a lone surrogate is refused by name, not left to fail in
    the encoder."""
    import pytest

    with pytest.raises(ValueError, match="text must be text UTF-8 can hold"):
        AnnotationNote(0, "\ud800")
    with pytest.raises(ValueError, match="function_info must be text UTF-8 can hold"):
        Annotations([], [], "\udfff")
