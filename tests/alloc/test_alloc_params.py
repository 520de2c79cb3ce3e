"""Bank 0 parameters against ptxas: KPARAM offsets/sizes/version, PARAM_CBANK and bank size."""

from __future__ import annotations

import pytest

import alloc_probes as ap
from cubinemit.alloc import Kernel, Mode, Param, layout_bank0, layout_params
from cubinemit.arch import parse_target
from cubinemit.errors import ModelError

DEF_TARGETS = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_103", "sm_110", "sm_120", "sm_121f"]
REL_TARGETS = ["sm_75", "sm_90", "sm_100a"]
JOBS = [(probe, t, "def") for probe in ("params", "params_rand") for t in DEF_TARGETS]
JOBS += [(probe, t, "c") for probe in ("params", "params_rand") for t in REL_TARGETS]
SPECS = {"params": ap.PARAM_KERNELS, "params_rand": ap.random_param_kernels()}


@pytest.mark.parametrize("job", JOBS, ids=lambda j: "-".join(j))
def test_params_match_ptxas(job, compile_probes, elf) -> None:  # type: ignore[no-untyped-def]
    obj = elf(compile_probes(JOBS)[job])
    probe, target, mode = job
    sm = parse_target(target)[0]
    kernels = [Kernel(name, tuple(params)) for name, params in SPECS[probe]]
    banks = layout_bank0(kernels, sm, mode=Mode.from_flags(mode))
    for name, params in SPECS[probe]:
        bank = banks[name]
        section = next(s for s in obj.sections if s.name == f".nv.constant0.{name}")
        assert section.size == bank.size, name
        info = ap.kparam_info(obj, name)
        assert info.offsets == tuple(bank.params.offsets[p.name] for p in params), name
        assert info.sizes == tuple(p.size for p in params), name
        assert info.v2 == bank.params.large, name
        if params:
            assert info.cbank == (bank.params.base, bank.params.param_bytes), name
            assert info.param_size == bank.params.param_bytes, name
        else:
            assert info.cbank is None and info.param_size is None


def test_large_is_decided_on_the_relative_packing() -> None:
    # packed from 0 the block ends at 4257 (V1); aligned to bank-0 addresses on sm_75 it ends at
    # 4417 and still stays V1 at 0x160 (measured, params_rand k32)
    ps = [Param("a", 1, 256), Param("b", 8, 64), Param("c", 2000, 256), Param("d", 2000, 8), Param("e", 1, 2)]
    lay = layout_params(ps, 75)
    assert (lay.large, lay.base, lay.param_bytes) == (False, 0x160, 4417)
    assert tuple(lay.offsets.values()) == (160, 224, 416, 2416, 4416)


def test_small_limit_and_bases() -> None:
    assert layout_params([Param("a", 4352, 4)], 75).base == 0x160
    big = layout_params([Param("a", 4356, 4)], 75)
    assert (big.base, big.large, big.end) == (0x1A80, True, 0x1A80 + 4356)
    assert layout_params([Param("a", 4356, 4)], 90).base == 0x210
    assert layout_params([Param("a", 4353, 1)], 100).base == 0x380
    assert layout_params([], 120).end == 0x380


def test_packing() -> None:
    lay = layout_params([Param("a", 1, 1), Param("b", 8, 8), Param("c", 2, 2), Param("d", 3, 1), Param("e", 16, 16)], 75)
    assert dict(lay.offsets) == {"a": 0, "b": 8, "c": 16, "d": 18, "e": 32}
    assert lay.param_bytes == 48


@pytest.mark.parametrize(
    "params, message",
    [
        ([Param("p", -1, 4)], "'p': size -1"),
        ([Param("p", 0, 4)], "'p': size 0"),
        ([Param("p", 4, 3)], "'p': alignment 3"),
        ([Param("p", 4, 0)], "'p': alignment 0"),
        ([Param("p", 4, 4), Param("p", 4, 4)], "'p' is declared twice"),
        ([Param("a", 8, 8), Param("big", 32757, 4)], "'big' ends at 0x7ffd"),
    ],
)
def test_bad_params(params, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ModelError, match=message):
        layout_params(params, 75)


def test_unknown_kernel_duplicate() -> None:
    with pytest.raises(ModelError, match="kernel 'k' is declared twice"):
        layout_bank0([Kernel("k"), Kernel("k")], 75)
