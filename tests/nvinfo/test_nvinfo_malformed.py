"""Damaged sections raise CubinFormatError naming the attribute, the section and the offset within
the section; merely unfamiliar records are kept raw and re-encode exactly."""

from __future__ import annotations

import struct

import pytest

from cubinemit.errors import CubinFormatError, ModelError
from cubinemit.nvinfo import callgraph, codec, notes
from cubinemit.nvinfo.catalogue import EIAttr
from cubinemit.nvinfo.records import Flag, HalfValue, RawCompatRecord, RawRecord, SymbolValue, U32Value

SYMS = ["", "k", ".nv.constant0.k", "f"]


def sym_name(i: int) -> str:
    return SYMS[i]


def sym_index(name: str) -> int:
    return SYMS.index(name)


GOOD = (
    bytes.fromhex("04370400 82000000")  # CUDA_API_VERSION 0x82
    + bytes.fromhex("031bff00")  # MAXREG_COUNT 0xff
    + bytes.fromhex("040a0800 02000000 60010800")  # PARAM_CBANK sym 2, base 0x160, size 8
)


def decode(data: bytes) -> list:
    return codec.decode_nvinfo(data, section=".nv.info.k", symbol_name=sym_name)


def test_good_section() -> None:
    recs = decode(GOOD)
    assert recs[0] == U32Value(EIAttr.CUDA_API_VERSION, 0x82)
    assert codec.encode_nvinfo(recs, symbol_index=sym_index) == GOOD


@pytest.mark.parametrize("cut", [1, 2, 3])
def test_truncated_header(cut: int) -> None:
    with pytest.raises(CubinFormatError) as exc:
        decode(GOOD + bytes.fromhex("031b00")[:cut])
    assert exc.value.offset == len(GOOD) and exc.value.where == ".nv.info.k"
    assert "truncated record header" in str(exc.value)


def test_truncated_payload() -> None:
    data = GOOD[:-2]
    with pytest.raises(CubinFormatError) as exc:
        decode(data)
    assert exc.value.offset == 12 and exc.value.where == ".nv.info.k"
    assert "EIATTR_PARAM_CBANK" in str(exc.value) and "overruns" in str(exc.value)


def test_size_overrun() -> None:
    data = bytes.fromhex("041c4000 10000000")  # EXIT_INSTR_OFFSETS claiming 0x40 bytes
    with pytest.raises(CubinFormatError) as exc:
        decode(GOOD + data)
    assert exc.value.offset == len(GOOD)
    assert "EIATTR_EXIT_INSTR_OFFSETS" in str(exc.value)


@pytest.mark.parametrize("fmt", [0, 5, 0x80, 0xFF])
def test_bad_format_byte(fmt: int) -> None:
    with pytest.raises(CubinFormatError) as exc:
        decode(GOOD[:8] + bytes([fmt, 0x1B, 0xFF, 0]))
    assert exc.value.offset == 8 and exc.value.where == ".nv.info.k"
    assert "EIATTR_MAXREG_COUNT" in str(exc.value) and "bad format byte" in str(exc.value)


def test_rejected_symbol_index() -> None:
    data = bytes.fromhex("042f0800 63000000 18000000")  # REGCOUNT for symbol 99
    with pytest.raises(CubinFormatError) as exc:
        codec.decode_nvinfo(data, section=".nv.info", symbol_name=sym_name)
    assert exc.value.offset == 4 and exc.value.where == ".nv.info"
    assert "EIATTR_REGCOUNT" in str(exc.value) and "99" in str(exc.value)
    externs = bytes.fromhex("040f0800 01000000 07000000")
    with pytest.raises(CubinFormatError) as exc:
        decode(externs)
    assert exc.value.offset == 8 and "EIATTR_EXTERNS" in str(exc.value)


def test_errors_are_never_index_or_struct_errors() -> None:
    # Every prefix of a valid section either decodes or raises CubinFormatError.
    for n in range(len(GOOD) + 1):
        try:
            decode(GOOD[:n])
        except CubinFormatError:
            pass


def test_unknown_and_unexpected_records_stay_raw() -> None:
    raw = [
        bytes.fromhex("04560400 01020304"),  # code unknown to cuobjdump
        bytes.fromhex("01600000"),  # ptxas's ERROR_LAST, unknown to cuobjdump
        bytes.fromhex("012f0000"),  # REGCOUNT as NVAL: wrong format for the code
        bytes.fromhex("01040100"),  # CTAIDZ_USED NVAL with a non-zero byte
        bytes.fromhex("024c0501"),  # NUM_BARRIERS BVAL with byte 3 set
        bytes.fromhex("042f0400 01000000"),  # REGCOUNT with 4 bytes instead of 8
        bytes.fromhex("041c0300 010203"),  # offsets not a multiple of 4
        bytes.fromhex("04550800 02000000 10000000"),  # ANNOTATIONS of an unknown sub-record type
        bytes.fromhex("04340800 10000000 00000000"),  # INDIRECT_BRANCH_TARGETS cut short
        bytes.fromhex("04330800 01000000 02000000"),  # STATISTICS: no typed layout
    ]
    for data in raw:
        (rec,) = decode(data)
        assert isinstance(rec, RawRecord) and rec.raw, data.hex()
        assert codec.encode_nvinfo([rec], symbol_index=sym_index) == data
    (c,) = codec.decode_compat(bytes.fromhex("02200100"))
    assert isinstance(c, RawCompatRecord) and codec.encode_compat([c]) == bytes.fromhex("02200100")


def test_compat_errors() -> None:
    with pytest.raises(CubinFormatError) as exc:
        codec.decode_compat(bytes.fromhex("0209000007"))
    assert exc.value.where == ".nv.compat" and exc.value.offset == 4
    with pytest.raises(CubinFormatError, match="EICOMPAT_ATTR_ISA_CLASS: bad format byte"):
        codec.decode_compat(bytes.fromhex("06020100"))


def test_encode_errors() -> None:
    with pytest.raises(ModelError, match="unknown symbol 'nope'"):
        codec.encode_nvinfo([SymbolValue(EIAttr.REGCOUNT, "nope", 8)], symbol_index=sym_index)
    with pytest.raises(ModelError, match="does not fit"):
        codec.encode_nvinfo([RawRecord(4, 0x33, bytes(0x10000))], symbol_index=sym_index)
    with pytest.raises(ModelError):
        codec.encode_nvinfo([RawRecord(7, 0x33, b"\0\0")], symbol_index=sym_index)
    with pytest.raises(ValueError):
        Flag(EIAttr.REGCOUNT)  # REGCOUNT is an SVAL code
    with pytest.raises(ValueError):
        HalfValue(EIAttr.MAXREG_COUNT, 0x10000)
    with pytest.raises(ValueError):
        U32Value(EIAttr.REGCOUNT, 1)  # not a plain-u32 code
    # A code whose format nothing has shown may be written in any format.
    assert codec.encode_nvinfo([Flag(EIAttr.NEED_CNP_WRAPPER)], symbol_index=sym_index) == b"\x01\x1f\0\0"
    with pytest.raises(ValueError):
        Flag(EIAttr.STUB_FUNCTION_KIND)  # cuobjdump prints it as an HVAL


def test_callgraph_errors() -> None:
    sentinels = b"".join(struct.pack("<Ii", 0, s) for s in (-1, -2, -3, -4))
    assert callgraph.decode_callgraph(sentinels, symbol_name=sym_name) == callgraph.CallGraph()
    with pytest.raises(CubinFormatError) as exc:
        callgraph.decode_callgraph(sentinels[:-3], symbol_name=sym_name)
    assert exc.value.where == ".nv.callgraph" and exc.value.offset == 24
    with pytest.raises(CubinFormatError, match="out of order"):
        callgraph.decode_callgraph(sentinels[8:16] + sentinels[:8], symbol_name=sym_name)
    with pytest.raises(CubinFormatError, match="3 of the 4 sentinels"):
        callgraph.decode_callgraph(sentinels[:24], symbol_name=sym_name)
    bad = sentinels[:8] + struct.pack("<II", 1, 42) + sentinels[8:]
    with pytest.raises(CubinFormatError) as exc:
        callgraph.decode_callgraph(bad, symbol_name=sym_name)
    assert exc.value.offset == 12 and "42" in str(exc.value)
    with pytest.raises(CubinFormatError) as exc:
        callgraph.decode_prototype(struct.pack("<II", 1, 999), symbol_name=sym_name, string_at=lambda o: ["", "#ii"][o])
    assert exc.value.where == ".nv.prototype" and exc.value.offset == 4


def test_note_errors() -> None:
    good = notes.encode_tkinfo(notes.TkInfo(notes.PtxasOptions(arch="sm_90")))
    assert notes.decode_tkinfo(good).options == notes.PtxasOptions(arch="sm_90")
    with pytest.raises(CubinFormatError, match="header alone"):
        notes.decode_tkinfo(good[:20])
    with pytest.raises(CubinFormatError, match="NUL-terminated"):
        notes.decode_tkinfo(good[: good.index(b"-arch")] + b"-arch")
    with pytest.raises(CubinFormatError, match="padding"):
        notes.decode_tkinfo(good + b"\0\0\0\0")
    shifted = bytearray(good)
    shifted[8] += 1  # tool-name offset
    with pytest.raises(CubinFormatError) as exc:
        notes.decode_tkinfo(bytes(shifted))
    assert exc.value.offset == 8 and exc.value.where == ".note.nv.tkinfo"
    with pytest.raises(CubinFormatError, match="expected 8"):
        notes.decode_cuinfo(b"\x02\x00\x5a\x00")
