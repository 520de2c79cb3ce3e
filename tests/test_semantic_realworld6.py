"""Semantic round trip of the sixth real-world set (tests/probes_rw6/README.md: cooperative-groups
algorithms and a cooperative grid-sync kernel, dynamic parallelism (-rdc=true), fp8/half/bf16
conversions and CAS-loop atomics, thrust-style templates with seventy instantiations, > 4 KB
parameter structs, __grid_constant__, spills, alloca, recursion, inline PTX, named barriers,
printf/assert, and Hopper clusters; nvcc -G and -lineinfo variants) on twelve targets in five
modes (the -rdc builds in four -c modes), -maxrregcount=32 and -O0 -c / -g -c on four, and the
small probes (tests/probes_rw6/rules) of the rules this set taught.

Every case comes back byte for byte or is declined with NotImplementedError for a reason listed
in :data:`DECLINED`; no case may come back different."""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle
from cubinemit.errors import ModelError
from cubinemit.semantic.model import Module

HERE = Path(__file__).resolve().parent / "probes_rw6"
PROBES = sorted(HERE.glob("*.ptx"))
RULES = sorted((HERE / "rules").glob("*.ptx"))
TARGETS = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103", "sm_110", "sm_120", "sm_121")
MODES = ("def", "c", "lineinfo", "g", "O0")
#: -rdc=true PTX (device-side launches call cudadevrt) links only later: -c builds
RDC_MODES = ("c", "O0_c", "g_c", "lineinfo_c")
#: the extra modes, on a few targets
EXTRA_TARGETS = ("sm_75", "sm_90", "sm_100", "sm_120")
EXTRA_MODES = ("O0_c", "g_c", "maxrreg32")
#: (probe, target, mode) -> the reason its decline gives
#: (probe, target, mode) -> the reason its decline gives (none left: lowp_math -g sm_75's bank of
#: eleven 16-bit constants, 44 bytes aligned to 4, rebuilds from the fact constant_align)
DECLINED: dict[tuple[str, str, str], str] = {}
#: every case is exact (680 of 680)
MIN_EXACT = 680


def _sm(t: str) -> int:
    return int(t[3:].rstrip("af"))


def _builds(stem: str, t: str) -> bool:
    return _sm(t) >= {"_90": 90, "_89": 89}.get(stem[-3:], 75)


def _modes(stem: str, extra: bool) -> tuple[str, ...]:
    if stem.endswith("_rdc"):
        return RDC_MODES if not extra else ()
    return EXTRA_MODES if extra else MODES


def _cases() -> list[tuple[Path, str, str]]:
    main = [(p, t, m) for p in PROBES for t in TARGETS for m in _modes(p.stem, False) if _builds(p.stem, t)]
    extra = [(p, t, m) for p in PROBES for t in EXTRA_TARGETS for m in _modes(p.stem, True) if _builds(p.stem, t)]
    return main + extra


@pytest.fixture(scope="module")
def corpus(ptxas_ok) -> dict[tuple[str, str, str], Path]:
    return oracle.compile_many(_cases())


def test_probes_are_there():
    assert {p.stem for p in PROBES} >= {
        "cg_algos", "dynpar_rdc", "lowp_math", "lowp_math_89", "thrust_like", "params_spill", "cluster_sm90_90",
        "params_spill_G", "cluster_sm90_G_90", "dynpar_G_rdc", "lowp_math_li",
    }


def test_realworld6_roundtrip(corpus):
    counts, bad = oracle.corpus_outcomes(corpus, DECLINED.get)
    assert not bad, bad
    assert counts["exact"] >= MIN_EXACT, counts


#: the rule probes: ptxas output for the modes and targets each rule is about
RULE_CASES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # device-side launches: kernel addresses do not order the functions, get no signature
    # string (a 0 mark), name the taken WEAK kernels with the first function (-g too, when it
    # asks for nothing), a kernel's own address asks .rel like any reference, and the Mercury
    # FUNC_DESC32 halves
    "device_launch": (("sm_75", "sm_90", "sm_100", "sm_110", "sm_120"), RDC_MODES),
    # -g -c: .nv.constant2 aligned by its const_opt objects (16-bit constants in 4-byte slots)
    "const2_half": (("sm_75", "sm_86"), ("g_c", "c")),
    # sm_110: visible variables declared after a kernel get their sections after the reserved
    # objects (fact visible_after_kernel)
    "visible_after_kernel": (("sm_110", "sm_100"), ("def", "c", "g", "g_c", "O0", "lineinfo")),
    "visible_after_kernel_only": (("sm_110",), ("def", "c", "g", "g_c", "O0_c")),
    # -c below sm_90: the WEAK __cuda_sm70_* builtins move like externs in the declaration order
    "weak_builtins": (("sm_75", "sm_86", "sm_89"), ("c",)),
    # a device-side launch of an `.extern .entry` kernel: an entry-marked undefined symbol with
    # no .nv.prototype signature string
    "extern_entry_launch": (("sm_75", "sm_89", "sm_90", "sm_100a", "sm_120"), RDC_MODES),
    "launch_externs": (("sm_75", "sm_87", "sm_90", "sm_100a", "sm_120"), RDC_MODES),
    # redux.sync under -g/-O0 below sm_90: the builtin __cuda_reduxsync_s32_add (no sm number)
    "builtin_redux": (("sm_80", "sm_89", "sm_90"), ("c", "g_c", "O0_c", "g")),
    # 8-bit float conversions ask .nv.compat ISA_CLASS 2 (the edit tests remove them)
    "isa_class_fp8": (("sm_89", "sm_90", "sm_100a", "sm_120"), MODES),
    # -rdc virtual functions: the -c DFS visits the vtables' functions in the PTX's order of
    # the kernel's vtable stores, not SASS's (fact table_uses)
    "vtable_ptx_order": (("sm_75", "sm_86", "sm_90", "sm_100a", "sm_120"), RDC_MODES),
    # a switch over five classes inlined into a kernel: its bank holds a jump table and the
    # copies' addresses (one .rela asked, sm_90+; Mercury lists the addresses first, sm_100+);
    # -c: twelve destructors store the base vtable, and any order of them gives the same X
    "vtable_factory": (("sm_75", "sm_90", "sm_100a", "sm_120"), ("def", "lineinfo", "O0", "g", *RDC_MODES)),
}


def test_rule_probes_are_listed():
    assert {p.stem for p in RULES} == set(RULE_CASES)


@pytest.mark.parametrize("stem", sorted(RULE_CASES))
def test_rule_probe(ptxas_ok, stem):
    counts, bad, builds = oracle.probe_outcomes(HERE / "rules" / f"{stem}.ptx", *RULE_CASES[stem])
    assert not bad, bad
    assert counts["exact"] == builds, counts


def test_bank_alignment_is_a_fact_where_the_rule_cannot_tell(corpus):
    """-g keeps no constant objects: 44 bytes of 16-bit constants in 4-byte slots could hold
    FP64 literals (align 8); only half_math's bank says its alignment, as fact constant_align."""
    from cubinemit.reader import read_cubin
    from cubinemit.semantic.decompose import decompose

    module = decompose(read_cubin(corpus[("lowp_math", "sm_75", "g")].read_bytes()))
    aligned = {f.name: f.facts["constant_align"] for f in module.functions if "constant_align" in f.facts}
    assert list(aligned.values()) == [4] and "half_math" in next(iter(aligned))
    spec = module.to_spec()
    for f in spec["functions"]:
        f.get("facts", {}).pop("constant_align", None)
    with pytest.raises(ModelError, match="constant_align"):
        Module.from_spec(spec).to_cubin()


def test_vtable_order_is_a_fact_where_sass_reorders_the_stores(ptxas_ok):
    """k stores _ZTV2Ci before _ZTV2Sq in the PTX and after it in SASS: the decomposer records
    the PTX order (fact table_uses), and the builder needs it for ptxas's .text order."""
    from cubinemit.reader import read_cubin
    from cubinemit.semantic.decompose import decompose

    data = oracle.compile_many([(HERE / "rules" / "vtable_ptx_order.ptx", "sm_90", "c")])
    data = next(iter(data.values())).read_bytes()
    module = decompose(read_cubin(data))
    kernel = module.function("_Z1kPfi")
    assert kernel.facts["table_uses"] == ["_ZTV2Ci", "_ZTV2Sq"]
    assert Module.from_spec(module.to_spec()).to_cubin() == data
    spec = module.to_spec()
    for f in spec["functions"]:
        f.get("facts", {}).pop("table_uses", None)

    def texts(cubin: bytes) -> list[str]:
        return [s.name for s in read_cubin(cubin).sections if s.name.startswith(".text.")]

    # ptxas: the Sq functions, then Ci's, then Shape's; without the fact the builder's X
    # visits the vtables in SASS's order and .text comes out otherwise
    assert texts(data)[:3] == [".text._ZN2SqD0Ev", ".text._ZN2SqD1Ev", ".text._ZNK2Sq4areaEv"]
    assert texts(Module.from_spec(spec).to_cubin()) != texts(data)
