"""Module-scope texture, surface and sampler references at the semantic level.

* The reference probes (tests/probes/texref_*.ptx, tests/alloc/probes/hnd_*.ptx and the feature
  probes tests/nvinfo/probes/tex.ptx, texind.ptx) rebuild byte for byte from leaf data on every
  target in def, -c, -O0, -lineinfo and -g: the references as data objects, each kernel's handle
  uses as a fact; bank-0 slots, their relocations and the bank names are derived.
* -g gives every handle-using kernel the module's whole handle table in one order
  (cubinemit.alloc.params.debug_handle_order); tests/probes_texg checks that order on tables of
  1 to 24 handles against ptxas.
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

HERE = Path(__file__).resolve().parent
PROBES = [
    HERE / "probes" / "texref_unified.ptx",
    HERE / "probes" / "texref_independent.ptx",
    HERE / "alloc" / "probes" / "hnd_unified.ptx",
    HERE / "alloc" / "probes" / "hnd_independent.ptx",
    HERE / "alloc" / "probes" / "hnd_unified_large.ptx",
    HERE / "nvinfo" / "probes" / "tex.ptx",
    HERE / "nvinfo" / "probes" / "texind.ptx",
]
MODES = ("def", "c", "O0", "lineinfo", "g")


@pytest.fixture(scope="module")
def instantiated(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("tex")


def _ptx(folder: Path, probe: Path, target: str) -> Path:
    """The feature probes are templates (``.target @TARGET@``)."""
    text = probe.read_text()
    if "@TARGET@" not in text:
        return probe
    out = folder / target
    out.mkdir(exist_ok=True)
    path = out / probe.name
    if not path.exists():
        path.write_text(text.replace("@TARGET@", target))
    return path


@pytest.mark.parametrize("target", ALL_TARGETS)
def test_texture_reference_probes_roundtrip(ptxas_ok, instantiated, target):
    jobs = [(_ptx(instantiated, p, target), target, m) for p in PROBES for m in MODES]
    misses = []
    for (name, _, mode), path in oracle.compile_many(jobs).items():
        data = path.read_bytes()
        off = first_difference(semantic_roundtrip(data), data)
        if off is not None:
            misses.append(f"{name} {mode}: {off:#x} {where_in(read_cubin(data), off)}")
    assert not misses, misses


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_120"))
def test_leaf_data(ptxas_ok, target):
    """The references are data objects in declaration order; the kernels keep their handle
    uses; no bank layout, slot offset or relocation of bank 0 is carried."""
    data = oracle.compile_ptx(PROBES[1], target, "def").read_bytes()
    m = Module.from_cubin(data)
    assert [(d.name, d.space) for d in m.data] == [("tref", "tex"), ("smp", "sampler"), ("sref", "surf")]
    k = m.function("k_texs")
    assert k.facts["handles"] == [["tref", "smp", None], [None, None, "sref"]]
    assert not any(r.symbol in ("tref", "smp", "sref") for r in k.relocations)
    assert m.function("k_plain").facts.get("handles") is None
    spec = m.to_spec()
    assert "offset" not in str(spec.get("data"))
    assert Module.from_spec(spec).to_cubin() == data


def test_handles_edit_moves_slots(ptxas_ok):
    """A kernel's handle uses are the input of the slot rule: dropping the surface from k_surf's
    uses of texref_unified (sm_75) shrinks its bank to the parameters and drops its relocations."""
    data = oracle.compile_ptx(PROBES[0], "sm_75", "def").read_bytes()
    m = Module.from_cubin(data)
    m.function("k_surf").facts["handles"] = []
    obj = read_cubin(m.to_cubin())
    assert obj.find_section(".rel.nv.constant0.k_surf") is None
    assert len(obj.section(".nv.constant0.k_surf").data) == 0x160 + 4
