"""The .nv.info builder: facts hold no derived value, derived records follow the facts, and the
rules measured on ptxas (record order, -g propagation, MAXREG_COUNT, global patterns, gating)."""

from __future__ import annotations

from pathlib import Path

import attrs
import oracle as main_oracle
import pytest
from test_nvinfo_builder_corpus import BUILDER_PROBES, compile_probe, compile_text

from cubinemit.errors import ModelError
from cubinemit.nvinfo import (
    EIAttr,
    FunctionFacts,
    ModuleFacts,
    Param,
    build_function_info,
    build_global_info,
    build_module_info,
    facts_from_cubin,
    facts_from_json,
    facts_to_json,
    maxreg_count,
    param_layout,
)
from cubinemit.nvinfo.builder import ORDER_HB, ORDER_L, global_pattern
from cubinemit.nvinfo.callgraph import CallEdge, CallGraph
from cubinemit.nvinfo.facts import Clone, Sampler
from cubinemit.nvinfo.records import ByteValue, Flag, HalfValue, KParamInfo, KParamInfoV2, ParamCbank, SymbolValue, U32Value
from cubinemit.reader import read_cubin


def _facts(path: Path) -> tuple[ModuleFacts, list[FunctionFacts]]:
    return facts_from_cubin(read_cubin(path.read_bytes()))


def _main(probe: str, target: str, mode: str = "def") -> tuple[ModuleFacts, list[FunctionFacts]]:
    return _facts(main_oracle.compile_ptx(main_oracle.PROBES / f"{probe}.ptx", target, mode))


def _actual(path: Path) -> dict[str, list]:
    """ptxas's own .nv.info* records (via the decoded cubin)."""
    from cubinemit.elf.constants import SHT_CUDA_INFO
    from cubinemit.elf.layout import layout
    from cubinemit.nvinfo import decode_nvinfo

    lay = layout(read_cubin(path.read_bytes()))
    names = [""] + [s.name for s in lay.symbols]
    return {
        s.name: decode_nvinfo(s.data, section=s.name, symbol_name=names.__getitem__)
        for s in lay.order
        if s.sh_type == SHT_CUDA_INFO
    }


def _attrs(records: list) -> list[EIAttr]:
    return [r.attr for r in records]


# ---------------------------------------------------------------------------------------------
# Facts are leaf data


#: Names of records (and their values) the builder derives; no fact may be one of them.
DERIVED = {
    "cuda_api_version", "sw_war", "sw2861232_war", "mercury_isa_version", "vrc_cta_init_count",
    "sparse_mma_mask", "param_cbank", "cbank_param_size", "kparam_info", "kparam_info_v2", "param_base",
    "param_offsets", "maxreg_count", "min_stack_size", "max_stack_size", "gen_errbar_at_exit",
    "bindless_texture_bank", "bindless_surface_bank", "sanitize_value", "tools_patch_func",
    "regcount", "propagated",
}  # fmt: skip


def test_fact_classes_have_no_derived_field() -> None:
    names = {f.name for cls in (FunctionFacts, ModuleFacts, Param, Clone, Sampler) for f in attrs.fields(cls)}
    assert not names & DERIVED, names & DERIVED


@pytest.mark.usefixtures("ptxas_ok")
@pytest.mark.parametrize("probe", ["kernels_three", "launch_bounds", "func_calls", "kernel_minimal"])
def test_facts_do_not_depend_on_the_target(probe: str) -> None:
    """Inside a family the SASS is the same, so the decomposed facts are identical and the
    sm_90 facts built for sm_100 / sm_120 give exactly ptxas's sm_100 / sm_120 records."""
    m90, f90 = _main(probe, "sm_90")
    for other in ("sm_100", "sm_120"):
        mo, fo = _main(probe, other)
        assert fo == f90
        assert attrs.evolve(mo, target="sm_90") == m90
        retargeted = build_module_info(attrs.evolve(m90, target=other), f90)
        assert retargeted == _actual(main_oracle.compile_ptx(main_oracle.PROBES / f"{probe}.ptx", other, "def"))


@pytest.mark.usefixtures("ptxas_ok")
@pytest.mark.parametrize(("src", "dst"), [("sm_75", "sm_90"), ("sm_100", "sm_80"), ("sm_90", "sm_75")])
def test_across_families_only_code_generation_differs(src: str, dst: str) -> None:
    """Between families the facts differ only where code generation does (register counts,
    EXIT offsets); with those taken from the other target, every derived record follows."""
    code = ("register_count", "exit_offsets")
    for probe in ("kernels_three", "launch_bounds", "params_mixed"):
        ms, fs = _main(probe, src)
        md, fd = _main(probe, dst)
        for a, b in zip(fs, fd):
            assert attrs.evolve(a, **{c: getattr(b, c) for c in code}) == b
        moved = [attrs.evolve(a, **{c: getattr(b, c) for c in code}) for a, b in zip(fs, fd)]
        built = build_module_info(attrs.evolve(ms, target=dst), moved)
        assert built == _actual(main_oracle.compile_ptx(main_oracle.PROBES / f"{probe}.ptx", dst, "def"))


PARAM_KERNEL = """.version 9.0
.target {target}
.address_size 64
.visible .entry k({params})
{{
 .reg .b64 %rd<3>; .reg .b32 %r<2>;
 ld.param.u64 %rd1, [out];
 mov.u32 %r1, %tid.x;
 cvta.to.global.u64 %rd2, %rd1;
 st.global.u32 [%rd2], %r1;
 ret;
}}
"""


@pytest.mark.usefixtures("ptxas_ok")
@pytest.mark.parametrize("target", ["sm_75", "sm_89", "sm_90", "sm_100", "sm_120"])
@pytest.mark.parametrize(
    ("ptx_params", "params"),
    [
        (
            ".param .u64 out, .param .u8 c, .param .align 16 .b8 blob[40], .param .u64 .ptr .global .align 8 p",
            [Param(8, 8), Param(1, 1), Param(40, 16), Param(8, 8, 3, 4)],
        ),
        (  # > 4352 bytes: KPARAM_INFO_V2, and bank 0 base 0x1a80 on sm_75-89
            ".param .u64 out, .param .align 4 .b8 big[5000], .param .u16 tail",
            [Param(8, 8), Param(5000, 4), Param(2, 2)],
        ),
    ],
)
def test_parameter_records_follow_the_params(target: str, ptx_params: str, params: list[Param]) -> None:
    """Decompose a one-parameter kernel, give it other parameters: PARAM_CBANK,
    CBANK_PARAM_SIZE and KPARAM_INFO(_V2) match what ptxas writes for that parameter list."""
    one = compile_text(PARAM_KERNEL.format(target=target, params=".param .u64 out"), "pk1", target, ())
    many = compile_text(PARAM_KERNEL.format(target=target, params=ptx_params), "pkn", target, ())
    module, (k,) = _facts(one)
    _, (want,) = _facts(many)
    built = build_function_info(target, module, attrs.evolve(k, params=params, exit_offsets=want.exit_offsets))
    assert built == _actual(many)[".nv.info.k"]
    v2 = any(isinstance(r, KParamInfoV2) for r in built)
    assert v2 == (sum(p.size for p in params) > 4352) and not (v2 and any(isinstance(r, KParamInfo) for r in built))


def test_param_layout_rules() -> None:
    k = FunctionFacts("k", is_kernel=True, params=[Param(1), Param(8, 8), Param(2, 2), Param(24, 16), Param(4, 4)])
    assert param_layout("sm_75", k).offsets == (0, 8, 16, 32, 56)
    assert (param_layout("sm_75", k).base, param_layout("sm_90", k).base, param_layout("sm_121", k).base) == (
        0x160,
        0x210,
        0x380,
    )
    big = attrs.evolve(k, params=[Param(4356, 4)])
    assert param_layout("sm_86", big).base == 0x1A80 and param_layout("sm_86", big).v2
    assert param_layout("sm_90", big).base == 0x210
    assert not param_layout("sm_86", attrs.evolve(k, params=[Param(4352, 4)])).v2
    recs = build_function_info("sm_100", ModuleFacts("sm_100"), big)
    assert ParamCbank(".nv.constant0.k", 0x380, 4356) in recs
    assert HalfValue(EIAttr.CBANK_PARAM_SIZE, 4356) in recs
    # device functions never carry parameter records
    assert not any(isinstance(r, (ParamCbank, KParamInfo)) for r in build_function_info("sm_75", ModuleFacts("sm_75"), attrs.evolve(k, is_kernel=False)))


# ---------------------------------------------------------------------------------------------
# MAXREG_COUNT


@pytest.mark.parametrize(
    ("target", "bounds", "maxrregcount", "want"),
    [
        ("sm_90", {}, None, 255),
        ("sm_90", {"maxntid": (1024,)}, None, 64),
        ("sm_90", {"maxntid": (512,)}, None, 128),
        ("sm_90", {"maxntid": (640,)}, None, 96),
        ("sm_90", {"maxntid": (384,)}, None, 168),
        ("sm_90", {"maxntid": (256,), "minnctapersm": 3}, None, 80),
        ("sm_90", {"maxntid": (96,), "minnctapersm": 7}, None, 80),
        ("sm_90", {"maxntid": (256,), "minnctapersm": 5}, None, 48),
        ("sm_75", {"maxntid": (256,), "minnctapersm": 5}, None, 255),  # 40 warps > 32: M ignored
        ("sm_75", {"maxntid": (512,), "minnctapersm": 3}, None, 128),  # M ignored, T alone counts
        ("sm_86", {"maxntid": (1024,), "minnctapersm": 2}, None, 64),  # 64 warps > 48
        ("sm_86", {"maxntid": (32,), "minnctapersm": 17}, None, 255),  # 17 CTAs > 16
        ("sm_89", {"maxntid": (32,), "minnctapersm": 24}, None, 80),  # sm_89 holds 24 CTAs
        ("sm_110a", {"maxntid": (128,), "minnctapersm": 13}, None, 255),  # 52 warps > 48
        ("sm_90", {"maxntid": (40,), "minnctapersm": 13}, None, 72),  # warps per CTA rounded up
        ("sm_90", {"reqntid": (16, 16, 4), "minnctapersm": 2}, None, 32),
        ("sm_90", {"maxnreg": 17}, None, 24),
        ("sm_90", {"maxnreg": 300}, 40, 255),
        ("sm_90", {"maxntid": (1024,), "maxnreg": 100}, None, 100),  # .maxnreg overrides the bounds
        ("sm_90", {}, 40, 40),
        ("sm_90", {}, 17, 24),
        ("sm_90", {"minnctapersm": 4}, 40, 40),
        ("sm_90", {"maxntid": (384,)}, 40, 168),  # launch bounds make ptxas ignore -maxrregcount
    ],
)
def test_maxreg_count(target: str, bounds: dict, maxrregcount: int | None, want: int) -> None:
    k = FunctionFacts("k", is_kernel=True, **bounds)
    assert maxreg_count(target, ModuleFacts(target, maxrregcount=maxrregcount), k) == want


# ---------------------------------------------------------------------------------------------
# Record order, gating, -g propagation


def test_order_tables_cover_distinct_codes() -> None:
    for order in (ORDER_L, ORDER_HB):
        assert len(order) == len(set(order))
    # sm_90+ moves the parameter bank, SW_WAR and BINDLESS_* to the tail; KPARAM_INFO_V2 sits
    # right after KPARAM_INFO there
    assert ORDER_HB[-4:] == (EIAttr.CBANK_PARAM_SIZE, EIAttr.PARAM_CBANK, EIAttr.SW_WAR, "BINDLESS")
    assert ORDER_HB.index(EIAttr.KPARAM_INFO_V2) == ORDER_HB.index(EIAttr.KPARAM_INFO) + 1
    assert ORDER_L.index(EIAttr.NUM_BARRIERS) < ORDER_L.index(EIAttr.EXTERNS)
    assert ORDER_L.index(EIAttr.SYSCALL_OFFSETS) < ORDER_L.index(EIAttr.ATOM16_EMUL_INSTR_REG_MAP)


def test_plain_kernel_recipes() -> None:
    k = FunctionFacts("k", is_kernel=True, params=[Param(8, 8)], exit_offsets=[0x70])
    want = {
        "sm_75": [EIAttr.SW_WAR, EIAttr.CUDA_API_VERSION, EIAttr.PARAM_CBANK, EIAttr.CBANK_PARAM_SIZE, EIAttr.KPARAM_INFO,
                  EIAttr.MAXREG_COUNT, EIAttr.MERCURY_ISA_VERSION, EIAttr.EXIT_INSTR_OFFSETS],
        "sm_86": [EIAttr.CUDA_API_VERSION, EIAttr.SW2861232_WAR, EIAttr.PARAM_CBANK, EIAttr.CBANK_PARAM_SIZE,
                  EIAttr.KPARAM_INFO, EIAttr.MAXREG_COUNT, EIAttr.MERCURY_ISA_VERSION, EIAttr.EXIT_INSTR_OFFSETS],
        "sm_110a": [EIAttr.CUDA_API_VERSION, EIAttr.KPARAM_INFO, EIAttr.RESERVED_SMEM_USED, EIAttr.SPARSE_MMA_MASK,
                    EIAttr.MAXREG_COUNT, EIAttr.MERCURY_ISA_VERSION, EIAttr.VRC_CTA_INIT_COUNT,
                    EIAttr.EXIT_INSTR_OFFSETS, EIAttr.CBANK_PARAM_SIZE, EIAttr.PARAM_CBANK, EIAttr.SW_WAR],
    }  # fmt: skip
    for target, order in want.items():
        assert _attrs(build_function_info(target, ModuleFacts(target), k)) == order
    recs = build_function_info("sm_120", ModuleFacts("sm_120"), k)
    assert U32Value(EIAttr.SW_WAR, 0) in recs and HalfValue(EIAttr.MERCURY_ISA_VERSION, 0x0101) in recs


@pytest.mark.parametrize("target", ["sm_80", "sm_89", "sm_90", "sm_120"])
def test_reserved_smem_is_accepted_everywhere(target: str) -> None:
    """Code reading %reserved_smem_offset_<n> (compute_80+ cooperative_groups under nvcc -G)
    marks RESERVED_SMEM_USED on every target, before WMMA_USED (measured: ptxas 13.0.88 on
    sm_80-121, tests/probes_rw/realistic_G80 and a wmma + reserved-SMEM probe)."""
    k = FunctionFacts("k", is_kernel=True, reserved_smem=True, wmma_used=True)
    names = _attrs(build_function_info(target, ModuleFacts(target), k))
    assert names.index(EIAttr.RESERVED_SMEM_USED) < names.index(EIAttr.WMMA_USED)


@pytest.mark.parametrize(
    ("target", "changes", "words"),
    [
        ("sm_75", {"cluster_dims": (2, 1, 1)}, "CTA_PER_CLUSTER is not accepted by sm_75"),
        ("sm_89", {"max_cluster_rank": 4}, "MAX_CLUSTER_RANK is not accepted by sm_89"),
        ("sm_75", {"num_mbarriers": 1}, "NUM_MBARRIERS is not accepted by sm_75"),
        ("sm_90", {"tcgen05_1cta": True}, "TCGEN05_1CTA_USED is not accepted by sm_90"),
        ("sm_100", {"at_entry_fragments": (6,)}, "AT_ENTRY_FRAGMENTS is not accepted by sm_100"),
        ("sm_120", {"tcgen05_2cta": True}, "TCGEN05_2CTA_USED is not accepted by sm_120"),
        ("sm_90", {"maxntid": (64,), "reqntid": (64,)}, ".maxntid and .reqntid"),
        ("sm_90", {"cluster_dims": (2,), "max_cluster_rank": 2}, ".reqnctapercluster and .maxclusterrank"),
        ("sm_100a", {"tcgen05_1cta": True, "tcgen05_2cta": True}, "cta_group"),
    ],
)
def test_rejected_facts_name_function_attribute_and_target(target: str, changes: dict, words: str) -> None:
    k = attrs.evolve(FunctionFacts("k_bad", is_kernel=True), **changes)
    with pytest.raises(ModelError, match="k_bad") as err:
        build_function_info(target, ModuleFacts(target), k)
    assert words in str(err.value) and target in str(err.value)


def test_rejected_modules() -> None:
    with pytest.raises(ModelError, match="target sm_100 given, but the module facts are for sm_90"):
        build_function_info("sm_100", ModuleFacts("sm_90"), FunctionFacts("k", is_kernel=True))
    with pytest.raises(ModelError, match="astoolspatch"):
        build_function_info(None, ModuleFacts("sm_90", tools_patch=True), FunctionFacts("k", is_kernel=True))
    with pytest.raises(ModelError, match="entry directive"):
        build_function_info(None, ModuleFacts("sm_90"), FunctionFacts("f", maxntid=(32,)))
    with pytest.raises(ModelError, match="clones"):
        build_function_info(None, ModuleFacts("sm_90", debug=True), FunctionFacts("k", is_kernel=True, clones=[Clone("$k$f")]))
    with pytest.raises(ModelError, match="not a ptxas 13.0.88 target"):
        build_global_info(None, ModuleFacts("sm_91"), [])


def test_silently_dropped_facts() -> None:
    """ptxas compiles these but writes no record on the target: the builder drops them too."""
    k = FunctionFacts("k", is_kernel=True, ctaid_z_used=True, sparse_mma=["HMMA.SP"], instr_reg_map=(0xA0000000, 0x02020300, 0xFFFFFFFF))
    recs90 = build_function_info("sm_90", ModuleFacts("sm_90"), k)
    assert EIAttr.CTAIDZ_USED not in _attrs(recs90) and EIAttr.INSTR_REG_MAP not in _attrs(recs90)
    assert HalfValue(EIAttr.SPARSE_MMA_MASK, 0x10) in recs90
    recs80 = build_function_info("sm_80", ModuleFacts("sm_80"), k)
    assert EIAttr.SPARSE_MMA_MASK not in _attrs(recs80) and EIAttr.CTAIDZ_USED in _attrs(recs80)


def _g_module(target: str, edges: list[tuple[str, str]]) -> ModuleFacts:
    return ModuleFacts(target, debug=True, call_graph=CallGraph(calls=[CallEdge(a, b) for a, b in edges]))


def test_g_propagation_to_entries() -> None:
    """-g: entries take the callees' registers, barriers, %ctaid.z and externs; a record the
    entry has only through callees comes last (sm_75-89) or before the bank tail (sm_90+), in
    the callees' .text order; device functions keep their own; recursion makes the stack and
    the CRS depth of an entry unbounded."""
    heavy = FunctionFacts("heavy", register_count=100, num_barriers=6, ctaid_z_used=True, frame_size=8)
    framed = FunctionFacts("framed", register_count=30, num_barriers=12, externs=["vprintf"], frame_size=40)
    mid = FunctionFacts("mid", register_count=24, frame_size=16)
    k_mid = FunctionFacts("k_mid", is_kernel=True, register_count=10, exit_offsets=[0x100])
    k_own = FunctionFacts("k_own", is_kernel=True, register_count=10, num_barriers=3, exit_offsets=[0x100], crs_stack_size=0)
    funcs = [k_mid, k_own, mid, framed, heavy]  # .text order
    edges = [("k_mid", "mid"), ("mid", "framed"), ("mid", "heavy"), ("k_own", "heavy")]
    module = _g_module("sm_75", edges)
    recs = build_function_info(None, module, k_mid, functions=funcs)
    assert _attrs(recs)[-3:] == [EIAttr.EXIT_INSTR_OFFSETS, EIAttr.NUM_BARRIERS, EIAttr.CTAIDZ_USED]  # framed first
    assert recs[-2] == ByteValue(EIAttr.NUM_BARRIERS, 12)
    assert any(getattr(r, "symbols", None) == ("vprintf",) for r in recs[:-3])  # EXTERNS in place
    own = build_function_info(None, module, k_own, functions=funcs)
    assert ByteValue(EIAttr.NUM_BARRIERS, 6) in own
    assert _attrs(own).index(EIAttr.NUM_BARRIERS) < _attrs(own).index(EIAttr.MERCURY_ISA_VERSION)
    assert _attrs(own)[-2:] == [EIAttr.CRS_STACK_SIZE, EIAttr.CTAIDZ_USED]  # inherited: after CRS
    not_g = attrs.evolve(module, debug=False, compile_only=True)
    assert build_function_info(None, module, mid, functions=funcs) == build_function_info(None, not_g, mid)
    glob = build_global_info(None, module, funcs)
    regs = {r.symbol: r.value for r in glob if isinstance(r, SymbolValue) and r.attr is EIAttr.REGCOUNT}
    assert regs == {"k_mid": 100, "k_own": 100, "mid": 24, "framed": 30, "heavy": 100}
    mins = [(r.symbol, r.value) for r in glob if isinstance(r, SymbolValue) and r.attr is EIAttr.MIN_STACK_SIZE]
    assert mins == [("k_mid", 16 + 40), ("k_own", 8)]  # own frame + deepest chain of callee frames
    # sm_90+: the inherited NUM_BARRIERS goes right before the bank tail; no CTAIDZ_USED there
    h = build_function_info(
        "sm_90", attrs.evolve(module, target="sm_90"), attrs.evolve(k_mid, params=[Param(8, 8)]), functions=funcs
    )
    i = _attrs(h).index(EIAttr.CBANK_PARAM_SIZE)
    assert _attrs(h)[i - 2 : i] == [EIAttr.EXIT_INSTR_OFFSETS, EIAttr.NUM_BARRIERS] and EIAttr.CTAIDZ_USED not in _attrs(h)
    # recursion under a callee: unbounded MIN_STACK_SIZE and CRS_STACK_SIZE for the entries
    rec = _g_module("sm_75", [*edges, ("heavy", "heavy")])
    assert U32Value(EIAttr.CRS_STACK_SIZE, 0xFFFFFFFF) in build_function_info(None, rec, k_own, functions=funcs)
    mins = [r.value for r in build_global_info(None, rec, funcs) if getattr(r, "attr", None) is EIAttr.MIN_STACK_SIZE]
    assert mins == [0xFFFFFFFF, 0xFFFFFFFF]


def test_c_mode_does_not_propagate() -> None:
    f = FunctionFacts("f", num_barriers=8, ctaid_z_used=True)
    k = FunctionFacts("k", is_kernel=True)
    m = ModuleFacts("sm_75", compile_only=True, call_graph=CallGraph(calls=[CallEdge("k", "f")]))
    recs = build_function_info(None, m, k, functions=[k, f])
    assert EIAttr.NUM_BARRIERS not in _attrs(recs) and EIAttr.CTAIDZ_USED not in _attrs(recs)


# ---------------------------------------------------------------------------------------------
# Global .nv.info


def test_global_patterns() -> None:
    k1 = FunctionFacts("k1", is_kernel=True, register_count=8, frame_size=16, clones=[Clone("$k1$a", 16), Clone("$k1$b", 16)])
    k2 = FunctionFacts("k2", is_kernel=True, register_count=10)
    smp = [Sampler("s1", 0, 1, 3, 1), Sampler("s2", force_unnormalized=1)]

    def seq(module: ModuleFacts, funcs: list[FunctionFacts]) -> list[tuple[str, str]]:
        return [(r.attr.name, getattr(r, "symbol", "")) for r in build_global_info(None, module, funcs)]

    whole = ModuleFacts("sm_90", samplers=smp, texmode_independent=True)
    assert global_pattern(whole) == "P1"
    assert seq(whole, [k1, k2]) == [
        ("REGCOUNT", "k2"), ("FRAME_SIZE", "k2"),
        ("REGCOUNT", "k1"), ("SAMPLER_FORCE_UNNORMALIZED", "s2"), ("SAMPLER_INIT", "s2"), ("SAMPLER_INIT", "s1"),
        ("FRAME_SIZE", "$k1$b"), ("FRAME_SIZE", "$k1$a"), ("FRAME_SIZE", "k1"),
        ("TEXMODE_INDEPENDENT", ""), ("MIN_STACK_SIZE", "k1"), ("MIN_STACK_SIZE", "k2"),
    ]  # fmt: skip
    plain = [attrs.evolve(k, clones=()) for k in (k1, k2)]
    assert seq(ModuleFacts("sm_75", compile_only=True), plain) == [
        ("REGCOUNT", "k2"), ("MAX_STACK_SIZE", "k2"), ("FRAME_SIZE", "k2"),
        ("REGCOUNT", "k1"), ("MAX_STACK_SIZE", "k1"), ("FRAME_SIZE", "k1"),
    ]  # fmt: skip
    assert seq(ModuleFacts("sm_75", debug=True), plain)[:3] == [("REGCOUNT", "k2"), ("FRAME_SIZE", "k2"), ("GEN_ERRBAR_AT_EXIT", "")]
    ewp = ModuleFacts("sm_75", extensible_whole_program=True)
    rec = attrs.evolve(k1, recursive=True)
    assert seq(ewp, [rec])[:4] == [("REGCOUNT", "k1"), ("MAX_STACK_SIZE", "$k1$b"), ("MIN_STACK_SIZE", "$k1$b"), ("FRAME_SIZE", "$k1$b")]
    assert ("MIN_STACK_SIZE", "k1") not in seq(ewp, [k1])
    p5 = ModuleFacts("sm_75", uses_texture_query=True)
    assert global_pattern(p5) == "P5"
    assert seq(p5, [k2]) == [("REGCOUNT", "k2"), ("MAX_STACK_SIZE", "k2"), ("MIN_STACK_SIZE", "k2"), ("FRAME_SIZE", "k2")]
    # no function: MERCURY_ISA_VERSION after the samplers
    assert seq(ModuleFacts("sm_90"), []) == [("MERCURY_ISA_VERSION", "")]
    assert seq(whole, []) == [
        ("SAMPLER_FORCE_UNNORMALIZED", "s2"), ("SAMPLER_INIT", "s2"), ("SAMPLER_INIT", "s1"),
        ("MERCURY_ISA_VERSION", ""), ("TEXMODE_INDEPENDENT", ""),
    ]  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Decomposition keeps the entry's own values


@pytest.mark.usefixtures("ptxas_ok")
def test_decomposed_g_entries_hold_own_values() -> None:
    module, funcs = _facts(compile_probe(BUILDER_PROBES / "propagation_order.ptx", "sm_75", "g"))
    by = {f.name: f for f in funcs}
    assert module.debug and not module.compile_only
    # kp_c calls fc (printf, %ctaid.z, bar.sync 6): everything it shows comes from fc
    assert (by["kp_c"].externs, by["kp_c"].num_barriers, by["kp_c"].ctaid_z_used) == ((), 0, False)
    assert (by["fc"].externs, by["fc"].num_barriers, by["fc"].ctaid_z_used) == (("vprintf",), 7, True)
    module, funcs = _facts(compile_probe(BUILDER_PROBES / "propagation.ptx", "sm_75", "g"))
    by = {f.name: f for f in funcs}
    assert by["k_ownbig"].num_barriers == 10 and by["k_own"].num_barriers == 6  # max(own 3, heavy 6)
    assert by["k_via_mid"].num_barriers == 0 and by["k_via_mid"].register_count < by["heavy"].register_count


@pytest.mark.usefixtures("ptxas_ok")
def test_facts_json_round_trip() -> None:
    module, funcs = _facts(compile_probe(BUILDER_PROBES / "kitchen90.ptx", "sm_90", "def"))
    data = facts_to_json({"module": module, "functions": funcs}["module"])
    assert facts_from_json(ModuleFacts, data) == module
    for f in funcs:
        assert facts_from_json(FunctionFacts, facts_to_json(f)) == f
    import json

    json.dumps([facts_to_json(f) for f in funcs])  # plain types only
    assert any(f.cluster_dims == (2, 1, 1) and f.explicit_cluster for f in funcs)
    assert any(isinstance(r, Flag) and r.attr is EIAttr.EXPLICIT_CLUSTER for f in funcs for r in build_function_info(None, module, f))
