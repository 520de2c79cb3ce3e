"""Globals, user constants (bank 3) and the generic-address table (bank 4) against ptxas."""

from __future__ import annotations

import pytest

import alloc_probes as ap
from cubinemit.alloc import ConstVar, GlobalVar, Mode, constant4_order, layout_constant3, layout_constant4, layout_globals
from cubinemit.errors import ModelError

GLOBAL_JOBS = [(f"glob{s}", t, m) for s in ap.GLOBAL_SEEDS for t, m in (("sm_75", "def"), ("sm_90", "c"), ("sm_100a", "g"), ("sm_120", "lineinfo"))]
GLOBAL_JOBS += [("glob_equal", "sm_75", "def")]
CONST_JOBS = [(f"const{s}", t, m) for s in ap.CONST_SEEDS for t, m in (("sm_75", "def"), ("sm_100a", "O0"), ("sm_75", "c"), ("sm_90", "g"))]
C4_JOBS = [(p.name, t, m) for p in ap.C4_PROBES for t, m in (("sm_75", "def"), ("sm_90", "def"), ("sm_100a", "def"), ("sm_75", "c"), ("sm_90", "g"))]


def _symbols(obj, section: str) -> dict[str, int]:  # type: ignore[no-untyped-def]
    return {y.name: y.value for y in obj.symbols if y.section is not None and y.section.name == section and y.type != 3}


def _section(obj, name: str):  # type: ignore[no-untyped-def]
    return next((s for s in obj.sections if s.name == name), None)


@pytest.mark.parametrize("job", GLOBAL_JOBS, ids=lambda j: "-".join(j))
def test_globals_match_ptxas(job, compile_probes, elf) -> None:  # type: ignore[no-untyped-def]
    name = job[0]
    obj = elf(compile_probes(GLOBAL_JOBS)[job])
    variables = ap.GLOBAL_EQUAL if name == "glob_equal" else ap.random_globals(int(name[4:]))[0]
    lay = layout_globals(variables)
    for section, expected in ((".nv.global.init", lay.init), (".nv.global", lay.uninit)):
        s = _section(obj, section)
        assert _symbols(obj, section) == dict(expected.offsets), section
        if expected.empty:
            assert s is None
        else:
            assert (s.size, s.addralign) == (expected.size, expected.align), section


@pytest.mark.parametrize("job", CONST_JOBS, ids=lambda j: "-".join(j))
def test_constant3_matches_ptxas(job, compile_probes, elf) -> None:  # type: ignore[no-untyped-def]
    name, _, mode = job
    obj = elf(compile_probes(CONST_JOBS)[job])
    variables = ap.random_consts(int(name[5:]))[0]
    lay = layout_constant3(variables, Mode.from_flags(mode))
    s = _section(obj, ".nv.constant3")
    # initialised constants hold equal bytes: ptxas still gives each its own storage
    assert _symbols(obj, ".nv.constant3") == dict(lay.offsets)
    assert (s.size, s.addralign) == (lay.size, lay.align)


def _c4_expected(probe: ap.C4Probe) -> list[str]:
    # whole-program function order: kernels in reverse PTX order; each lists its externs in
    # declaration order
    decl = [d for d in probe.decls if isinstance(d, str)]
    function_externs = [[e for e in decl if e in calls] for _, calls, _ in reversed(probe.kernels)]
    return constant4_order(function_externs, [d for d in probe.decls if isinstance(d, GlobalVar)])


@pytest.mark.parametrize("job", C4_JOBS, ids=lambda j: "-".join(j))
def test_constant4_matches_ptxas(job, compile_probes, elf) -> None:  # type: ignore[no-untyped-def]
    name, _, mode = job
    probe = next(p for p in ap.C4_PROBES if p.name == name)
    obj = elf(compile_probes(C4_JOBS)[job])
    s = _section(obj, ".nv.constant4")
    if mode != "def":
        assert s is None  # -c and -g leave generic addresses to the linker / code
        return
    lay = layout_constant4(_c4_expected(probe))
    relocs = next(x for x in obj.sections if x.name in (".rel.nv.constant4", ".rela.nv.constant4")).relocs
    assert {r.symbol.name: r.offset for r in relocs} == dict(lay.offsets)
    assert (s.size, s.addralign, s.data) == (lay.size, lay.align, bytes(lay.size))


def test_constant4_order_rules() -> None:
    gs = [GlobalVar("a", 1, 1), GlobalVar("v", 1, 1, visible=True)]
    assert constant4_order([["free"], ["malloc", "free"]], gs) == ["free", "v", "a", "malloc"]
    assert constant4_order([], gs) == ["v", "a"]


def test_global_sort_example() -> None:
    # larger alignment first, then smaller size, through the list sort (e1 of the measurements)
    vs = [GlobalVar(n, s, a, initialized=True) for n, a, s in (("a", 4, 4), ("b", 4, 8), ("c", 4, 4), ("d", 8, 8), ("e", 8, 16), ("f", 8, 8), ("g", 4, 12), ("h", 4, 4))]
    assert list(layout_globals(vs).init.offsets) == ["d", "f", "e", "c", "a", "h", "b", "g"]


def test_constant3_whole_program_keeps_declaration_order() -> None:
    vs = [ConstVar("x", 1, 1), ConstVar("y", 8, 8, visible=True), ConstVar("z", 4, 16)]
    lay = layout_constant3(vs)
    assert dict(lay.offsets) == {"y": 0, "x": 8, "z": 16} and (lay.size, lay.align) == (20, 16)
    assert list(layout_constant3(vs, Mode.DEBUG).offsets) == ["z", "y", "x"]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: layout_globals([GlobalVar("g", 0, 4)]), "global variable 'g': size 0"),
        (lambda: layout_globals([GlobalVar("g", 4, 6)]), "global variable 'g': alignment 6"),
        (lambda: layout_globals([GlobalVar("g", 4, 4), GlobalVar("g", 1, 1, initialized=True)]), "'g' is declared twice"),
        (lambda: layout_constant3([ConstVar("c", -4, 4)]), "constant 'c': size -4"),
        (lambda: layout_constant4(["a", "a"]), "entry 'a' is declared twice"),
    ],
)
def test_bad_input(call, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ModelError, match=message):
        call()


PRINTF_JOBS = [("printf", t, "def") for t in ("sm_75", "sm_90", "sm_100a")]


@pytest.mark.parametrize("job", PRINTF_JOBS, ids=lambda j: j[1])
def test_printf_format_string_is_an_ordinary_global(job, ptxas_ok) -> None:  # type: ignore[no-untyped-def]
    # tests/probes/printf.ptx: nvcc's `.global .align 1 .b8 $str[18]` and the extern vprintf
    import oracle

    from cubinemit.reader import read_cubin

    obj = read_cubin(oracle.compile_ptx(oracle.PROBES / "printf.ptx", job[1], job[2]).read_bytes())
    lay = layout_globals([GlobalVar("$str", 18, 1, initialized=True)])
    s = _section(obj, ".nv.global.init")
    assert _symbols(obj, ".nv.global.init") == dict(lay.init.offsets)
    assert (s.size, s.addralign) == (lay.init.size, lay.init.align)
    c4 = layout_constant4(constant4_order([["vprintf"]], [GlobalVar("$str", 18, 1, initialized=True)]))
    relocs = next(x for x in obj.sections if x.name in (".rel.nv.constant4", ".rela.nv.constant4")).relocs
    assert {r.symbol.name: r.offset for r in relocs} == dict(c4.offsets)
