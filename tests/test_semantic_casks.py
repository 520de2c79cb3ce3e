"""Semantic round trip of -c relocation asks made by a reference ptxas resolves itself.

From sm_90 on, a kernel's shared address adds the reserved-SMEM cap (`UMOV UR5, 0x400`), a
relocation ptxas resolves and drops, which still asks .rel.text.<f> then .rela.text.<f> where
the code makes it (emit.relocatable_walk; decompose._hidden_asks reads the place from the
names). The probes of tests/probes_casks put that reference before a .const read (cap_first,
sm_120 only: the schedule decides), between the .const read and a jump table's load
(cap_between) and before the bank a jump table makes (cap_after_bank). Every target and -c
mode must come back byte for byte, and the place must be read somewhere."""

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


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("probe", sorted(p.stem for p in PROBES.glob("*.ptx")))
def test_hidden_asks_roundtrip(ptxas_ok, probe, mode):
    corpus = oracle.compile_many([(PROBES / f"{probe}.ptx", t, mode) for t in ALL_TARGETS], workers=2)
    misses, placed = [], []
    for (_, target, _), path in sorted(corpus.items()):
        data = path.read_bytes()
        try:
            rebuilt = semantic_roundtrip(data)
        except NotImplementedError as exc:
            misses.append((target, "declined", str(exc)))
            continue
        off = first_difference(rebuilt, data)
        if off is not None:
            misses.append((target, hex(off), where_in(read_cubin(data), off)))
        module = decompose(read_cubin(data, quirks=False))
        placed += [target for f in module.functions if f.facts.get("hidden_ask_at") is not None]
    assert not misses, misses
    if mode == "c":
        assert placed, "no target placed a hidden reference: the probe no longer exercises the rule"
