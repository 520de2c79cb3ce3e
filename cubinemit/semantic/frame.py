""".debug_frame as entries that can be dropped or moved.

ptxas writes one CIE and one FDE per .text (whole program: per kernel and per inlined copy, the
copies' FDEs relocated against their kernel), and it writes them in .text order: on every cached
cubin the FDEs' owners, read from the R_CUDA_64 relocation of their initial location, come in the
order the .text sections were made. The payload itself is leaf data; where its entries stand is
not. So a module whose functions were removed or reordered keeps each entry's bytes and moves
it, and what points between entries follows:

* an executable's FDE holds its CIE's section offset in its CIE pointer;
* relocatable output relocates the CIE pointer against .debug_frame, with the pointer as the
  addend. The addends are the pairs' offsets in a frame ptxas lays out before it fits the CFA
  programs to the target: samples_mix -c has the same addends on sm_75, sm_90 and sm_100a,
  though its sm_90+ FDEs are 8 bytes shorter. So each CIE keeps the step to the next one that
  the file showed. A CIE that moves off the end takes the step every other CIE of the payload
  followed (its size, or its size rounded up to 16), or the edit is refused;
* below sm_90 the pointer to the first CIE is a REL relocation (0 in the data), the others RELA.

The Mercury facts keyed by FDE ordinal (``cfa``, ``fde_ranges``) are renumbered with them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

import attrs

from ..errors import ModelError
from .model import DebugSection, Module, Relocation

#: R_CUDA_64: an FDE's initial location
R_CUDA_64 = 2
DWARF64 = 0xFFFFFFFF
CIE_ID = 0xFFFFFFFFFFFFFFFF


@attrs.frozen
class Entry:
    offset: int
    size: int
    is_cie: bool
    #: the CIE pointer field as written in the data (executables: the CIE's offset)
    pointer: int


@attrs.frozen
class Frame:
    """A parsed .debug_frame: its entries, the function owning each FDE, and each FDE's CIE."""

    section: DebugSection
    entries: tuple[Entry, ...]
    owner: dict[int, str | None]
    #: relocatable output: FDE offset -> the relocation holding its CIE pointer
    cie_reloc: dict[int, Relocation]
    #: FDE offset -> its CIE's offset
    cie_of: dict[int, int]
    #: relocatable output: CIE offset -> its pointer value (the relocation addend)
    pointer_of_cie: dict[int, int]

    @property
    def fdes(self) -> list[Entry]:
        return [e for e in self.entries if not e.is_cie]


def _pointer(r: Relocation) -> int:
    return r.addend if r.addend is not None else 0


def parse(frame: DebugSection) -> Frame:
    data = frame.data
    entries = []
    pos = 0
    while pos + 12 <= len(data):
        if int.from_bytes(data[pos : pos + 4], "little") != DWARF64:
            raise ModelError(f".debug_frame: entry at {pos:#x} is not 64-bit DWARF")
        length = int.from_bytes(data[pos + 4 : pos + 12], "little")
        pointer = int.from_bytes(data[pos + 12 : pos + 20], "little")
        entries.append(Entry(pos, 12 + length, pointer == CIE_ID, pointer))
        pos += 12 + length
    fdes = {e.offset for e in entries if not e.is_cie}
    starts = [e.offset for e in entries]
    owner: dict[int, str | None] = {}
    cie_reloc: dict[int, Relocation] = {}
    for r in frame.relocations:
        if r.symbol == ".debug_frame" and r.offset - 12 in fdes:
            cie_reloc[r.offset - 12] = r
        elif r.type == R_CUDA_64:
            at = starts[bisect_right(starts, r.offset) - 1] if starts else -1
            if at in fdes and at + 20 <= r.offset < at + 28:  # the FDE's initial location
                owner[at] = r.symbol
    # the pointers rise with the CIEs: the n-th smallest names the n-th CIE
    steps = sorted({_pointer(r) for r in cie_reloc.values()})
    cies = [e.offset for e in entries if e.is_cie]
    if cie_reloc and len(steps) != len(cies):
        raise ModelError(f".debug_frame: {len(steps)} CIE pointers for {len(cies)} CIEs")
    cie_at = dict(zip(steps, cies))
    cie_of = {e.offset: cie_at[_pointer(cie_reloc[e.offset])] if e.offset in cie_reloc else e.pointer for e in entries if not e.is_cie}
    return Frame(frame, tuple(entries), owner, cie_reloc, cie_of, {c: p for p, c in cie_at.items()})


def _uleb(data: bytes, i: int) -> tuple[int, int]:
    """The ULEB128 at ``i``: its value and where it ends."""
    value = shift = 0
    while True:
        value |= (data[i] & 0x7F) << shift
        shift += 7
        i += 1
        if not data[i - 1] & 0x80:
            return value, i


def _uleb_end(data: bytes, i: int) -> int:
    return _uleb(data, i)[1]


def _cfa_ops(program: bytes) -> tuple[list[int], int] | None:
    """The opcodes of an FDE's CFA program and where it ends, before the DW_CFA_nop bytes
    that pad it; None where an opcode ptxas is not seen to write comes up."""
    ops: list[int] = []
    i = end = 0
    try:
        while i < len(program) and any(program[i:]):
            op = program[i]
            i += 1
            if op == 0x04:  # advance_loc4
                i += 4
            elif op in (0x05, 0x09, 0x0C):  # offset_extended, register, def_cfa
                i = _uleb_end(program, _uleb_end(program, i))
            elif op in (0x06, 0x07, 0x08, 0x0E):  # restore_extended, undefined, same_value, def_cfa_offset
                i = _uleb_end(program, i)
            elif op == 0x10:  # expression: register, block length, block
                n, i = _uleb(program, _uleb_end(program, i))
                i += n
            elif op != 0x00:
                return None
            if i > len(program):
                return None
            if op:
                ops.append(op)
                end = i
    except IndexError:
        return None
    return ops, end


#: the CFA opcodes of the FDE programs :func:`laid_out_size` knows: advance_loc4 and def_cfa in
#: kernels; offset_extended, restore_extended and expression too in device functions
_KERNEL_OPS = frozenset({0x04, 0x0C})
_FUNCTION_OPS = frozenset({0x04, 0x05, 0x06, 0x0C, 0x10})


def laid_out_size(fde: bytes, kernel: bool) -> int | None:
    """From sm_90 on: the size ptxas gave an FDE when it laid the pairs out, before it fitted
    the CFA program to the target; relocatable output's CIE pointers step by it. A kernel's
    program lost 5 bytes where it does not start with two advances (its leading advance was
    split) and 12 where it does not end with a def_cfa and an advance (a def_cfa with a zero
    advance); a device function's lost a leading zero advance (5) where it starts with
    another opcode, 16 bytes in all where it is empty. Measured on 106,650 steps of the random
    modules, CUDA samples, llm.c, ggml and tinygrad, -c, -c -O0, -c -lineinfo, sm_90, sm_100a
    and sm_120, none off. None for programs of other opcodes (468 steps there: a device
    function's DW_CFA_register steps are not explained)."""
    parsed = _cfa_ops(fde[36:])
    if parsed is None:
        return None
    ops, used = parsed
    if not set(ops) <= (_KERNEL_OPS if kernel else _FUNCTION_OPS):
        return None
    if not ops:
        return None if kernel else -(-36 // 8) * 8 + 16
    extra = 0
    if kernel:
        extra += 5 if ops[:2] != [0x04, 0x04] else 0
        extra += 12 if ops[-2:] != [0x0C, 0x04] else 0
    elif ops[0] != 0x04:
        extra += 5
    return -(-(36 + used + extra) // 8) * 8


def _steps(fr: Frame, sm: int = 0, kernels: frozenset[str] = frozenset()) -> dict[int, int]:
    """CIE offset -> the pointer distance to the next CIE (relocatable output); the last CIE's
    is inferred, or absent when it cannot be. A payload an earlier edit wrote keeps the steps
    that edit knew: with fewer CIEs both rules may fit (cuda_local_var -O0 -c sm_90 without k:
    k's pair of 104 bytes stepped 112, rcp's 112). Below sm_90 the last CIE follows the others'
    rule (its pair's size, or that rounded up to 16). From sm_90 on the steps follow the pairs
    as ptxas laid them out before it fitted the CFA programs, which drops more from some than
    from others (a leaf kernel's pair of 0x60 bytes steps 0x70, a device function's of 0x78
    steps 0x78): :func:`laid_out_size` of its FDE (``kernels``: the kernels' names)."""
    ordered = sorted(fr.pointer_of_cie.items(), key=lambda kv: kv[1])
    steps = {c: ordered[i + 1][1] - p for i, (c, p) in enumerate(ordered[:-1])}
    if not ordered:
        return steps
    known = dict(fr.section.frame_steps)
    last = ordered[-1][0]
    if last in known:
        steps[last] = known[last]
        return steps
    if sm >= 90:
        by_offset = {e.offset: e for e in fr.entries}
        fde = next((e for e in fr.entries if not e.is_cie and fr.cie_of[e.offset] == last), None)
        owner = fr.owner.get(fde.offset) if fde is not None else None
        if fde is not None and owner is not None:
            size = laid_out_size(fr.section.data[fde.offset : fde.offset + fde.size], owner in kernels)
            if size is not None:
                steps[last] = by_offset[last].size + size
        return steps
    pair = {c: 0 for c, _ in ordered}
    for e in fr.entries:
        pair[e.offset if e.is_cie else fr.cie_of[e.offset]] += e.size
    for rule in (lambda n: n, lambda n: -(-n // 16) * 16):
        if all(rule(pair[c]) == s for c, s in steps.items()):
            steps[last] = rule(pair[last])
            break
    return steps


def rewrite(fr: Frame, module: Module, keep: Sequence[int]) -> DebugSection:
    """The parsed payload ``fr`` with the entries at offsets ``keep``, in that order (see the
    module doc)."""
    frame = fr.section
    by_offset = {e.offset: e for e in fr.entries}
    moved: dict[int, int] = {}
    out = bytearray()
    for off in keep:
        moved[off] = len(out)
        out += frame.data[off : off + by_offset[off].size]
    steps = _steps(fr, module.sm, frozenset(f.name for f in module.functions if f.is_kernel))
    new_pointer: dict[int, int] = {}
    cies = [off for off in keep if off in fr.pointer_of_cie]
    at = 0
    for i, c in enumerate(cies):
        new_pointer[c] = at
        if i + 1 < len(cies):
            if c not in steps:
                raise ModelError(f".debug_frame: the CIE at {c:#x} no longer ends the payload, and its pointer step follows no rule")
            at += steps[c]
    for off in keep:
        e = by_offset[off]
        if not e.is_cie and off not in fr.cie_reloc:  # executables store the CIE offset itself
            out[moved[off] + 12 : moved[off] + 20] = moved[fr.cie_of[off]].to_bytes(8, "little")
    zero_is_rel = any(r.addend is None for r in fr.cie_reloc.values())
    pointer_relocs = {id(r): fde for fde, r in fr.cie_reloc.items()}
    starts = [e.offset for e in fr.entries]
    relocs = []
    for r in frame.relocations:
        k = bisect_right(starts, r.offset) - 1
        if k < 0 or r.offset >= starts[k] + fr.entries[k].size or starts[k] not in moved:
            continue
        base = starts[k]
        addend = r.addend
        if id(r) in pointer_relocs:
            addend = new_pointer[fr.cie_of[pointer_relocs[id(r)]]]
            if addend == 0 and zero_is_rel:
                addend = None  # below sm_90 the pointer to the first CIE is REL
        relocs.append(Relocation(moved[base] + r.offset - base, r.type, r.symbol, addend))
    new = DebugSection(frame.name, bytes(out), relocs, list(frame.labels), [(moved[c], steps[c]) for c in cies if c in steps])
    new.relocations = in_relocation_order(new)
    _renumber_mercury(module, fr, keep)
    return new


#: an FDE's relocated fields in the order ptxas lists them: address range, initial location,
#: CIE pointer (relocatable output)
FDE_FIELDS = {28: 0, 20: 1, 12: 2}


def in_relocation_order(frame: DebugSection) -> list[Relocation]:
    """The payload's relocations in ptxas's order: the functions owning FDEs last to first
    (whole program: a kernel with its inlined copies' FDEs), each one's FDE relocations (FDEs
    last to first, then address range, initial location, CIE pointer), then its CIEs' (last to
    first). Measured on 1,459 cached cubins of every mode and family, REL and RELA lists alike."""
    fr = parse(frame)
    entries = fr.entries
    starts = [e.offset for e in entries]
    owners = [fr.owner.get(entries[2 * k + 1].offset) if 2 * k + 1 < len(entries) else None for k in range((len(entries) + 1) // 2)]
    first: dict[str | None, int] = {}
    for k, o in enumerate(owners):
        first.setdefault(o, k)

    def key(r: Relocation) -> tuple[int, ...]:
        i = bisect_right(starts, r.offset) - 1
        e, k = entries[i], i // 2
        if e.is_cie:
            return (-first[owners[k]], 1, -k, 0, -r.offset)
        return (-first[owners[k]], 0, -k, FDE_FIELDS.get(r.offset - e.offset, 3), -r.offset)

    return sorted(frame.relocations, key=key)


def _renumber_mercury(module: Module, fr: Frame, keep: Sequence[int]) -> None:
    """The Mercury facts keyed by FDE ordinal follow their FDEs (dropped ones go)."""
    old = [e.offset for e in fr.entries if not e.is_cie]
    fdes = set(old)
    new = {off: k for k, off in enumerate(o for o in keep if o in fdes)}
    ordinal = {k: new.get(off) for k, off in enumerate(old)}
    merc = module.facts.get("mercury")
    if isinstance(merc, dict):
        for key in ("cfa", "fde_ranges"):
            table = merc.get(key)
            if isinstance(table, dict) and "$map" in table:
                pairs = [[ordinal[k], v] for k, v in table["$map"] if ordinal.get(k) is not None]
                table["$map"] = sorted(pairs, key=lambda kv: kv[0])


def prune(frame: DebugSection, gone: set[str], module: Module) -> DebugSection:
    """Without the FDEs relocated against a removed function, and every CIE left without an
    FDE; the kept entries keep their order."""
    fr = parse(frame)
    kept = {e.offset for e in fr.fdes if fr.owner.get(e.offset) not in gone}
    live = {fr.cie_of[off] for off in kept}
    return rewrite(fr, module, [e.offset for e in fr.entries if e.offset in kept or e.offset in live])


def text_order(fr: Frame, texts: Sequence[str]) -> list[int] | None:
    """The entry offsets that put the CIE/FDE pairs of the parsed payload ``fr`` in the order of
    ``texts`` (the .text creation order, the order ptxas writes them in), for :func:`rewrite`;
    None when they already stand so (a module as ptxas wrote it), when an FDE's owner is not in
    that order, or when the payload is not one CIE per FDE (left as written)."""
    rank = {n: i for i, n in enumerate(texts)}
    entries = fr.entries
    cies, fdes = entries[::2], entries[1::2]
    if not fdes or [e.is_cie for e in entries] != [True, False] * len(fdes):
        return None
    if any(fr.cie_of[f.offset] != c.offset or fr.owner.get(f.offset) not in rank for c, f in zip(cies, fdes)):
        return None
    keys = [rank[fr.owner[f.offset]] for f in fdes]  # type: ignore[index]
    if keys == sorted(keys):
        return None
    order = sorted(range(len(fdes)), key=keys.__getitem__)  # stable: a kernel's copies keep theirs
    return [off for k in order for off in (cies[k].offset, fdes[k].offset)]
