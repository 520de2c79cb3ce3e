"""Texture/surface/sampler handle slots in bank 0 against ptxas, every family."""

from __future__ import annotations

import pytest

import alloc_probes as ap
from cubinemit.alloc import HandleKind, HandleUse, Kernel, Mode, Param, handle_slots, layout_bank0
from cubinemit.arch import parse_target
from cubinemit.errors import ModelError

DEF_TARGETS = ["sm_75", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_120"]
JOBS = [(p.name, t, "def") for p in ap.HANDLE_PROBES for t in DEF_TARGETS] + [
    (p.name, t, m) for p in ap.HANDLE_PROBES for t in ("sm_75", "sm_90", "sm_100a") for m in ("c", "g")
]


def _kernels(probe: ap.HandleProbe) -> list[Kernel]:
    return [Kernel(name, probe.params(name, nbytes), uses) for name, nbytes, uses in probe.kernels]


def _bank_relocs(obj, kernel: str) -> list[tuple[int, str]]:  # type: ignore[no-untyped-def]
    names = (f".rel.nv.constant0.{kernel}", f".rela.nv.constant0.{kernel}")
    return sorted((r.offset, r.symbol.name) for s in obj.sections if s.name in names for r in s.relocs)


@pytest.mark.parametrize("job", JOBS, ids=lambda j: "-".join(j))
def test_handle_slots_match_ptxas(job, compile_probes, elf) -> None:  # type: ignore[no-untyped-def]
    name, target, mode = job
    probe = next(p for p in ap.HANDLE_PROBES if p.name == name)
    obj = elf(compile_probes(JOBS)[job])
    sm = parse_target(target)[0]
    m = Mode.from_flags(mode)
    banks = layout_bank0(_kernels(probe), sm, mode=m, independent=probe.independent, debug_handles=probe.handles)
    for kname, _, uses in probe.kernels:
        bank = banks[kname]
        section = next(s for s in obj.sections if s.name == f".nv.constant0.{kname}")
        assert section.size == bank.size, kname
        got = _bank_relocs(obj, kname)
        expected = sorted((slot.offset, h) for slot in bank.slots for h, _ in slot.handles)
        if m is Mode.DEBUG:
            # -g: one slot per declared handle for every handle-using kernel; ptxas's order of
            # that table is not characterised, so compare offsets and names as sets
            assert sorted(o for o, _ in got) == sorted(o for o, _ in expected), kname
            assert sorted(n for _, n in got) == sorted(n for _, n in expected), kname
        else:
            assert got == expected, kname


def test_pair_rules_by_family() -> None:
    uses = [HandleUse(sampler="p1"), HandleUse(surface="s0"), HandleUse("t1", "p0"), HandleUse("t0")]
    legacy = handle_slots(uses, 0x168, 75, independent=True)
    assert [(s.offset, s.texture, s.sampler, s.surface) for s in legacy] == [
        (0x168, "t1", "p0", None),
        (0x16C, "t0", "p1", None),
        (0x170, None, None, "s0"),
    ]
    hopper = handle_slots(uses, 0x218, 90, independent=True)
    assert [h for s in hopper for h, _ in s.handles] == ["t1", "p0", "t0", "p1", "s0"]


def test_module_scope_start() -> None:
    ks = [Kernel("a", (Param("x", 13, 1),), (HandleUse("t"),)), Kernel("b", (Param("y", 100, 4),))]
    assert layout_bank0(ks, 75)["a"].slots[0].offset == 0x160 + 16
    assert layout_bank0(ks, 90)["a"].slots[0].offset == 0x210 + 100
    assert layout_bank0(ks, 100)["a"].slots[0].offset == 0x380 + 112
    assert layout_bank0(ks, 100)["b"].size == 0x380 + 100
    assert layout_bank0(ks, 100, mode=Mode.RELOCATABLE)["a"].size == 0x380 + 13


@pytest.mark.parametrize(
    "use, independent, message",
    [
        (HandleUse(), False, "names no handle"),
        (HandleUse(texture="t", surface="s"), False, "surface 's' together"),
        (HandleUse(sampler="p"), False, "sampler 'p' is used outside texmode_independent"),
    ],
)
def test_bad_uses(use, independent, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ModelError, match=message):
        layout_bank0([Kernel("k", (), (use,))], 75, independent=independent)


def test_debug_needs_table() -> None:
    with pytest.raises(ModelError, match="debug_handles"):
        layout_bank0([Kernel("k", (), (HandleUse("t"),))], 75, mode=Mode.DEBUG)
    banks = layout_bank0([Kernel("k", (), (HandleUse("t"),))], 75, mode=Mode.DEBUG, debug_handles=[("t", HandleKind.TEXTURE), ("s", HandleKind.SURFACE)])
    assert [s.offset for s in banks["k"].slots] == [0x160, 0x164] and banks["k"].size == 0x168
