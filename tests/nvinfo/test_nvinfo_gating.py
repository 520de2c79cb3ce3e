"""The SM-gating table agrees with every record ptxas writes for the probes on every target."""

from __future__ import annotations

import re
from pathlib import Path

import nvinfo_oracle as oracle
import pytest
from conftest import ALL_ARCHS, needs_oracles

from cubinemit.errors import ModelError
from cubinemit.nvinfo import codec, gating
from cubinemit.nvinfo.catalogue import EIAttr, EICompatAttr
from cubinemit.nvinfo.gating import Emission, check_record, gate, parse_target
from cubinemit.nvinfo.records import CompatValue, CompatWords

#: Targets outside the brief's list, checked on a few probes: odd ones out (sm_87/88) and variants.
EXTRA_ARCHS = ("sm_87", "sm_88", "sm_100f", "sm_103a", "sm_103f", "sm_110", "sm_110f", "sm_120a", "sm_120f", "sm_121a")
EXTRA_PROBES = ("params", "mbar", "tcgen05", "calls")


def check_cubin(cub: oracle.Cubin, arch: str) -> None:
    """Every rule of the table holds for one cubin."""
    constants = gating.every_function_constants(arch)
    for name in cub.metadata_sections():
        if name == ".nv.compat":
            continue
        records = codec.decode_nvinfo(cub.sections[name], section=name, symbol_name=cub.symbol_name)
        for r in records:
            check_record(arch, r.attr)  # never a code the target does not take
            assert gate(arch, r.attr).emission is not Emission.UNKNOWN, r
        if name == ".nv.info":
            continue
        func = name[len(".nv.info.") :]
        is_entry = bool(cub.symbol_other[cub.symbol_index(func)] & 0x10)
        present = {r.attr: r for r in records}
        for attr, value in constants.items():
            if attr is EIAttr.RESERVED_SMEM_USED and not is_entry:
                continue  # sm_110 marks entries only
            assert attr in present, f"{cub.path.name}: {name} lacks {attr.cuobjdump_name}"
            if value is not None:
                assert present[attr].value == value, f"{cub.path.name}: {name} {attr.cuobjdump_name}"  # type: ignore[union-attr]
    assert (".nv.compat" in cub.sections) == gating.has_compat_section(arch)
    if gating.has_compat_section(arch):
        got = codec.decode_compat(cub.sections[".nv.compat"])
        isa = got[1]
        fast = got[6]
        assert isinstance(isa, CompatValue) and isa.attr is EICompatAttr.ISA_CLASS and isa.value in (1, 2)
        assert isinstance(fast, CompatWords) and fast.attr is EICompatAttr.CAN_FASTPATH_FINALIZE
        assert fast.values[0] & ~gating.fastpath_mask(arch) == 0  # kernels only clear bits
        assert got == gating.compat_records(arch, isa_class=isa.value, fastpath=fast.values[0])


@needs_oracles
@pytest.mark.parametrize("arch", ALL_ARCHS)
def test_gating_on_probes(arch: str, probe_cubins: dict) -> None:
    cubins = {k: c for k, c in probe_cubins.items() if k[1] == arch}
    assert cubins
    for cub in cubins.values():
        check_cubin(cub, arch)
    # Plain kernels carry exactly the every-function records.
    if ("params", arch, "default") in cubins:
        fcompat = cubins[("params", arch, "default")].sections.get(".nv.compat")
        assert fcompat is None or codec.decode_compat(fcompat) == gating.compat_records(arch)


@pytest.fixture(scope="module")
def extra_cubins(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out: Path = tmp_path_factory.mktemp("extra")
    jobs = [
        (oracle.PROBES / f"{p}.ptx", a, "default")
        for p in EXTRA_PROBES
        for a in EXTRA_ARCHS
        if oracle.probe_supports(oracle.PROBES / f"{p}.ptx", a)
    ]
    return {k: oracle.read_cubin(v) for k, v in oracle.compile_many(jobs, out).items()}


@needs_oracles
def test_gating_on_other_targets(extra_cubins: dict) -> None:
    for (probe, arch, _mode), cub in extra_cubins.items():
        check_cubin(cub, arch)
    # tcgen05 compiles on the 'f' variants too, and the records follow.
    assert ("tcgen05", "sm_100f", "default") in extra_cubins and ("tcgen05", "sm_120a", "default") not in extra_cubins
    sw = {arch: gate(arch, EIAttr.SW_WAR) for arch in ("sm_75", "sm_87", "sm_88", "sm_90", "sm_110f", "sm_121a")}
    assert [(g.emission, g.value) for g in sw.values()] == [
        (Emission.EVERY_FUNCTION, 1),
        (Emission.EVERY_FUNCTION, 2),
        (Emission.NEVER, None),
        (Emission.EVERY_FUNCTION, 8),
        (Emission.EVERY_FUNCTION, 8),
        (Emission.EVERY_FUNCTION, 0),
    ]


def test_check_record_errors() -> None:
    check_record("sm_75", EIAttr.CTAIDZ_USED)
    check_record("sm_100a", EIAttr.TCGEN05_1CTA_USED)
    for arch, code, words in [
        ("sm_90", EIAttr.CTAIDZ_USED, "sm_90+ never flag %ctaid.z"),
        ("sm_89", EIAttr.SW_WAR, "sm_80/86/88/89"),
        ("sm_90", EIAttr.SW2861232_WAR, "only sm_80/86/87/88"),
        ("sm_89", EIAttr.SPARSE_MMA_MASK, "before sm_90"),
        ("sm_90a", EIAttr.VRC_CTA_INIT_COUNT, "before sm_100"),
        ("sm_90", EIAttr.INSTR_REG_MAP, "sm_80..89"),
        ("sm_100", EIAttr.TCGEN05_2CTA_USED, "tcgen05"),
        ("sm_120a", EIAttr.AT_ENTRY_FRAGMENTS, "tcgen05"),
        ("sm_89", EIAttr.CTA_PER_CLUSTER, "clusters"),
        ("sm_75", EIAttr.NUM_MBARRIERS, "sm_80"),
        ("sm_90", EIAttr.RTCORE_ENTRY, "up to 0x5f"),
    ]:
        with pytest.raises(ModelError, match=re.escape(words)):
            check_record(arch, code)
    with pytest.raises(ModelError, match="unknown"):
        check_record("sm_90", 0x60)
    with pytest.raises(ModelError, match="not a ptxas 13.0.88 target"):
        parse_target("sm_91")
    assert parse_target("sm_100f").family == "B" and parse_target("sm_86").family == "L"
    table = gating.gating_table(("sm_75", "sm_90"))
    assert table[EIAttr.MERCURY_ISA_VERSION]["sm_90"].value == 0x0101
    assert table[EIAttr.CUDA_API_VERSION]["sm_75"].value == 0x82
    assert gating.every_function_constants("sm_80") == {
        EIAttr.CUDA_API_VERSION: 0x82,
        EIAttr.MERCURY_ISA_VERSION: 0,
        EIAttr.SW2861232_WAR: None,
    }
    with pytest.raises(ModelError):
        gating.compat_records("sm_89")
