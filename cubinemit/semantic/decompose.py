"""Decompose a ptxas cubin into leaf data (a :class:`Module`).

Only what a compiler knows is kept: functions with their SASS and relocations by symbol name,
where whole-program builds placed callee copies, data objects, debug payloads, the options and
target. Everything the builder derives is dropped.
"""

from __future__ import annotations

import itertools
import re
import struct

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

import attrs

from ..arch import Family, facts, family_of
from ..elf.constants import (
    ELFABIVERSION_CUDA,
    ET_EXEC,
    SHF_ALLOC,
    SHT_PROGBITS,
    NT_CUDA_CUINFO,
    NT_CUDA_TKINFO,
    SHT_NOTE,
    STB_GLOBAL,
    STB_LOCAL,
    STB_WEAK,
    STT_CUDA_SAMPLER,
    STT_CUDA_SURFACE,
    STT_CUDA_TEXTURE,
    STT_FUNC,
    STT_SECTION,
    STO_CUDA_ENTRY,
)
from ..elf.model import ElfObject, Section, Symbol
from ..errors import CubinFormatError, ModelError
from ..elf.order import relocated_banks, symbol_order, text_sections
from ..funcorder import Param, PtxFunction, data_ranks, is_builtin_name
from ..nvinfo import EICompatAttr, decode_compat
from ..nvinfo.builder import BUILTIN_COPY as _BUILTIN_COPY, clone_callee
from ..nvinfo.notes import PtxasOptions, decode_cuinfo, decode_tkinfo, section_notes
from .model import LOCAL_BLOCK, NO_ABI_DEBUG, DataObject, DebugSection, Function, Module, Relocation, empty_ptx_section, unmodelled_options

if TYPE_CHECKING:
    from ..elf.strtab import StringTable
    from ..nvinfo.facts import ModuleFacts


def _note_desc(obj: ElfObject, name: str, n_type: int) -> bytes | None:
    section = obj.find_section(name)
    if section is None or section.sh_type != SHT_NOTE:
        return None
    for _, t, desc in section_notes(section):
        if t == n_type:
            return desc
    return None


def _relocations(section: Section | None) -> list[Relocation]:
    if section is None:
        return []
    return [Relocation(r.offset, r.type, r.symbol.name if r.symbol is not None else None, r.addend) for r in section.relocs or ()]


#: sections whose leaf data the decomposer does not extract yet (data, texture banks, debug
#: payloads beyond the line tables and register maps)
_NOT_YET = (".nv.resolvedrela",)

#: the DWARF payloads the emitter places (cubinemit.semantic.emit._Emitter.debug_sections); any
#: other .debug_* name (.debug_ranges, .debug_aranges, ...) is declined until it is measured
_DEBUG_KNOWN = (
    ".debug_frame", ".debug_line", ".debug_str", ".debug_abbrev", ".debug_loc", ".debug_info", ".debug_macinfo",
    ".debug_pubnames", ".debug_pubtypes",
    ".nv_debug_line_sass", ".nv_debug_ptx_txt", ".nv_debug_info_reg_sass", ".nv_debug_info_reg_type",
)


def _empty_dwarf(obj: ElfObject, module: Module) -> None:
    """The DWARF payloads the PTX declared empty, which relocatable output makes and drops, so
    only their names stay in .shstrtab and .strtab (Triton -g -c: .debug_macinfo after
    .rela.debug_info; whole-program builds leave no trace of them). Each goes into the model
    as an empty payload where its name stands among the others'."""
    if not module.options.get("compile_only"):
        return
    present = {s.name for s in obj.sections}
    slot = _first_named(obj)
    for name in slot:
        if empty_ptx_section(name) and name not in present:
            at = next((i for i, d in enumerate(module.debug) if slot.get(d.name, -1) > slot[name]), len(module.debug))
            module.debug.insert(at, DebugSection(name, b""))


_CODE_TYPE = {"i": "b32", "l": "b64", "f": "f32", "d": "f64", "b": "b8", "h": "b16"}


def _parse_signature(text: str) -> tuple[list[list[object]], list[list[object]]]:
    """Parameter and return types from a .nv.prototype signature (``#ib12`` -> returns [b32],
    params [[b8, 12]]); types stand for their signature code."""
    body = text[1:].split("|", 1)[0]
    items: list[list[object]] = []
    i = 0
    while i < len(body):
        code = body[i]
        i += 1
        j = i
        while j < len(body) and body[j].isdigit():
            j += 1
        count = int(body[i:j]) if j > i else None
        if code != "v" and code not in _CODE_TYPE:
            raise CubinFormatError(f"signature {text!r}: no parameter type has the code {code!r}", where="section .nv.prototype")
        items.append([_CODE_TYPE[code] if code != "v" else "v", count])
        i = j
    ret, params = items[0], items[1:]
    return params, ([] if ret[0] == "v" else [ret])


def _signature_at(string_at, strtab: bytes, offset: int) -> str | None:  # type: ignore[no-untyped-def]
    """The signature string at ``offset`` of .strtab, or None when none starts there."""
    if not 0 < offset < len(strtab):
        return None
    text = string_at(offset)
    return text if text.startswith("#") else None


def _call_facts(obj: ElfObject, module: Module, whole_program: bool = False, symbols: list[Symbol] | None = None) -> None:
    """Calls, address takings, externs and prototypes from .nv.callgraph/.nv.prototype, then the
    declaration order that makes ptxas's function order come out as in the cubin. ``symbols``:
    symbol_order(obj), when the caller has it."""
    from ..funcorder import declaration_order_from
    from ..nvinfo import decode_callgraph, decode_prototype

    ordered = symbol_order(obj) if symbols is None else symbols
    names = [""] + [s.name for s in ordered]
    laid: list[bytes] = []  # .strtab's bytes, rendered when a signature string is first read

    def strtab_bytes() -> bytes:
        if not laid:
            laid.append(obj.strtab.layout()[0])
        return laid[0]

    def string_at(off: int) -> str:
        strtab = strtab_bytes()
        return strtab[off : strtab.index(b"\0", off)].decode()

    graph_sec = obj.find_section(".nv.callgraph")
    proto_sec = obj.find_section(".nv.prototype")
    graph = decode_callgraph(graph_sec.data, symbol_name=lambda i: names[i]) if graph_sec else None
    protos = decode_prototype(proto_sec.data, symbol_name=lambda i: names[i], string_at=string_at) if proto_sec else []
    by_name = {f.name: f for f in module.functions}
    for sym in ordered:  # undefined functions the module calls
        if sym.type == STT_FUNC and sym.section is None and sym.shndx == 0 and sym.name not in by_name:
            # an extern .entry (a kernel of another unit launched from the device: CUDA-samples
            # cdpAdvancedQuicksort -rdc, big_bitonicsort) is marked an entry like a kernel and
            # gets no .nv.prototype signature
            by_name[sym.name] = Function(name=sym.name, linkage="extern", is_kernel=bool(sym.other & STO_CUDA_ENTRY))
            module.functions.append(by_name[sym.name])
    if graph is not None:
        edges = list(graph.calls)
        if whole_program:
            # whole program keeps kernel -> extern edges, listed from the last call site back
            edges.reverse()
        for edge in edges:
            if edge.caller in by_name and edge.callee not in by_name[edge.caller].calls:
                by_name[edge.caller].calls.append(edge.callee)
        # a mark's value is the .strtab offset of a signature: an indirect caller has one mark
        # per call site (its .callprototype), an address-taken function its own signature
        for mark in graph.indirect_callers:
            if mark.function in by_name:
                by_name[mark.function].has_indirect_call = True
                text = _signature_at(string_at, strtab_bytes(), mark.value)
                if text is not None:
                    by_name[mark.function].call_prototypes.append(text)
        for edge in graph.indirect_targets:
            if edge.caller in by_name:
                by_name[edge.caller].address_taken.append(edge.callee)
        for mark in graph.address_taken:
            text = _signature_at(string_at, strtab_bytes(), mark.value)
            if mark.function in by_name and text is not None:
                by_name[mark.function].params, by_name[mark.function].returns = _parse_signature(text)
        if not whole_program:
            # -g: ptxas resolves a static function's address in a variable's initializer and
            # drops the entry, yet lists the taking (`.global .u64 ftab[1] = {f1};`, f1
            # static, no function takes it: `<0,-2> <f1,sig>`); the data alone took it, which
            # shuffles the function order (tests/funcorder_probes/fo_g_data_take_only)
            taken = {t for f in module.functions for t in f.address_taken} | {r.symbol for d in module.data for r in d.relocations}
            for mark in graph.address_taken:
                if mark.function in by_name and mark.function not in taken:
                    by_name[mark.function].facts["taken_by_data"] = True
    for proto in protos:
        if proto.symbol in by_name:
            by_name[proto.symbol].params, by_name[proto.symbol].returns = _parse_signature(proto.signature)
    mode = module.ordering_mode()
    ptx = ptx_functions(module)
    order = [f.name for f in module.functions if f.linkage != "extern" and (f.is_kernel or not whole_program)]
    if whole_program:
        order.reverse()  # the kernels were reversed into declaration order above
    hint = [m.function for m in graph.address_taken] if graph else []
    # ptxas creates the signature strings in reverse declaration order: their order in .strtab
    # tells the declaration order of the functions that have one
    position = {text: n for n, text in enumerate(sl.text for sl in obj.strtab.slots)}
    hint += [p.symbol for p in sorted(protos, key=lambda p: -position.get(p.signature, 0))]
    hint = list(dict.fromkeys(_extern_order(obj, module, protos, position, hint) + hint))
    symbols = None if whole_program else [y.name for y in ordered if y.type == STT_FUNC]
    slots = [slot.text for slot in obj.strtab.slots]
    head = slots[1 : slots.index(".shstrtab")] if ".shstrtab" in slots else []
    refused: list[NotImplementedError] = []
    placed: list[list] = []  # type: ignore[type-arg]

    def accept(cand: list) -> bool:  # type: ignore[type-arg]
        # relocatable and -g builds: the search has matched the function symbols (``symbols``);
        # the signature strings (_place_externs) and the .nv.prototype list (_check_prototypes)
        # must come out as in the cubin too. A candidate refused here sends the search on, a
        # few times at most
        if whole_program:
            return True
        if len(refused) >= _ACCEPT_TRIES:
            return False
        try:
            found = _check_prototypes(_place_externs(cand, mode, order, symbols, head, obj.sm), mode, order, obj.sm, [p.symbol for p in protos])
            placed.append(_check_callgraph(found, mode, order, graph))
        except NotImplementedError as exc:
            refused.append(exc)
            return False
        return True

    def search() -> list:  # type: ignore[type-arg]
        refused.clear()
        return declaration_order_from(order, ptx, mode, hint=hint, symbols=symbols, accept=accept)

    try:
        declared = search()
    except ModelError as exc:
        declared = None
        for _ in _table_use_orders(module, order):
            ptx = ptx_functions(module)
            try:
                declared = search()
                break
            except ModelError:
                continue
        if declared is None:
            if refused:
                raise refused[0] from None
            raise NotImplementedError(f"declaration order not recovered: {exc}") from None
    if not whole_program:
        declared = placed[-1]
    module.functions = [by_name[f.name] for f in declared if f.name in by_name]
    if whole_program:
        # builtins whose only trace is a copy inside kernels ($__internal_N_$): no .text and no
        # call edge, so the declaration order drops them; they stand first, like the other
        # functions without a .text
        kept = {f.name for f in module.functions}
        module.functions[:0] = [f for f in by_name.values() if f.linkage == "builtin" and f.name not in kept]


def _place_externs(declared: list, mode: object, order: list[str], symbols: list[str], head: list[str], sm: int) -> list:  # type: ignore[type-arg]
    """Relocatable builds: the declaration order search puts the externs (no .text) first, but
    ptxas creates the .nv.prototype signature strings at the head of .strtab in declaration
    order, so an extern declared among the other functions shows there (nvcc -G realistic_G -c:
    __assertfail is declared after five weak functions, its `#vllill` string created after
    theirs; tests/probes_rw, every target). While the strings differ from ``head``, the extern
    whose move puts the most pairs of them in the cubin's relative order moves there, the
    function order and the symbols staying as in the cubin (tests/probes_gfold
    fold_virtual_kernels -c: malloc, free and vprintf after the constructors); declined when
    no such moves give ``head``."""
    from ..funcorder import function_order, signature_strings, symbol_order as function_symbols

    def fits(cand: list) -> bool:  # type: ignore[type-arg]
        return function_order(cand, mode) == list(order) and function_symbols(cand, mode, order) == list(symbols)  # type: ignore[arg-type]

    def strings(cand: list) -> list[str]:  # type: ignore[type-arg]
        return signature_strings(cand, mode, order, sm)  # type: ignore[arg-type]

    def score(cand: list) -> int:  # type: ignore[type-arg]
        # the pairs of strings standing in the cubin's relative order
        at = {t: i for i, t in enumerate(strings(cand))}
        common = [t for t in head if t in at]
        return sum(1 for i, a in enumerate(common) for b in common[i + 1 :] if at[a] < at[b])

    def improve(out: list, best: int, moves: Callable[[list], list[list]], rounds: int) -> tuple[list, int]:  # type: ignore[type-arg]
        # each pass makes the move (a group of functions to one place) that puts the most
        # strings as in the cubin, the function order and the symbols staying
        for _ in range(rounds):
            if strings(out) == head:
                break
            found = None
            for group in moves(out):
                rest = [g for g in out if all(g is not f for f in group)]
                for at in range(len(rest) + 1):
                    cand = rest[:at] + group + rest[at:]
                    gain = score(cand)
                    if gain > best and fits(cand):
                        best, found = gain, cand
            if found is None:
                break
            out = found
        return out, best

    # several externs may need to move (nvcc -G C++ declares malloc, free and vprintf after
    # constructors); the WEAK warp builtins need not: funcorder._creation_rank makes their
    # strings in their first caller's body (cg_algos -c sm_75-89, tests/probes_rw6)
    externs = [f for f in declared if f.linkage == "extern"]
    out, best = improve(list(declared), score(list(declared)), lambda cur: _extern_moves(cur, externs), 2 * len(externs))
    # a function the DFS emitted as a callee may stand almost anywhere in the declaration order
    # (funcorder.declaration_order_from): the search put nvcc -rdc's weak templates
    # binarySearch* first, while their shared `#iilii` string says one of them comes after
    # bodyInteractionD (sort_nbody -rdc, compute_80+ PTX, every target): such functions move
    # one at a time
    movable = [f for f in declared if f.linkage in ("weak", "visible") and not f.is_kernel]
    rounds = 2 * len(movable) if len(movable) * (len(out) + 1) <= _MOVE_BUDGET else 0
    out, best = improve(out, best, lambda cur: [[f] for f in movable], rounds)
    if head and strings(out) != head:
        # an extern declared after functions whose bodies come later still (nvcc -G C++:
        # malloc, free, vprintf after the constructors' declarations) cannot stand there in a
        # single creation order: the strings would come out in another order
        raise NotImplementedError("declaration order not recovered: the prototype signature strings do not come out in the cubin's order")
    return out


def _check_prototypes(declared: list, mode: object, order: list[str], sm: int, want: list[str]) -> list:  # type: ignore[type-arg]
    """Relocatable builds: the ``.nv.prototype`` list the declaration order found gives must be
    the cubin's (the symbols and strings the search matched do not fix the order of every
    entry); declined otherwise, rather than written in another order."""
    from ..funcorder import prototypes

    if [p.symbol for p in prototypes(declared, mode, order, sm)] != want:  # type: ignore[arg-type]
        raise NotImplementedError("declaration order not recovered: the .nv.prototype entries do not come out in the cubin's order")
    return declared


def _check_callgraph(declared: list, mode: object, order: list[str], graph: object) -> list:  # type: ignore[type-arg]
    """Relocatable and -g builds: the ``.nv.callgraph`` lists name their callers in symbol
    creation order, which the symbols do not fix between the weak and the global functions
    (fz3 h032 -c -O0: the weak f3 and the global f1, both address-taken, are created in *G*
    order after the first function); the order found must give the cubin's lists."""
    from ..funcorder import callgraph

    if graph is None:
        return declared
    got = callgraph(declared, mode, order)  # type: ignore[arg-type]

    def names(g: object) -> tuple[list[tuple[str, str]], list[str], list[str], list[tuple[str, str]]]:
        return (
            [(e.caller, e.callee) for e in g.calls],  # type: ignore[attr-defined]
            [m.function for m in g.address_taken],  # type: ignore[attr-defined]
            [m.function for m in g.indirect_callers],  # type: ignore[attr-defined]
            [(e.caller, e.callee) for e in g.indirect_targets],  # type: ignore[attr-defined]
        )

    if names(got) != names(graph):
        raise NotImplementedError("declaration order not recovered: the .nv.callgraph lists do not come out in the cubin's order")
    return declared


#: declaration orders the signature strings may refuse before the search gives up on them
_ACCEPT_TRIES = 32

#: candidate placements (functions x positions) the prototype-string moves may try per pass
_MOVE_BUDGET = 4000


def _extern_moves(declared: list, externs: list) -> list[list]:  # type: ignore[type-arg]
    """What :func:`_place_externs` may move in one step: one extern, or an extern with every
    extern declared before it, in their order. The symbols fix the externs' relative order, and
    a move of one extern may gain nothing alone: fold_virtual_kernels -c sm_75 needs malloc,
    free and vprintf moved past the constructors together (malloc cannot pass free, and free's
    string `#vl` is made again later, so moving free alone changes no string)."""
    ordered = [f for f in declared if any(f is e for e in externs)]
    return [[f] for f in ordered] + [ordered[: i + 1] for i in range(1, len(ordered))]


def _extern_order(obj: ElfObject, module: Module, protos: list, position: dict[str, int], hint: list[str]) -> list[str]:  # type: ignore[type-arg]
    """The declaration order of the extern functions, as far as the cubin tells it.

    ptxas names an extern's GLOBAL symbol after the first function (in .text order) that
    references it, the externs one function names first in declaration order (fo_externs -c:
    s1 calls ext3 then ext1, named ``ext1 ext3``); and a signature string only one function
    has stands in .strtab in reverse declaration order. Both give pairs; the rest follows
    ``hint``. (A signature string several functions share tells only about the last of them:
    ``#ii`` of ext1 and v1.)"""
    externs = [f.name for f in module.functions if f.linkage == "extern"]
    if len(externs) < 2:
        return externs
    rank: dict[str, int] = {}
    for i, y in enumerate(symbol_order(obj)):
        rank.setdefault(y.name, i)
    before: dict[str, set[str]] = {n: set() for n in externs}  # before[b]: externs declared before b
    by_name = {f.name: f for f in module.functions}
    seen: set[str] = set()
    for text in text_sections(obj):
        fn = by_name.get(text.name[len(".text.") :])
        if fn is None:
            continue
        refs = {r.symbol for r in fn.relocations if r.symbol} | set(fn.calls)
        new = sorted((n for n in externs if n in refs and n not in seen), key=lambda n: rank.get(n, 0))
        for i, a in enumerate(new):
            for b in new[i + 1 :]:
                before[b].add(a)
        seen.update(new)
    users: dict[str, int] = {}
    for p in protos:
        users[p.signature] = users.get(p.signature, 0) + 1
    unique = [p for p in protos if p.symbol in before and users[p.signature] == 1 and p.signature in position]
    for a in unique:
        for b in unique:
            if position[a.signature] > position[b.signature]:
                before[b.symbol].add(a.symbol)
    tie = {n: i for i, n in enumerate(hint)}
    out: list[str] = []
    left = list(externs)
    while left:
        ready = [n for n in left if before[n] <= set(out)]
        if not ready:  # contradictory pairs: leave the order to the search
            return []
        pick = min(ready, key=lambda n: (tie.get(n, len(tie)), rank.get(n, 0)))
        out.append(pick)
        left.remove(pick)
    return out


def function_tables(module: Module) -> dict[str, list[str]]:
    """Module variables whose initializer holds function addresses (``.const .u64 ctbl[3] =
    {f4, f3, f2};``, relocatable and -g builds keep their relocations): name -> the functions,
    in initializer order."""
    funcs = {f.name for f in module.functions}
    out: dict[str, list[str]] = {}
    for d in module.data:
        names = [r.symbol for r in sorted(d.relocations, key=lambda r: r.offset) if r.symbol in funcs]
        if names:
            out[d.name] = names  # type: ignore[assignment]
    return out


def launched_kernels(module: Module) -> list[str]:
    """Relocatable builds: the kernels some function takes the address of (a device-side
    launch), in declaration order. ptxas lists them in the EXTERNS of the first function in
    .text order as well as in their launcher's (cuda-samples cdpBezierTessellation -c and
    -c -lineinfo, sm_87 and sm_100a: freeVertexMem, which launches nothing, lists
    computeBezierLinePositions after its own __cudaCDP2Free; once it is removed the sqrt
    builtin standing first lists it; tests/probes_rw6/rules/launch_externs)."""
    taken = {t for f in module.functions for t in f.address_taken}
    return [f.name for f in module.functions if f.is_kernel and f.name in taken]


def ptx_functions(module: Module) -> list[PtxFunction]:
    """The funcorder view of the module's functions (see :func:`ptx_function`). A function
    whose address only module data holds (no function references the variable) is marked
    ``taken_by_data``; a function that references such a table uses its contents
    (:func:`_address_uses`)."""
    tables = function_tables(module)
    named = {r.symbol for d in module.data for r in d.relocations}
    if named:
        # a variable a body references makes that body the taker (funcorder.PtxFunction)
        read = {r.symbol for f in module.functions for r in f.relocations}
        named = {r.symbol for d in module.data if d.name not in read for r in d.relocations}
        if not module.ordering_mode().whole_program:
            # relocatable and -g builds list every taking (.nv.callgraph): a function a table
            # holds that no function takes was only loaded through (`ld.global.u64 %rd, [tbl]`
            # takes nothing, `mov.u64 %rd, tbl` takes the table's contents; the relocations are
            # the same): the data alone takes it (tests/funcorder_probes/fo_table_load)
            taken = {t for f in module.functions for t in f.address_taken}
            names = {f.name for f in module.functions}
            named |= {r.symbol for d in module.data for r in d.relocations if r.symbol in names and r.symbol not in taken}
    out = [ptx_function(f, tables, f.name in named or bool(f.facts.get("taken_by_data"))) for f in module.functions]
    ranks = data_ranks(tables, {d.name: d.linkage == "static" for d in module.data})
    return [attrs.evolve(p, data_rank=ranks[p.name]) if p.name in ranks else p for p in out]


def _address_uses(f: Function, tables: dict[str, list[str]]) -> list[str]:
    """funcorder.PtxFunction.address_uses of a function that references a table of function
    addresses: its relocations in code order, a table standing for its contents, an
    address-taking for itself (fo_fptr_global -c: L references ctbl = {f4, f3, f2} before
    taking f3, so X is f2 f1 f4 f3, which puts f3 first in .text; every target). Empty (the
    takings stand for it) for the others.

    ptxas takes the order of the tables from the PTX, which scheduling may not keep: a kernel
    that stores ``_ZTV2Ci`` then ``_ZTV2Sq`` in its PTX (two ``new`` of classes with virtual
    functions) may store them the other way round in SASS, and X follows the PTX
    (tests/probes_rw6/rules/vtable_ptx_order, -c on every target). The fact ``table_uses``
    (the tables in PTX order, where it is not the code's) puts them in that order."""
    relocs = sorted(f.relocations, key=lambda r: r.offset)
    if not any(r.symbol in tables for r in relocs):
        return []
    items = list(dict.fromkeys(r.symbol for r in relocs if r.symbol in tables or (r.symbol in f.address_taken and r.symbol != f.name)))
    ptx_order = f.facts.get("table_uses")
    if isinstance(ptx_order, list):
        used = [t for t in items if t in tables]
        slots = iter([t for t in ptx_order if t in used] + [t for t in used if t not in ptx_order])
        items = [next(slots) if t in tables else t for t in items]
    uses: list[str] = []
    for name in items:
        uses += tables[name] if name in tables else [name]  # type: ignore[list-item]
    return uses


#: the other orders of table references per function tried when neither the code's order nor
#: the one the .text order suggests gives a declaration order (a bound, not a rule: each try
#: is a whole search)
_TABLE_ORDER_LIMIT = 2


def _table_use_orders(module: Module, text_order: Sequence[str]) -> Iterator[None]:
    """Set the ``table_uses`` facts (:func:`_address_uses`) to other orders of the tables the
    functions reference, in turn; left as the last one tried (the caller stops at the one that
    fits), cleared when none is left. First the order .text suggests: the -c DFS visits X last
    to first, so the table whose functions stand first in .text came last (the five vtables
    a factory function stores); then the others."""
    tables = function_tables(module)
    at = {n: i for i, n in enumerate(text_order)}
    users: list[tuple[Function, list[str]]] = []
    for f in module.functions:
        named = list(dict.fromkeys(r.symbol for r in sorted(f.relocations, key=lambda r: r.offset) if r.symbol in tables))
        if len(named) > 1:
            users.append((f, named))  # type: ignore[arg-type]

    def placed(named: list[str]) -> list[str]:
        def first(t: str) -> int:
            own = [at[n] for n in tables[t] if n in at and not any(n in tables[u] for u in named if u != t)]
            return min(own or [at.get(n, len(at)) for n in tables[t]] or [len(at)])

        return sorted(named, key=first, reverse=True)

    def put(orders: Sequence[Sequence[str]]) -> None:
        for (f, named), o in zip(users, orders):
            if list(o) == named:
                f.facts.pop("table_uses", None)
            else:
                f.facts["table_uses"] = list(o)

    suggested = [placed(named) for _, named in users]
    tried = [[list(named) for _, named in users]]
    if suggested not in tried:
        tried.append(suggested)
        put(suggested)
        yield
    for orders in itertools.product(*(itertools.permutations(named) for _, named in users)):
        if [list(o) for o in orders] in tried:
            continue
        if len(tried) > _TABLE_ORDER_LIMIT + 1:
            break
        tried.append([list(o) for o in orders])
        put(orders)
        yield
    for f, _ in users:
        f.facts.pop("table_uses", None)


def ptx_function(f: Function, tables: dict[str, list[str]] | None = None, taken_by_data: bool = False) -> PtxFunction:
    """One function as the order rules see it (funcorder.PtxFunction): its linkage, calls,
    takings and prototypes; ``tables`` (variable -> function addresses) gives the address
    uses of a function referencing one."""
    linkage = f.linkage
    if linkage == "static" and is_builtin_name(f.name):
        # relocatable non-debug builds bind ptxas's builtins LOCAL like static functions, but
        # the order rules treat them apart (funcorder: non-static, created in the body of
        # their first caller); printf_switch / cluster_sm90_90 -c, tests/probes_builtin
        linkage = "builtin"
    return PtxFunction(
        name=f.name,
        is_kernel=f.is_kernel,
        linkage=linkage,  # type: ignore[arg-type]
        calls=f.calls,
        address_taken=f.address_taken,
        has_indirect_call=f.has_indirect_call,
        call_prototypes=f.call_prototypes,
        address_uses=_address_uses(f, tables) if tables else (),
        params=[Param(str(t), c) for t, c in f.params],  # type: ignore[arg-type]
        returns=[Param(str(t), c) for t, c in f.returns],  # type: ignore[arg-type]
        taken_by_data=taken_by_data,
    )


def decompose(obj: ElfObject) -> Module:
    """The leaf data of ``obj``. NotImplementedError names what the semantic level does not
    model yet; ModelError says the file is not a ptxas cubin."""
    for y in obj.symbols:
        if y.bind not in (STB_LOCAL, STB_GLOBAL, STB_WEAK):
            # ptxas binds every symbol LOCAL, GLOBAL or WEAK; the rules read no other
            raise CubinFormatError(f"binding {y.bind} is none of LOCAL, GLOBAL, WEAK", where=f"symbol {y.name!r}")
    has_refs = any(y.type in (STT_CUDA_TEXTURE, STT_CUDA_SURFACE, STT_CUDA_SAMPLER) for y in obj.symbols)
    texture_banks = relocated_banks(obj)
    for s in obj.sections:
        if s.name.startswith(_NOT_YET):
            raise NotImplementedError(f"decomposing {s.name} is not implemented yet")
        if id(s) in texture_banks and not has_refs:
            raise NotImplementedError(f"texture-index bank {s.name} without texture references is not implemented yet")
    tk = _note_desc(obj, ".note.nv.tkinfo", NT_CUDA_TKINFO)
    cu = _note_desc(obj, ".note.nv.cuinfo", NT_CUDA_CUINFO)
    if tk is None or cu is None:
        raise ModelError("not a ptxas cubin: .note.nv.tkinfo or .note.nv.cuinfo is missing")
    options = decode_tkinfo(tk).options
    if not isinstance(options, PtxasOptions):
        raise ModelError(f"options string {options!r} is not one the model knows")
    target = options.arch or "sm_75"
    kernels = sum(1 for y in obj.symbols if y.type == STT_FUNC and y.other & STO_CUDA_ENTRY and y.section is not None)
    why = unmodelled_options(attrs.asdict(options), kernels=kernels)
    if why is not None:
        raise NotImplementedError(why)
    module = Module(target=target, options=attrs.asdict(options), ptx_target=decode_cuinfo(cu).sm)
    if not options.debug and obj.find_section(".nv_debug_info_reg_sass") is not None:
        # PTX that says `.target sm_XX, debug` (nvcc -G) is built as under -g, register maps
        # included, but the options note does not say -g: a fact about the PTX
        module.facts["ptx_debug"] = True
    if obj.abi_version != ELFABIVERSION_CUDA:
        # ptxas disabled the ABI (a function returning several values, module-scope .local
        # variables): only the header says
        if obj.abi_version != facts(obj.sm).no_abi_version:
            raise CubinFormatError(f"ABI version {obj.abi_version} is not one ptxas writes for sm_{obj.sm}", where="ELF header e_ident[8]")
        module.facts["abi_disabled"] = True
    if module.device_debug and any(s.name.startswith(".nv.local.") for s in obj.sections):
        raise NotImplementedError(NO_ABI_DEBUG)

    by_name = {s.name: s for s in obj.sections if not s.mercury}
    compat = by_name.get(".nv.compat")
    has_code = any(name.startswith(".text.") for name in by_name)
    if compat is not None:
        # ISA class 2: the code uses texture/surface, bulk-copy or tcgen05 instructions (a fact
        # about the instructions the compiler emitted)
        for rec in decode_compat(compat.data):
            if getattr(rec, "raw", False):
                continue  # no value to read: the comparison below declines it
            if getattr(rec, "attr", None) is EICompatAttr.ISA_CLASS and rec.value != 1:  # type: ignore[union-attr]
                module.facts["isa_class"] = rec.value  # type: ignore[union-attr]
            if getattr(rec, "attr", None) is EICompatAttr.CAN_FASTPATH_FINALIZE:
                # the fast-path finalize mask: instructions such as DFMA clear bits of the
                # target's mask (a fact about the code)
                from ..nvinfo.gating import fastpath_default

                if rec.values[0] != fastpath_default(target, has_code=has_code):  # type: ignore[union-attr]
                    module.facts["fastpath"] = rec.values[0]  # type: ignore[union-attr]
            if getattr(rec, "attr", None) is EICompatAttr.INST_TENSORMAP_V1 and rec.value:  # type: ignore[union-attr]
                module.facts["tensormap"] = rec.value  # type: ignore[union-attr]  # the code uses TMA
        from ..nvinfo import encode_compat
        from ..nvinfo.gating import compat_records, fastpath_default

        f = module.facts
        want = compat_records(target, isa_class=int(f.get("isa_class", 1)), fastpath=int(f.get("fastpath", fastpath_default(target, has_code=has_code))), tensormap=int(f.get("tensormap", 0)))  # type: ignore[arg-type, call-overload]
        if encode_compat(want) != compat.data:
            raise NotImplementedError(".nv.compat: a record the compatibility rules do not give (not modelled yet)")
    for sec in obj.sections:  # creation order
        if sec.sh_type == SHT_PROGBITS and not sec.flags & SHF_ALLOC and sec.name.startswith((".debug_", ".nv_debug_")) and not sec.mercury:
            if not sec.name.startswith(_DEBUG_KNOWN):
                raise NotImplementedError(f"decomposing {sec.name} is not implemented yet")
            relocs = _relocations(by_name.get(f".rel{sec.name}")) + _relocations(by_name.get(f".rela{sec.name}"))
            module.debug.append(DebugSection(sec.name, sec.data, relocs))
    _empty_dwarf(obj, module)
    _debug_labels(obj, module)
    funcs = {s.name: s for s in obj.symbols if s.type == STT_FUNC and s.section is not None and not s.name.startswith("$")}
    capsules = {s.name: s for s in obj.sections if s.name.startswith(".nv.capmerc.text.")}
    in_section: dict[int, list] = {}  # type: ignore[type-arg]
    for y in obj.symbols:
        if y.type == STT_FUNC and y.section is not None:
            in_section.setdefault(id(y.section), []).append(y)
    merc_in_section: dict[int, list] = {}  # type: ignore[type-arg]
    for m in obj.merc_symbols:
        if m.type == STT_FUNC and m.section is not None:
            merc_in_section.setdefault(id(m.section), []).append(m)
    first_named = _first_named(obj)
    strtab_first = _first_named(obj, obj.strtab)
    kept_sections = {s.name for s in obj.sections if not s.mercury}
    for text in text_sections(obj):  # function order
        sym = funcs.get(text.name[len(".text.") :])
        if sym is None or sym.section is not text:
            continue
        linkage = {STB_GLOBAL: "visible", STB_WEAK: "weak", STB_LOCAL: "static"}[sym.bind]
        fn = Function(
            name=sym.name,
            is_kernel=bool(sym.other & STO_CUDA_ENTRY),
            linkage=linkage,
            sass=text.data,
            relocations=_relocations(by_name.get(f".rela.text.{sym.name}")) + _relocations(by_name.get(f".rel.text.{sym.name}")),
        )
        if module.device_debug and not module.options.get("compile_only"):
            _resolved_references(obj, fn, first_named, kept_sections)
        _resolved_call(obj, fn, first_named)
        if module.device_debug:
            _rel_right_after_rela(obj, fn, first_named)
        if module.device_debug and not module.options.get("compile_only"):
            _own_between(obj, fn, first_named, kept_sections)
        if obj.sm >= 90 and not module.options.get("compile_only") and not module.device_debug and not fn.relocations:
            # whole program: a resolved reference with an addend first asks .rela first; where
            # every one has an addend, .rela alone (sm_110a tcgen05.relinquish_alloc_permit:
            # the reserved alias + 0x80; tests/probes_compat/tensor_memory)
            rel, rela = first_named.get(f".rel.text.{sym.name}"), first_named.get(f".rela.text.{sym.name}")
            if rel is not None and rela is not None and rela < rel:
                fn.facts["rela_first"] = True
            elif rel is None and rela is not None:
                fn.facts["rela_first"] = "only"
        _constants(obj, fn, by_name, first_named)
        if module.device_debug and fn.is_kernel and fn.relocations:
            _own_shared_after_rela(obj, fn, strtab_first)
        capsule = capsules.get(f".nv.capmerc.text.{sym.name}")
        if capsule is not None:
            # the capsule's first word is the header index of .text.<f>: derived, so not kept
            fn.capsule = bytes(4) + capsule.data[4:]
            fn.capsule_symbols = [(m.name, m.value, m.size) for m in merc_in_section.get(id(capsule), ())]
        prefix = f"${sym.name}$"
        fn.inlined = [(_copy_callee(s.name, prefix), s.value, s.size) for s in in_section.get(id(text), ()) if _copy_callee(s.name, prefix)]
        if not module.options.get("compile_only") and not module.device_debug:
            if fn.inlined:
                _clones_address_only(obj, fn, first_named, kept_sections)
            else:
                _resolved_indirect_call(obj, fn, first_named, kept_sections)
            _resolved_extern_data(obj, fn, first_named)
        module.functions.append(fn)
    whole_program = not module.options.get("compile_only") and not module.device_debug
    if whole_program:
        # whole program: ptxas lays kernels out in reverse declaration order
        module.functions.reverse()
        # device functions exist only as copies inside kernels; the copy's binding is theirs
        known = {f.name for f in module.functions}
        for sym in obj.symbols:
            if sym.type == STT_FUNC and sym.name.startswith("$") and sym.name.count("$") >= 2:
                callee = clone_callee(sym.name)
                if callee not in known:
                    known.add(callee)
                    linkage = {STB_GLOBAL: "visible", STB_WEAK: "weak", STB_LOCAL: "static"}[sym.bind]
                    if _BUILTIN_COPY.match(sym.name):
                        linkage = "builtin"  # a ptxas builtin's copy ($__internal_N_$, WEAK)
                    module.functions.insert(0, Function(name=callee, linkage=linkage))
    from .data import decompose_data, decompose_reserved_reads, decompose_shared

    # .symtab order, worked out once for the readers below (decomposing changes no symbol)
    symbols = symbol_order(obj)
    walk = decompose_data(obj, module, symbols)  # before the call facts: tables of function addresses order X
    _call_facts(obj, module, whole_program, symbols)
    if module.device_debug:
        _check_late_banks(obj, module)
    if whole_program:
        _address_table_order(obj, module)
        _extern_call_asks(obj, module, first_named)
    pre_shared = list(module.data)  # decompose_shared adds objects and reorders them all
    shared_error: NotImplementedError | None = None
    try:
        decompose_shared(obj, module, walk=walk)
    except NotImplementedError as exc:
        if not module.device_debug or module.options.get("compile_only"):
            raise
        shared_error = exc  # -g: maybe a dropped variable's doing, tried again below
        module.data[:] = pre_shared
    after_shared = {id(d) for d in module.data}
    if whole_program:
        _drop_shared_asks(module)
    decompose_reserved_reads(obj, module)
    _resolved_data_relocations(obj, module)
    _descriptor_slots(obj, module)
    derived = _nvinfo_facts(obj, module, symbols)
    if module.options.get("compile_only"):
        _first_function_launches(obj, module)
    if module.device_debug:
        _bank_alignment(module, by_name)
    if module.device_debug and not module.options.get("compile_only") and any(f.has_indirect_call for f in module.functions):
        _check_indirect_propagation(obj, module, derived)
    if has_refs:
        _texture_references(obj, module, texture_banks, by_name)
    if any(s.mercury for s in obj.sections):
        from .. import mercury
        from .tagged import encode

        # the Mercury code's own facts (addresses, sizes, CFA and line rows): leaf data that
        # the capsule determines
        try:
            merc = mercury.facts_from_cubin(obj)
        except mercury.MercuryError as exc:
            # the Mercury code breaks a rule the facts are read by: a case not modelled yet
            raise NotImplementedError(f"Mercury facts: {exc}") from None
        except (IndexError, KeyError, ValueError, OverflowError, struct.error) as exc:
            # records or CFA programs that end early or point nowhere: no ptxas cubin of the
            # sweeps reaches here, a damaged file does (tests/test_reader_errors.py)
            raise CubinFormatError(f"the Mercury sections do not decode ({type(exc).__name__}: {exc})", where="sections .nv.merc.*") from None
        for clone in obj.sections:
            if clone.mercury and clone.name in merc.lines:
                # the rows are leaf data, their encoding ptxas's: decline where the encoder
                # does not give the table back (none left in the probe cache; before the
                # zero-step and lone advance_pc rules, realistic -lineinfo sm_100a)
                # (facts_from_cubin decoded these rows from clone.data: its header is sound)
                if mercury.encode_line_events(mercury.line_header(clone.data), merc.lines[clone.name]) != clone.data:
                    raise NotImplementedError(f"{clone.name}: ptxas's line-program encoding of these rows is not reproduced yet")
        module.facts["mercury"] = encode(_reserved_clone_fact(obj, merc))
    _visible_after_kernel(obj, module)
    if whole_program:
        _internal_numbers_skipped(obj, module)
    if module.device_debug and (shared_error is not None or any(d.space == "shared" for d in module.data) or _names_debug_shared(obj)):
        later = [d for d in module.data if id(d) not in after_shared]
        _settle_debug_shared(obj, module, pre_shared, later, shared_error, walk)
    if module.options.get("compile_only") and not module.device_debug:
        if obj.sm >= 90:
            _hidden_asks(obj, module)
        _check_relocatable_asks(obj, module)
    _local_block(obj, module)
    return module


def _local_block(obj: ElfObject, module: Module) -> None:
    """Module-scope ``.local`` variables: every kernel's .nv.local.<k> holds all of them, and
    the cubin names none, so the model holds one block, :data:`LOCAL_BLOCK`, of the
    sections' size and alignment (emit.local_section). Declined unless each kernel has one,
    all alike."""
    from .data import local_block

    blocks = {s.name[len(".nv.local.") :]: s for s in obj.sections if s.name.startswith(".nv.local.") and not s.mercury}
    if not blocks:
        return
    kernels = {f.name for f in module.functions if f.is_kernel and f.linkage != "extern"}
    shapes = {(s.sh_type, s.nobits_size, s.addralign) for s in blocks.values()}
    if set(blocks) != kernels or len(shapes) != 1:
        raise NotImplementedError(f".nv.local sections of {sorted(blocks)} for kernels {sorted(kernels)}: only every kernel's, all alike, is modelled")
    _, size, align = shapes.pop()
    module.data.append(DataObject(LOCAL_BLOCK, "local", size, align, None, "static"))
    if local_block(module.data) != (size, align):
        raise NotImplementedError(f".nv.local sections of {size} bytes aligned {align}: not a block the layout gives")


def _hidden_asks(obj: ElfObject, module: Module) -> None:
    """-c, sm_90+: where a function's code makes the reference ptxas resolves itself (the
    tombstoned reserved-SMEM cap; emit.relocatable_walk), read from the names its walk makes:
    the first place (none, or before the n-th kept relocation by offset) whose walk gives the
    file's order of .rel/.rela.text.<f>, the bank, the const_opt objects and the kernel's own
    .shared variables is the fact ``hidden_ask_at`` (it replaces the fact
    ``resolved_relocations`` of data._hidden_first_reference, the reference first).
    convolutionColumnsKernel (tests/probes_rw5/rules/rel_before_shared.ptx, -c sm_90 on) names
    `.rela.text.k .rel.text.k $s_Data` although every relocation before s_Data's own carries an
    addend. A function no place explains is declined."""
    from .emit import relocatable_walk

    names = _first_named(obj, obj.strtab)
    for fn in module.functions:
        fn.facts.pop("resolved_relocations", None)
        text_at = names.get(f".text.{fn.name}")
        if text_at is None:
            continue
        asked = [n for n in (f".rel.text.{fn.name}", f".rela.text.{fn.name}") if n in names]
        own = {d.name for d in module.data if d.space == "shared" and d.scope == fn.name and names.get(d.name, -1) > text_at} if fn.is_kernel else set()
        bank = f".nv.constant.optimizer.{fn.name}"
        if bank not in names:
            bank = f".nv.constant2.{fn.name}"  # sm_90 renames it in place

        def rendered(at: int | None) -> list[str]:
            out: list[str] = []
            for kind, name in relocatable_walk(fn, at):
                made = [f"{name}.text.{fn.name}"] if kind == "ask" else [name] if name in own else [bank, name] if kind == "const" else []
                out += [n for n in made if n not in out]
            return out

        for at in (None, *_hidden_places(fn)):
            order = rendered(at)
            if set(asked) <= set(order) and all(n in names for n in order) and sorted(order, key=names.__getitem__) == order:
                if at is not None:
                    fn.facts["hidden_ask_at"] = at
                break
        else:
            raise NotImplementedError(f"-c relocation sections of {fn.name} asked in an order no hidden reference explains (.rel.text.{fn.name})")


def _hidden_places(fn: Function) -> list[int]:
    """The places of a hidden reference (before the n-th kept relocation by offset) that give
    different walks: up to the first relocation that asks .rel (then both are asked, and a
    hidden reference after it asks nothing new), and only after a relocation that makes
    something (its symbol's first, or the first .rela ask)."""
    places = [0]
    seen: set[str | None] = set()
    rela = False
    for i, r in enumerate(sorted(fn.relocations, key=lambda q: q.offset)):
        if r.symbol != fn.name and not r.addend:
            break  # asks .rel
        new = r.symbol not in seen or not rela
        seen.add(r.symbol)
        rela = True
        if new:
            places.append(i + 1)
    return places


def _visible_after_kernel(obj: ElfObject, module: Module) -> None:
    """sm_110 makes the sections of the visible variables before its reserved shared-memory
    objects, but only of those the PTX declares before the first kernel (declaration or
    definition; a .func's does not count): a visible variable declared after one has its section
    made after them (tests/probes_rw6/rules/visible_after_kernel*, every mode; dynpar_rdc -c:
    `.nv.shared.reserved.0 .nv.global`, the variables follow the `.weak .entry` prototypes).
    Fact ``visible_after_kernel``: the visible variables whose section symbol is named after
    the first reserved object (a section an earlier variable made tells nothing)."""
    from ..alloc.shared import RESERVED_TCGEN05

    at = {id(slot): n for n, slot in enumerate(obj.strtab.slots)}
    anchors = [at[id(y.name_slot)] for y in obj.symbols if y.name in ("__nv_reservedSMEM_gb10b_war_var", RESERVED_TCGEN05[0]) and y.name_slot is not None]
    if not anchors:
        return
    from .data import SECTIONS as DATA_SECTIONS

    # a section is named in .strtab under the name it is created with (.nv.constant3 as
    # .nv.constant.user from sm_90 on)
    first = _first_named(obj, obj.strtab)

    def made_at(section: str) -> int:
        d = DATA_SECTIONS.get(section)
        return first.get(d.creation_name(obj.sm) if d is not None else section, -1)

    home = {y.name: y.section.name for y in obj.symbols if y.section is not None and y.type not in (STT_FUNC, STT_SECTION)}
    late = [
        d.name
        for d in module.data
        if d.linkage == "visible" and d.scope is None and d.space in ("global", "const") and d.name in home and made_at(home[d.name]) > min(anchors)
    ]
    if late:
        module.facts["visible_after_kernel"] = late


def _check_relocatable_asks(obj: ElfObject, module: Module) -> None:
    """-c, every target: where names interleave with a function's relocation asks (compiler
    constants, function-scope .shared variables) or _hidden_asks read a hidden reference's
    place from the names, the rebuilt string tables are compared with the file's, and a
    difference is declined, naming the first name that differs, instead of building other
    bytes. The asks are modelled (emit.relocatable_walk), and so is where a first device
    function names its variables (emit.data_block); the check stays as the guard of the rest
    (it caught that rule's cases from sm_90 on, while sm_75-89 rebuilt them wrong unchecked:
    tests/probes_casks dev_shared_*)."""
    if not any(f.constants or f.facts.get("hidden_ask_at") is not None for f in module.functions) and not any(d.space == "shared" and d.scope for d in module.data):
        return
    from .emit import emit

    try:
        rebuilt = emit(module)
    except (ModelError, NotImplementedError):
        return  # the build says why
    for _, ours, theirs in _differing_tables(rebuilt, obj)[:1]:
        a, b = ours.split(b"\0"), theirs.split(b"\0")
        at = next((i for i, (u, v) in enumerate(zip(a, b)) if u != v), min(len(a), len(b)))
        name = b[at].decode("latin-1") if at < len(b) else "the end"
        raise NotImplementedError(f"-c names made in an order not reproduced yet ({name})")


def _differing_tables(ours: ElfObject, theirs: ElfObject) -> list[tuple[str, bytes, bytes]]:
    """The string tables a rebuild does not give back: ("section names" | "string table", our
    bytes, the file's), .shstrtab first. The structure checks below decline on the first."""
    pairs = (("section names", ours.shstrtab, theirs.shstrtab), ("string table", ours.strtab, theirs.strtab))
    rendered = [(what, a.layout()[0], b.layout()[0]) for what, a, b in pairs]
    return [(what, a, b) for what, a, b in rendered if a != b]


def _names_debug_shared(obj: ElfObject) -> bool:
    """Whether ptxas made .nv_debug.shared at some point (live or deleted)."""
    return any(slot.text == ".nv_debug.shared" for slot in obj.shstrtab.slots)


#: how many dropped-variable hypotheses a -g module may try before declining, how many of them
#: may be rebuilt (those whose layout matches) and how many colour-search steps they share
PHANTOM_LIMIT = 3000
PHANTOM_REBUILDS = 64
PHANTOM_SEARCH_STEPS = 400_000


def _settle_debug_shared(obj: ElfObject, module: Module, base: list[DataObject], tail: list[DataObject], error: NotImplementedError | None, walk: Sequence[str] = ()) -> None:
    """-g: check the shared memory decomposed (:func:`_check_debug_shared`); where it is not
    reproduced, try again assuming .shared variables that ptxas dropped because no function
    references them (one, then two device functions': :func:`cubinemit.semantic.data.
    phantom_hypotheses`): ptxas still walks them (the creation point of .nv_debug.shared) and
    sorts them with the others (the colouring order), and nothing else records them. The first
    hypothesis whose rebuild matches is kept; else the first failure is raised. Bounded by
    PHANTOM_LIMIT hypotheses, PHANTOM_REBUILDS rebuilds and PHANTOM_SEARCH_STEPS steps of the
    colour search."""
    from .data import SearchBudgetExceeded, decompose_shared, phantom_hypotheses, walked_after_device_code, walked_in_kernel_sections

    if isinstance(error, SearchBudgetExceeded):
        raise error  # too many kernels to search: a dropped variable would not make it cheaper
    if error is None:
        try:
            _check_debug_shared(obj, module)
            return
        except NotImplementedError as exc:
            if module.options.get("compile_only"):
                raise  # -c drops nothing
            error = exc
    # facts the shared decomposition sets: each hypothesis starts from those of the first
    naming = ("shared_named_first", "own_after_bank", "own_after_rela")
    named_first = {(f.name, key): f.facts.get(key) for f in module.functions for key in naming}
    budget = [PHANTOM_SEARCH_STEPS]
    rebuilds = 0
    # first: the walk ends earlier, the rest of its names in kernel sections being the kernels'
    # own variables their code names first (below sm_90 nothing tells them apart: random -g
    # probe r5006 sm_75, `.nv_debug.shared .nv.global gout k0v0 .rel.text.k0`); then dropped
    # variables
    # the order the later steps gave (texture references among the visible variables)
    first = list(module.data)
    stops = walked_in_kernel_sections(obj, module)
    hypotheses = [((), stop) for stop in reversed(stops)]
    # then: the walk is a device function's own variables (its code made .nv_debug.shared)
    hypotheses += [((), stop) for stop in walked_after_device_code(obj, module)]
    for n, (phantoms, stop) in enumerate(itertools.chain(hypotheses, ((p, None) for p in phantom_hypotheses(obj, module, base)))):
        if n >= PHANTOM_LIMIT or rebuilds >= PHANTOM_REBUILDS or budget[0] <= 0:
            break
        module.data = list(base)
        for f in module.functions:
            for key in naming:
                if named_first[f.name, key] is None:
                    f.facts.pop(key, None)
                else:
                    f.facts[key] = named_first[f.name, key]
        try:
            decompose_shared(obj, module, phantoms, budget, stop, walk)
        except NotImplementedError:
            continue
        module.data = _with_tail_in_place(module.data, tail, first)
        rebuilds += 1
        try:
            _check_debug_shared(obj, module)
            return
        except NotImplementedError:
            continue
    raise error


def _with_tail_in_place(data: list[DataObject], tail: list[DataObject], first: list[DataObject]) -> list[DataObject]:
    """``data`` with the ``tail`` objects (those the steps after the shared decomposition
    added) each put back after the object it followed in ``first``, the order those steps
    gave: -g names texture references and visible variables in the model's order, so a
    reference the first kernel uses stays ahead of a visible variable declared after the
    shared ones (random h0177 sm_90a: `tx0 cg sf0`; appended, the references came last)."""
    out = list(data)
    for i, d in enumerate(first):
        if not any(d is t for t in tail):
            continue
        # after the nearest object before it in ``first`` that ``out`` holds (tail ones placed)
        at = 0
        for prev in reversed(first[:i]):
            j = next((k for k, e in enumerate(out) if e is prev), None)
            if j is not None:
                at = j + 1
                break
        out.insert(at, d)
    out += [t for t in tail if not any(t is d for d in out)]
    return out


def _check_debug_shared(obj: ElfObject, module: Module) -> None:
    """-g shared memory is decomposed from a partial rule set (the creation points of
    variables ptxas dropped or resolved are inferred from names): rebuild the structure and
    decline, naming the first difference, rather than return a module that builds other
    bytes."""
    from .emit import emit

    try:
        rebuilt = emit(module)
    except ModelError as exc:
        raise NotImplementedError(f"-g shared memory not reproduced: {exc}") from None

    def symbols(o: ElfObject) -> list[tuple[str, int, int, object]]:
        # symbols with their section too: a privatised object moved to its kernel's section
        # late (or not) keeps its name and value either way
        return [(y.name, y.value, y.size, y.section.name if y.section is not None else y.shndx) for y in o.symbols]

    for what, ours, theirs in [*_differing_tables(rebuilt, obj), ("symbols", symbols(rebuilt), symbols(obj))]:
        if ours != theirs:
            at = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
            raise NotImplementedError(f"-g shared memory not reproduced yet ({what} differ at entry {at})")


def _internal_numbers_skipped(obj: ElfObject, module: Module) -> None:
    """Whole program: the counter that numbers the kernels' builtin copies
    ``$__internal_N_$<b>`` also numbers nvopencc's function statics (module .shared
    variables named ``__cuda_local_var_*``) each kernel uses, before its copies; the cubin
    names neither. Fact ``internal_numbers_skipped`` on a kernel whose first copy's number
    shows some (emit.builtin_copy_names; a kernel without copies passes its share on to the
    next one that has some). Declined where the copies do not follow on from there."""
    from .emit import builtin_copy_names

    texts = {id(s): s.name[len(".text.") :] for s in obj.sections if s.name.startswith(".text.")}
    actual: dict[tuple[str, str], int] = {}
    for y in obj.symbols:
        m = _BUILTIN_COPY.match(y.name)
        if m and y.section is not None and id(y.section) in texts:
            actual[(texts[id(y.section)], m.group(2))] = int(m.group(1))
    if not actual:
        return
    by_name = {f.name: f for f in module.functions}
    for _ in range(len(module.functions) + 1):  # one kernel settled per round
        derived = {k: int(_BUILTIN_COPY.match(v).group(1)) for k, v in builtin_copy_names(module).items()}  # type: ignore[union-attr]
        if set(actual) != set(derived):
            break
        wrong = next((k for k in derived if derived[k] != actual[k]), None)
        if wrong is None:
            return
        # the first kernel whose copies are numbered further on: its copies all shift by the
        # same count, then the next kernel is compared
        first = min(n for (k, _), n in actual.items() if k == wrong[0])
        ours = min(n for (k, _), n in derived.items() if k == wrong[0])
        if first <= ours or "internal_numbers_skipped" in by_name[wrong[0]].facts:
            break
        by_name[wrong[0]].facts["internal_numbers_skipped"] = first - ours
    raise NotImplementedError("builtin copies $__internal_N_$ numbered in an order the rules do not give")


def _copy_callee(name: str, prefix: str) -> str | None:
    """The callee whose inlined copy the FUNC symbol ``name`` in a kernel's .text is."""
    if name.startswith(prefix):
        return name[len(prefix) :]
    m = _BUILTIN_COPY.match(name)
    return m.group(2) if m else None


def _debug_labels(obj: ElfObject, module: Module) -> None:
    """The unplaced PTX labels of each debug payload: undefined LOCAL NOTYPE symbols, which
    ptxas names while it relocates that payload (their .strtab slots follow its name)."""
    labels = {y.name for y in obj.symbols if y.info == 0 and y.section is None and y.shndx == 0 and y.name}
    if not labels:
        return
    payloads = {d.name: d for d in module.debug}
    current: DebugSection | None = None
    for slot in obj.strtab.slots:
        if slot.text in payloads:
            current = payloads[slot.text]
        elif slot.text in labels:
            if current is None:
                raise NotImplementedError(f"undefined local symbol {slot.text!r} outside the debug sections is not implemented yet")
            current.labels.append(slot.text)
            labels.discard(slot.text)
    if labels:
        raise NotImplementedError(f"undefined local symbol {sorted(labels)[0]!r} is not implemented yet")
def _constants(obj: ElfObject, fn: Function, by_name: dict[str, Section], names: dict[str, int]) -> None:
    """The compiler constants of .nv.constant2.<f> (jump tables, FP64 literals, function
    address tables) and their relocations. A whole-program -g kernel whose own code has no
    constants but whose callees' do (jump tables, FP64 literals) gets its bank late, after
    .nv.callgraph and .nv.prototype: fact ``constant_bank_late``. ``names``: each .shstrtab
    name's first slot (_first_named)."""
    bank = by_name.get(f".nv.constant2.{fn.name}")
    if bank is None:
        return
    late = ".nv.prototype" in names and names[bank.name] > names[".nv.prototype"]
    if late:
        if obj.e_type != ET_EXEC or not fn.is_kernel:
            raise NotImplementedError(f"{bank.name}: a bank created after .nv.prototype outside a whole-program kernel is not implemented yet")
        if any(s.mercury for s in obj.sections):
            from ..mercury import bank_blocks

            # its Mercury clone relocates each callee's tables against that callee, found in
            # the bank by mercury.bank_blocks (jumptable -g, r0004 -g; sm_100+)
            if not bank_blocks(obj, fn.name):
                raise NotImplementedError(f"{bank.name}: the Mercury clone of a late -g bank whose callees' jump tables are not found in it is not implemented yet")
        fn.facts["constant_bank_late"] = True
    fn.constants = bank.data
    fn.constant_relocations = _relocations(by_name.get(f".rela.nv.constant2.{fn.name}")) + _relocations(by_name.get(f".rel.nv.constant2.{fn.name}"))


def _reserved_clone_fact(obj: ElfObject, merc: object) -> object:
    """.nv.merc.nv.shared.reserved.0 is derived (cubinemit.mercury._reserved_smem) but for
    where ptxas's stale section-header bytes land (sm_110: heap garbage, at 0x40 in ~97% of the
    cubins): ``merc`` with the position that gives the file's bytes
    (MercuryFacts.stale_header_at); declined where none does."""
    from ..mercury import _EXEC_SMEM_WINDOW, _reserved_smem

    clone = obj.find_section(".nv.merc.nv.shared.reserved.0")
    if clone is None or clone.clone_of is None:
        return merc
    if clone.clone_of.size - len(clone.data) not in (0, _EXEC_SMEM_WINDOW):
        # the clone is the section's size (less the executable's window): no rule to try
        raise CubinFormatError(f"{len(clone.data):#x} bytes, not the {clone.clone_of.size:#x} of {clone.clone_of.name}", where=f"section {clone.name}")
    for at in (0x40, 0x50, 0x60, 0x70, None):
        if _reserved_smem(obj, clone.clone_of, at) == clone.data:
            return merc if at == 0x40 else attrs.evolve(merc, stale_header_at=at)  # type: ignore[misc]
    raise NotImplementedError(".nv.merc.nv.shared.reserved.0: its bytes follow no known rule")


def _check_late_banks(obj: ElfObject, module: Module) -> None:
    """-g: the emitter makes the late banks (fact ``constant_bank_late``) in
    :func:`emit.late_bank_groups`, which follows the callees whose code has compiler constants:
    the banks one callee brings, then (sm_90+) their .rela sections. Which callees those are
    the order of the names tells: where every callee standing for one gives another order, the
    fewest callees that give the file's order get the fact ``holds_constants``
    (late_banks_by_callee with k_b also calling a constant-free dev_plain: ptxas ignores
    dev_plain; random r0050 -g sm_90: f1's table brings k1's bank and .rela, then f0's k0's,
    where every callee standing for one puts both banks first). Declined when no set of
    callees gives it."""
    from itertools import combinations

    from .emit import late_bank_groups

    late = [f.name for f in module.functions if f.facts.get("constant_bank_late")]
    if len(late) < 2:
        return
    by_name = {f.name: f for f in module.functions}
    texts = [by_name[s.name[len(".text.") :]] for s in text_sections(obj) if s.name[len(".text.") :] in by_name]
    names = _first_named(obj)
    wanted = [n for f in late for n in (f".nv.constant2.{f}", f".rela.nv.constant2.{f}") if n in names]
    made = sorted(wanted, key=names.__getitem__)

    def sequence() -> list[str]:
        out: list[str] = []
        for group in late_bank_groups(texts):
            out += [f".nv.constant2.{f.name}" for f in group]
            out += [n for f in group if (n := f".rela.nv.constant2.{f.name}") in names]
        return out

    if made == sequence():
        return
    called = {c for f in module.functions for c in f.calls}
    callees = [f for f in texts if not f.is_kernel and f.name in called]
    for size in range(1, min(len(callees), 8) + 1):
        for chosen in combinations(callees, size):
            for f in chosen:
                f.facts["holds_constants"] = True
            if made == sequence():
                return
            for f in chosen:
                del f.facts["holds_constants"]
    raise NotImplementedError(f"-g late constant banks made in an order no callee explains ({', '.join(made)}) are not implemented yet")


def _first_named(obj: ElfObject, table: StringTable | None = None) -> dict[str, int]:
    """Where each .shstrtab name (or ``table``'s) was first made (its first slot), once per
    module: the creation-order facts below compare such positions for every function."""
    first: dict[str, int] = {}
    for n, slot in enumerate((table or obj.shstrtab).slots):
        first.setdefault(slot.text, n)
    return first


def _resolved_references(obj: ElfObject, fn: Function, names: dict[str, int], kept: set[str]) -> None:
    """-g: ptxas resolves a function's references to .const and compiler-constant data itself,
    yet makes the .rel.text.<f> section for the first of them (and drops it if nothing else
    goes there). When that name comes before any relocation kept would have made it, the code
    made such a reference first: fact ``resolved_relocations`` (``"rela_kept"`` when the empty
    .rela.text.<f> stays)."""
    rel, rela = f".rel.text.{fn.name}", f".rela.text.{fn.name}"
    # the compiler-constant bank is made at the first constant reference: after the relocation
    # asks of the code before it (printf_switch -g sm_75-89: .rela, .rel, then .nv.constant2)
    # (sm_90 renames the bank in place, so .shstrtab keeps its final name: kitchen -g; sm_100+
    # appends it and keeps the creation name)
    bank = f".nv.constant2.{fn.name}"
    if obj.sm >= 90 and f".nv.constant.optimizer.{fn.name}" in names:
        bank = f".nv.constant.optimizer.{fn.name}"
    if bank in names:
        after = sum(1 for n in (rel, rela) if n in names and names[n] < names[bank])
        if after:
            fn.facts["constant_bank_after"] = after
    if rel not in names or (rela in names and names[rela] < names[rel]):
        return
    first = min(fn.relocations, key=lambda r: r.offset, default=None)
    legacy = obj.sm < 90
    first_kind = None if first is None else ((".rel" if first.addend is None else ".rela") if legacy else (".rela" if first.symbol == fn.name else ".rel"))
    if first_kind != ".rel":
        # below sm_90 a .rela asked right after (a resolved reference with an addend, or a
        # resolved call: shared s_Hist[tid + i*192] in an unrolled loop, -g sm_75-89,
        # tests/probes_rw5/histogram `.rel.text.k .rela.text.k`, neither kept) is the fact
        # resolved_call = "after_rel" (_resolved_call)
        fn.facts["resolved_relocations"] = True
    if not fn.relocations and obj.sm >= 90 and rela in kept:
        # resolved shared-memory references keep an empty .rela from sm_90 on (constant ones
        # drop it): shared_dynamic -g vs const_vars -g
        fn.facts["resolved_relocations"] = "rela_kept"


def _own_between(obj: ElfObject, fn: Function, names: dict[str, int], kept: set[str]) -> None:
    """-g: a BRX's table reference asks .rela.text.<k> first; a later reference to the
    kernel's own .shared variable then names it before asking .rel.text.<k>; a call after it
    keeps its relocations (every target: random -g modules r03, `.rela.text.k1 s1a
    .rel.text.k1`, and r00 calling dev; tests/probes_gshared/gsh_brx_then_own,
    gsh_brx_then_own_call). Fact ``own_between_asks`` (``"rela_kept"`` when the empty
    .rela.text.<k> stays, from sm_90 on)."""
    rel, rela = f".rel.text.{fn.name}", f".rela.text.{fn.name}"
    if rel not in names or rela not in names or names[rela] > names[rel]:
        return
    texts = [slot.text for slot in obj.strtab.slots]
    between = texts[texts.index(rela) + 1 : texts.index(rel)] if rel in texts and rela in texts else []
    own = {y.name for y in obj.symbols if y.section is not None and y.section.name == f".nv.shared.{fn.name}" and y.type != STT_SECTION}
    if between and all(t in own for t in between):
        fn.facts["own_between_asks"] = "rela_kept" if rela in kept else True
        # the ones its code references later are named after .rel (random -g modules r18,
        # sm_90-120: `.rela.text.k0 s0b .rel.text.k0 s0a`)
        fn.facts["own_between"] = between
        fn.facts.pop("resolved_call", None)


def _clones_address_only(obj: ElfObject, fn: Function, names: dict[str, int], kept: set[str]) -> None:
    """Whole program: a kernel's calls to its clones are resolved relocations, which make
    ptxas ask for .rel/.rela.text.<k> (kept empty from sm_90 on). A kernel that only takes
    the address of functions gets their clones (every address-taken function of the module)
    reached through its .nv.constant2 table alone, and asks for nothing (fo_fptr K2: ``&op_a``,
    clones of op_a, op_b, op_c; every target). No relocation name for the kernel, or, from
    sm_90 on, a .rela asked and dropped (the asks of a resolved extern call, which keeps no
    .rela: cuda-samples newdelete vectorCreate, malloc and a vtable store but no virtual
    call; tests/funcorder_probes/fo_data_taker make): fact ``clones_address_only``."""
    if fn.relocations:
        return
    rel, rela = f".rel.text.{fn.name}", f".rela.text.{fn.name}"
    if (rel not in names and rela not in names) or (obj.sm >= 90 and rela in names and rela not in kept):
        fn.facts["clones_address_only"] = True


def _address_table_order(obj: ElfObject, module: Module) -> None:
    """sm_100+ whole program: the Mercury relocations of a kernel's function-address table
    come in the module's G order of the functions copied (non-static ones in declaration order,
    then static ones; cubinemit.mercury._optimizer_relocs). The cubin keeps no other trace of
    the device functions' declaration order, so it is read back from them: the functions of
    each table stand in that order in module.functions. Declined when the tables disagree or
    put a static function before a non-static one."""
    wanted: list[list[str]] = []
    for s in obj.sections:
        prefix = ".nv.merc.rela.nv.constant.optimizer."
        if not s.mercury or not s.name.startswith(prefix) or not s.relocs:
            continue
        owner = f"${s.name[len(prefix):]}$"
        seq = [r.symbol.name[len(owner) :] for r in s.relocs if r.symbol is not None and r.symbol.name.startswith(owner)]
        if seq:
            wanted.append(seq)
    if not wanted:
        return
    by_name = {f.name: f for f in module.functions}
    before: dict[str, set[str]] = {}
    for seq in wanted:
        for i, a in enumerate(seq):
            if a not in by_name:
                raise NotImplementedError(f"function-address table entry {a!r}: no such function")
            before.setdefault(a, set()).update(seq[:i])
    order: list[str] = []
    left = [f.name for f in module.functions if f.name in before]
    while left:
        ready = [n for n in left if before[n] <= set(order)]
        if not ready:
            raise NotImplementedError("the Mercury relocation orders of the function-address tables disagree")
        order.append(ready[0])
        left.remove(ready[0])
    statics = [n for n in order if by_name[n].linkage == "static"]
    if order != [n for n in order if by_name[n].linkage != "static"] + statics:
        raise NotImplementedError("a function-address table lists a static function before a non-static one: not G order")
    slots = [i for i, f in enumerate(module.functions) if f.name in before]
    for i, name in zip(slots, order):
        module.functions[i] = by_name[name]


def _check_indirect_propagation(obj: ElfObject, module: Module, derived: ModuleFacts) -> None:
    """-g folds what an entry can reach into its records; through an indirect call ptxas folds
    the address-taken functions with the call's prototype only (virtual_shapes -g: the
    destructors' frames stay out of MIN_STACK_SIZE; fold_virtual_kernels: their free() out of
    EXTERNS), and a module with one entry folds every function last
    (cubinemit.nvinfo.builder._fold_module). Measured on a few shapes only: rebuild the .nv.info
    sections from the facts and decline when they differ."""
    from ..elf.order import symbol_order
    from ..nvinfo import encode_nvinfo
    from ..nvinfo.builder import build_module_info
    from ..nvinfo.facts import FunctionFacts, ModuleFacts, from_json

    index = {y.name: i for i, y in enumerate(symbol_order(obj), start=1) if y.name}
    # the module facts hold neither the call graph nor the table functions (both derived) nor
    # what the options say: ``derived``, the module facts read from the cubin, has them
    mfacts = attrs.evolve(from_json(ModuleFacts, module.facts["nvinfo"]), call_graph=derived.call_graph, table_functions=derived.table_functions, errors_visible_at_exit=derived.errors_visible_at_exit)  # type: ignore[arg-type]
    texts = [s.name[len(".text.") :] for s in text_sections(obj)]
    by_name = {f.name: f for f in module.functions}
    ffacts = [from_json(FunctionFacts, by_name[n].facts["nvinfo"]) for n in texts if n in by_name]  # type: ignore[arg-type]
    sections = {s.name: s for s in obj.sections if not s.mercury}
    try:
        built = build_module_info(mfacts, ffacts, symbol_rank=index.__getitem__)
        same = all(name in sections and encode_nvinfo(records, symbol_index=index.__getitem__) == sections[name].data for name, records in built.items())
    except (KeyError, ModelError):
        same = False
    if not same:
        raise NotImplementedError("-g: what an indirect call folds into its kernel's .nv.info is not modelled yet")


def _resolved_data_relocations(obj: ElfObject, module: Module) -> None:
    """Whole program: function addresses in a module variable's initializer (``.global .u64
    tbl[2] = {f2, f1};``) are resolved by ptxas itself, yet it asks for relocation sections of
    the data section and drops them: .rel below sm_90, .rel then .rela from sm_90 on, for
    functions a kernel has copies of (fo_fptr_global: ``~.rel.nv.constant.user
    ~.rela.nv.constant.user ~.rel.nv.global.init ~.rela.nv.global.init``, every target); .rela
    alone for one no kernel reaches (fo_shuffle_data); from sm_90 on the .rela may stay, empty
    (virtual_shapes: vtables of cloned methods, tests/probes_rw3). Resolved entries count
    where entries are left too: a function table declared after a pointer with an offset asks
    .rel first although only .rela entries stay (tests/probes_weak/weak_vtable_last). Fact
    ``resolved_data``: per data section (final name) the kinds asked, in order, each with
    whether it stays, where the entries left do not give them (data.initialiser_asks). Under
    -g too: .const addresses in a .const initializer ask ~.rel.nv.constant3 after the debug
    payloads (ZLUDA const_ident; tests/probes_data/init_const_addresses)."""
    from .data import GLOBAL_INIT, CONSTANT3, CONSTANT4, RELOCATION_ORDER, SECTIONS, data_walk, initialiser_ask_order, initialiser_asks, rela_asked_first, section_variables

    if module.options.get("compile_only"):
        return
    position = _first_named(obj)
    kept = {s.name: s for s in obj.sections if not s.mercury}
    resolved: dict[str, list[list[object]]] = {}
    everything: list[tuple[int, str, str]] = []  # (position, section, kind) of bank 3's and .nv.global.init's asks
    for name in RELOCATION_ORDER:
        if name not in kept:
            continue
        created = SECTIONS[name].creation_name(obj.sm)
        asks = []
        left = False
        for kind in (".rel", ".rela"):
            names = list(dict.fromkeys(f"{kind}{n}" for n in (created, name)))
            at = [position[x] for x in names if x in position]
            if at:
                stays = [kept[x] for x in names if x in kept]
                if len(stays) > 1:
                    break
                left = left or bool(stays and stays[0].relocs)
                asks.append((min(at), kind, bool(stays)))
        else:
            asked = [[kind, stays] for _, kind, stays in sorted(asks)]
            if name != CONSTANT4:
                everything += [(at, name, kind) for at, kind, _ in asks]
            if left:
                if name not in (GLOBAL_INIT, CONSTANT3):
                    continue
                variables = section_variables(module.data, name)
                relocs = [r for d in variables for r in d.relocations]
                legacy = family_of(obj.sm) is Family.LEGACY
                default = initialiser_asks(legacy, relocs, rela_asked_first(variables, {d.name for d in variables}))
                # the emitter asks them in the data walk's order (emit.data_relocations), which
                # the entries left may not give: -g resolves a static table's first addresses
                # (`ftab = {h8, h9, h7}`, h7's entry left, after `gp = generic(g)+8`), which
                # ask .rela, and the walk meets h7's .rel first (fz s0057 -g, every target)
                kinds = list(dict.fromkeys(k for _, k in initialiser_ask_order(legacy, [(name, v.relocations) for v in data_walk(variables)])))
                given = dict(default)
                default = [(k, given[k]) for k in kinds if k in given] + [(k, e) for k, e in default if k not in kinds]
                if asked == [[kind, entries is not None] for kind, entries in default]:
                    continue
            if asked:
                resolved[name] = asked
    if resolved:
        module.facts["resolved_data"] = resolved
        # the walk over the initialisers (data.initialiser_ask_order) interleaves the sections'
        # asks, and the resolved entries it meets are not in the file: where the asks do not
        # come section by section, fact ``data_ask_order`` gives them as read (`gp = generic(g)
        # +544; gcp = generic(cK); .const tbl = {f1, f2}; gfp = f1`, sm_86: .rel.nv.global.init
        # ~.rel.nv.constant3 .rela.nv.global.init; tests/probes_data init_across_sections)
        read = [[n, k] for _, n, k in sorted(everything)]
        if read != sorted(read, key=lambda p: RELOCATION_ORDER.index(p[0])):
            module.facts["data_ask_order"] = read


def _descriptor_slots(obj: ElfObject, module: Module) -> None:
    """Whole program: the kernels initializers take hold the first .nv.constant4 slots in
    their declaration order (data.plan), which the function order search does not pin down
    between weak kernels (CUDA samples Mandelbrot, clang -fgpu-rdc: four weak template
    kernels). Fact ``descriptor_order`` where the slots give another order than the
    declaration order found."""
    from .data import R_CUDA_FUNC_DESC_64, constant4_slots

    if module.options.get("compile_only") or module.device_debug:
        return
    slots = [r.symbol.name for r in constant4_slots(obj) or () if r.type == R_CUDA_FUNC_DESC_64 and r.symbol is not None]
    if slots and slots != [f.name for f in module.functions if f.name in slots]:
        module.facts["descriptor_order"] = slots


def _resolved_indirect_call(obj: ElfObject, fn: Function, names: dict[str, int], kept_sections: set[str]) -> None:
    """Whole program from sm_90 on: a kernel without clones whose code makes an indirect call
    (through a pointer parameter: fp_indirect_only, fp_caller_order) has ptxas resolve the
    call's relocations itself, asking .rel.text.<k> (dropped) then .rela.text.<k> (kept empty),
    as for calls to clones; below sm_90 it asks nothing. Both names, .rel first, and the empty
    .rela kept (resolved extern calls drop both: fo_syscalls K4): fact
    ``resolved_indirect_call``."""
    if obj.sm < 90 or fn.relocations:
        return
    rel, rela = f".rel.text.{fn.name}", f".rela.text.{fn.name}"
    kept = rela in kept_sections  # resolved extern calls drop it
    if kept and rel in names and names[rel] < names[rela]:
        fn.facts["resolved_indirect_call"] = True


def _drop_shared_asks(module: Module) -> None:
    """Whole program: a kernel whose code references shared memory asks .rel/.rela.text.<k> as
    its clone calls would (emit: ``shared_refs``), so the fact ``resolved_indirect_call`` that
    the same names gave before the shared objects were known says nothing more there: dropped,
    to keep the spec minimal (examples/blocksum: no indirect call, only `partial[]`)."""
    users = {u for d in module.data if d.space == "shared" for u in d.users}
    for fn in module.functions:
        if fn.name in users:
            fn.facts.pop("resolved_indirect_call", None)


def _extern_call_asks(obj: ElfObject, module: Module, names: dict[str, int]) -> None:
    """Whole program, once the calls are known: a kernel's call to an extern function (a
    syscall such as __assertfail) is a relocation ptxas resolves, asking .rel.text.<k>, so a
    ``resolved_relocations`` fact read before the calls were known says nothing more there
    (dropped: minimal spec). Below sm_90 a resolved call made after it (an atom whose result is
    used in a loop) then asks .rela.text.<k> right after: `.rel.text.k .rela.text.k`, both
    dropped (llm.c matmul_backward_bias kernel8<float, true>: assert, then atomicAdd in a
    loop; tests/probes_gfold/resolved_call_after_extern, sm_75-89): :func:`_resolved_call` reads
    it again, the .rel being the call's (fact ``resolved_call`` = ``"after_rel"``).

    A call the optimizer folds away (a branch ptxas proves never taken) makes no relocation,
    so nothing is asked, while the call graph and EIATTR_EXTERNS, made from the PTX, keep the
    callee (Warp's compile-time float checks guarding vprintf; tests/probes_gfold/
    folded_extern_call, every target): fact ``extern_calls_folded``."""
    externs = {f.name for f in module.functions if f.linkage == "extern"}
    for fn in module.functions:
        if not any(c in externs for c in fn.calls):
            continue
        if not module.device_debug and f".rel.text.{fn.name}" not in names:
            fn.facts["extern_calls_folded"] = True
            continue
        if fn.facts.get("resolved_relocations") is True:
            del fn.facts["resolved_relocations"]
        if "resolved_call" not in fn.facts:
            _resolved_call(obj, fn, names, rel_explained=True)


def _resolved_extern_data(obj: ElfObject, fn: Function, names: dict[str, int]) -> None:
    """Whole program: a variable declared ``.extern`` and defined nowhere becomes an ordinary
    visible one ("Unresolved extern variable ... ignoring extern qualifier"), yet the code's
    references to it were made as relocations, which ptxas then resolves and drops: the kernel
    asks .rel.text.<k> (then .rela from sm_90 on) when it has no relocation, clone or extern
    call to explain it (tests/probes_lib/extern_vars, every target; a reference through an
    inlined callee asks in the kernel that copies it). Fact ``resolved_relocations``; not where
    the kernel's clones (from sm_90 on) or an extern call ask anyway."""
    if fn.relocations or fn.facts.get("resolved_indirect_call") or f".rel.text.{fn.name}" not in names or (fn.inlined and obj.sm >= 90):
        return
    if any(y.type == STT_FUNC and y.section is None and y.name in fn.calls for y in obj.symbols):
        return
    fn.facts["resolved_relocations"] = True


def _own_shared_after_rela(obj: ElfObject, fn: Function, names: dict[str, int]) -> None:
    """-g: a kernel's own .shared variables are named at their first (resolved) reference. The
    emitter names them once .rel.text.<k> is asked for; when the code asked .rel and then .rela
    before that reference (MonteCarloPrice -g -c sm_75, tests/probes_rw5/montecarlo_misc: the
    __constant__ table asks .rel, the sqrt slow-path call in the loop .rela, the reductions'
    s_sum after the loop: `.rel.text.k .rela.text.k s_sum s_sum2`), fact
    ``own_shared_after_rela``."""
    rel, rela, text = (names.get(f"{p}.text.{fn.name}") for p in (".rel", ".rela", ""))
    if rel is None or rela is None or text is None or not rel < rela:
        return
    own = [names[y.name] for y in obj.symbols if y.section is not None and y.section.name == f".nv.shared.{fn.name}" and y.name in names and names[y.name] > text and y.type != 3]
    if own and min(own) > rela:
        fn.facts["own_shared_after_rela"] = True


def _resolved_call(obj: ElfObject, fn: Function, names: dict[str, int], rel_explained: bool = False) -> None:
    """Below sm_90, some code makes a subroutine call that ptxas resolves itself: it asks for
    .rela.text.<f> (the return address) and then .rel.text.<f> (the call target) and drops them
    when nothing else goes there. Seen for an ``atom`` whose result is used inside a loop
    (histogram kernels: ``atom.global.add.u32 %r, [%rd], 1`` in a grid-stride loop, every
    mode; the ``atom.cas`` loop of a bf16 atomicAdd below sm_90), and in the builtins
    ``__cuda_sm70_shflsync_*`` and kernels using cooperative-group barriers; sm_75..sm_89,
    tests/probes_rw2. When the .rela name comes first although the relocations kept would have
    asked .rel first (or none at all), the code made such a call: fact ``resolved_call``.
    When the call comes after the code's first (.rel) relocation, kept or resolved, .rel.text.<f>
    is already there and only the dropped .rela name follows it (-g, a store to extern shared
    memory then a bf16 atomicAdd: ``.rel.text.k .rela.text.k .nv.constant0.k``, both dropped;
    llmc_misc_80 -g, tests/probes_rw4, sm_80-89): fact ``resolved_call`` = ``"after_rel"``.
    From sm_90 on -g see :func:`_rel_right_after_rela`. ``rel_explained``: the .rel is the
    kernel's whole-program extern call's (:func:`_extern_call_asks`)."""
    if obj.sm >= 90:
        return
    rel, rela = f".rel.text.{fn.name}", f".rela.text.{fn.name}"
    if rela not in names or rel not in names:
        return
    if names[rel] < names[rela]:
        # a reference asked .rel first (resolved: -g shared or constant data; or kept: a .global
        # variable's address), the call then asks .rela: samples_mix k_hist -g, `mov.u32 %r,
        # sbins` before a histogram's atom loop, `.rel.text.k .rela.text.k` both dropped
        # (tests/probes_gshared/gsh_atom_loop_after_ref, tests/probes_gfold/resolved_call_after_*,
        # sm_75-89). Read so only when no relocation kept would have asked .rela (none has an
        # addend) and nothing was named between the two asks (adjacent .strtab slots): fact
        # ``resolved_call`` = "after_rel"
        if not all(r.addend is None for r in fn.relocations):
            return
        if not fn.relocations and not rel_explained and fn.facts.get("resolved_relocations") is not True:
            return
        texts = [slot.text for slot in obj.strtab.slots]
        between = texts[texts.index(rel) + 1 : texts.index(rela)] if rel in texts and rela in texts else []
        if not between:
            fn.facts["resolved_call"] = "after_rel"
            return
        own = {y.name for y in obj.symbols if y.section is not None and y.section.name == f".nv.shared.{fn.name}" and y.type != STT_SECTION}
        if all(t in own or t == f".nv.constant2.{fn.name}" for t in between):
            # the kernel's own variables its code names after the .rel, or the bank its first
            # constant reference makes, come between: the .rela is asked after them (a BRX's
            # jump-table reference: tests/probes_gshared/gsh_own_before_bank sm_75-89,
            # `s0 .rel.text.k s1 .nv.constant2.k .rela.text.k`)
            fn.facts["resolved_call"] = "after_bank"
            return
        raise NotImplementedError(f"{rela}: a resolved call asked after names made since {rel} is not implemented yet")
    # both names, .rela first (a lone .rela is the -g jump-table reference, jt_kernels)
    first = min(fn.relocations, key=lambda r: r.offset, default=None)
    if first is None or first.addend is None:
        fn.facts["resolved_call"] = True


def _rel_right_after_rela(obj: ElfObject, fn: Function, names: dict[str, int]) -> None:
    """-g: .rela.text.<f> named right before .rel.text.<f> (nothing named between), where no
    relocation kept asks .rel first: a reference ptxas resolves asked .rel after a .rela ask.
    Fact ``resolved_call``, which the emitter asks as for a resolved call below sm_90 (.rela,
    then .rel; :func:`_resolved_call`). Two measured shapes:

    * from sm_90 on, a BRX's jump-table reference asks .rela (resolved, dropped) before the
      code's first reference, which asks .rel and turns it RELA at once: `.nv.constant2.k0
      .rela.text.k0 .rel.text.k0` (random -g modules with a jump table then a .const
      reference or a kept .global one, sm_90-120; tests/probes_gshared/gsh_brx_then_ref). No
      relocation kept comes first asking .rela (a return address or an addend);
    * on every target, a call's return address asks .rela (kept), then a resolved .const
      reference .rel (dropped), every relocation kept asking .rela (a recursive `h16`
      reading a .const table after calling itself, fz s0097 -g;
      tests/probes_gfold/resolved_after_return: the rebuild left the .rel name out, other
      bytes and no error)."""
    rel, rela = f".rel.text.{fn.name}", f".rela.text.{fn.name}"
    if "resolved_call" in fn.facts or rela not in names or rel not in names or names[rela] > names[rel]:
        return
    first = min(fn.relocations, key=lambda r: r.offset, default=None)
    table_first = obj.sm >= 90 and not (first is not None and (first.symbol == fn.name or first.addend))
    after_return = bool(fn.relocations) and all(r.addend for r in fn.relocations if not (r.symbol == fn.name and r.addend is not None))
    if not (table_first or after_return):
        return
    texts = [slot.text for slot in obj.strtab.slots]
    if rel in texts and rela in texts and texts.index(rel) == texts.index(rela) + 1:
        fn.facts["resolved_call"] = True
        if not fn.relocations and any(s.name == rela and not s.mercury for s in obj.sections):
            # the empty .rela stays where Mercury keeps a resolved shared-memory reference
            # in its clone (sm_100+: the cap's, for extern .shared), as _resolved_references
            fn.facts["resolved_relocations"] = "rela_kept"


def _bank_alignment(module: Module, by_name: dict[str, Section]) -> None:
    """-g: a bank whose words are not all FP64 literals nor jump tables is aligned to 8 when an
    FP64 literal sits among them, else 4, and -g keeps no constant objects to tell (lowp_math
    -g sm_75, tests/probes_rw6: half_math's eleven 16-bit constants in 4-byte slots, 44
    bytes, align 4): the alignment is a fact about the constants, ``constant_align``, read
    where the rule cannot tell."""
    from .emit import bank2_align

    rel = bool(module.options.get("compile_only"))
    for fn in module.functions:
        bank = by_name.get(f".nv.constant2.{fn.name}")
        if bank is None or not fn.constants:
            continue
        try:
            bank2_align(fn, rel, True)
        except ModelError:
            fn.facts["constant_align"] = bank.addralign


def _first_function_launches(obj: ElfObject, module: Module) -> None:
    """Relocatable builds: the launched kernels that close the EXTERNS of the first function
    in .text order are derived (:func:`launched_kernels`): dropped from its facts, but for
    its own launch, where they are exactly what the builder puts back; else the module fact
    ``launches_unlisted`` turns the rule off (a first function launching two kernels: where
    its own launches stand in its list once another comes first is not measured)."""
    texts = text_sections(obj)
    first = next((f for f in module.functions if texts and f".text.{f.name}" == texts[0].name), None)
    info = first.facts.get("nvinfo") if first is not None else None
    if first is None or not isinstance(info, dict):
        return
    externs = list(info.get("externs") or ())  # type: ignore[arg-type]
    # every launched kernel closes the list, in declaration order, those the first function
    # launches itself among them (tests/probes_rw6/rules/device_launch -c: parent<int> lists
    # leaf<float> leaf<int> self_launch parent<float>, leaf<int> its own); its own launch
    # stays in its facts, after its other externs, where a function not first lists it
    added = [k for k in launched_kernels(module) if k != first.name]
    own = [k for k in added if k in first.address_taken]
    if not added:
        return
    if externs[-len(added) :] == added and not set(added) & set(externs[: -len(added)]) and len(own) <= 1:
        info["externs"] = externs[: -len(added)] + own
    else:
        # measured on -c and -c -lineinfo only: where the cubin shows otherwise, say so
        module.facts["launches_unlisted"] = True


def _nvinfo_facts(obj: ElfObject, module: Module, symbols: list[Symbol] | None = None) -> ModuleFacts:
    """The .nv.info facts a compiler knows (cubinemit.nvinfo.facts), as JSON-ready data.
    ``symbols``: symbol_order(obj), when the caller has it. Returns the module facts as read,
    derived ones included."""
    from ..nvinfo.decompose import facts_from_cubin
    from ..nvinfo.facts import to_json

    module_facts, functions = facts_from_cubin(obj, symbols=symbols)
    # the call graph and the functions in tables are derived (semantic.build.fill_metadata),
    # errors_visible_at_exit read from the options
    not_stored = ("call_graph", "table_functions", "errors_visible_at_exit")
    module.facts["nvinfo"] = {k: v for k, v in to_json(module_facts).items() if k not in not_stored}
    by_name = {f.name: f for f in module.functions}
    for ff in functions:
        if ff.name in by_name:
            by_name[ff.name].facts["nvinfo"] = to_json(ff)
    return module_facts


def _texture_references(obj: ElfObject, module: Module, texture_banks: set[int], by_name: dict[str, Section]) -> None:
    """Module .texref/.surfref/.samplerref (cubinemit.semantic.texrefs) and each kernel's
    handle uses, read from the relocations of its bank 0 (whole-program and -g builds: -c
    leaves the references to the linker)."""
    from .texrefs import decompose_refs

    banks: dict[str, list[Relocation]] = {}
    for s in obj.sections:
        if id(s) in texture_banks and not s.mercury:
            kernel = s.name[len(".nv.constant0.") :]
            banks[kernel] = _relocations(by_name.get(f".rel{s.name}")) + _relocations(by_name.get(f".rela{s.name}"))
    decompose_refs(obj, module, banks)
    # declaration order: the visible variables and the references as their GLOBAL symbols come
    position = {y.name: n for n, y in enumerate(symbol_order(obj)) if y.bind == STB_GLOBAL}
    visible = sorted((d for d in module.data if d.linkage == "visible"), key=lambda d: position.get(d.name, 0))
    rest = iter(visible)
    module.data = [next(rest) if d.linkage == "visible" else d for d in module.data]
