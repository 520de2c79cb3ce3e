"""Semantic round trip of the directive probes (tests/probes_directives): PTX directives the
real-world corpora seldom hold, each on the targets it compiles for, in every mode.

* blocks_clusters: ``.blocksareclusters`` writes EIATTR_BLOCKS_ARE_CLUSTERS first in the
  kernel's .nv.info (sm_90+);
* common_global: ``.common .global`` is an SHN_COMMON symbol under -c, a visible variable in
  whole-program builds;
* misc_sm80: directives that leave no record of their own."""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle
from cubinemit.errors import ModelError
from cubinemit.nvinfo.catalogue import EIAttr
from cubinemit.reader import read_cubin
from cubinemit.semantic.model import Module

HERE = Path(__file__).resolve().parent / "probes_directives"
ALL_MODES = ("def", "c", "lineinfo", "g", "O0", "O0_c", "g_c", "lineinfo_c")
CASES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "blocks_clusters": (("sm_90", "sm_90a", "sm_100a", "sm_103", "sm_110", "sm_120", "sm_121a"), ALL_MODES),
    "common_global": (("sm_75", "sm_86", "sm_90", "sm_100a", "sm_120"), ALL_MODES),
    "misc_sm80": (("sm_80", "sm_89", "sm_90a", "sm_100", "sm_120"), ALL_MODES),
}


def test_directive_probes_are_listed():
    assert {p.stem for p in HERE.glob("*.ptx")} == set(CASES)


@pytest.mark.parametrize("stem", sorted(CASES))
def test_directive_probe(ptxas_ok, stem):
    counts, bad, builds = oracle.probe_outcomes(HERE / f"{stem}.ptx", *CASES[stem])
    assert not bad, bad
    assert counts["exact"] == builds, counts


def _cubin(stem: str, target: str, mode: str) -> bytes:
    return oracle.compile_many([(HERE / f"{stem}.ptx", target, mode)])[(stem, target, mode)].read_bytes()


def test_blocks_are_clusters_is_a_fact_the_builder_places_first(ptxas_ok):
    data = _cubin("blocks_clusters", "sm_90", "def")
    module = Module.from_cubin(data)
    flagged = {f.name for f in module.functions if f.facts["nvinfo"].get("blocks_are_clusters")}
    assert flagged == {"k", "k2"}
    obj = read_cubin(data)
    info = next(s for s in obj.sections if s.name == ".nv.info.k2")
    # the first record: format NVAL (0x01), attribute 0x5b, no payload
    assert bytes(info.data[:4]) == bytes([0x01, EIAttr.BLOCKS_ARE_CLUSTERS, 0, 0])
    # ptxas refuses the directive without .reqntid: so does the builder
    k2 = module.function("k2")
    k2.facts["nvinfo"] = {k: v for k, v in k2.facts["nvinfo"].items() if k != "reqntid"}
    with pytest.raises(ModelError, match="'k2'.*blocks_are_clusters needs reqntid"):
        module.to_cubin()


def test_common_variables_sit_in_shn_common_under_c(ptxas_ok):
    data = _cubin("common_global", "sm_86", "c")
    module = Module.from_cubin(data)
    common = [(d.name, d.size, d.align) for d in module.data if d.linkage == "common"]
    assert common == [("cg", 16, 4), ("cg2", 40, 16)]
    syms = {y.name: y for y in read_cubin(data).symbols}
    assert (syms["cg2"].shndx, syms["cg2"].value, syms["cg2"].size) == (0xFFF2, 16, 40)
    # a whole-program build of the same module allocates them as visible variables: the bytes
    # of ptxas's default build, whose decomposition calls them visible
    whole = Module.from_cubin(_cubin("common_global", "sm_86", "def"))
    assert [d.linkage for d in whole.data if d.name in ("cg", "cg2")] == ["visible", "visible"]


def test_add_global_common_refuses_an_initialiser():
    module = Module(target="sm_80")
    with pytest.raises(ModelError, match="common variable 'x'"):
        module.add_global("x", 4, init=b"\0" * 4, common=True)
    assert module.add_global("y", 8, align=8, common=True).linkage == "common"
