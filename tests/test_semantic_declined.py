"""Cases the semantic level does not model yet decline with a reason that names what, never
build other bytes. Each probe here is one such case (ptxas output, compiled in the test); when
a rule lands the test fails and the probe moves to a round-trip test."""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle

PROBES = Path(__file__).resolve().parent / "probes_declined"

#: probe -> (targets, mode, the reason its decline gives)
#: (c_hidden_asks, the -c hidden reference's asks, moved to tests/probes_casks once
#: decompose._hidden_asks read its place)
CASES: dict[str, tuple[tuple[str, ...], str, str]] = {
    "gc_dev_shared_first": (("sm_75", "sm_89"), "g_c", "-g shared memory not reproduced yet (string table differ"),
}


def test_every_probe_is_listed():
    assert {p.stem for p in PROBES.glob("*.ptx")} == set(CASES)


@pytest.mark.parametrize("stem", sorted(CASES))
def test_declined_with_reason(ptxas_ok, stem):
    targets, mode, reason = CASES[stem]
    corpus = oracle.compile_many([(PROBES / f"{stem}.ptx", t, mode) for t in targets])
    for key, path in sorted(corpus.items()):
        kind, detail = oracle.semantic_outcome(path.read_bytes())
        assert (kind, reason in detail) == ("declined", True), (key, kind, detail)


def test_a_cubin_no_declaration_order_gives_is_declined(ptxas_ok, tmp_path):
    """A cubin whose function order no PTX gives (cg_algos -c sm_75 with the WEAK sm_70 warp
    builtins moved to the front, as reorder_functions once wrote it) is declined: the search
    for later bodies has one budget (funcorder._LATER_LIMIT), where each of its candidates
    used to try thousands of places and the decomposition ran for hours."""
    from cubinemit.errors import ModelError
    from cubinemit.semantic import Module

    ptx = tmp_path / "cg_algos.ptx"
    ptx.write_text((PROBES.parent / "probes_rw6" / "cg_algos.ptx").read_text())
    module = Module.from_cubin(oracle.compile_ptx(ptx, "sm_75", "c").read_bytes())
    weak = sorted((f for f in module.functions if f.linkage == "weak" and f.name.startswith("__cuda_sm70_")), key=lambda f: next(i for i, g in enumerate(module.functions) if f.name in g.calls))
    module.functions = weak + [f for f in module.functions if f not in weak]
    data = module.to_cubin()
    with pytest.raises((NotImplementedError, ModelError), match="no declaration order makes ptxas emit"):
        Module.from_cubin(data)
