"""Modules with tens of thousands of sections: .symtab_shndx and extended numbering.

ptxas keeps .symtab_shndx once NULL + live sections + the empty relocation sections it deletes
at the end reach 0xff00, and switches to e_shnum = 0 (count in section[0].sh_size) when the
header count itself does. The probe module gives 4N+12 live sections and N deleted .rel.text.
"""

from __future__ import annotations

import struct

import pytest

import oracle
from cubinemit.elf.layout import layout
from cubinemit.elf.model import Role
from cubinemit.reader import read_cubin
from cubinemit.roundtrip import container_roundtrip, first_difference
from probes.big import write_big_module

pytestmark = pytest.mark.slow


def _compile(n: int, tmp_path_factory) -> bytes:
    work = tmp_path_factory.mktemp(f"big{n}")
    ptx = work / "big.ptx"
    write_big_module(ptx, n)
    return oracle.compile_ptx(ptx, "sm_90", "c").read_bytes()


def _has_shndx(data: bytes) -> bool:
    return any(s.role is Role.SYMTAB_SHNDX for s in layout(read_cubin(data)).order)


def test_more_than_0xff00_sections(ptxas_ok, tmp_path_factory):
    big = _compile(16500, tmp_path_factory)
    assert struct.unpack_from("<H", big, 60)[0] == 0
    obj = read_cubin(big)
    lay = layout(obj)
    assert lay.shdrs[0].sh_size == 66013
    assert lay.order[3].role is Role.SYMTAB_SHNDX  # index 4
    assert (lay.ehdr.e_flags >> 24) == 7  # .note.nv.cuinfo moves up by one
    assert obj.quirks.used(obj.sections) == []
    assert first_difference(container_roundtrip(big), big) is None


@pytest.mark.parametrize("n,kept", [(13053, False), (13054, True)])
def test_symtab_shndx_threshold(ptxas_ok, tmp_path_factory, n, kept):
    data = _compile(n, tmp_path_factory)
    assert struct.unpack_from("<H", data, 60)[0] == 4 * n + 12 + kept
    assert _has_shndx(data) is kept
    obj = read_cubin(data)
    assert obj.quirks.used(obj.sections) == []
    assert first_difference(container_roundtrip(data), data) is None


@pytest.mark.parametrize("mode", ["c", "g", "def"])
def test_semantic_roundtrip_of_1200_kernels(ptxas_ok, tmp_path_factory, mode):
    """More kernels than Python's recursion limit: the -c declaration-order search walks them on
    an explicit stack, and the per-module indexes keep decomposition linear."""
    from cubinemit.roundtrip import semantic_roundtrip

    work = tmp_path_factory.mktemp(f"k1200{mode}")
    ptx = work / "k1200.ptx"
    write_big_module(ptx, 1200)
    data = oracle.compile_ptx(ptx, "sm_90", mode).read_bytes()
    assert first_difference(semantic_roundtrip(data), data) is None
