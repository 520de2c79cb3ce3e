"""Shared memory against ptxas: whole program (sizes, SASS addresses), -g (symbols), -c, reserved."""

from __future__ import annotations

import pytest

import alloc_probes as ap
from cubinemit.alloc import (
    DebugKernel,
    Mode,
    SharedFunction,
    SharedModule,
    SharedObject,
    SharedScope,
    SharedVar,
    allocate_debug_shared,
    layout_reserved_smem,
    layout_shared,
)
from cubinemit.arch import parse_target
from cubinemit.errors import ModelError

SPECS = ap.shared_specs()
TARGETS = ["sm_75", "sm_90", "sm_100a"]
JOBS = [(n, t, m) for n in SPECS for t in TARGETS for m in ("def", "g")] + [(n, "sm_75", "c") for n in SPECS]
JOBS += [(n, "sm_120", "c") for n in list(ap.SHARED_NAMED)]


def _sections(obj) -> dict[str, tuple[int, int]]:  # type: ignore[no-untyped-def]
    return {
        s.name: (s.size, s.addralign)
        for s in obj.sections
        if s.name == ".nv_debug.shared" or (s.name.startswith(".nv.shared.") and s.name != ".nv.shared.reserved.0")
    }


def _symbols(obj) -> dict[str, tuple[str, int]]:  # type: ignore[no-untyped-def]
    out = {}
    for y in obj.symbols:
        if y.section is None or y.type == 3 or "shared" not in y.section.name or y.section.name == ".nv.shared.reserved.0":
            continue
        name = y.name
        if name.startswith("$__"):  # -c renames function-scope variables $__<name>__<id>
            name = name[3:].rsplit("__", 1)[0]
        out[name] = (y.section.name, y.value)
    return out


@pytest.mark.parametrize("job", JOBS, ids=lambda j: "-".join(j))
def test_shared_matches_ptxas(job, compile_probes, elf) -> None:  # type: ignore[no-untyped-def]
    name, target, mode = job
    spec = SPECS[name]
    path = compile_probes(JOBS)[job]
    obj = elf(path)
    lay = layout_shared(spec, parse_target(target)[0], Mode.from_flags(mode))
    assert _sections(obj) == {n: (s.size, s.align) for n, s in lay.sections.items()}
    if mode == "def":
        assert not _symbols(obj)  # whole-program shared variables have no symbols
        if target == "sm_75":
            # every kernel stores each address it uses (its own and its callees' clones)
            for k in spec.functions:
                if not k.kernel:
                    continue
                stored = ap.sass_stored_constants(path)[k.name]
                for f in [k] + [g for g in spec.functions if not g.kernel]:
                    for var in ap.used_in_order(spec, f):
                        where = ap.store_offset(spec, f, var)
                        if where in stored:
                            assert stored[where] == lay.offsets[k.name][var], (k.name, f.name, var)
                for var in ap.used_in_order(spec, k):
                    assert ap.store_offset(spec, k, var) in stored, (k.name, var)
    else:
        assert _symbols(obj) == dict(lay.symbols)


RESERVED_TARGETS = ["sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_103", "sm_110", "sm_110a", "sm_120", "sm_121"]
RESERVED_JOBS = [("rsv_plain", t, m) for t in RESERVED_TARGETS for m in ("def", "g", "c")]
RESERVED_JOBS += [(name, t, m) for t, name in ap.TCGEN05_TARGETS.items() for m in ("def", "g", "c")]


@pytest.mark.parametrize("job", RESERVED_JOBS, ids=lambda j: "-".join(j))
def test_reserved_smem_matches_ptxas(job, compile_probes, elf) -> None:  # type: ignore[no-untyped-def]
    name, target, mode = job
    obj = elf(compile_probes(RESERVED_JOBS)[job])
    expected = layout_reserved_smem(parse_target(target)[0], Mode.from_flags(mode), tcgen05=name != "rsv_plain")
    s = next((x for x in obj.sections if x.name == ".nv.shared.reserved.0"), None)
    if expected is None:
        assert s is None
        return
    assert (s.size, s.addralign) == (expected.size, expected.align)
    got = {y.name: y.value for y in obj.symbols if y.section is s and y.type != 3}
    assert got == dict(expected.symbols)


def test_reserved_smem_absent_before_sm_90() -> None:
    assert layout_reserved_smem(75) is None and layout_reserved_smem(89, Mode.DEBUG) is None


def test_whole_program_order() -> None:
    # the measured example: a(m) b(v) c(m) d(f) e(m) f(v) g(f) -> b f d g a c e
    v = [SharedVar("a", 20, 4), SharedVar("b", 24, 8, SharedScope.VISIBLE), SharedVar("c", 36, 4), SharedVar("e", 52, 4), SharedVar("f", 60, 4, SharedScope.VISIBLE)]
    k = SharedFunction("k", True, [SharedVar("d", 44, 4), SharedVar("g", 68, 16)], ["a", "b", "c", "d", "e", "f", "g"])
    lay = layout_shared(SharedModule(v, [k]), 75)
    assert dict(lay.offsets["k"]) == {"b": 0, "f": 0x18, "d": 0x54, "g": 0x80, "a": 0xC4, "c": 0xD8, "e": 0xFC}
    assert lay.sections[".nv.shared.k"].size == 0x130
    assert layout_shared(SharedModule(v, [k]), 90).sections[".nv.shared.k"].size == 0x530


def test_debug_example_from_the_measurements() -> None:
    objs = [
        SharedObject("A", 64, 4, {"k1", "k2"}),
        SharedObject("B", 128, 4, {"k3", "k4"}),
        SharedObject("C", 32, 4, {"k1", "k3"}),
        SharedObject("D", 256, 128, {"k5", "k6"}),
        SharedObject("E", 32, 4, {"k2", "k4", "k5"}),
    ]
    kernels = [DebugKernel(f"k{i}") for i in range(1, 7)]
    lay = allocate_debug_shared(objs, kernels, base=0x400)
    assert {n: v for n, (_, v) in lay.symbols.items()} == {"A": 0x400, "B": 0x400, "D": 0x400, "C": 0x500, "E": 0x500}
    assert lay.sections[".nv_debug.shared"].size == 0x520


@pytest.mark.parametrize(
    "module, message",
    [
        (SharedModule([SharedVar("s", -1, 4)]), "shared variable 's': size -1"),
        (SharedModule([SharedVar("s", 4, 12)]), "shared variable 's': alignment 12"),
        (SharedModule([SharedVar("s", 4, 4), SharedVar("s", 8, 4)]), "'s' is declared twice"),
        (SharedModule([SharedVar("x", 4, 4, SharedScope.EXTERN)]), "extern shared variable 'x' must have size 0"),
        (SharedModule([], [SharedFunction("k", True, (), ["nope"])]), "'k' uses unknown shared variable 'nope'"),
        (SharedModule([], [SharedFunction("k", True, (), (), ["f"])]), "'k' calls unknown function 'f'"),
        (SharedModule([], [SharedFunction("k", True), SharedFunction("j", True, (), (), ["k"])]), "'j' calls kernel 'k'"),
        (SharedModule([], [SharedFunction("k", True, [SharedVar("v", 4, 4, SharedScope.VISIBLE)])]), "'v' of 'k' must be INTERNAL"),
        (SharedModule([], [SharedFunction("f"), SharedFunction("f")]), "function 'f' is declared twice"),
        (SharedModule([], [SharedFunction("f", False, (), ["v"]), SharedFunction("k", True, [SharedVar("v", 4, 4)], ["v"])]), "'f' uses unknown shared variable 'v'"),
    ],
)
def test_bad_modules(module, message) -> None:  # type: ignore[no-untyped-def]
    for mode in Mode:
        with pytest.raises(ModelError, match=message):
            layout_shared(module, 75, mode)


def test_bad_objects() -> None:
    with pytest.raises(ModelError, match="'o' is used by unknown kernel 'k9'"):
        allocate_debug_shared([SharedObject("o", 4, 4, {"k9"})], [DebugKernel("k")])
    with pytest.raises(ModelError, match="shared object 'o': alignment 3"):
        allocate_debug_shared([SharedObject("o", 4, 3, {"k"})], [DebugKernel("k")])
