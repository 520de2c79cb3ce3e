"""Semantic round trip of the fifth real-world set (tests/probes_rw5/README.md: CUDA-samples-style
histograms, scans, reductions, sorts, n-body, separable convolution, FDTD, transposes, Monte
Carlo, DXT packing and shuffles; CUTLASS/CuTe-style mma.sync/cp.async GEMMs, a warp-specialised
Hopper wgmma/TMA GEMM and a tcgen05 tile) on twelve targets in five modes, plus -O0 -c and -g -c
on four, and the small probes (tests/probes_rw5/rules) of the rules this set taught.

Every case comes back byte for byte or is declined with NotImplementedError for a reason listed
in :data:`DECLINED`; no case may come back different."""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle

HERE = Path(__file__).resolve().parent / "probes_rw5"
PROBES = sorted(HERE.glob("*.ptx"))
RULES = sorted((HERE / "rules").glob("*.ptx"))
TARGETS = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103", "sm_110", "sm_120", "sm_121")
MODES = ("def", "c", "lineinfo", "g", "O0")
#: the extra modes, on a few targets
EXTRA_TARGETS = ("sm_75", "sm_90", "sm_100", "sm_120")
EXTRA_MODES = ("O0_c", "g_c")
#: (probe, target, mode) -> the reason its decline gives (none left: the CUTLASS GEMM's sm_110
#: reserved clone, whose stale section header ptxas leaves at 0x50 under -g and nowhere under
#: -O0 -c and -g -c, rebuilds since MercuryFacts.stale_header_at)
DECLINED: dict[tuple[str, str, str], str] = {}
#: every case is exact (457 of 457)
MIN_EXACT = 457


def _sm(t: str) -> int:
    return int(t[3:].rstrip("af"))


def _builds(stem: str, t: str) -> bool:
    if stem.endswith("_90a"):  # compute_90a PTX: sm_90a only
        return t == "sm_90a"
    if stem.endswith("_100a"):  # compute_100a PTX: sm_100a only
        return t == "sm_100a"
    return _sm(t) >= {"_90": 90, "_80": 80}.get(stem[-3:], 75)


def _cases() -> list[tuple[Path, str, str]]:
    main = [(p, t, m) for p in PROBES for t in TARGETS for m in MODES if _builds(p.stem, t)]
    extra = [(p, t, m) for p in PROBES for t in EXTRA_TARGETS for m in EXTRA_MODES if _builds(p.stem, t)]
    return main + extra


@pytest.fixture(scope="module")
def corpus(ptxas_ok) -> dict[tuple[str, str, str], Path]:
    return oracle.compile_many(_cases())


def test_probes_are_there():
    assert {p.stem for p in PROBES} >= {
        "histogram", "scan_reduce", "sort_nbody", "conv_fdtd", "montecarlo_misc",
        "cutlass_mma_80", "cute_sm90_90a", "tcgen05_gemm_100a", "sort_nbody_rdc_80", "scan_reduce_G_90",
    }


def test_realworld5_roundtrip(corpus):
    counts, bad = oracle.corpus_outcomes(corpus, DECLINED.get)
    assert not bad, bad
    assert counts["exact"] >= MIN_EXACT, counts


#: the rule probes: ptxas output for the modes and targets each rule is about
RULE_CASES = {
    # EIATTR_UNUSED_LOAD_BYTE_OFFSET (-O0), its place among the records, Mercury offsets
    "unused_load": (("sm_75", "sm_89", "sm_90", "sm_100", "sm_110", "sm_120"), ("O0", "O0_c", "g")),
    "unused_load_kitchen": (("sm_75", "sm_90", "sm_100", "sm_120"), ("O0", "g")),
    # -c sm_90+: .rel asked before the .shared variable's name by a reference that left no entry
    "rel_before_shared": (("sm_75", "sm_90", "sm_100", "sm_120"), ("c", "O0_c")),
    # EIATTR_REG_RECONFIG (setmaxnreg with .maxnreg, whole program) after UNUSED_LOAD_BYTE_OFFSET
    "reg_reconfig": (("sm_90a",), ("def", "O0", "c", "g")),
    "reg_reconfig_coop": (("sm_90a",), ("def", "O0", "lineinfo", "c", "g")),
    # -g below sm_90: resolved references ask .rel then .rela, neither kept
    "resolved_rel_rela": (("sm_75", "sm_86", "sm_89", "sm_90"), ("g", "def")),
    # -c -O0 sm_75: a 2-byte const_opt object is sized 4
    "const_opt_half": (("sm_75", "sm_89", "sm_90"), ("O0_c", "c")),
    # -g below sm_90: own .shared variables named after .rel and .rela (their use after a call)
    "own_shared_after_rela": (("sm_75", "sm_89", "sm_90"), ("g_c", "g")),
}


def test_rule_probes_are_listed():
    assert {p.stem for p in RULES} == set(RULE_CASES)


@pytest.mark.parametrize("stem", sorted(RULE_CASES))
def test_rule_probe(ptxas_ok, stem):
    counts, bad, builds = oracle.probe_outcomes(HERE / "rules" / f"{stem}.ptx", *RULE_CASES[stem])
    assert not bad, bad
    assert counts["exact"] == builds, counts


@pytest.mark.parametrize("target", ("sm_90", "sm_100a", "sm_120"))
def test_first_weak_operator_names_extern_shared(corpus, target):
    """nvcc -G keeps SharedMemory<T>::operator T*() a WEAK function returning the extern
    __smem; made before any kernel, it names shared memory itself (.nv.reservedSmem.cap follows
    it), so it is the first user of an extern .shared variable (all of them share the dynamic
    region, and the cubin does not say which one it names), not only the kernels reaching it."""
    from cubinemit.reader import read_cubin
    from cubinemit.semantic.decompose import decompose

    module = decompose(read_cubin(corpus[("scan_reduce_G_90", target, "g")].read_bytes()))
    first_users = {d.users[0] for d in module.data if d.space == "shared" and d.linkage == "extern" and d.users}
    assert "_ZN12SharedMemoryIiEcvPiEv" in first_users
