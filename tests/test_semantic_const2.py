"""Semantic round trip of per-function compiler constants (.nv.constant2.<f>).

The probes of tests/probes_const2 make ptxas create .nv.constant2.<f>: brx.idx jump tables
(jumptable.ptx: kernels, visible, static and weak device functions; jt_kernels.ptx: kernels
only; switch_fp64.ptx: a switch
nvcc leaves to ptxas), FP64 literals that are no immediates (fp64.ptx, switch_fp64.ptx: sm_75-89
only) and a local table of code pointers that whole-program ptxas turns into a function-address
table (ftab.ptx), and -g kernels whose banks hold only their callees' literals (late_banks.ptx).
Every (probe, target, mode) must come back byte for byte, or be declined as :data:`DECLINED`
lists."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

import oracle
from cubinemit.arch import ALL_TARGETS, family_of, Family
from cubinemit.inspect import where_in
from cubinemit.reader import read_cubin
from cubinemit.roundtrip import first_difference, semantic_roundtrip

PROBES = Path(__file__).resolve().parent / "probes_const2"
MODES = ("def", "c", "lineinfo", "g", "O0")
LEGACY = {t for t in ALL_TARGETS if family_of(int(t[3:].rstrip("af"))) is Family.LEGACY}

#: every probe, target and mode round-trips (the -g static-callee and .nv.info order of fp64 on
#: sm_90+ and address taking in relocatable builds, ftab -c, were gaps until the creation-order
#: symbol naming; ftab -g until the shuffled order of address-taking modules; jumptable -g until
#: the late banks; late_banks_by_callee -g until emit.late_bank_order), except the declined ones, by the reason they give.
#:
#: (probe, mode) -> (the reason, the targets where it declines; None: all)
DECLINED: dict[tuple[str, str], tuple[str, set[str] | None]] = {}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("probe", sorted(p.stem for p in PROBES.glob("*.ptx")))
def test_const2_roundtrip(ptxas_ok, probe, mode):
    exact, declined, misses, banks = 0, [], [], 0
    for target in ALL_TARGETS:
        data = oracle.compile_ptx(PROBES / f"{probe}.ptx", target, mode).read_bytes()
        obj = read_cubin(data)
        banks += any(s.name.startswith(".nv.constant2.") for s in obj.sections)
        try:
            rebuilt = semantic_roundtrip(data)
        except NotImplementedError as exc:
            declined.append((target, str(exc)))
            continue
        off = first_difference(rebuilt, data)
        if off is None:
            exact += 1
        else:
            misses.append((target, hex(off), where_in(obj, off)))
    assert not misses, misses
    reason, where = DECLINED.get((probe, mode), (None, set()))
    where = set(ALL_TARGETS) if where is None else where
    assert sorted(t for t, _ in declined) == sorted(where) and all(reason in why for _, why in declined), declined
    assert exact == len(ALL_TARGETS) - len(where), (exact, declined)


def test_probes_make_banks(ptxas_ok):
    """The probes do exercise .nv.constant2: jump tables everywhere, FP64 literals below sm_90,
    function-address tables in whole-program builds, relocatable const_opt objects."""
    def banks(probe, target, mode):
        obj = read_cubin(oracle.compile_ptx(PROBES / f"{probe}.ptx", target, mode).read_bytes())
        return {s.name for s in obj.sections if s.name.startswith(".nv.constant2.")}

    assert banks("jumptable", "sm_100", "c") == {".nv.constant2.dev_jt", ".nv.constant2.dev_static_jt", ".nv.constant2.dev_weak_jt", ".nv.constant2.k_jt"}
    assert banks("fp64", "sm_75", "def") and not banks("fp64", "sm_90", "def")
    assert banks("ftab", "sm_120", "def") == {".nv.constant2.k_ftab"} and not banks("ftab", "sm_120", "c")
    # -g: the kernels' banks of their callees' literals come after .nv.prototype, last kernel first
    names = [sl.text for sl in read_cubin(oracle.compile_ptx(PROBES / "late_banks.ptx", "sm_75", "g").read_bytes()).shstrtab.slots]
    assert names[names.index(".nv.prototype") + 1 :][:3] == [".nv.constant2.k_b", ".nv.constant2.k_a", ".nv.constant2.k_c"]


def test_table_relocations_before_handle_slots_per_function(ptxas_ok):
    """ptxas asks each function's address-table relocations (.nv.constant2) before its handle
    slots' (bank 0), function by function, the first function's before .debug_frame's: the
    probes make a kernel after the first hold both (cubinemit used to decline it) and a first
    kernel hold both (cubinemit used to write the slots' first)."""
    def relas(probe):
        # the section header table as ptxas wrote it (ELF64: e_shoff 0x28, e_shnum 0x3c,
        # e_shstrndx 0x3e; sh_name and sh_offset of each 64-byte header)
        data = oracle.compile_ptx(PROBES / f"{probe}.ptx", "sm_90", "def").read_bytes()
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shnum, shstrndx = struct.unpack_from("<HH", data, 0x3C)
        headers = [struct.unpack_from("<I4xQ8xQ", data, shoff + 64 * i) for i in range(shnum)]
        strings = data[headers[shstrndx][2] :]
        names = [strings[n : strings.index(b"\0", n)].decode() for n, _, _ in headers]
        return [n for n in names if n.startswith((".rela.nv.constant", ".rela.debug_frame"))]

    assert relas("tbl_later_both") == [".rela.nv.constant4", ".rela.nv.constant2.k1_f", ".rela.debug_frame", ".rela.nv.constant2.k2_sf", ".rela.nv.constant0.k2_sf", ".rela.nv.constant0.k0_s"]
    assert relas("tbl_first_both") == [".rela.nv.constant4", ".rela.nv.constant2.k1_sf", ".rela.nv.constant0.k1_sf", ".rela.debug_frame", ".rela.nv.constant2.k0_sf", ".rela.nv.constant0.k0_sf"]
