"""Semantic round trip of library modules and -c -O0 callers (tests/probes_lib/README.md):
device functions without a kernel, built by ptxas 13.0.88 on ten targets in eight modes, must
come back byte for byte; so must the structural rules they exercise, checked on ptxas's own
output rather than on ours."""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle
from cubinemit.inspect import where_in
from cubinemit.nvinfo import EIAttr, iter_wire_records
from cubinemit.reader import read_cubin
from cubinemit.roundtrip import first_difference, semantic_roundtrip

HERE = Path(__file__).resolve().parent / "probes_lib"
PROBES = sorted(HERE.glob("*.ptx"))
TARGETS = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_103", "sm_110", "sm_120")
MODES = ("def", "c", "lineinfo", "g", "O0", "g_c", "lineinfo_c", "O0_c")
#: an undefined function only links in relocatable output (undefined variables do: whole
#: program warns and defines them, tests/probes_lib/extern_vars*)
RELOCATABLE_ONLY = {"lib_extern"}


def _cases() -> list[tuple[Path, str, str]]:
    return [(p, t, m) for p in PROBES for t in TARGETS for m in MODES if p.stem not in RELOCATABLE_ONLY or m.endswith("c")]


@pytest.fixture(scope="module")
def lib_corpus(ptxas_ok: None) -> dict[tuple[str, str, str], Path]:
    return oracle.compile_many(_cases())


def test_every_case_round_trips(lib_corpus):
    assert len(lib_corpus) == 5 * len(TARGETS) * len(MODES) + 1 * len(TARGETS) * 4
    bad = []
    for key, path in sorted(lib_corpus.items()):
        data = path.read_bytes()
        try:
            off = first_difference(semantic_roundtrip(data), data)
        except Exception as exc:  # noqa: BLE001 - a decline is a failure here too
            bad.append((key, f"{type(exc).__name__}: {exc}"))
            continue
        if off is not None:
            bad.append((key, f"{off:#x} {where_in(read_cubin(data), off)}"))
    assert not bad, bad


def _module_info(path: Path) -> list[EIAttr]:
    obj = read_cubin(path.read_bytes())
    return [EIAttr(w.code) for w in iter_wire_records(obj.find_section(".nv.info").data, section=".nv.info")]


@pytest.mark.parametrize("target", ["sm_75", "sm_90", "sm_100a"])
def test_mercury_isa_version_of_a_module_without_kernels(lib_corpus, target):
    """The rule the builder reproduces, read from ptxas: first under -g and -c -O0, last
    under an optimised -c, alone in whole-program output (the functions are dropped)."""
    info = {m: _module_info(lib_corpus[("lib_refs", target, m)]) for m in MODES}
    merc = EIAttr.MERCURY_ISA_VERSION
    for m in ("g", "g_c", "O0_c"):
        assert info[m][0] is merc and info[m].count(merc) == 1, (m, info[m])
    for m in ("c", "lineinfo_c"):
        assert info[m][-1] is merc and info[m].count(merc) == 1, (m, info[m])
    for m in ("def", "O0", "lineinfo"):
        assert info[m] == [merc], (m, info[m])
    # a module with a kernel has none
    assert merc not in _module_info(lib_corpus[("static_callee", target, "c")])


def _strtab(path: Path) -> list[str]:
    return [s.text for s in read_cubin(path.read_bytes()).strtab.slots]


def test_symbols_before_the_first_function_of_an_optimised_library(lib_corpus):
    """-c without kernels: the UFT/UDT symbols (sm_90+) and the visible variables' names come
    before the first function's .text; with -O0 after it."""
    def first_text(names: list[str]) -> int:
        return next(i for i, n in enumerate(names) if n.startswith(".text."))

    names = _strtab(lib_corpus[("lib_refs", "sm_90", "c")])
    assert names.index("__UDT_OFFSET") < first_text(names) and names.index("tref") < names.index("fb")
    names = _strtab(lib_corpus[("lib_refs", "sm_90", "O0_c")])
    assert first_text(names) < names.index("__UDT_OFFSET") and names.index("fa") < names.index("tref")


def test_static_callee_named_at_the_first_relocation_under_c_O0(lib_corpus):
    for target in ("sm_75", "sm_90", "sm_120"):
        names = _strtab(lib_corpus[("static_callee", target, "O0_c")])
        assert names.index("helper") < names.index(".rela.text.k_static") < names.index(".text.helper"), target
