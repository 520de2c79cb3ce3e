"""The emitter's structure equals ptxas's: section order, types, flags, links and infos, every
symbol of .symtab and .nv.merc.symtab, and both string tables with their leftovers, rebuilt
from decomposed leaf data, on every target but sm_110 (declined for now).

This checks structure only (payloads derived elsewhere are compared by their own tests); a
probe the decomposer declines (NotImplementedError) is counted, not passed."""

from __future__ import annotations

import probes_manifest
from cubinemit.arch import ALL_TARGETS
from cubinemit.elf.layout import layout
from cubinemit.reader import read_cubin
from cubinemit.semantic.decompose import decompose
from cubinemit.semantic.build import build_object

TARGETS = tuple(t for t in ALL_TARGETS if not t.startswith("sm_110"))  # sm_110: declined for now
MODES = ("def", "O0", "c", "lineinfo", "g", "g_c")
CASES = [c for c in probes_manifest.semantic_matrix() if c[1] in TARGETS and c[2] in MODES]


def structure(obj):  # type: ignore[no-untyped-def]
    lay = layout(obj)
    sections = [(s.name, s.sh_type, s.flags, s.addralign, s.entsize, sh.sh_link, sh.sh_info) for s, sh in zip(lay.order, lay.shdrs[1:])]
    symbols = [
        (y.name, y.info, y.other, lay.index[id(y.section)] if y.section else y.shndx, 0 if y.type == 3 else y.value, y.size)
        for y in lay.symbols
    ]
    merc = [
        (y.name, y.info, y.other, lay.index[id(y.section)] if y.section else y.shndx, 0 if y.type == 3 else y.value, y.size)
        for y in obj.merc_symbols
    ]
    return sections, symbols, merc, obj.shstrtab.layout()[0], obj.strtab.layout()[0]


#: structure not reproduced yet (each a rule still to find), kept visible here
KNOWN_GAPS: set[str] = set()


def test_structure_matches_ptxas(semantic_corpus):
    emitted = declined = 0
    misses = []
    for case in CASES:
        original = read_cubin(semantic_corpus[case].read_bytes())
        try:
            rebuilt = build_object(decompose(original))
        except NotImplementedError:
            declined += 1
            continue
        if structure(rebuilt) != structure(original):
            misses.append(case)
            continue
        emitted += 1
    assert {probe for probe, _, _ in misses} <= KNOWN_GAPS, misses
    # whole-program and relocatable kernel/device-function modules are covered; data is not yet
    assert emitted >= 1900 + 380, (emitted, declined, len(misses))  # 380 of them -g -c
