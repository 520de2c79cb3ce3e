"""Semantic round trip of the third real-world set (tests/probes_rw3/README.md: virtual
functions, cuda::pipeline copies, templated block reductions, warp intrinsics, texture objects,
device pointer tables) on ten targets in five modes.

Every case comes back byte for byte or is declined with NotImplementedError for a reason listed
in :data:`DECLINED`; no case may come back different."""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle

PROBES = sorted((Path(__file__).resolve().parent / "probes_rw3").glob("*.ptx"))
TARGETS = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_103", "sm_110", "sm_120")
MODES = ("def", "c", "lineinfo", "g", "O0")
#: (probe, mode) -> the reason its declines give (none left: samples_mix -g, virtual_shapes -g and
#: tma_wgmma_90a -g rebuild)
DECLINED: dict[tuple[str, str], str] = {}
#: at least this many cases are exact (440 of 440 at the time of writing)
MIN_EXACT = 440


def _cases() -> list[tuple[Path, str, str]]:
    def sm(t: str) -> int:
        return int(t[3:].rstrip("af"))

    def builds(stem: str, t: str, m: str) -> bool:
        if stem == "rdc_lib":  # separate compilation: externs resolve at link time
            return m == "c"
        if stem.endswith("_90a"):  # compute_90a PTX: sm_90a only
            return t == "sm_90a"
        return sm(t) >= {"_90": 90, "_80": 80}.get(stem[-3:], 75)

    return [(p, t, m) for p in PROBES for t in TARGETS for m in MODES if builds(p.stem, t, m)]


@pytest.fixture(scope="module")
def corpus(ptxas_ok) -> dict[tuple[str, str, str], Path]:
    return oracle.compile_many(_cases())


def test_probes_are_there():
    assert {p.stem for p in PROBES} >= {"virtual_shapes", "pipeline_copy", "block_reduce", "warp_intrinsics", "tex_objects", "global_tables", "tma_wgmma_90a", "samples_mix", "rdc_lib"}


def test_realworld3_roundtrip(corpus):
    counts, bad = oracle.corpus_outcomes(corpus, lambda key: DECLINED.get((key[0], key[2])))
    assert not bad, bad
    assert counts["exact"] >= MIN_EXACT, counts


def test_realworld3_relocatable_O0(ptxas_ok):
    """-c -O0 on one target of each family (see test_semantic_realworld.py)."""
    cases = [(p, t, m) for p, t, m in _cases() if m == "c" and t in ("sm_75", "sm_90", "sm_90a", "sm_100a", "sm_120")]
    cases = [(p, t, "O0_c") for p, t, _ in cases]
    counts, bad = oracle.corpus_outcomes(oracle.compile_many(cases))
    assert not bad, bad
    assert counts["exact"] == len(cases)
