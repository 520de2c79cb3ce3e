"""Bad input: a clear CubinFormatError naming the place, never a deep traceback or a hang."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cubinemit.elf.structs import Ehdr, Shdr
from cubinemit.errors import CubinFormatError
from cubinemit.reader import read_cubin
from cubinemit.elf.writer import write
from cubinemit.semantic import Module


def _patch(data: bytes, offset: int, fmt: str, value: int) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, offset, value)
    return bytes(out)


def _shdr_offset(data: bytes, name: str) -> tuple[int, Shdr]:
    eh = Ehdr.unpack(data)
    shs = [Shdr.unpack(data, eh.e_shoff + 64 * i) for i in range(eh.e_shnum)]
    strtab = shs[eh.e_shstrndx]
    for i, sh in enumerate(shs):
        start = strtab.sh_offset + sh.sh_name
        if data[start : data.index(b"\0", start)].decode() == name:
            return eh.e_shoff + 64 * i, sh
    raise AssertionError(name)


@pytest.fixture(scope="module")
def sample(cubin) -> bytes:
    return cubin("func_calls", "sm_90", "c")


def test_empty_file():
    with pytest.raises(CubinFormatError, match="shorter than an ELF64 header"):
        read_cubin(b"")


def test_not_elf():
    with pytest.raises(CubinFormatError, match="bad magic"):
        read_cubin(b"#!/bin/sh\n" + bytes(100))


def test_wrong_machine(sample):
    with pytest.raises(CubinFormatError, match="EM_CUDA"):
        read_cubin(_patch(sample, 18, "<H", 62))


@pytest.mark.parametrize("cut", [40, 63, 64, 1000, -1, -64])
def test_truncated(sample, cut):
    with pytest.raises(CubinFormatError) as info:
        read_cubin(sample[:cut])
    assert "offset" in str(info.value) or "shorter" in str(info.value)


def test_section_header_table_past_end(sample):
    with pytest.raises(CubinFormatError, match="section header table"):
        read_cubin(_patch(sample, 40, "<Q", len(sample) + 8))


def test_huge_section_count_does_not_allocate(sample):
    # e_shnum 0 escapes to section[0].sh_size: claim 2**40 sections
    eh = Ehdr.unpack(sample)
    data = _patch(_patch(sample, 60, "<H", 0), eh.e_shoff + 32, "<Q", 1 << 40)
    with pytest.raises(CubinFormatError, match="do not fit"):
        read_cubin(data)


def test_section_past_end_names_the_section(sample):
    off, _ = _shdr_offset(sample, ".nv.info")
    with pytest.raises(CubinFormatError) as info:
        read_cubin(_patch(sample, off + 24, "<Q", len(sample)))
    assert "section header [" in str(info.value) and "past the end" in str(info.value)


def test_bad_sh_name(sample):
    off, _ = _shdr_offset(sample, ".nv.info")
    with pytest.raises(CubinFormatError, match="sh_name"):
        read_cubin(_patch(sample, off, "<I", 0xFFFF))


def test_bad_shstrndx(sample):
    with pytest.raises(CubinFormatError, match="e_shstrndx"):
        read_cubin(_patch(sample, 62, "<H", 0x7FFF))


def test_symtab_size_not_multiple(sample):
    off, sh = _shdr_offset(sample, ".symtab")
    with pytest.raises(CubinFormatError, match=r"\.symtab.*multiple of 24"):
        read_cubin(_patch(sample, off + 32, "<Q", sh.sh_size - 1))


def test_symbol_with_bad_section_index(sample):
    _, sh = _shdr_offset(sample, ".symtab")
    with pytest.raises(CubinFormatError, match="st_shndx"):
        read_cubin(_patch(sample, sh.sh_offset + 24 + 6, "<H", 0x7FF0))


def test_relocation_with_bad_symbol(sample):
    _, sh = _shdr_offset(sample, ".rela.debug_frame")
    with pytest.raises(CubinFormatError, match=r"\.rela\.debug_frame.*names symbol"):
        read_cubin(_patch(sample, sh.sh_offset + 12, "<I", 0xFFFFFF))


def test_unterminated_string_table(sample):
    off, sh = _shdr_offset(sample, ".shstrtab")
    data = bytearray(sample)
    data[sh.sh_offset + sh.sh_size - 1] = ord("x")
    with pytest.raises(CubinFormatError, match="does not end with NUL"):
        read_cubin(bytes(data))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutations_give_format_errors_or_a_lossless_model(sample, data):
    """Any byte flip or truncation: either a CubinFormatError, or a model that writes the
    mutated file back byte for byte (the reader is lossless)."""
    buf = bytearray(sample)
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(buf) - 1))
        buf[pos] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        buf = buf[: data.draw(st.integers(0, len(buf)))]
    mutated = bytes(buf)
    try:
        obj = read_cubin(mutated)
    except CubinFormatError:
        return
    assert write(obj) == mutated


# --- damaged cubins at the semantic level: a CubinemitError naming the section --------------------


def _section_start(data: bytes, name: str) -> int:
    return _shdr_offset(data, name)[1].sh_offset


def test_a_note_past_its_section_names_the_section(cubin):
    """A note whose descsz runs past .note.nv.tkinfo: a CubinFormatError naming the section
    (it was a bare ValueError)."""
    data = cubin("func_calls", "sm_90", "def")
    bad = _patch(data, _section_start(data, ".note.nv.tkinfo") + 4, "<I", 0x10000)
    with pytest.raises(CubinFormatError, match=r"section \.note\.nv\.tkinfo: note at 0x0 claims 12\+65536 bytes past the section end"):
        Module.from_cubin(bad)


def test_a_compat_record_of_another_shape_is_declined(cubin):
    """.nv.compat's ISA_CLASS record with a non-zero pad byte decodes as a raw record: declined
    with a message naming .nv.compat (it was an AttributeError on the raw record's value)."""
    from cubinemit.nvinfo.catalogue import EICompatAttr
    from cubinemit.nvinfo.codec import iter_wire_records

    data = cubin("func_calls", "sm_120", "def")
    sh = _shdr_offset(data, ".nv.compat")[1]
    start = sh.sh_offset
    isa = next(w for w in iter_wire_records(data[start : start + sh.sh_size], section=".nv.compat") if w.code == EICompatAttr.ISA_CLASS)
    bad = bytearray(data)
    bad[start + isa.offset + 3] = 1
    with pytest.raises(NotImplementedError, match=r"^\.nv\.compat: a record the compatibility rules do not give"):
        Module.from_cubin(bytes(bad))


def test_a_handle_bank_of_no_function_names_the_bank(cubin):
    """k_a renamed in .strtab while its bank keeps its name: the bank's texture relocations
    belong to no function (it was a KeyError deep in the reference decomposition)."""
    data = cubin("../probes_texg/texg_n07", "sm_120", "def")
    sh = _shdr_offset(data, ".strtab")[1]
    start = sh.sh_offset
    at = data.index(b"\0k_a\0", start, start + sh.sh_size) + 3
    bad = bytearray(data)
    bad[at] = ord("z")
    with pytest.raises(CubinFormatError, match=r"section \.nv\.constant0\.k_a: its relocations name a handle bank of no function"):
        Module.from_cubin(bytes(bad))


def test_a_reserved_section_of_another_size_than_its_clone(cubin):
    """.nv.shared.reserved.0 claiming 2 TiB: its Mercury clone is not that size, which the
    error says (it was a MemoryError making the clone's bytes)."""
    data = cubin("../probes_rw4/late_call_80", "sm_100a", "O0")
    off, _ = _shdr_offset(data, ".nv.shared.reserved.0")
    bad = bytearray(data)
    bad[off + 37] = 2  # sh_size's sixth byte
    with pytest.raises(CubinFormatError, match=r"section \.nv\.merc\.nv\.shared\.reserved\.0: 0x.* bytes, not the 0x20000000040 of \.nv\.shared\.reserved\.0"):
        Module.from_cubin(bytes(bad))


def test_a_damaged_mercury_record_is_a_format_error(cubin):
    """One byte of .nv.merc.nv.info changed: the Mercury facts do not decode, and the error
    says so (it was an IndexError deep in the Mercury reader)."""
    data = cubin("../probes_fp/fp_table_prototyped", "sm_100a", "lineinfo")
    bad = bytearray(data)
    bad[_section_start(data, ".nv.merc.nv.info") + 0x1D] = 29
    with pytest.raises(CubinFormatError, match=r"sections \.nv\.merc\.\*: the Mercury sections do not decode"):
        Module.from_cubin(bytes(bad))


def test_a_prototype_signature_of_an_unknown_type(cubin):
    """A signature string '#ik' (no type has the code k): a CubinFormatError naming the
    signature (it was a KeyError)."""
    data = cubin("../probes_fp/fp_table_prototyped", "sm_75", "c")
    bad = bytearray(data)
    bad[data.index(b"\0#ii\0") + 3] = ord("k")
    with pytest.raises(CubinFormatError, match=r"section \.nv\.prototype: signature '#ik': no parameter type has the code 'k'"):
        Module.from_cubin(bytes(bad))


def test_a_name_that_is_not_utf8_round_trips(cubin):
    """Names are bytes: a whole-program copy's name with a byte that is no UTF-8 is kept as
    it stands, sorted and written back byte for byte (the copies' order encoded the names
    strictly and raised UnicodeEncodeError)."""
    data = cubin("../probes_const2/fp64", "sm_120", "lineinfo")
    name = next(y.name for y in read_cubin(data).symbols if y.name.startswith("$") and "INTERNAL" in y.name)
    at = data.index(b"\0" + name.encode() + b"\0") + 1 + name.index("_", name.index("INTERNAL_") + 9)
    bad = bytearray(data)
    bad[at] = 0xD8
    assert Module.from_cubin(bytes(bad)).to_cubin() == bytes(bad)


def test_a_symbol_of_another_binding_names_the_symbol(cubin):
    """A symbol bound 5 (ptxas binds LOCAL, GLOBAL or WEAK): a CubinFormatError naming the
    symbol (it was a KeyError in the data or copy decomposition)."""
    data = cubin("func_calls", "sm_90", "def")
    symtab = _shdr_offset(data, ".symtab")[1].sh_offset
    last = read_cubin(data).symbols[-1].name
    entry = symtab + 24 * len(read_cubin(data).symbols)  # the last entry (index 0 is the null symbol)
    bad = bytearray(data)
    bad[entry + 4] = (5 << 4) | (bad[entry + 4] & 0xF)
    with pytest.raises(CubinFormatError, match=rf"symbol '{last}': binding 5 is none of LOCAL, GLOBAL, WEAK"):
        Module.from_cubin(bytes(bad))


def test_a_mercury_code_pointer_past_its_section(cubin):
    """A Mercury relocation of .nv.global.init's code pointers moved past the section's end:
    a CubinFormatError naming the relocation section (the build failed in struct.pack_into)."""
    data = cubin("../probes_rw3/global_tables", "sm_100a", "lineinfo")
    bad = bytearray(data)
    bad[_section_start(data, ".nv.merc.rela.nv.global.init") + 0x60] = 0xA6
    with pytest.raises(CubinFormatError, match=r"section \.nv\.merc\.rela\.nv\.global\.init: a relocation at 0xa6 patches past the 0x3e bytes of \.nv\.global\.init"):
        Module.from_cubin(bytes(bad))


def test_a_tkinfo_string_that_is_not_utf8_names_the_note(cubin):
    """ptxas writes its options and tool strings in UTF-8: a byte that is none is a format
    error naming .note.nv.tkinfo (names elsewhere keep such bytes; these strings do not)."""
    data = cubin("func_calls", "sm_90", "def")
    bad = bytearray(data)
    bad[data.index(b"-arch sm_90")] = 0xFF
    with pytest.raises(CubinFormatError, match=r"\.note\.nv\.tkinfo.*is not UTF-8"):
        Module.from_cubin(bytes(bad))
