"""Semantic round trip of the directive probes (tests/probes_directives): PTX directives the
real-world corpora seldom hold, each on the targets it compiles for, in every mode.

* blocks_clusters: ``.blocksareclusters`` writes EIATTR_BLOCKS_ARE_CLUSTERS first in the
  kernel's .nv.info (sm_90+);
* common_global: ``.common .global`` is an SHN_COMMON symbol under -c, a visible variable in
  whole-program builds;
* misc_sm80: directives that leave no record of their own;
* module_local: module-scope ``.local`` variables (PTX 2.3) give every kernel a
  ``.nv.local.<k>`` holding all of them, and disable the ABI; -g declines;
* multiple_return: a function returning two values makes ptxas disable the ABI, which only
  EI_ABIVERSION shows (2 below sm_90); whole program only (-c and -g refuse it);
* yield_hints: code for a PTX target below sm_70 built relocatable gets YIELD relocations
  against no symbol, made after the others from sm_90 on and left out of the Mercury clone;
* ref_params: texmode_independent ``.texref``/``.samplerref``/``.surfref`` kernel parameters
  (LOCAL symbols in the kernel's .text, KPARAM_INFO at offset 0xffff naming them; whole-program
  -g declines)."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

import oracle
from cubinemit.errors import ModelError
from cubinemit.nvinfo.catalogue import EIAttr
from cubinemit.reader import read_cubin
from cubinemit.semantic.model import Module

HERE = Path(__file__).resolve().parent / "probes_directives"
ALL_MODES = ("def", "c", "lineinfo", "g", "O0", "O0_c", "g_c", "lineinfo_c")
CASES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "blocks_clusters": (("sm_90", "sm_90a", "sm_100a", "sm_103", "sm_110", "sm_120", "sm_121a"), ALL_MODES),
    "common_global": (("sm_75", "sm_86", "sm_90", "sm_100a", "sm_120"), ALL_MODES),
    "misc_sm80": (("sm_80", "sm_89", "sm_90a", "sm_100", "sm_120"), ALL_MODES),
    "module_local": (("sm_75", "sm_86", "sm_89", "sm_90", "sm_100a", "sm_110", "sm_120"), ("def", "lineinfo", "O0")),
    "multiple_return": (("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100a", "sm_120"), ("def", "lineinfo", "O0")),
    "yield_hints": (("sm_75", "sm_86", "sm_90", "sm_100a", "sm_120"), ALL_MODES),
    "ref_params": (("sm_75", "sm_86", "sm_90", "sm_100a", "sm_120"), tuple(m for m in ALL_MODES if m != "g")),
}


def test_directive_probes_are_listed():
    assert {p.stem for p in HERE.glob("*.ptx")} == set(CASES)


@pytest.mark.parametrize("stem", sorted(CASES))
def test_directive_probe(ptxas_ok, stem):
    counts, bad, builds = oracle.probe_outcomes(HERE / f"{stem}.ptx", *CASES[stem])
    assert not bad, bad
    assert counts["exact"] == builds, counts


def _cubin(stem: str, target: str, mode: str) -> bytes:
    return oracle.compile_many([(HERE / f"{stem}.ptx", target, mode)])[(stem, target, mode)].read_bytes()


def test_blocks_are_clusters_is_a_fact_the_builder_places_first(ptxas_ok):
    data = _cubin("blocks_clusters", "sm_90", "def")
    module = Module.from_cubin(data)
    flagged = {f.name for f in module.functions if f.facts["nvinfo"].get("blocks_are_clusters")}
    assert flagged == {"k", "k2"}
    obj = read_cubin(data)
    info = next(s for s in obj.sections if s.name == ".nv.info.k2")
    # the first record: format NVAL (0x01), attribute 0x5b, no payload
    assert bytes(info.data[:4]) == bytes([0x01, EIAttr.BLOCKS_ARE_CLUSTERS, 0, 0])
    # ptxas refuses the directive without .reqntid: so does the builder
    k2 = module.function("k2")
    k2.facts["nvinfo"] = {k: v for k, v in k2.facts["nvinfo"].items() if k != "reqntid"}
    with pytest.raises(ModelError, match="'k2'.*blocks_are_clusters needs reqntid"):
        module.to_cubin()


def test_common_variables_sit_in_shn_common_under_c(ptxas_ok):
    data = _cubin("common_global", "sm_86", "c")
    module = Module.from_cubin(data)
    common = [(d.name, d.size, d.align) for d in module.data if d.linkage == "common"]
    assert common == [("cg", 16, 4), ("cg2", 40, 16)]
    syms = {y.name: y for y in read_cubin(data).symbols}
    assert (syms["cg2"].shndx, syms["cg2"].value, syms["cg2"].size) == (0xFFF2, 16, 40)
    # a whole-program build of the same module allocates them as visible variables: the bytes
    # of ptxas's default build, whose decomposition calls them visible
    whole = Module.from_cubin(_cubin("common_global", "sm_86", "def"))
    assert [d.linkage for d in whole.data if d.name in ("cg", "cg2")] == ["visible", "visible"]


def test_add_global_common_refuses_an_initialiser():
    module = Module(target="sm_80")
    with pytest.raises(ModelError, match="common variable 'x'"):
        module.add_global("x", 4, init=b"\0" * 4, common=True)
    assert module.add_global("y", 8, align=8, common=True).linkage == "common"


def test_reference_parameters_take_no_bytes_and_name_their_symbols(ptxas_ok):
    from cubinemit.elf.order import symbol_order
    from cubinemit.nvinfo.codec import decode_nvinfo
    from cubinemit.nvinfo.records import KParamInfo

    data = _cubin("ref_params", "sm_90", "c")
    module = Module.from_cubin(data)
    params = module.function("k_all").facts["nvinfo"]["params"]
    assert [p.get("symbol") for p in params] == [None, "k_all_t", "k_all_s", "k_all_su"]
    assert [p["pointee_space"] for p in params[1:]] == [6, 8, 7]
    obj = read_cubin(data)
    order = symbol_order(obj)
    info = next(s for s in obj.sections if s.name == ".nv.info.k_all")
    names = [""] + [y.name for y in order]
    records = decode_nvinfo(bytes(info.data), section=info.name, symbol_name=names.__getitem__)
    kparams = {r.ordinal: r for r in records if isinstance(r, KParamInfo)}
    for ordinal, name in ((1, "k_all_t"), (2, "k_all_s"), (3, "k_all_su")):
        r = kparams[ordinal]
        assert (r.offset, r.size) == (0xFFFF, 0)
        assert order[r.index - 1].name == name
    assert (kparams[0].offset, kparams[0].size) == (0, 8)  # the pointer packs as if alone
    # the symbols and records are derived: a renamed parameter's symbol moves with it
    params[1]["symbol"] = "renamed_t"
    fn = module.function("k_all")
    fn.relocations = [attrs.evolve(r, symbol="renamed_t") if r.symbol == "k_all_t" else r for r in fn.relocations]
    rebuilt = read_cubin(module.to_cubin())
    names = [y.name for y in symbol_order(rebuilt)]
    assert "renamed_t" in names and "k_all_t" not in names


def test_whole_program_g_reference_parameters_decline(ptxas_ok):
    with pytest.raises(NotImplementedError, match="-g: reference parameters .*k_all"):
        Module.from_cubin(_cubin("ref_params", "sm_90", "g"))


def test_reference_parameter_names_must_be_unique(ptxas_ok):
    module = Module.from_cubin(_cubin("ref_params", "sm_90", "def"))
    params = module.function("k_unused").facts["nvinfo"]["params"]
    params[1]["symbol"] = "k_all_t"  # k_all's texture parameter
    with pytest.raises(ModelError, match="reference parameter 'k_all_t' of 'k_(all|unused)': another symbol has that name"):
        module.to_cubin()


def test_multiple_return_values_disable_the_abi(ptxas_ok):
    """ptxas's header says ABI version 2 below sm_90 when a function returns several values;
    the decomposition keeps that as a module fact, and a builder that declares such a
    function gets the same header without it."""
    from cubinemit.errors import CubinFormatError

    old = _cubin("multiple_return", "sm_86", "def")
    assert old[8] == 2
    module = Module.from_cubin(old)
    assert module.facts.get("abi_disabled") is True
    # without the fact nothing says so: the header is the usual one
    del module.facts["abi_disabled"]
    assert module.to_cubin()[8] == 8
    # a function declared with two return values says it, as the PTX did
    module.function("pair").returns = [["b32", None], ["pred", None]]
    assert module.to_cubin() == old
    # from sm_90 on the header is the usual one, and nothing else tells
    assert _cubin("multiple_return", "sm_90", "def")[8] == 8
    assert "abi_disabled" not in Module.from_cubin(_cubin("multiple_return", "sm_90", "def")).facts
    # a version ptxas does not write is named, not taken
    with pytest.raises(CubinFormatError, match=r"e_ident\[8\].*ABI version 5"):
        Module.from_cubin(old[:8] + bytes([5]) + old[9:])


def test_module_local_variables_are_one_block_in_every_kernel(ptxas_ok):
    """The cubin keeps only the size and alignment of the module's .local variables, in every
    kernel's .nv.local.<k>: the decomposition holds them as one block, and a builder that
    declares the variables gets the block from their layout."""
    from cubinemit.semantic.model import LOCAL_BLOCK

    data = _cubin("module_local", "sm_86", "def")
    assert data[8] == 2  # no ABI
    obj = read_cubin(data)
    blocks = [(s.name, s.nobits_size, s.addralign, s.info.name) for s in obj.sections if s.name.startswith(".nv.local.")]
    assert blocks == [(f".nv.local.{k}", 36, 8, f".text.{k}") for k in ("kc", "kb", "ka")]
    module = Module.from_cubin(data)
    assert [(d.name, d.space, d.size, d.align) for d in module.data] == [(LOCAL_BLOCK, "local", 36, 8)]
    # the variables as the PTX declares them: .u8, .u64, .u8, .u16, .align 8 .b8[12]
    module.data.clear()
    for name, size, align in (("B1", 1, 1), ("B2", 8, 8), ("B3", 1, 1), ("B4", 2, 2), ("L2", 12, 8)):
        module.add_local(name, size, align=align)
    module.facts.pop("abi_disabled", None)  # the .local variables say it
    assert module.to_cubin() == data
    # one more byte at the end moves the size only
    module.add_local("B5", 1)
    assert [s.nobits_size for s in read_cubin(module.to_cubin()).sections if s.name == ".nv.local.ka"] == [37]


def test_module_local_variables_under_g_decline(ptxas_ok):
    with pytest.raises(NotImplementedError, match="-g output without the ABI"):
        Module.from_cubin(_cubin("module_local", "sm_86", "g"))
    module = Module.from_cubin(_cubin("module_local", "sm_86", "def"))
    module.options["debug"] = True
    with pytest.raises(NotImplementedError, match="-g output without the ABI"):
        module.to_cubin()


def test_yield_hint_relocations(ptxas_ok):
    """-c for a PTX target below sm_70: a YIELD_OPCODE9_0/YIELD_CLEAR_PRED4_87 pair against no
    symbol in .rela.text.addp after the other entries (sm_90 on), none in the Mercury clone."""
    for target in ("sm_90", "sm_100a"):
        obj = read_cubin(_cubin("yield_hints", target, "g_c"))
        names = [slot.text for slot in obj.shstrtab.slots]
        assert names.index(".rel.text.addp") < names.index(".rela.text.addp")
        rela = next(s for s in obj.sections if s.name == ".rela.text.addp")
        assert [(r.type, r.symbol) for r in rela.relocs][-2:] == [(68, None), (69, None)]
    merc = next(s for s in obj.sections if s.name == ".nv.merc.rela.text.addp")
    assert len(merc.relocs) == len(rela.relocs) - 2
