"""Debug-build rules probed one at a time (tests/probes_gfold, one small PTX probe per rule,
each compiled by ptxas here; the golden bytes are ptxas's):

* below sm_90 an ``atom`` whose result is used in a loop makes a call ptxas resolves itself;
  after a reference that asked .rel.text.<k> first (a resolved .const or shared reference under
  -g, a kept .global one) it asks .rela.text.<k> right after (resolved_call_after_*;
  tests/probes_gshared/gsh_atom_loop_after_ref for the shared case);
* -g, a module with one entry: ptxas folds every function into the entry, called or not, as a
  last step: CTAIDZ_USED, NUM_BARRIERS, then EXTERNS (replacing the entry's own when the
  functions bring new externs, each new one put in front in .text order) after every other
  record (fold_single_*); with two entries each folds only what it reaches (fold_two_kernels);
* -g folds along direct calls and, through an indirect call, into the address-taken functions
  with that call's prototype only, not those merely taken (a vtable's destructors): the stack
  depth (fold_single_other_prototype), and with several kernels the EXTERNS (nvcc -G
  fold_virtual_kernels: areas gets vprintf from Ci::area, not free from the destructors);
* -g NUM_MBARRIERS adds up: an entry's own mbarriers plus those of every function it reaches,
  each once, in place when the entry has some, else as a last record in .text order of the
  functions bringing it; a single entry folds it after NUM_BARRIERS, before EXTERNS
  (fold_mbarriers*, sm_80 on);
* likewise TCGEN05_1CTA_USED/TCGEN05_2CTA_USED and RESERVED_SMEM_USED (each callee's as
  NUM_MBARRIERS, NUM_BARRIERS, TCGEN05_*, RESERVED_SMEM_USED; VRC_CTA_INIT_COUNT in place with
  the callee's tensor-memory value); a single entry folds RESERVED_SMEM_USED first
  (fold_flags_*).

Every case rebuilds byte for byte on every target and mode listed, except those in
:data:`DECLINED`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle
from cubinemit.reader import read_cubin
from cubinemit.roundtrip import first_difference
from cubinemit.semantic import Module
from cubinemit.semantic.decompose import decompose

PROBES = sorted((Path(__file__).resolve().parent / "probes_gfold").glob("*.ptx"))
TARGETS = ("sm_75", "sm_86", "sm_89", "sm_90", "sm_100a", "sm_120")
MODES = ("g", "def", "c", "g_c")
#: (probe, mode) -> the reason its declines give (none left: nvcc -G C++ declares malloc, free
#: and vprintf after the constructors, and on sm_75, with no syscall suffix, free's `#vl` is
#: also the destructors' string: decompose._place_externs moves the externs there together)
DECLINED: dict[tuple[str, str], str] = {}


@pytest.fixture(scope="module")
def corpus(ptxas_ok) -> dict[tuple[str, str, str], Path]:
    return oracle.compile_many([(p, t, m) for p in PROBES for t in _targets(p) for m in MODES])


def _targets(probe: Path) -> tuple[str, ...]:
    """The targets a probe compiles on: mbarriers and %reserved_smem_offset_1 need sm_80,
    tcgen05 sm_100a."""
    if probe.stem.startswith("fold_tcgen05") or probe.stem == "fold_flags_tail":
        return ("sm_100a",)
    if probe.stem.startswith(("fold_mbarriers", "fold_flags")):
        return tuple(t for t in TARGETS if t != "sm_75")
    return TARGETS


def test_probes_are_there():
    assert {p.stem for p in PROBES} >= {"resolved_call_after_const", "resolved_call_after_global", "fold_single_uncalled", "fold_single_other_prototype", "fold_virtual_kernels", "fold_mbarriers"}


@pytest.mark.parametrize("target", ["sm_86", "sm_90", "sm_100a"])
def test_mbarriers_add_up_under_g(corpus, target):
    """The -g records the rule predicts, read from ptxas's cubin: k 1 + 2 = 3 in place (before
    EXIT_INSTR_OFFSETS), k2 the 2 it reaches as a last record (after it), k3 none; one entry
    folds NUM_BARRIERS, NUM_MBARRIERS, EXTERNS in that order."""
    from cubinemit.nvinfo.catalogue import EIAttr

    data = corpus[("fold_mbarriers", target, "g")].read_bytes()
    value = {k: [r.value for r in _kernel_records(data, k) if getattr(r, "attr", None) is EIAttr.NUM_MBARRIERS] for k in ("k", "k2", "k3")}
    assert value == {"k": [3], "k2": [2], "k3": []}
    for k, after_exit in (("k", False), ("k2", True)):
        attrs_ = [getattr(r, "attr", None) for r in _kernel_records(data, k)]
        assert (attrs_.index(EIAttr.NUM_MBARRIERS) > attrs_.index(EIAttr.EXIT_INSTR_OFFSETS)) == after_exit, k
    single = [getattr(r, "attr", None) for r in _kernel_records(corpus[("fold_mbarriers_single", target, "g")].read_bytes(), "k")]
    tail = [a for a in single if a in (EIAttr.NUM_BARRIERS, EIAttr.NUM_MBARRIERS, EIAttr.EXTERNS)]
    assert tail == [EIAttr.NUM_BARRIERS, EIAttr.NUM_MBARRIERS, EIAttr.EXTERNS]


def test_gfold_roundtrip(corpus):
    _, bad = oracle.corpus_outcomes(corpus, lambda key: DECLINED.get((key[0], key[2])))
    assert not bad, bad


@pytest.mark.parametrize("stem", ["resolved_call_after_const", "resolved_call_after_global"])
def test_resolved_call_after_rel_is_a_fact(corpus, stem):
    """The .rela ask of the resolved call follows the reference's .rel below sm_90 only."""
    for target in ("sm_75", "sm_89", "sm_90"):
        module = decompose(read_cubin(corpus[(stem, target, "g")].read_bytes()))
        want = "after_rel" if target != "sm_90" else None
        assert module.functions[0].facts.get("resolved_call") == want, (stem, target)


@pytest.mark.parametrize("target", TARGETS)
def test_resolved_reference_after_a_return_address(corpus, target):
    """h calls itself, then reads a .const table: the return address names .rela.text.h, the
    resolved .const reference .rel.text.h after it; the decomposer records it (fact
    resolved_call), and without the fact the rebuild does not name the dropped .rel."""
    data = corpus[("resolved_after_return", target, "g")].read_bytes()
    module = decompose(read_cubin(data))
    assert module.function("h").facts.get("resolved_call") is True
    assert Module.from_spec(module.to_spec()).to_cubin() == data
    assert data.index(b"\0.rela.text.h\0") < data.index(b"\0.rel.text.h\0")
    module.function("h").facts.pop("resolved_call")
    rebuilt = module.to_cubin()
    assert b"\0.rela.text.h\0" in rebuilt and b"\0.rel.text.h\0" not in rebuilt


@pytest.mark.parametrize("target", TARGETS)
def test_resolved_call_after_extern_call(corpus, target):
    """Whole program: the extern call asks .rel.text.k, the atom loop's resolved call .rela right
    after (below sm_90); the call itself explains the .rel, so no resolved_relocations fact."""
    module = decompose(read_cubin(corpus[("resolved_call_after_extern", target, "def")].read_bytes()))
    k = next(f for f in module.functions if f.name == "k")
    assert k.facts.get("resolved_call") == ("after_rel" if target in ("sm_75", "sm_86", "sm_89") else None)
    assert "resolved_relocations" not in k.facts


def _kernel_records(data: bytes, kernel: str) -> list:
    from cubinemit.elf.order import symbol_order
    from cubinemit.nvinfo.codec import decode_nvinfo

    obj = read_cubin(data)
    names = [""] + [y.name for y in symbol_order(obj)]
    section = next(s for s in obj.sections if s.name == f".nv.info.{kernel}" and not s.mercury)
    return decode_nvinfo(section.data, section=section.name, symbol_name=names.__getitem__)


@pytest.mark.parametrize("target", TARGETS)
def test_single_entry_folds_uncalled_functions(corpus, target):
    """fz is never called, yet k gets its externs last; the decomposed k keeps none of its own."""
    data = corpus[("fold_single_uncalled", target, "g")].read_bytes()
    records = _kernel_records(data, "k")
    assert getattr(records[-1], "symbols", None) == ("malloc",) or getattr(records[-4], "symbols", None) == ("malloc",)
    module = decompose(read_cubin(data))
    facts = next(f for f in module.functions if f.name == "k").facts["nvinfo"]
    assert not facts.get("externs") and not facts.get("ctaid_z_used") and not facts.get("num_barriers")


def test_single_entry_folds_tensor_memory_last(corpus):
    """One entry calling a tcgen05.alloc function: ptxas folds the callee's flags, then the
    entry's AT_ENTRY_FRAGMENTS, after every other record but the parameter bank's, and keeps
    the entry's own VRC_CTA_INIT_COUNT (0); the decomposed entry keeps the fragments as its own
    fact, not the flags."""
    from cubinemit.nvinfo.catalogue import EIAttr

    data = corpus[("fold_tcgen05_single", "sm_100a", "g")].read_bytes()
    attrs = [r.attr for r in _kernel_records(data, "k")]
    folded = [EIAttr.RESERVED_SMEM_USED, EIAttr.TCGEN05_1CTA_USED, EIAttr.NUM_BARRIERS, EIAttr.NUM_MBARRIERS, EIAttr.AT_ENTRY_FRAGMENTS]
    at = attrs.index(EIAttr.EXIT_INSTR_OFFSETS) + 1
    assert attrs[at : at + len(folded)] == folded
    vrc = next(r for r in _kernel_records(data, "k") if r.attr is EIAttr.VRC_CTA_INIT_COUNT)
    assert vrc.value == 0
    facts = next(f for f in decompose(read_cubin(data)).functions if f.name == "k").facts["nvinfo"]
    assert facts.get("at_entry_fragments") == [6] and not facts.get("tcgen05_1cta") and not facts.get("reserved_smem")


def test_single_entry_folds_fragments_after_externs(corpus):
    """With a callee that brings an extern too, the folded EXTERNS comes before the
    AT_ENTRY_FRAGMENTS, which stays last (ptxas: `... NUM_MBARRIERS EXTERNS
    AT_ENTRY_FRAGMENTS CBANK_PARAM_SIZE`)."""
    from cubinemit.nvinfo.catalogue import EIAttr

    records = _kernel_records(corpus[("fold_tcgen05_externs", "sm_100a", "g")].read_bytes(), "k")
    attrs = [r.attr for r in records]
    at = attrs.index(EIAttr.NUM_MBARRIERS)
    assert attrs[at : at + 4] == [EIAttr.NUM_MBARRIERS, EIAttr.EXTERNS, EIAttr.AT_ENTRY_FRAGMENTS, EIAttr.CBANK_PARAM_SIZE]
    assert records[at + 1].symbols == ("vprintf",)


@pytest.mark.parametrize("target", TARGETS)
def test_single_entry_externs_in_text_order(corpus, target):
    """The uncalled e (first in .text) brings vprintf, k itself malloc: each new extern is put in
    front as ptxas walks .text, the entry at its own place, so `malloc vprintf`."""
    records = _kernel_records(corpus[("fold_single_text_order", target, "g")].read_bytes(), "k")
    assert [r.symbols for r in records if hasattr(r, "symbols")] == [("malloc", "vprintf")]


def test_single_entry_folds_tensor_memory_groups(corpus):
    """A cta_group::2 alloc's NUM_MBARRIERS 0 is not folded into a single entry; functions
    using each group give the entry both flags and both fragments."""
    from cubinemit.nvinfo.catalogue import EIAttr

    cta2 = [r.attr for r in _kernel_records(corpus[("fold_tcgen05_cta2_single", "sm_100a", "g")].read_bytes(), "k")]
    assert EIAttr.NUM_MBARRIERS not in cta2
    at = cta2.index(EIAttr.EXIT_INSTR_OFFSETS) + 1
    assert cta2[at : at + 3] == [EIAttr.RESERVED_SMEM_USED, EIAttr.TCGEN05_2CTA_USED, EIAttr.AT_ENTRY_FRAGMENTS]
    both = _kernel_records(corpus[("fold_tcgen05_both_groups", "sm_100a", "g")].read_bytes(), "k")
    assert {EIAttr.TCGEN05_1CTA_USED, EIAttr.TCGEN05_2CTA_USED} <= {r.attr for r in both}
    assert next(r for r in both if r.attr is EIAttr.AT_ENTRY_FRAGMENTS).values == (6, 7)


def test_stack_follows_the_matching_prototype(corpus):
    """k takes fc's address but its indirect call has fb's prototype: MIN_STACK_SIZE is k's own."""
    from cubinemit.elf.order import symbol_order
    from cubinemit.nvinfo.codec import decode_nvinfo
    from cubinemit.nvinfo.records import SymbolValue
    from cubinemit.nvinfo.catalogue import EIAttr

    obj = read_cubin(corpus[("fold_single_other_prototype", "sm_86", "g")].read_bytes())
    names = [""] + [y.name for y in symbol_order(obj)]
    records = decode_nvinfo(obj.section(".nv.info").data, section=".nv.info", symbol_name=names.__getitem__)
    stack = {r.symbol: r.value for r in records if isinstance(r, SymbolValue) and r.attr is EIAttr.MIN_STACK_SIZE}
    frames = {r.symbol: r.value for r in records if isinstance(r, SymbolValue) and r.attr is EIAttr.FRAME_SIZE}
    assert frames["fc"] > 0 and stack["k"] == frames["k"]


@pytest.mark.parametrize("target", TARGETS)
def test_virtual_call_folds_the_matching_prototype_only(corpus, target):
    """areas takes the vtables of Sq and Ci (area methods and destructors) and calls area():
    its EXTERNS lists vprintf (Ci::area) and not free (the deleting destructors)."""
    records = _kernel_records(corpus[("fold_virtual_kernels", target, "g")].read_bytes(), "_Z5areasPKfPfi")
    externs = [r.symbols for r in records if hasattr(r, "symbols")]
    assert externs == [("vprintf",)], externs


@pytest.mark.parametrize("target", TARGETS)
def test_folded_extern_call_asks_nothing(corpus, target):
    """Whole program: k's vprintf call sits under a branch ptxas folds away, so no relocation
    and no .rel.text.k, while the call graph and EXTERNS keep vprintf; k2's call stays and asks.
    The decomposed k says so (fact ``extern_calls_folded``); without the fact the rebuild names
    .rel.text.k and differs from ptxas."""
    want = corpus[("folded_extern_call", target, "def")].read_bytes()
    obj = read_cubin(want)
    raw = bytes(obj.section(".shstrtab").data)
    assert b".rel.text.k\0" not in raw and b".rel.text.k2\0" in raw
    module = decompose(obj)
    facts = {f.name: f.facts for f in module.functions}
    assert facts["k"].get("extern_calls_folded") is True and "extern_calls_folded" not in facts["k2"]
    assert "vprintf" in next(f for f in module.functions if f.name == "k").calls
    assert module.to_cubin() == want
    del facts["k"]["extern_calls_folded"]
    got = module.to_cubin()
    assert got != want and b".rel.text.k\0" in bytes(read_cubin(got).section(".shstrtab").data)
