"""Semantic round trip of -c name orders: relocation asks of a reference ptxas resolves
itself, and the first device function's .shared variables.

From sm_90 on, a kernel's shared address adds the reserved-SMEM cap (`UMOV UR5, 0x400`), a
relocation ptxas resolves and drops, which still asks .rel.text.<f> then .rela.text.<f> where
the code makes it (emit.relocatable_walk; decompose._hidden_asks reads the place from the
names). The cap_* probes of tests/probes_casks put that reference before a .const read
(cap_first, sm_120 only: the schedule decides), between the .const read and a jump table's
load (cap_between) and before the bank a jump table makes (cap_after_bank).

The dev_shared_* probes make a device function first: a visible or weak one names the .shared
variables its code uses between the visible and the other module variables (emit.data_block),
a static one after them (-g -c as well). Every target and -c mode must come back byte for
byte."""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle
from cubinemit.arch import ALL_TARGETS
from cubinemit.inspect import where_in
from cubinemit.reader import read_cubin
from cubinemit.roundtrip import first_difference, semantic_roundtrip
from cubinemit.semantic.decompose import decompose

PROBES = Path(__file__).resolve().parent / "probes_casks"
MODES = ("c", "O0_c")


def _misses(probe: str, mode: str) -> tuple[list[tuple[str, str, str]], dict[str, bytes]]:
    corpus = oracle.compile_many([(PROBES / f"{probe}.ptx", t, mode) for t in ALL_TARGETS], workers=2)
    misses, files = [], {}
    for (_, target, _), path in sorted(corpus.items()):
        data = files[target] = path.read_bytes()
        try:
            rebuilt = semantic_roundtrip(data)
        except NotImplementedError as exc:
            misses.append((target, "declined", str(exc)))
            continue
        off = first_difference(rebuilt, data)
        if off is not None:
            misses.append((target, hex(off), str(where_in(read_cubin(data), off))))
    return misses, files


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("probe", sorted(p.stem for p in PROBES.glob("cap_*.ptx")))
def test_hidden_asks_roundtrip(ptxas_ok, probe, mode):
    misses, files = _misses(probe, mode)
    assert not misses, misses
    placed = [t for t, data in files.items() for f in decompose(read_cubin(data, quirks=False)).functions if f.facts.get("hidden_ask_at") is not None]
    if mode == "c":
        assert placed, "no target placed a hidden reference: the probe no longer exercises the rule"


@pytest.mark.parametrize("mode", (*MODES, "g_c"))
@pytest.mark.parametrize("probe", sorted(p.stem for p in PROBES.glob("dev_shared_*.ptx")))
def test_first_device_shared_roundtrip(ptxas_ok, probe, mode):
    misses, _ = _misses(probe, mode)
    assert not misses, misses
