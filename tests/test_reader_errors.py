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
