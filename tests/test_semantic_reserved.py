"""Reads of the reserved shared-memory registers (%reserved_smem_offset_{0,begin,end,cap}).

* The probes (tests/probes_reserved) rebuild byte for byte from leaf data on every target their
  PTX allows (sm_80 on) in six modes.
* What ptxas writes for them, measured: each read names ``.nv.reservedSmem.<name>`` once, where
  the first function reading it is processed, in first-reference order; sm_90 deletes a symbol
  whose read it resolved (a tombstone, its name zeroed in .strtab), Blackwell keeps it for a
  Mercury relocation; %reserved_smem_offset_end names nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle
from cubinemit.arch import ALL_TARGETS
from cubinemit.inspect import where_in
from cubinemit.reader import read_cubin
from cubinemit.roundtrip import first_difference, semantic_roundtrip
from cubinemit.semantic import Module

PROBES = Path(__file__).resolve().parent / "probes_reserved"
MODES = ("def", "c", "g", "O0", "lineinfo", "g_c")
#: the registers need .target sm_80
TARGETS = [t for t in ALL_TARGETS if t != "sm_75"]


@pytest.mark.parametrize("target", TARGETS)
def test_reserved_reads_roundtrip(ptxas_ok, target):
    misses = []
    for ptx in sorted(PROBES.glob("*.ptx")):
        for mode in MODES:
            data = oracle.compile_ptx(ptx, target, mode).read_bytes()
            off = first_difference(semantic_roundtrip(data), data)
            if off is not None:
                misses.append(f"{ptx.stem} {mode}: {off:#x} {where_in(read_cubin(data), off)}")
    assert not misses, misses


def _reserved(data: bytes) -> list[tuple[str, int]]:
    """The reserved symbols in creation order: (name, st_other); a deleted one (a tombstone)
    has no name and st_other 1."""
    obj = read_cubin(data)
    return [(y.name, y.other) for y in obj.symbols if y.name.startswith(".nv.reservedSmem.") or (y.name_slot is None and y.other == 1)]


def _zeros(data: bytes) -> int:
    """The bytes of deleted names left as zeros in .strtab."""
    return sum(max(s.width - len(s.encoded), 0) for s in read_cubin(data).strtab.slots)


OFFSET0, BEGIN, CAP = (f".nv.reservedSmem.{n}" for n in ("offset0", "begin", "cap"))


def test_reserved_symbols_as_ptxas_names_them(ptxas_ok):
    """The measured rules the builder reproduces, read from ptxas's own output."""

    def named(stem: str, target: str, mode: str = "def") -> list[tuple[str, int]]:
        return _reserved(oracle.compile_ptx(PROBES / f"{stem}.ptx", target, mode).read_bytes())

    # first-reference order (Blackwell keeps every symbol): whole program puts kb first, which
    # reads begin, then cap; ka reads begin, then stores to shared memory (-c -O0: ka first)
    assert named("reserved_reads_order", "sm_100a") == [(OFFSET0, 0), (BEGIN, 0), (CAP, 0)]
    # a whole-program kernel names its own reads before its inlined callee's
    assert named("reserved_reads_callee", "sm_100a") == [(OFFSET0, 0), (CAP, 0), (BEGIN, 0)]
    # sm_90 deletes what it resolved, offset0 in place; the zeros are the names' bytes
    data = oracle.compile_ptx(PROBES / "reserved_reads_offset0.ptx", "sm_90", "def").read_bytes()
    assert _reserved(data) == [("", 1), ("", 1)]
    assert _zeros(data) == len(OFFSET0) + 1 + len(BEGIN) + 1
    # %reserved_smem_offset_end names nothing; below sm_90 no read names a symbol
    assert named("reserved_reads_begin", "sm_100a") == [(OFFSET0, 0), (BEGIN, 0)]
    assert named("reserved_reads_begin", "sm_89") == []


@pytest.mark.parametrize("target", ["sm_90", "sm_100a"])
def test_dead_read_is_a_fact(ptxas_ok, target):
    """k reads begin into a word its cap read then overwrites: sm_90 keeps begin named (no
    resolved read) and deletes cap; the decomposed facts say which read the optimizer removed
    (read on sm_90 from the named symbol, on Blackwell from the Mercury relocations)."""
    data = oracle.compile_ptx(PROBES / "reserved_reads_dead.ptx", target, "def").read_bytes()
    if target == "sm_90":
        assert _reserved(data) == [(OFFSET0, 0), (BEGIN, 0), ("", 1)]
    k = Module.from_cubin(data).function("k")
    assert k.facts.get("reserved_refs") == ["begin", "cap"]
    assert k.facts.get("reserved_refs_dead") == ["begin"]
    assert Module.from_cubin(data).to_cubin() == data
    if target == "sm_90":
        # without the fact the builder takes the read for live and deletes begin too
        module = Module.from_cubin(data)
        module.function("k").facts.pop("reserved_refs_dead")
        assert _reserved(module.to_cubin()) == [(OFFSET0, 0), ("", 1), ("", 1)]


def test_unknown_reserved_name_is_refused(ptxas_ok):
    """A spec naming a reserved symbol ptxas never makes is bad input: a ModelError naming the
    function and the fact, not a symbol .nv.reservedSmem.<anything>."""
    from cubinemit.errors import ModelError

    data = oracle.compile_ptx(PROBES / "reserved_reads_dead.ptx", "sm_100a", "def").read_bytes()
    module = Module.from_cubin(data)
    module.function("k").facts["reserved_refs"] = ["begin", "end"]
    with pytest.raises(ModelError, match=r"function 'k': fact reserved_refs"):
        module.to_cubin()


def test_renamed_bank_zeros_are_no_deleted_name(ptxas_ok):
    """sm_90: .nv.constant3 keeps 4 zeros of its creation name .nv.constant.user in .strtab;
    the deleted shared-memory cap right after it adds 21, as many as a deleted offset0 would.
    The decomposition reads the tombstone as the cap (no reserved_refs fact): read as offset0,
    the rebuild deleted the living offset0 and made no cap."""
    data = oracle.compile_ptx(PROBES / "cap_after_constant3.ptx", "sm_90", "def").read_bytes()
    assert _reserved(data) == [(OFFSET0, 0), ("", 1)]
    slot = next(s for s in read_cubin(data).strtab.slots if s.text == ".nv.constant3")
    assert slot.width - len(slot.encoded) == len(".nv.constant.user") - len(".nv.constant3") + len(CAP) + 1
    assert slot.width - len(slot.encoded) == len(OFFSET0) + 1
    module = Module.from_cubin(data)
    assert all("reserved_refs" not in f.facts for f in module.functions)
    assert module.to_cubin() == data
