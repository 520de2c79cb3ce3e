"""The Mercury tail (cubinemit.mercury) against ptxas 13.0.88.

Every probe of tests/probes, tests/nvinfo/probes and tests/mercury_probes is compiled for the
sm_100+ targets below in every mode it supports. For each cubin, every ``.nv.merc.*`` clone and
``.nv.merc.symtab`` is derived from the originals plus the Mercury leaf facts
(:func:`cubinemit.mercury.facts_from_cubin`) and compared with the file; each clone is derived a
second time with no leaf at all, which sorts the clones into those the rules alone give and
those that need Mercury facts. The coverage table is written to
``.cache/mercury-coverage.txt`` (and printed with ``pytest -s``).
"""

from __future__ import annotations

import re
import struct
from collections import Counter, defaultdict
from pathlib import Path

import pytest

import oracle
import probes_manifest
from cubinemit import mercury as M
from cubinemit.elf.layout import layout
from cubinemit.elf.model import ElfObject
from cubinemit.reader import read_cubin

HERE = Path(__file__).resolve().parent
TARGETS = ("sm_100", "sm_100a", "sm_103", "sm_110", "sm_120", "sm_121")
MODES = ("def", "c", "lineinfo", "g", "O0")
FEATURE_PROBES = (HERE / "nvinfo" / "probes", HERE / "mercury_probes")
STAGE = oracle.CACHE / "mercury_ptx"

# --- the corpus ------------------------------------------------------------------------------


def _header(text: str, key: str, default: str) -> str:
    for line in text.splitlines():
        if line.startswith(f"// {key}:"):
            return line.split(":", 1)[1].strip()
    return default


def _supports(spec: str, target: str) -> bool:
    def num(t: str) -> int:
        return int(re.match(r"sm_(\d+)", t).group(1))  # type: ignore[union-attr]

    if spec == "all":
        return True
    if spec.endswith("+"):
        return num(target) >= num(spec[:-1])
    return target in spec.split()


def corpus_jobs() -> list[tuple[Path, str, str]]:
    """(ptx, target, mode) for the container probes and the feature probes (templates with
    ``.target @TARGET@``; a probe limited to a/f targets runs on the a variant)."""
    jobs: list[tuple[Path, str, str]] = []
    for probe in probes_manifest.probes():
        jobs += [(oracle.PROBES / f"{probe['name']}.ptx", t, m) for t in TARGETS for m in probe["modes"] if m in MODES]
    for src in sorted(p for d in FEATURE_PROBES for p in d.glob("*.ptx")):
        text = src.read_text()
        spec = _header(text, "archs", "all")
        modes = ["def" if m == "default" else m for m in _header(text, "modes", "default c g").split()]
        for t in TARGETS:
            if not _supports(spec, t):
                if not _supports(spec, t + "a"):
                    continue
                t += "a"
            prefix = "merc" if src.parent.name == "mercury_probes" else "nv"
            staged = STAGE / t / f"{prefix}_{src.stem}.ptx"
            staged.parent.mkdir(parents=True, exist_ok=True)
            body = text.replace("@TARGET@", t)
            if not staged.exists() or staged.read_text() != body:
                staged.write_text(body)
            jobs += [(staged, t, m) for m in modes if m in oracle.MODES]
    return list(dict.fromkeys(jobs))


@pytest.fixture(scope="module")
def cubins(ptxas_ok: None) -> dict[tuple[str, str, str], ElfObject]:
    paths = oracle.compile_many(corpus_jobs())
    return {k: read_cubin(p.read_bytes()) for k, p in sorted(paths.items())}


@pytest.fixture(scope="module")
def checks(cubins: dict[tuple[str, str, str], ElfObject]) -> dict[tuple[str, str, str], list[M.CloneCheck]]:
    return {k: M.check_cubin(o) for k, o in cubins.items()}


# --- every clone, derived --------------------------------------------------------------------


def test_every_clone_is_derived(checks: dict[tuple[str, str, str], list[M.CloneCheck]]) -> None:
    total, exact = Counter(), Counter()
    tiers: dict[str, Counter[str]] = defaultdict(Counter)
    failures = []
    for key, results in checks.items():
        for c in results:
            total[c.kind] += 1
            exact[c.kind] += c.exact
            tiers[c.kind][c.tier] += 1
            if not c.exact:
                failures.append(f"{'/'.join(key)} {c.name}: {c.reason}")
    lines = [f"{len(checks)} cubins ({', '.join(TARGETS)})", f"{'exact':>11}  {'rule':>5} {'r+leaf':>6} {'leaf':>5}  clone kind"]
    for kind in sorted(total):
        t = tiers[kind]
        lines.append(f"{exact[kind]:5d}/{total[kind]:<5d}  {t['rule']:5d} {t['rule+leaf']:6d} {t['leaf']:5d}  {kind}")
    report = "\n".join(lines)
    out = oracle.CACHE.parent / "mercury-coverage.txt"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report + "\n")
    print("\n" + report)
    assert not failures, f"{len(failures)} clones not derived:\n" + "\n".join(failures[:40])
    # every kind of clone the brief names occurs in the corpus
    for kind in (
        ".nv.merc.symtab", ".nv.merc.nv.info", ".nv.merc.nv.info.<f>", ".nv.merc.rela.text.<f>",
        ".nv.merc.debug_frame", ".nv.merc.rela.debug_frame", ".nv.merc.nv.constant.pic",
        ".nv.merc.nv.constant.user", ".nv.merc.nv.global.init", ".nv.merc.nv.shared.reserved.0",
        ".nv.merc.nv.constant.entry_image_header_indices.<f>", ".nv.merc.nv.constant.optimizer.<f>",
        ".nv.merc.debug_line", ".nv.merc.nv_debug_line_sass", ".nv.merc.nv_debug_info_reg_sass",
    ):  # fmt: skip
        assert total[kind], kind


#: Clone kinds that the rules alone derive in every cubin (no Mercury leaf at all).
RULE_ONLY = (
    ".nv.merc.nv.constant.pic", ".nv.merc.nv.constant.user", ".nv.merc.nv.shared.reserved.0",
    ".nv.merc.nv.constant.entry_image_header_indices.<f>", ".nv.merc.debug_abbrev", ".nv.merc.debug_info",
    ".nv.merc.debug_loc", ".nv.merc.debug_macinfo", ".nv.merc.nv_debug_ptx_txt",
    ".nv.merc.rela.nv.constant.pic", ".nv.merc.rela.nv.constant.entry_image_header_indices.<f>",
)  # fmt: skip


def test_rule_only_kinds(checks: dict[tuple[str, str, str], list[M.CloneCheck]]) -> None:
    bad = [f"{'/'.join(k)} {c.name}" for k, rs in checks.items() for c in rs if c.kind in RULE_ONLY and c.tier != "rule"]
    assert not bad, bad[:20]


def test_global_info_needs_leaves_only_for_clone_frames(cubins: dict[tuple[str, str, str], ElfObject], checks: dict[tuple[str, str, str], list[M.CloneCheck]]) -> None:
    """.nv.merc.nv.info is the original except FRAME_SIZE of whole-program clones $k$f."""
    for key, rs in checks.items():
        c = next(c for c in rs if c.name == ".nv.merc.nv.info")
        if c.tier != "rule":
            assert M.facts_from_cubin(cubins[key]).frame_sizes, key


# --- the leaves --------------------------------------------------------------------------------


def test_mercury_address_map_is_monotone(cubins: dict[tuple[str, str, str], ElfObject]) -> None:
    """One Mercury address per SASS instruction, never decreasing: the map read from the nv.info
    offsets, the text relocations, the clone symbols, the debug addends and the jump tables is a
    single order-preserving function per .text section (not one-to-one: SASS-only instructions
    such as the trailing BRA loop share the address of their Mercury neighbour)."""
    for key, o in cubins.items():
        facts = M.facts_from_cubin(o)  # raises on a SASS offset with two Mercury addresses
        for func, ff in facts.functions.items():
            pairs = sorted(ff.pc.items())
            assert all(b1 <= b2 for (_, b1), (_, b2) in zip(pairs, pairs[1:])), (key, func, pairs)
            assert all(a % 16 == 0 and b % 16 == 0 for a, b in pairs), (key, func)


def test_finalizer_options_are_a_function_of_the_options(cubins: dict[tuple[str, str, str], ElfObject]) -> None:
    """MERCURY_FINALIZER_OPTIONS: one payload per module, the same on every sm_100+ target."""
    by_probe_mode: dict[tuple[str, str], set[bytes]] = defaultdict(set)
    for (probe, _target, mode), o in cubins.items():
        opts = M.facts_from_cubin(o).finalizer_options
        if opts is not None:
            by_probe_mode[(probe, mode)].add(opts)
    assert by_probe_mode
    assert all(len(v) == 1 for v in by_probe_mode.values()), {k: len(v) for k, v in by_probe_mode.items() if len(v) > 1}
    assert len({next(iter(v)) for v in by_probe_mode.values()}) < 16  # a handful of option sets


def test_capsule_header(cubins: dict[tuple[str, str, str], ElfObject]) -> None:
    """A capsule starts with u32 ordinal = header index of its .text.<f>, u32 magic 0xC0000001."""
    n = 0
    for key, o in cubins.items():
        lay = layout(o)
        for s in o.sections:
            if s.name.startswith(".nv.capmerc.text."):
                ordinal, magic, _count = M.capsule_header(s.data)
                assert magic == M.CAPSULE_MAGIC, (key, s.name)
                assert s.clone_of is not None and ordinal == lay.index[id(s.clone_of)], (key, s.name)
                n += 1
    assert n


def test_creation_names(cubins: dict[tuple[str, str, str], ElfObject]) -> None:
    """A data clone is named after the creation name of its original (renamed banks included)."""
    for key, o in cubins.items():
        for s in o.sections:
            if s.mercury and s.clone_of is not None and s.name.startswith(".nv.merc.") and s.relocs is None:
                assert ".nv.merc" + M.creation_name(s.clone_of, o) == s.name, key


def test_line_tables_reencode(cubins: dict[tuple[str, str, str], ElfObject]) -> None:
    """The line-program encoder is ptxas's: every line table, SASS and Mercury, re-encodes from
    its rows to the same bytes."""
    n = 0
    for key, o in cubins.items():
        for s in o.sections:
            if s.relocs is None and s.name.endswith((".debug_line", ".nv_debug_line_sass")) and s.data:
                hdr, events = M.decode_line_events(s.data)
                assert M.encode_line_events(hdr, events) == s.data, (key, s.name)
                n += 1
    assert n


def test_function_pointer_initializers(cubins: dict[tuple[str, str, str], ElfObject]) -> None:
    """EXEC resolves code addresses in .nv.global.init; Mercury zeroes them and relocates them
    (R_MERCURY_PROG_REL64 against the clone). The positions are a leaf of the PTX initializer."""
    o = cubins[("merc_fptr_table", "sm_100", "def")]
    facts = M.facts_from_cubin(o)
    assert facts.code_pointers[".nv.global.init"] == ((0, "$k_tab$f_one"), (8, "$k_tab$f_two"))
    clone = o.section(".nv.merc.nv.global.init")
    assert clone.data == bytes(16) and o.section(".nv.global.init").data != bytes(16)
    rel = o.section(".nv.merc.rela.nv.global.init").relocs
    assert [r.type for r in rel] == [0x10007, 0x10007]


# --- units ---------------------------------------------------------------------------------------


def test_reloc_names_and_types() -> None:
    assert len(M.R_MERCURY_NAMES) == 65
    assert M.R_MERCURY_NAMES[2] == "R_MERCURY_ABS64" and M.R_MERCURY_NAMES[61] == "R_MERCURY_ABS_PROG_REL64"
    assert M.mercury_reloc_type(6, ".nv.constant0.k", None) == 0x1000B
    assert M.mercury_reloc_type(73, ".debug_frame", None) == 0x1000E
    with pytest.raises(M.MercuryError):
        M.mercury_reloc_type(999, ".text.k", None)


def test_missing_leaves_raise(cubins: dict[tuple[str, str, str], ElfObject]) -> None:
    o = cubins[("kernel_minimal", "sm_100", "def")]
    info = next(s for s in o.sections if s.name.startswith(".nv.info."))
    with pytest.raises(M.MercuryError):
        M.derive_merc_info(o, info, M.MercuryFacts())  # no finalizer options, no Mercury EXIT
    with pytest.raises(M.MercuryError):
        M.derive_merc_symbols(o, M.MercuryFacts())  # no Mercury function size
    with pytest.raises(M.MercuryError):
        M.capsule_header(b"\x00" * 4)


def test_leaves_of_one_cubin_do_not_fit_another(cubins: dict[tuple[str, str, str], ElfObject]) -> None:
    """The derivation uses the leaves: another module's leaves give other clones."""
    a = cubins[("func_calls", "sm_100", "c")]
    b = cubins[("func_calls", "sm_100", "O0")]
    results = M.check_cubin(a, M.facts_from_cubin(b))
    assert not all(c.exact for c in results)


def test_cfa_rule_exit_pattern() -> None:
    """SASS 'advance E, advance 1 insn, def_cfa' becomes 'advance 16, advance E', def_cfa,
    advance -16' with E' the Mercury EXIT."""
    sass = b"\x04" + struct.pack("<I", 0x58) + b"\x04" + struct.pack("<I", 4) + b"\x0c\x81\x80\x80\x28\x00"
    facts = M.MercuryFacts(functions={"k": M.FunctionFacts(pc={0: 0, 0x160: 0x240})})
    got = M.rule_cfa(sass, "k", 0, facts)
    assert got == (
        b"\x04" + struct.pack("<I", 16) + b"\x04" + struct.pack("<I", 0x240) + b"\x0c\x81\x80\x80\x28\x00"
        + b"\x04" + struct.pack("<I", 0xFFFFFFF0)
    )  # fmt: skip


def test_return_address_apart_from_the_recorded_instruction() -> None:
    """Mercury may put instructions of its own between a call's return point and the
    instruction .nv.info records there (a CUTLASS implicit-GEMM conv kernel, -c sm_121a: nv.info
    says SASS 0xcd00 is Mercury 0x432a0, the call returns to 0x431e0). The return address is
    kept apart (FunctionFacts.returns) instead of declaring the map no function; a second,
    different return address for the same point still is a conflict."""
    pcs = M._PcCollector()
    pcs.add("k", 0xCD00, 0x432A0, "nv.info")
    pcs.add("k", 0xCD00, 0x431E0, "return address")
    pcs.add("k", 0xCD00, 0x431E0, "return address")  # the HI half of the same pair
    assert not pcs.conflicts
    assert pcs.maps["k"][0xCD00] == 0x432A0 and pcs.returns["k"] == {0xCD00: 0x431E0}
    facts = M.MercuryFacts(functions={"k": M.FunctionFacts(pc=pcs.maps["k"], returns=pcs.returns["k"])})
    assert facts.return_pc("k", 0xCD00) == 0x431E0 and facts.pc("k", 0xCD00) == 0x432A0
    pcs.add("k", 0xCD00, 0x43000, "return address")
    assert pcs.conflicts
