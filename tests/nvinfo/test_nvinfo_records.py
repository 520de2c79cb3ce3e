"""What the typed records say about the probes: values follow from the PTX."""

from __future__ import annotations

import nvinfo_oracle as oracle
import pytest
from conftest import needs_oracles

from cubinemit.nvinfo import codec
from cubinemit.nvinfo.catalogue import EIAttr
from cubinemit.nvinfo.records import (
    Annotations,
    ByteValue,
    Dim3,
    Flag,
    HalfValue,
    IndirectBranchTargets,
    InstrOffsets,
    KParamInfo,
    KParamInfoV2,
    MbarrierInstrOffsets,
    NvInfoRecord,
    ParamCbank,
    SamplerInit,
    SymbolList,
    SymbolValue,
    U32List,
    U32Value,
)

pytestmark = needs_oracles

PARAM_BASE = {"L": 0x160, "H": 0x210, "B": 0x380}


def family(arch: str) -> str:
    n = oracle.arch_number(arch)
    return "L" if n < 90 else "H" if n < 100 else "B"


def recs(cubins: dict, probe: str, arch: str, mode: str, section: str) -> list[NvInfoRecord]:
    cub = cubins[(probe, arch, mode)]
    return codec.decode_nvinfo(cub.sections[section], section=section, symbol_name=cub.symbol_name)


def only(records: list[NvInfoRecord], attr: EIAttr) -> NvInfoRecord:
    found = [r for r in records if r.attr is attr]
    assert len(found) == 1, (attr, found)
    return found[0]


def has(records: list[NvInfoRecord], attr: EIAttr) -> bool:
    return any(r.attr is attr for r in records)


@pytest.mark.parametrize("arch", oracle.TEST_ARCHS)
def test_kparam_info_and_param_bank(arch: str, test_cubins: dict) -> None:
    r = recs(test_cubins, "params", arch, "default", ".nv.info.k_mixed")
    kp = [x for x in r if isinstance(x, KParamInfo)]
    # (.u8, .u64, .u16, .u32, .f64, .b8, .f32): natural alignment, emitted highest ordinal first.
    layout = [(0, 1), (8, 8), (16, 2), (20, 4), (24, 8), (32, 1), (36, 4)]
    assert [(k.ordinal, k.offset, k.size) for k in kp] == [(i, *layout[i]) for i in reversed(range(7))]
    assert all(k.index == 0 and k.cbank == 0x1F and k.param_space == 0 for k in kp)
    assert only(r, EIAttr.CBANK_PARAM_SIZE) == HalfValue(EIAttr.CBANK_PARAM_SIZE, 40)
    assert only(r, EIAttr.PARAM_CBANK) == ParamCbank(".nv.constant0.k_mixed", PARAM_BASE[family(arch)], 40)

    ptrs = {
        k.ordinal: k
        for k in recs(test_cubins, "params", arch, "default", ".nv.info.k_ptrs")
        if isinstance(k, KParamInfo)
    }
    const_space = 3 if family(arch) == "L" else 4
    assert [(ptrs[i].space, ptrs[i].log_alignment) for i in range(5)] == [
        (4, 4),
        (2, 3),
        (const_space, 2),
        (1, 1),
        (5, 5),
    ]
    assert (ptrs[5].offset, ptrs[5].size, ptrs[6].offset, ptrs[6].size) == (40, 12, 64, 16)
    assert set(ptrs) == set(range(9))  # unused parameters are described too

    big = recs(test_cubins, "params", arch, "default", ".nv.info.k_big")
    assert not any(isinstance(x, KParamInfo) for x in big)
    assert [(k.ordinal, k.offset, k.size) for k in big if isinstance(k, KParamInfoV2)] == [
        (2, 0x1138, 2),
        (1, 8, 4400),
        (0, 0, 8),
    ]
    base = 0x1A80 if family(arch) == "L" else PARAM_BASE[family(arch)]
    assert only(big, EIAttr.PARAM_CBANK) == ParamCbank(".nv.constant0.k_big", base, 0x113A)
    edge = recs(test_cubins, "params", arch, "default", ".nv.info.k_p4352")
    assert [(k.size, k.offset) for k in edge if isinstance(k, KParamInfo)] == [(4352, 0)]


@pytest.mark.parametrize("arch", oracle.TEST_ARCHS)
def test_launch_bounds(arch: str, test_cubins: dict) -> None:
    r = recs(test_cubins, "params", arch, "default", ".nv.info.k_noparam")
    assert only(r, EIAttr.MAX_THREADS) == Dim3(EIAttr.MAX_THREADS, 256, 1, 1)
    assert not has(r, EIAttr.PARAM_CBANK) and not has(r, EIAttr.KPARAM_INFO)
    # .maxntid 256 + .minnctapersm 3 -> 24 warps -> floor(65536/4/(32*6)/8)*8 = 80 registers
    assert only(r, EIAttr.MAXREG_COUNT) == HalfValue(EIAttr.MAXREG_COUNT, 80)
    r = recs(test_cubins, "params", arch, "default", ".nv.info.k_reqntid")
    assert only(r, EIAttr.REQNTID) == Dim3(EIAttr.REQNTID, 32, 4, 2)
    assert only(r, EIAttr.MAXREG_COUNT).value == 40  # .maxnreg 40
    assert only(recs(test_cubins, "params", arch, "default", ".nv.info.k_mixed"), EIAttr.MAXREG_COUNT).value == 0xFF
    ctaidz = has(recs(test_cubins, "params", arch, "default", ".nv.info.k_ptrs"), EIAttr.CTAIDZ_USED)
    assert ctaidz == (family(arch) == "L")


@pytest.mark.parametrize("arch", ["sm_90", "sm_100a", "sm_120"])
def test_cluster_records(arch: str, test_cubins: dict) -> None:
    r = recs(test_cubins, "cluster", arch, "default", ".nv.info.k_cluster")
    assert only(r, EIAttr.CTA_PER_CLUSTER) == Dim3(EIAttr.CTA_PER_CLUSTER, 2, 1, 1)
    r = recs(test_cubins, "cluster", arch, "default", ".nv.info.k_explicit")
    assert only(r, EIAttr.EXPLICIT_CLUSTER) == Flag(EIAttr.EXPLICIT_CLUSTER)
    assert only(r, EIAttr.MAX_CLUSTER_RANK) == U32Value(EIAttr.MAX_CLUSTER_RANK, 8)


@pytest.mark.parametrize("arch", oracle.TEST_ARCHS)
def test_barriers(arch: str, test_cubins: dict) -> None:
    def nb(kernel: str, mode: str = "default") -> int | None:
        r = recs(test_cubins, "sync", arch, mode, f".nv.info.{kernel}")
        found = [x.value for x in r if isinstance(x, ByteValue) and x.attr is EIAttr.NUM_BARRIERS]
        return found[0] if found else None

    # highest barrier id + 1; 16 for a register id or bar.red on barrier 15; callees count.
    assert (nb("k_bar0"), nb("k_bar5"), nb("k_barreg"), nb("k_barcall")) == (1, 16, 16, 8)
    assert nb("k_barcall", "c") is None  # -c: no propagation from callees
    assert nb("k_barcall", "g") == 8  # -g: propagated


@pytest.mark.parametrize("arch", ["sm_75", "sm_90", "sm_120"])
def test_calls_externs_and_indirect_branches(arch: str, test_cubins: dict) -> None:
    r = recs(test_cubins, "calls", arch, "default", ".nv.info.k_malloc")
    assert only(r, EIAttr.EXTERNS) == SymbolList(EIAttr.EXTERNS, ("malloc", "free"))
    assert len(only(r, EIAttr.SYSCALL_OFFSETS).offsets) == 2  # type: ignore[union-attr]
    assert only(recs(test_cubins, "calls", arch, "c", ".nv.info.k_printf"), EIAttr.EXTERNS).symbols == ("vprintf",)  # type: ignore[union-attr]
    ibt = only(recs(test_cubins, "calls", arch, "default", ".nv.info.k_brx"), EIAttr.INDIRECT_BRANCH_TARGETS)
    assert isinstance(ibt, IndirectBranchTargets)
    assert [len(b.targets) for b in ibt.branches] == [4, 2] and all(b.reserved == 0 for b in ibt.branches)
    g = recs(test_cubins, "calls", arch, "default", ".nv.info")
    frames = {x.symbol: x.value for x in g if isinstance(x, SymbolValue) and x.attr is EIAttr.FRAME_SIZE}
    assert frames["k_calls"] >= 64  # the clone of with_local has a 64-byte local array
    assert all(x.attr in (EIAttr.REGCOUNT, EIAttr.FRAME_SIZE, EIAttr.MIN_STACK_SIZE) for x in g)
    gc = recs(test_cubins, "calls", arch, "c", ".nv.info")
    assert {x.symbol for x in gc if isinstance(x, SymbolValue) and x.attr is EIAttr.MAX_STACK_SIZE} >= {
        "fact",
        "k_calls",
    }
    gg = recs(test_cubins, "calls", arch, "g", ".nv.info")
    assert sum(isinstance(x, Flag) and x.attr is EIAttr.GEN_ERRBAR_AT_EXIT for x in gg) == sum(
        isinstance(x, SymbolValue) and x.attr is EIAttr.FRAME_SIZE for x in gg
    )
    mins = [
        x.value for x in gg if isinstance(x, SymbolValue) and x.attr is EIAttr.MIN_STACK_SIZE and x.symbol == "k_calls"
    ]
    assert mins == [0xFFFFFFFF]  # recursion: the stack cannot be bounded


@pytest.mark.parametrize("arch", oracle.TEST_ARCHS)
def test_samplers_and_textures(arch: str, test_cubins: dict) -> None:
    g = recs(test_cubins, "texind", arch, "default", ".nv.info")
    samplers = [x for x in g if isinstance(x, SamplerInit)]
    assert samplers == [  # decreasing symbol index = reverse declaration order
        SamplerInit("smp_l"),
        SamplerInit("smp_k", 0xFF, 3, 0xFF, 0),
        SamplerInit("smp_j", 4, 0xFF, 0xFF, 0xFF),
        SamplerInit("smp_i", 0, 1, 3, 1),
    ]
    unnorm = [
        (x.symbol, x.value) for x in g if isinstance(x, SymbolValue) and x.attr is EIAttr.SAMPLER_FORCE_UNNORMALIZED
    ]
    assert unnorm == [("smp_k", 1), ("smp_j", 0)]
    assert has(g, EIAttr.TEXMODE_INDEPENDENT)
    r = recs(test_cubins, "tex", arch, "default", ".nv.info.k_surf")
    assert only(r, EIAttr.BINDLESS_SURFACE_BANK) == ByteValue(EIAttr.BINDLESS_SURFACE_BANK, 0)
    assert not has(recs(test_cubins, "tex", arch, "default", ".nv.info.k_bindless"), EIAttr.BINDLESS_TEXTURE_BANK)


@pytest.mark.parametrize("arch", ["sm_80", "sm_89", "sm_90", "sm_100a", "sm_120"])
def test_mbarriers(arch: str, test_cubins: dict) -> None:
    r = recs(test_cubins, "mbar", arch, "default", ".nv.info.k_mbar")
    assert only(r, EIAttr.NUM_MBARRIERS) == HalfValue(EIAttr.NUM_MBARRIERS, 2)
    mb = only(r, EIAttr.MBARRIER_INSTR_OFFSETS)
    assert isinstance(mb, MbarrierInstrOffsets)
    kinds = [e.kind for e in mb.entries]
    assert kinds[:4] == [0, 0, 1, 1] and 5 in kinds and kinds[-1] == 8  # init, arrive, test_wait, inval
    assert all(e.stride == 0 and e.aux == 1 for e in mb.entries)
    assert has(r, EIAttr.INSTR_REG_MAP) == (oracle.arch_number(arch) < 90)


@pytest.mark.parametrize("arch", ["sm_100a", "sm_103", "sm_110a"])
def test_tcgen05_and_sparse_mma(arch: str, test_cubins: dict) -> None:
    if ("tcgen05", arch, "default") in test_cubins:
        r1 = recs(test_cubins, "tcgen05", arch, "default", ".nv.info.k_tc1")
        r2 = recs(test_cubins, "tcgen05", arch, "default", ".nv.info.k_tc2")
        assert only(r1, EIAttr.AT_ENTRY_FRAGMENTS) == U32List(EIAttr.AT_ENTRY_FRAGMENTS, (6,))
        assert only(r2, EIAttr.AT_ENTRY_FRAGMENTS) == U32List(EIAttr.AT_ENTRY_FRAGMENTS, (7,))
        assert has(r1, EIAttr.TCGEN05_1CTA_USED) and has(r2, EIAttr.TCGEN05_2CTA_USED)
        assert only(r1, EIAttr.VRC_CTA_INIT_COUNT) == ByteValue(EIAttr.VRC_CTA_INIT_COUNT, 0x80)
    else:
        assert arch == "sm_103"
    sp = recs(test_cubins, "mma", arch, "default", ".nv.info.k_mmasp")
    assert only(sp, EIAttr.SPARSE_MMA_MASK) == HalfValue(EIAttr.SPARSE_MMA_MASK, 0x10)


@pytest.mark.parametrize("arch", ["sm_75", "sm_90", "sm_120"])
def test_spills_wmma_atomics_sanitize_toolspatch(arch: str, test_cubins: dict) -> None:
    ann = only(recs(test_cubins, "spill", arch, "default", ".nv.info.k_spill"), EIAttr.ANNOTATIONS)
    assert isinstance(ann, Annotations) and len(ann.spill_refill_offsets) > 4
    assert has(recs(test_cubins, "wmma", arch, "default", ".nv.info.k_wmma"), EIAttr.WMMA_USED)
    a16 = only(recs(test_cubins, "sync", arch, "default", ".nv.info.k_atom16"), EIAttr.ATOM16_EMUL_INSTR_REG_MAP)
    assert a16.entries  # type: ignore[union-attr]
    warp = recs(test_cubins, "sync", arch, "default", ".nv.info.k_warp")
    coop = only(warp, EIAttr.COOP_GROUP_INSTR_OFFSETS)
    masks = only(warp, EIAttr.COOP_GROUP_MASK_REGIDS)
    assert isinstance(coop, InstrOffsets) and isinstance(masks, U32List)
    assert len(coop.offsets) == len(masks.values) and coop.offsets == tuple(sorted(coop.offsets))
    assert only(recs(test_cubins, "calls", arch, "memcheck", ".nv.info.k_brx"), EIAttr.SANITIZE).value == 1  # type: ignore[union-attr]
    assert has(recs(test_cubins, "toolspatch", arch, "toolspatch", ".nv.info.patch_fn"), EIAttr.TOOLS_PATCH_FUNC)


def test_function_info_text_reads_back():
    """The FunctionInfo text the builder writes is the one the decomposition reads, and is
    ptxas -annotate's spelling; any other text reads as None (declined, not guessed)."""
    from cubinemit.nvinfo.records import function_info_text, parse_function_info

    assert function_info_text(57, 24) == "instr/R-regs: 57 instructions, 24 R-regs"
    for n, r in ((0, 0), (57, 24), (123456, 255)):
        assert parse_function_info(function_info_text(n, r)) == (n, r)
    for other in ("instr/R-regs: 57 instructions, 24 R-regs ", "instr/R-regs: 57 instructions", "R-regs: 24", ""):
        assert parse_function_info(other) is None
