"""-g handle tables (tests/probes_texg/README.md): ptxas's slot order is
cubinemit.alloc.params.debug_handle_order of the PTX (the declared references and the first
kernel's uses, read here from the PTX text), and the modules rebuild byte for byte."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import oracle
from cubinemit.alloc.params import HandleKind, HandleUse, debug_handle_order, debug_slot_permutation
from cubinemit.inspect import where_in
from cubinemit.reader import read_cubin
from cubinemit.roundtrip import first_difference, semantic_roundtrip

PROBES = sorted((Path(__file__).resolve().parent / "probes_texg").glob("*.ptx"))
TARGETS = ("sm_75", "sm_86", "sm_90", "sm_100a", "sm_120")
KINDS = {".texref": HandleKind.TEXTURE, ".samplerref": HandleKind.SAMPLER, ".surfref": HandleKind.SURFACE}


def _expected(text: str) -> list[str]:
    declared = [(name, KINDS[kind]) for kind, name in re.findall(r"^\.global (\.\w+ref) (\w+)", text, re.M)]
    first_body = text.split(".entry", 2)[1]
    uses = []
    for args in re.findall(r"(?:tex\.1d\.v4\.s32\.s32 \{[^}]*\}|txq\.width\.b32 %r6|suld\.b\.1d\.b32\.trap \{%r6\}), \[([^\]]*)\]", first_body):
        names = [a.strip() for a in args.split(",") if not a.strip().startswith("{")]
        kinds = dict(declared)
        uses.append(HandleUse(**{kinds[n].value: n for n in names}))
    return [name for name, _ in debug_handle_order(declared, uses)]


@pytest.fixture(scope="module")
def corpus(ptxas_ok):
    return oracle.compile_many([(p, t, m) for p in PROBES for t in TARGETS for m in ("g", "def", "c")])


def test_probes_are_there():
    assert len(PROBES) >= 16


def test_slot_order_is_ptxas_order(corpus):
    for probe in PROBES:
        want = _expected(probe.read_text())
        for target in TARGETS:
            obj = read_cubin(corpus[(probe.stem, target, "g")].read_bytes())
            tables = []
            for s in obj.sections:
                if s.name.startswith((".rel.nv.constant0.", ".rela.nv.constant0.")) and not s.mercury:
                    tables.append([r.symbol.name for r in sorted(s.relocs, key=lambda r: r.offset)])
            assert tables and all(t == want for t in tables), (probe.stem, target, tables, want)


def test_texg_roundtrip(corpus):
    misses = []
    for key, path in sorted(corpus.items()):
        data = path.read_bytes()
        off = first_difference(semantic_roundtrip(data), data)
        if off is not None:
            misses.append((key, f"{off:#x} {where_in(read_cubin(data), off)}"))
    assert not misses, misses


def test_permutation_examples():
    """The measured orders of tables of 2 to 8 handles (first function's handle first)."""
    assert [debug_slot_permutation(n) for n in range(1, 9)] == [
        (0,), (1, 0), (0, 2, 1), (1, 3, 0, 2), (4, 0, 2, 1, 3), (5, 1, 3, 4, 0, 2), (4, 0, 6, 2, 5, 1, 3), (5, 1, 7, 3, 4, 0, 6, 2),
    ]
    for n in range(40):
        assert sorted(debug_slot_permutation(n)) == list(range(n))
