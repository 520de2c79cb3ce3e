"""Semantic round trip of the funcorder probes (tests/funcorder_probes): ptxas cubin -> leaf data
-> JSON -> build -> byte-identical, for every probe, target and mode.

These modules stress function order, symbols, clones and .nv.info record order (call chains,
diamonds, recursion, weak/static kernels, builtins, syscalls, externs, address-taking and
indirect calls, function addresses in module initializers). No mismatch is allowed: a case the
semantic level cannot rebuild must be declined (NotImplementedError), and every decline is
listed in DECLINED with the reason, so that a new decline or a new mismatch fails here.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from cubinemit.inspect import where_in
from cubinemit.reader import read_cubin
from cubinemit.roundtrip import first_difference, semantic_roundtrip

import oracle

HERE = Path(__file__).resolve().parent
PROBES = HERE / "funcorder_probes"
TARGETS = ("sm_75", "sm_90", "sm_100a")
MODES = ("def", "c", "g", "O0", "lineinfo")

#: (probe, target, mode) -> the reason the semantic level declines it (a fragment of the
#: NotImplementedError message); none since the shuffled orders of address-taking modules
#: (cubinemit.funcorder._shuffled) are modelled
DECLINED: dict[tuple[str, str, str], str] = {}


def _modes(ptx: Path) -> list[str]:
    m = re.search(r"^// modes: (.*)$", ptx.read_text(), re.M)
    return [x for x in (m.group(1).split() if m else MODES) if x in MODES]


PROBE_FILES = sorted(PROBES.glob("*.ptx"))


def _round_trip(data: bytes) -> str | None:
    """None when the rebuild is byte-identical, else where it first differs."""
    rebuilt = semantic_roundtrip(data)
    off = first_difference(rebuilt, data)
    return None if off is None else f"{off:#x} {where_in(read_cubin(data), off)}"


@pytest.mark.parametrize("ptx", PROBE_FILES, ids=lambda p: p.stem)
def test_funcorder_probe_round_trips(ptxas_ok: None, ptx: Path) -> None:
    jobs = [(ptx, t, m) for t in TARGETS for m in _modes(ptx)]
    misses, declined = [], {}
    for (name, target, mode), path in oracle.compile_many(jobs, workers=2).items():
        case = (name, target, mode)
        try:
            where = _round_trip(path.read_bytes())
        except NotImplementedError as exc:
            declined[case] = str(exc)
            continue
        if where is not None:
            misses.append((case, where))
    assert not misses, misses
    expected = {k: v for k, v in DECLINED.items() if k[0] == ptx.stem}
    assert set(declined) == set(expected), (sorted(set(declined) ^ set(expected)), declined)
    for case, why in declined.items():
        assert expected[case] in why, (case, why)


def test_every_probe_compiles_in_its_modes() -> None:
    """The matrix above is the one the probes declare (fo_externs, fo_syscall_names: -c only)."""
    assert len(PROBE_FILES) >= 14
    assert {p.stem: _modes(p) for p in PROBE_FILES}["fo_externs"] == ["c"]


#: random modules from the probe generator (tests/funcorder_probes/gen.py), with and without
#: address-taking; the reasons a case may be declined
RANDOM_SEEDS = (1, 4)
RANDOM_DECLINES = (
    # -c with address-taking: the declaration-order search (funcorder.declaration_order_from)
    # does not find every order; it must then decline, not guess
    "declaration order not recovered: no declaration order makes ptxas emit",
    "declaration order not recovered: the order found does not give the function symbols",
)


@pytest.mark.parametrize("seed", RANDOM_SEEDS)
def test_random_modules_round_trip_or_decline(ptxas_ok: None, seed: int, tmp_path_factory: pytest.TempPathFactory) -> None:
    sys.path.insert(0, str(PROBES))
    import gen

    folder = tmp_path_factory.mktemp(f"random{seed}")
    files = []
    for addr in (False, True):
        lines = gen.random_graph(seed * 7 + 3, 10 + seed % 12, addr=addr)
        path = folder / f"r{seed}_{int(addr)}.ptx"
        path.write_text("// random module (gen.random_graph)\n" + gen.render(lines))
        files.append(path)
    jobs = [(p, t, m) for p in files for t in TARGETS for m in MODES]
    misses, exact = [], 0
    for case, path in oracle.compile_many(jobs, workers=2).items():
        try:
            where = _round_trip(path.read_bytes())
        except NotImplementedError as exc:
            assert any(r in str(exc) for r in RANDOM_DECLINES), (case, str(exc))
            continue
        if where is None:
            exact += 1
        else:
            misses.append((case, where))
    assert not misses, misses
    assert exact >= len(jobs) // 2, exact


def test_prototype_order_the_rules_do_not_give_declines() -> None:
    """decompose._check_prototypes: where the declaration order found gives another
    .nv.prototype order than the cubin's, the decomposer declines naming .nv.prototype instead
    of writing the entries in its own order (the guard that turned nvcc -G thrust samples -c
    from silent mismatches into declines, before the externs-first rule of
    funcorder._group_class made them exact)."""
    from cubinemit import funcorder as fo
    from cubinemit.semantic.decompose import _check_prototypes

    funcs = [
        fo.PtxFunction("e1", linkage="extern", params=(fo.Param("b32"),)),
        fo.PtxFunction("e2", linkage="extern", params=(fo.Param("b64"),)),
        fo.PtxFunction("K", is_kernel=True, calls=("e1", "e2")),
    ]
    mode = fo.Mode.named("c")
    order = fo.function_order(funcs, mode)
    assert _check_prototypes(funcs, mode, order, 75, ["e1", "e2"]) == funcs
    with pytest.raises(NotImplementedError, match=r"\.nv\.prototype entries"):
        _check_prototypes(funcs, mode, order, 75, ["e2", "e1"])


@pytest.mark.parametrize("target", TARGETS)
def test_g_externs_reached_through_a_table_come_late(ptxas_ok: None, target: str) -> None:
    """-g, fo_table_load: k1 reaches f1's malloc only through a call into a function table and
    is not first in .text, so ptxas writes its EXTERNS after EXIT_INSTR_OFFSETS; k3, first in
    .text, has it in place. The builder gives both from facts that hold no call graph: the
    spec's module facts carry neither the call graph nor the table functions (both derived)."""
    from cubinemit.nvinfo import decode_nvinfo
    from cubinemit.semantic.model import Module

    data = oracle.compile_ptx(PROBES / "fo_table_load.ptx", target, "g").read_bytes()
    obj = read_cubin(data)
    names = [""] + [y.name for y in obj.symbols]

    def attrs_of(kernel: str) -> list[str]:
        s = next(s for s in obj.sections if s.name == f".nv.info.{kernel}")
        return [r.attr.name for r in decode_nvinfo(s.data, section=s.name, symbol_name=names.__getitem__)]

    k1, k3 = attrs_of("k1"), attrs_of("k3")
    assert k1.index("EXTERNS") > k1.index("EXIT_INSTR_OFFSETS")
    assert k3.index("EXTERNS") < k3.index("EXIT_INSTR_OFFSETS")
    module = Module.from_cubin(data)
    assert not {"call_graph", "table_functions"} & set(module.facts["nvinfo"])  # type: ignore[arg-type]
    assert first_difference(module.to_cubin(), data) is None
