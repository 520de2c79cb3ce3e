"""Leaf data of a cubin: what a compiler backend knows, nothing a rule derives.

No section indices, order or offsets, no string tables, no symbol indices, no raw .nv.info,
.nv.compat, .nv.callgraph, .nv.prototype or note bytes, no Mercury clones: the builder derives
all of those. Everything is referenced by name.
"""

from __future__ import annotations

import collections
import copy
import itertools
import math
import operator
import re

import attrs

from typing import TYPE_CHECKING

from ..arch import MAX_REGISTERS, REGISTER_FILE, Family, family_of, parse_target
from ..elf.strtab import name_bytes
from ..errors import CubinemitError, ModelError
from ..funcorder import is_builtin_name
from ..nvinfo.facts import REF_SYMBOL_TYPES as REF_TYPES
from ..nvinfo.gating import instruction_words

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence, Set

    from ..alloc.shared import SharedLayout
    from ..funcorder import Mode, PtxFunction

SPEC_VERSION = 1

#: a function-scope variable named after its PTX line (``$__<name>__<line>``)
_LINE_NAMED = re.compile(r"^\$__.+__\d+$")
#: the line tables: rows of SASS addresses and source (.debug_line) or PTX lines
LINE_TABLES = (".debug_line", ".nv_debug_line_sass")
#: debug payloads whose rows follow the PTX text (line numbers, the text itself)
LINE_PAYLOADS = (*LINE_TABLES, ".nv_debug_ptx_txt")
#: -g register tables: per function, its NUL-terminated name, a u32 count and that many
#: entries: a type byte each (reg_type), or a u32, the register's NUL-terminated name, four
#: bytes and two u32 (reg_sass, the register's live ranges)
NAME_RECORD_PAYLOADS = (".nv_debug_info_reg_sass", ".nv_debug_info_reg_type")
#: the debug payloads a removal edits along with the PTX text (:meth:`Module._lines_edited`);
#: other DWARF (nvcc -G brings its own) is not followed
FOLLOWED_PAYLOADS = (".debug_frame", ".debug_str", *LINE_PAYLOADS, *NAME_RECORD_PAYLOADS)

#: the name a decomposed module gives its module-scope .local variables, laid out as one block
#: (the cubin names none of them: only the size and alignment of each .nv.local.<k> remain)
LOCAL_BLOCK = ".nv.local"

#: -g output of a module ptxas builds without the ABI (module-scope .local variables, PTX
#: before ISA 3.1): no .nv.callgraph or .nv.prototype, and .nv.info records in another order
#: with MAX_STACK_SIZE; declined by the emitter and the decomposer (tests/probes_directives
#: module_local)
NO_ABI_DEBUG = "-g output without the ABI (module-scope .local variables) is not implemented yet"

#: the debug payloads ptxas writes itself, whatever the PTX declares
PTXAS_DEBUG_PAYLOADS = (".debug_frame", ".debug_line", *LINE_PAYLOADS, *NAME_RECORD_PAYLOADS)


def empty_ptx_section(name: str) -> bool:
    """Whether ``name`` is a debug section the PTX may declare empty (Triton: `.section
    .debug_macinfo { }`, ZLUDA: `.debug_ranges`): relocatable output makes each and drops it,
    whole-program output does not make it; the model holds them as empty payloads. Any
    ``.debug_*`` or ``.nv_debug_*`` name counts (.debug_aranges, .debug_rnglists, ...: -g -c,
    in declaration order), but those ptxas writes itself (tests/probes_debug dbg_cu_only,
    dbg_cu_empty, dbg_empty_sections)."""
    ptxas_own = name in PTXAS_DEBUG_PAYLOADS or name.startswith(".nv_debug_ptx_txt.")  # -c: hashed
    return name.startswith((".debug_", ".nv_debug_")) and not ptxas_own

LINKAGES = ("visible", "weak", "static", "extern", "builtin")
#: a variable may also be ``.common`` (DataObject.linkage)
DATA_LINKAGES = (*LINKAGES, "common")
SPACES = ("global", "const", "shared", "local", "tex", "surf", "sampler")


def _renamed(value: object, old: str, new: str) -> object:
    """``value`` with the function name ``old`` replaced by ``new`` wherever it names it: a whole
    string, one part of a whole-program copy's ``$kernel$callee``, or the owner of a -c
    ``<f>.const_opt.<start>.<end>`` object."""
    if isinstance(value, str):
        if value == old:
            return new
        statics = _static_prefixes(old, new)
        if statics is not None and statics[0] in value:
            return value.replace(*statics)
        if value.startswith(old + ".const_opt."):
            # -c compiler-constant objects are named after their function: <f>.const_opt.<a>.<b>
            return new + value[len(old) :]
        if value.startswith("$") and value.count("$") >= 2:
            kernel, callee = value[1:].split("$", 1)
            return f"${new if kernel == old else kernel}${new if callee == old else callee}"
        return value
    if isinstance(value, dict):
        return {_renamed(k, old, new): _renamed(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, old, new) for v in value]
    if isinstance(value, tuple):
        return tuple(_renamed(v, old, new) for v in value)
    return value


def _static_prefixes(old: str, new: str) -> tuple[str, str] | None:
    """How renaming the function ``old`` to ``new`` in the PTX text renames the variables
    declared in its body: nvcc names them ``_ZZ<n><name>E<var>`` after an ``extern "C"``
    function (binomialOptionsKernel's ``_ZZ21binomialOptionsKernelE13call_exchange``), and
    the renamed PTX names them ``_ZZ<n><new>E<var>``, the length left as it was. A mangled
    name ``_Z<n><name>...`` does not stand in ``_ZZ<n><name>...E``: None then."""
    if old.startswith("_Z"):
        return None
    return f"_ZZ{len(old)}{old}E", f"_ZZ{len(old)}{new}E"


#: a whole-program copy of a ptxas builtin inside a kernel: ``$__internal_N_$<builtin>``
_COPY_NAME = re.compile(r"\$__internal_\d+_\$(.+)")


def _strings(value: object) -> Iterator[str]:
    """Every string in nested facts, dict keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def _renamed_all(value: object, names: dict[str, str]) -> object:
    """``value`` with every string that ``names`` maps replaced at once (a permutation of names
    is not applied one by one)."""
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, dict):
        return {_renamed_all(k, names): _renamed_all(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed_all(v, names) for v in value]
    if isinstance(value, tuple):
        return tuple(_renamed_all(v, names) for v in value)
    return value


def _builtin_kind(f: Function) -> str | None:
    """"weak" for a ptxas builtin bound WEAK (the sm_70 warp-synchronous ones), "made" for one
    made in its first caller's body (LOCAL in -c, or linkage "builtin"), None otherwise."""
    if f.linkage == "builtin":
        return "made"
    if f.linkage in ("static", "weak") and is_builtin_name(f.name):
        return "weak" if f.linkage == "weak" else "made"
    return None


def _builtins_moved(kept: list[Function], before: list[Function], gone: set[str]) -> list[Function]:
    """The kept builtins whose first caller goes (:func:`_builtins_recreated`)."""
    moved = []
    for b in kept:
        if _builtin_kind(b):
            first = next((f for f in before if b.name in f.calls), None)
            if first is not None and first.name in gone and any(b.name in f.calls for f in kept):
                moved.append(b)
    return moved


def _refuse_unknown_builtin_order(edit: str, after: list[Function], before: list[Function], gone: set[str]) -> None:
    """ModelError when a kept function makes builtins a removed one made before, and
    :func:`_builtins_recreated` leaves them in another order than its calls: ptxas makes them
    in call order then (tests/probes_builtin/bi_forward_split without k0: f0 divides in f32
    first, and ptxas puts __cuda_sm3x_div_rn_noftz_f32_slowpath before
    __cuda_sm20_div_rn_f64_full, which k0 made first), and where the model's order puts them
    is not modelled (f0 is declared before k0 and defined after it)."""
    made_by_gone = {c for f in before if f.name in gone for c in f.calls}
    builtins = [f.name for f in after if _builtin_kind(f)]
    for f in after:
        mine = [c for c in f.calls if c in builtins and next(g for g in after if c in g.calls) is f]
        if len(mine) > 1 and made_by_gone & set(mine) and [b for b in builtins if b in mine] != mine:
            raise ModelError(f"cannot {edit}: {f.name!r} would make builtins {mine[0]!r} and {mine[1]!r}, and where the module then holds them is not modelled")
    # a builtin the removed function's body made (it follows that function's code) that a
    # kept device function also calls: that function's body, defined after its prototype
    # somewhere the cubin does not keep, makes it now, and where among the other builtins is
    # not known (tests/funcorder_probes fo_builtins -g without K2: later, prototyped first and
    # defined after srem, makes __cuda_sm3x_div_rn_noftz_f32_slowpath after srem's
    # __cuda_sm20_rem_s64, which K2's body had made first)
    kept = {f.name for f in after}
    for i, f in enumerate(before):
        if f.name not in gone:
            continue
        j = i + 1
        while j < len(before) and _builtin_kind(before[j]) and before[j].name in f.calls:
            b = before[j].name
            heir = next((g for g in after if b in g.calls and not _builtin_kind(g)), None)
            if b in kept and heir is not None and not heir.is_kernel:
                raise ModelError(f"cannot {edit}: {b!r}, which {f.name!r}'s body made, would be made by {heir.name!r}'s, whose place among the other builtins' makers is not kept")
            j += 1


def _builtins_recreated(kept: list[Function], before: list[Function], gone: set[str]) -> list[Function]:
    """After a removal: a builtin whose first caller went is now created in the body of its
    next caller, right after it, with the builtins that caller creates in call order (CUDA
    samples simpleVoteIntrinsics -c sm_86: without VoteAnyKernel1, VoteAllKernel2 creates
    __cuda_sm70_votesync_all before VoteAnyKernel3 creates ..._any, and the DFS visits them
    the other way round). The others keep their places."""
    moved = _builtins_moved(kept, before, gone)
    if not moved:
        return kept
    block = _trailing_builtins_by_first_call(before)
    if block is not None:
        # the builtins stand after every other function, in their first calls' order (-g
        # whole program: ggml dsv4-hc sm_80 makes rcp, div_s64, rem_s64 after the kernels
        # comb, pre, post); without pre, post's call makes div_s64, still after comb's rcp
        head = [f for f in kept if not _builtin_kind(f)]
        after = _trailing_builtins_by_first_call(head + [f for f in kept if _builtin_kind(f)], check=False)
        assert after is not None
        return head + after
    out = [f for f in kept if f not in moved]
    for b in moved:
        caller = next(f for f in out if b.name in f.calls)
        at = out.index(caller) + 1
        # after the builtins the caller's body made before this one
        while at < len(out) and _builtin_kind(out[at]) and out[at].name in caller.calls and caller.calls.index(out[at].name) < caller.calls.index(b.name):
            at += 1
        out.insert(at, b)
    return out


def _trailing_builtins_by_first_call(functions: list[Function], check: bool = True) -> list[Function] | None:
    """The builtins of ``functions`` in the order of their first calls (by the callers' order,
    then by each caller's call order), where they stand after every other function; with
    ``check``, None unless they already stand so in that order (the rule then describes
    ``functions``: only then do :func:`_builtins_recreated` apply it)."""
    builtins = [f for f in functions if _builtin_kind(f)]
    if not builtins or functions[len(functions) - len(builtins) :] != builtins:
        return None
    callers = functions[: len(functions) - len(builtins)]

    def first_call(b: Function) -> tuple[int, int]:
        at = next((i for i, f in enumerate(callers) if b.name in f.calls), None)
        return (len(callers), 0) if at is None else (at, callers[at].calls.index(b.name))

    ordered = sorted(builtins, key=first_call)
    if check and (ordered != builtins or len({first_call(b) for b in builtins}) != len(builtins)):
        return None
    return ordered


def _weak_builtins_after_callers(functions: list[Function]) -> list[Function]:
    """The functions with each WEAK builtin (the sm_70 warp-synchronous ones, -c below sm_90)
    right after its first caller, in that caller's call order: where a decomposed module
    holds them (its first caller's body creates it; tests/probes_builtin/bi_vote_remove)."""
    weak = {f.name: f for f in functions if _builtin_kind(f) == "weak"}
    if not weak:
        return functions
    out = [f for f in functions if f.name not in weak]
    for f in list(out):
        at = out.index(f) + 1
        for c in f.calls:
            if c in weak:
                out.insert(at, weak.pop(c))
                at += 1
    return [f for f in functions if f.name in weak] + out  # uncalled ones first


def _reordered_from(functions: list[Function], names: list[str], ptx: Sequence[PtxFunction], mode: Mode, sm: int, declared: set[str], defined: Set[str] = frozenset()) -> list[Function]:
    """``functions`` (a creation order) after putting ``names``' definitions in this order, or
    ModelError where the places their definitions may have held give different cubins
    (semantic.creation.reorder_outcomes; every hypothesis must give the same .text order,
    symbols, callgraph, prototypes and signature strings). ``declared``: functions the caller
    says a prototype declares before their definitions; ``defined``: ones it says none does."""
    from .creation import derived_by_rules, reorder_outcomes

    by_name = {f.name: f for f in functions}
    outcomes = reorder_outcomes(
        [f.name for f in functions],
        names,
        {f.name for f in functions if f.is_kernel},
        {f.name for f in functions if _builtin_kind(f)},
        {f.name: [c for c in f.calls if c in by_name] for f in functions},
        declared,
        defined,
    )
    if outcomes is None:
        raise ModelError(f"cannot reorder {names!r}: too many places their definitions may have held to tell the outcome")
    by_ptx = {p.name: p for p in ptx}
    first: list[str] | None = None
    want = None
    for order in outcomes:
        got = derived_by_rules([by_ptx[n] for n in order], mode, sm)
        if got is None:
            continue  # an order the rules cannot take: no PTX gives it
        if first is None:
            first, want = order, got
        elif got != want:
            moved = next((n for n in names if order.index(n) != first.index(n)), names[0])
            raise ModelError(
                f"cannot reorder {names!r}: the cubin does not keep where {moved!r} stood among the definitions (a function declared by prototype is created there,"
                " not where it is defined), and the places it may have held give different cubins"
            )
    if first is None:
        raise ModelError(f"cannot reorder {names!r}: no place of their definitions gives an order the rules take")
    return [by_name[n] for n in first]


def _name_records(section: str, data: bytes) -> list[tuple[str, bytes]]:
    """The records of a -g register table (NAME_RECORD_PAYLOADS, or its Mercury clone): each
    function's name and its record's bytes (the name included)."""
    out, pos = [], 0

    def cstr(at: int) -> int:
        end = data.find(b"\0", at)
        if end < 0:
            raise ModelError(f"{section}: unterminated name at {at:#x}")
        return end

    while pos < len(data):
        end = cstr(pos)
        name = data[pos:end].decode("latin-1")
        if end + 5 > len(data):
            raise ModelError(f"{section}: record {name!r} at {pos:#x} is cut short")
        count = int.from_bytes(data[end + 1 : end + 5], "little")
        body = end + 5
        if section.endswith("_reg_type"):
            body += count
        else:
            for _ in range(count):
                body = cstr(body + 4) + 1 + 12
        if body > len(data):
            raise ModelError(f"{section}: record {name!r} at {pos:#x} runs past the end")
        out.append((name, data[pos:body]))
        pos = body
    return out


def _renamed_records(section: str, data: bytes, old: str, new: str) -> bytes:
    """A -g register table with the records of ``old`` named ``new``."""
    return b"".join(name_bytes(new) + rec[len(name_bytes(old)) :] if name == old else rec for name, rec in _name_records(section, data))


def _records_without(section: str, data: bytes, gone: frozenset[str]) -> bytes:
    """A -g register table without the records of the ``gone`` functions."""
    return b"".join(rec for name, rec in _name_records(section, data) if name not in gone)


def _records_arranged(section: str, data: bytes, arrange: Callable[[list[str]], list[str]]) -> bytes:
    """A -g register table's records in the order ``arrange`` gives for their functions'
    names, as the line tables' sequences (:meth:`Module._follow_text_order`); unchanged where a
    function has two records."""
    records = _name_records(section, data)
    names = [n for n, _ in records]
    order = arrange(names)
    if order == names or len(set(names)) != len(names):
        return data
    by_name = dict(records)
    return b"".join(by_name[n] for n in order)


def _shared_number(name: str) -> tuple[str, int]:
    """(base, n) of a .shared variable -g named ``<base>.<n>`` for one declared again under a
    taken name, (name, 0) otherwise: PTX names hold no '.', so the suffix is ptxas's."""
    base, dot, n = name.rpartition(".")
    return (base, int(n)) if dot and n.isdigit() else (name, 0)


def _sequence_arranger(
    before: list[str], after: list[str], kernels: set[str], edit: str | None = None, hidden: frozenset[str] = frozenset()
) -> Callable[[list[str]], list[str]]:
    """How a removal that changes .text order from ``before`` to ``after`` puts a line table's
    sequences (or a -g register table's records), given their functions' names in the
    order they stand (:meth:`Module._follow_text_order`): in .text order where they stood
    so, the kernels' after the others where those stood so; otherwise as they stand (ftab -g
    sm_100a without k_itab: k_ftab f_one f_two f_three, the device functions' .text order
    changed). With ``edit``, that last case raises ModelError where the kernels' .text order
    changes: then ptxas's order is not known (bi_weak_taken_callgraph -g sm_90 without f0:
    f3 f0 k1 f1 f2 k0 becomes f3 k0 f1 k1 f2 as the -g shuffle moves k0 before k1). ``hidden``
    (the ELF tables from sm_90 on: the functions that are not .visible): sequences that stood
    hidden first, then visible, each group in .text order, stay so grouped in the new .text
    order, as :meth:`Module._sequence_orders` has them for reorders (fo_shuffle_protos -g
    sm_90 without C: the -g shuffle swaps A and B in .text, and their sequences follow)."""

    def in_text_order(names: list[str]) -> bool:
        return names == [n for n in before if n in names]

    def grouped(order: list[str], names: list[str]) -> list[str]:
        return [n for n in order if n in names and n in hidden] + [n for n in order if n in names and n not in hidden]

    def arrange(names: list[str]) -> list[str]:
        if in_text_order(names):
            return [n for n in after if n in names]
        head = [n for n in names if n not in kernels]
        tail = [n for n in names if n in kernels]
        if names == head + tail and in_text_order(tail):
            if in_text_order(head):
                # the device functions' in .text order too: they follow it (a -g removal that
                # lets the shuffle swap h7 and h9 in .text, sm_90: `h8 h9 h7 kb`;
                # tests/probes_edits/g_lines_follow_shuffle)
                return [n for n in after if n in head] + [n for n in after if n in tail]
            return head + [n for n in after if n in tail]
        if hidden and grouped(before, names) == names:
            seen_before = [n for n in before if n in names and n not in hidden]
            seen_after = [n for n in after if n in names and n not in hidden]
            # the visible kernels follow the new .text order (random modules a/s0018 -g sm_90+,
            # c/s0111 sm_120); a visible device function that the edit moves among them may
            # keep its old place (d/s0164 -rdc -g sm_100a without kern16: `h12 reduce18 dh14
            # k19 h13` stays, though .text moves dh14 after k19), which no rule measured tells
            moved = next((n for n in seen_before if n not in kernels and set(seen_before[: seen_before.index(n)]) != set(seen_after[: seen_after.index(n)])), None)
            if edit is not None and moved is not None:
                raise ModelError(f"cannot {edit}: the line tables list the visible device function {moved!r} among the kernels in an order of their own, and the edit moves it in .text")
            return grouped(after, names)
        if edit is not None and [n for n in before if n in tail] != [n for n in after if n in tail]:
            raise ModelError(f"cannot {edit}: the line tables list the functions in an order of their own, not .text order, and the edit changes the kernels' .text order")
        return names

    return arrange


def _walk_arranger(walked: list[str]) -> Callable[[list[str]], list[str]]:
    """Line sequences by their functions' names in ``walked`` order
    (:meth:`Module._walked_sequences`), names it lacks last as they stand."""
    rank = {n: i for i, n in enumerate(walked)}
    return lambda names: sorted(names, key=lambda n: rank.get(n, len(rank)))


def _mercury_debug_edited(
    facts: dict[str, object], records: Callable[[str, bytes], bytes], rows: Callable[[str, tuple[tuple[object, ...], ...]], tuple[tuple[object, ...], ...]]
) -> dict[str, object]:
    """``facts`` with the Mercury clones of the -g register tables passed through ``records``
    and the clones' line rows through ``rows`` (each given the clone's name); the same dict
    where there is no Mercury fact or nothing changes."""
    merc = facts.get("mercury")
    if not isinstance(merc, dict):
        return facts
    from . import tagged

    decoded = tagged.decode(merc)
    clones = {name: records(name, data) if name.endswith(NAME_RECORD_PAYLOADS) else data for name, data in decoded.debug.items()}
    lines = {name: rows(name, events) for name, events in decoded.lines.items()}
    if clones == decoded.debug and lines == decoded.lines:
        return facts
    return {**facts, "mercury": tagged.encode(attrs.evolve(decoded, debug=clones, lines=lines))}


def _mercury_without_lines(facts: dict[str, object], names: tuple[str, ...]) -> dict[str, object]:
    """``facts`` without the Mercury clones of the payloads ``names`` and their line rows."""
    merc = facts.get("mercury")
    if not isinstance(merc, dict):
        return facts
    from . import tagged

    decoded = tagged.decode(merc)
    kept = {name: data for name, data in decoded.debug.items() if not name.removeprefix(".nv.merc").startswith(names)}
    if kept == decoded.debug and not decoded.lines:
        return facts
    return {**facts, "mercury": tagged.encode(attrs.evolve(decoded, debug=kept, lines={}))}


def _renamed_ptx(text: bytes, old: str, new: str) -> bytes:
    """The PTX text ptxas embeds (``.nv_debug_ptx_txt``: its lines, NUL-separated) with the
    function ``old`` named ``new``: the name as a whole identifier, and the function's
    parameters named after it (nvcc's ``<name>_param_<n>``, a device function's return
    parameter ``<name>_ret`` in tests/probes func_calls), as renaming the function in the
    PTX gives. Identifiers take letters, digits, ``_`` and ``$``; ``%`` and ``.`` start
    other tokens."""
    name = re.escape(name_bytes(old))
    # every head naming it (a prototype and the definition), return parameters included
    heads = re.findall(rb"\.(?:entry|func)\s+(?:\(([^)]*)\)\s*)?" + name + rb"\s*\(([^)]*)\)", text)
    params = [p for head in heads for part in head for p in re.findall(rb"\.param\b[^,]*?(" + name + rb"[\w$]+)", part)]
    alternatives = b"|".join(re.escape(p) for p in sorted(set(params), key=len, reverse=True))
    pattern = rb"(?<![\w$%.])(?:" + (alternatives + b"|" if alternatives else b"") + name + rb")(?![\w$])"
    text = re.sub(pattern, lambda m: name_bytes(new) + m.group(0)[len(name_bytes(old)) :], text)
    statics = _static_prefixes(old, new)
    return text.replace(name_bytes(statics[0]), name_bytes(statics[1])) if statics else text


def _reads_constant_bank(sass: bytes, bank: int) -> bool:
    """Whether any instruction of ``sass`` (sm_70+: 16 bytes each) has a constant operand in
    ``bank``: the bank sits in bits 54-58 of the first word (`MOV R1, c[0x0][0x28]` is
    0x00000a0000017a02: offset 0xa words in bits 40-53, bank 0). Measured against cuobjdump on
    900 ptxas cubins, sm_75 to sm_120: every c[0x3] and c[0x4] operand has its bank there. Bits
    that only look so (an immediate) make a false hit, which refuses, never lets through."""
    return any((int.from_bytes(sass[i : i + 8], "little") >> 54) & 0x1F == bank for i, _ in instruction_words(sass))


def _first_moved_slot(before: Sequence[str], after: Sequence[str]) -> str | None:
    """The first name of ``after`` that holds another .nv.constant4 slot in ``before``."""
    return next((n for i, n in enumerate(after) if n in before and before.index(n) != i), None)


#: a PTX identifier, as the embedded text spells it (letters, digits, _ and $)
_IDENTIFIER = re.compile(rb"[A-Za-z0-9_$]+")

#: the module facts that describe its code's instructions (gone with the last function)
_CODE_FACTS = frozenset({"isa_class", "tensormap", "fastpath", "tcgen05", "tcgen05_first"})


def _nvinfo(f: Function) -> dict[str, object]:
    """``f``'s .nv.info facts, empty where it has none (an extern or a builtin)."""
    info = f.facts.get("nvinfo")
    return info if isinstance(info, dict) else {}


#: the register count ptxas -c gives a function compiled after one that makes indirect calls
#: or device-side launches, where its own is lower (measured sm_75 and sm_90: a launcher with
#: 72 registers leaves an empty kernel after it with 24; tests/probes_edits cdp_raise)
RAISED_REGISTERS = 24


def _register_count(f: Function) -> int | None:
    value = _nvinfo(f).get("register_count")
    return value if isinstance(value, int) else None


def _table_takers(functions: list[Function], tables: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Which of ``functions`` (in creation order) takes each table of function addresses:
    funcorder.table_takers over the tables their relocations reference, in code order."""
    from ..funcorder import table_takers
    from .decompose import ptx_function

    refs = {f.name: [r.symbol for r in sorted(f.relocations, key=lambda r: r.offset) if r.symbol in tables] for f in functions}
    return table_takers([ptx_function(f) for f in functions], refs)


def _may_hold_resolved_addresses(data: Sequence[DataObject]) -> DataObject | None:
    """Whole program: the first initialised variable whose words could be function addresses
    ptxas resolved, or None. They are offsets into the kernels' address tables or copies, or
    small numbers (random modules: `static ftab = {h11}` holds 8, no relocation left), which
    no fact tells from data: any variable of 8-byte words, aligned to 8, each below 2**32 and
    not all zero, may be one (an FP64 table's words are not; an int64 table's may be, and is
    refused too). Their takings shuffle the kernel order (funcorder._shuffled) where the
    asks they make are those of the other initializers (b/s0058 -O3, sm_90 and later:
    `gp9 = generic(g7)` asks the same .rel/.rela), so no fact ``resolved_data`` says so."""
    for d in data:
        if d.space not in ("global", "const") or not d.init or d.align < 8 or d.size % 8 or len(d.init) < d.size:
            continue
        words = [int.from_bytes(d.init[i : i + 8], "little") for i in range(0, d.size, 8)]
        kept = {r.offset for r in d.relocations}
        if any(words) and all(w < 1 << 32 for i, w in enumerate(words) if 8 * i not in kept):
            return d
    return None


def _defines_code(functions: Sequence[Function]) -> bool:
    """Whether one of ``functions`` is defined here (an extern one is only declared), so that
    the cubin has a .text section."""
    return any(f.linkage != "extern" for f in functions)


def _launch_bounds(f: Function) -> tuple[object, ...]:
    """A kernel's .maxntid, .reqntid, .minnctapersm and .maxnreg as its records give them."""
    info = _nvinfo(f)
    return tuple(info.get(k) for k in ("maxntid", "reqntid", "minnctapersm", "maxnreg"))


def _caps_registers(f: Function) -> bool:
    """Whether a kernel's launch bounds leave fewer registers per thread than the most a
    thread may have (of the 64K register file), which caps the registers of what it calls."""
    maxntid, reqntid, ctas, maxnreg = _launch_bounds(f)
    dims = [d for d in (maxntid, reqntid) if isinstance(d, (list, tuple))]
    threads = min((math.prod(d) for d in dims), default=1)
    per_thread = REGISTER_FILE // max(1, threads * (ctas if isinstance(ctas, int) else 1))
    return min(per_thread, maxnreg if isinstance(maxnreg, int) else MAX_REGISTERS) < MAX_REGISTERS


def _first_newly_capped(kernel: Function, callees: Sequence[str], others: Sequence[tuple[tuple[object, ...], set[str]]]) -> str | None:
    """The first of ``callees`` whose register budget ``kernel``'s launch bounds set alone:
    no other kernel (``others``: each one's launch bounds and call closure) with the same
    bounds reaches it. -g and -c -O0 compile a callee once, within its callers' tightest
    budget, so it is compiled anew when such a kernel comes or goes."""
    own = _launch_bounds(kernel)
    return next((c for c in callees if not any(b == own and c in r for b, r in others)), None)


def _keeps_tcgen05_partition(f: Function) -> bool:
    """Whether ``f``'s records name a tensor-memory CTA group (TCGEN05_1CTA_USED or _2CTA_USED:
    tcgen05.alloc, dealloc, mma, relinquish_alloc_permit, not tcgen05.ld/st), which keeps the
    partition in reserved shared memory (tests/probes_compat/tensor_memory: k_relinq keeps it
    without k_alloc)."""
    info = _nvinfo(f)
    return bool(info.get("tcgen05_1cta") or info.get("tcgen05_2cta"))


def _without(value: object, names: set[str]) -> object:
    """``value`` without the entries that name a removed function: call-graph edges and marks
    (dicts whose string fields name one), map entries keyed by one."""
    if isinstance(value, dict):
        if "$map" in value:  # tagged JSON map: drop pairs keyed by a removed function
            return {"$map": [[k, _without(v, names)] for k, v in value["$map"] if k not in names]}
        if any(isinstance(v, str) and v in names for v in value.values()):
            return None
        return {k: _without(v, names) for k, v in value.items()}
    if isinstance(value, list):
        kept = [_without(v, names) for v in value]
        return [v for v in kept if v is not None and not (isinstance(v, str) and v in names)]
    return value


def _check_linkage(_inst: object, attr: attrs.Attribute, value: str) -> None:  # type: ignore[type-arg]
    if value not in LINKAGES:
        raise ModelError(f"{attr.name} {value!r} is not one of {', '.join(LINKAGES)}")


def _check_data_linkage(_inst: object, attr: attrs.Attribute, value: str) -> None:  # type: ignore[type-arg]
    if value not in DATA_LINKAGES:
        raise ModelError(f"{attr.name} {value!r} is not one of {', '.join(DATA_LINKAGES)}")


@attrs.define
class Relocation:
    """A relocation a backend emits: where, what kind, against which symbol (by name).
    ``addend`` None means the REL form (no addend field)."""

    offset: int
    type: int
    symbol: str | None
    addend: int | None = 0


@attrs.define
class Function:
    """A kernel or device function in PTX declaration order."""

    name: str
    is_kernel: bool = False
    linkage: str = attrs.field(default="visible", validator=_check_linkage)
    #: the SASS bytes of its .text (whole program: with the inlined callees' copies)
    sass: bytes = b""
    relocations: list[Relocation] = attrs.field(factory=list)
    #: whole program: where each callee copy sits in this .text (name, offset, size)
    inlined: list[tuple[str, int, int]] = attrs.field(factory=list)
    #: compiler constants of .nv.constant2.<f> (jump and address tables, FP64 literals)
    constants: bytes = b""
    constant_relocations: list[Relocation] = attrs.field(factory=list)
    #: sm_100+: the Mercury capsule of this function (.nv.capmerc.text.<f>)
    capsule: bytes = b""
    #: sm_100+: where the function and its inlined copies sit in the capsule's code
    #: (name, value, size), as .nv.merc.symtab records them
    capsule_symbols: list[tuple[str, int, int]] = attrs.field(factory=list)
    #: the per-function facts of .nv.info.<f> a compiler knows (cubinemit.nvinfo facts)
    facts: dict[str, object] = attrs.field(factory=dict)
    #: direct callees in order of first call site (externs and builtins included)
    calls: list[str] = attrs.field(factory=list)
    #: every taking of a function's address, in order (cubinemit.funcorder.PtxFunction)
    address_taken: list[str] = attrs.field(factory=list)
    has_indirect_call: bool = False
    #: PTX parameter and return types, [type, count or None] (for .nv.prototype signatures
    #: and the signatures of address-taken functions)
    params: list[list[object]] = attrs.field(factory=list)
    returns: list[list[object]] = attrs.field(factory=list)
    #: the .callprototype signature of each indirect call, in code order (``#iii``: the
    #: cubinemit.funcorder.signature form)
    call_prototypes: list[str] = attrs.field(factory=list)


@attrs.define
class DataObject:
    """A variable: module-scope .global/.const/.shared, or function-scope shared/local."""

    name: str
    space: str
    size: int
    align: int = 1
    init: bytes | None = None
    #: "visible", "weak" (`.weak`: WEAK symbol, walked and laid out with the visible ones),
    #: "static" (no linkage directive), "extern" or "common" (`.common .global`: under -c a
    #: SHN_COMMON symbol whose value is the alignment, no storage; whole-program builds
    #: allocate it like a variable without a linkage directive)
    linkage: str = attrs.field(default="visible", validator=_check_data_linkage)
    #: functions that use it (shared-memory allocation needs the users)
    users: list[str] = attrs.field(factory=list)
    #: relocations inside the initialiser (offset from the variable's first byte), e.g. the
    #: address of another variable in ``generic(v)``
    relocations: list[Relocation] = attrs.field(factory=list)
    #: the function whose body declares it (function-scope ``.shared``); None at module scope
    scope: str | None = None
    #: ``.attribute(.managed)`` (``__managed__``): st_other bit 0x04 in every mode
    managed: bool = False


@attrs.define
class DebugSection:
    """A DWARF or NVIDIA debug payload (.debug_*, .nv_debug_*) and its relocations."""

    name: str
    data: bytes
    relocations: list[Relocation] = attrs.field(factory=list)
    #: PTX labels the payload refers to that ptxas could not place in the code (nvcc -G
    #: location lists naming a label optimized away): ptxas names each as an undefined local
    #: symbol and drops the relocation
    labels: list[str] = attrs.field(factory=list)
    #: relocatable .debug_frame after an edit: (CIE offset, the CIE pointer distance to the
    #: next CIE) as the file ptxas wrote showed it (or its rule gave it), so a second edit (a
    #: removal then the build's move into .text order) does not infer it again from fewer CIEs;
    #: pairs, not a dict, so that the spec (JSON, string keys only) keeps them
    frame_steps: list[tuple[int, int]] = attrs.field(factory=list)


def abi_disabled(module: Module) -> bool:
    """Whether ptxas compiles ``module`` without the ABI: it does when a function returns more
    than one value ("Function ... with multiple return values found, disabling ABI"; ZLUDA
    multiple_return) or the module declares ``.local`` variables (gpuocelot sequence2), which
    only the file header shows (ArchFacts.no_abi_version). Module fact
    ``abi_disabled`` where the return types are not known (a decomposed whole-program cubin
    has no prototypes)."""
    return bool(module.facts.get("abi_disabled")) or any(len(f.returns) > 1 for f in module.functions) or any(d.space == "local" for d in module.data)


def _data_linkage(name: str, visible: bool, weak: bool) -> str:
    """The linkage of a variable the builder declares: ``.visible``, ``.weak`` or neither."""
    if visible and weak:
        raise ModelError(f"data object {name!r} cannot be both visible and weak")
    return "visible" if visible else "weak" if weak else "static"


def _made_by_reader(name: str) -> bool:
    """A data object the reader names for what the cubin keeps without a PTX name: a kernel's
    whole-program shared block, the dynamic area, the module .local block, a dropped .shared
    variable."""
    from .data import DYNAMIC_SHARED, KERNEL_SHARED, PHANTOM_NAME

    return name in (DYNAMIC_SHARED, LOCAL_BLOCK) or name.endswith(KERNEL_SHARED.format(kernel="")) or name.startswith(PHANTOM_NAME.format(n=""))


def _ptx_name(name: str) -> str:
    """The name the PTX text declares a variable by: -c names a function-scope .shared one
    ``$__<name>__<PTX line>``, and ``$__<name>__<PTX line>$<n>`` when declared in a nested
    ``{ }`` block (measured: ``$__inner__8$1``)."""
    m = re.fullmatch(r"\$__(.+?)__\d+(?:\$\d+)?", name)
    return m.group(1) if m else name


def unmodelled_options(options: Mapping[str, object], *, kernels: int) -> str | None:
    """Why a module with this many kernels, built with these ptxas options, cannot be written
    yet, or None. Each names what such an output holds that the rules do not make (measured:
    tests/probes_flags)."""
    if options.get("extensible_whole_program"):
        # e_type 0xff00 without program headers, a dropped .nv.uft.entry after the notes, no
        # .nv.rel.action below sm_90, but also _param and __ocg_const names and other
        # reserved-SMEM values (order/texquery/calls -ewp)
        return "-ewp (extensible whole program) output is not implemented yet"
    if options.get("sanitize"):
        # the sanitizer's injected functions, $ADDRESS$ symbols and .nv.resolvedrela
        return f"-sanitize={options['sanitize']} output is not implemented yet"
    fast = options.get("fast_compile")
    if fast not in (None, 0, "0") and not options.get("debug"):
        # ptxas ignores -Ofc under -g. Whole program, it inlines nothing, resolves addresses in
        # .rel.text instead of .nv.constant4 slots and makes no reserved shared memory; -c
        # without kernels, it makes the first function's .text before the module's data
        if not options.get("compile_only"):
            return f"-Ofc {fast} whole-program output is not implemented yet"
        if not kernels:
            return f"-Ofc {fast} -c output without kernels is not implemented yet"
    if options.get("split_compile") is not None:
        # the kernels are compiled in groups: -c orders the functions otherwise (tests/probes_casks
        # dev_shared_first: df0 before df1), whole program makes the extern functions' symbols,
        # texture slots and weak callees at other points of the kernel walk (llm.c
        # attention_forward: __assertfail before the second kernel's symbol)
        if options.get("compile_only"):
            return "-split-compile -c output is not implemented yet"
        if kernels > 1:
            return "-split-compile whole-program output with several kernels is not implemented yet"
    if options.get("tools_patch") and not options.get("debug"):
        # whole program without kernels keeps every device function, each with its symbol,
        # its .nv.info.<f> and no .nv.prototype; under -g the debug rules make those already
        # (tests/probes_flags/tools_patch)
        return "-astoolspatch output without -g is not implemented yet"
    pic = options.get("pic")
    if pic == "true" and options.get("compile_only"):
        # a GLOBAL $ADDRESS$<name> slot in .nv.constant4 for each address the code takes
        return "-pic true -c output ($ADDRESS$ slots in .nv.constant4) is not implemented yet"
    if pic == "false" and not options.get("compile_only") and not options.get("debug"):
        # whole program is position independent by default; -pic false resolves addresses in
        # .rela.text instead of .nv.constant4 slots and, without kernels, drops .nv.callgraph
        # (tests/probes_flags declined_flags pic_false, CUDA samples SineWaveSimulation)
        return "-pic false whole-program output is not implemented yet"
    if pic == "true" and options.get("debug"):
        # -g is not position independent by default; -pic true takes .nv.constant4 slots
        # (CUDA samples boxFilter_kernel -g)
        return "-pic true -g output is not implemented yet"
    return None


@attrs.define
class Module:
    """One PTX module compiled by ptxas 13.0.88 for one target."""

    target: str
    #: the ptxas options it was built with (cubinemit.nvinfo.PtxasOptions as a dict)
    options: dict[str, object] = attrs.field(factory=dict)
    #: the SM of the PTX `.target` (recorded in .note.nv.cuinfo)
    ptx_target: int = 75
    functions: list[Function] = attrs.field(factory=list)
    data: list[DataObject] = attrs.field(factory=list)
    debug: list[DebugSection] = attrs.field(factory=list)
    #: module-level facts of .nv.info a compiler knows (samplers, texture modes...)
    facts: dict[str, object] = attrs.field(factory=dict)
    #: from_cubin: the functions and data as decomposed, against which to_cubin checks what
    #: was added since (:meth:`_refuse_additions_unlike_ptxas`); not part of the spec
    _decomposed: tuple[tuple[Function, ...], tuple[DataObject, ...]] | None = attrs.field(default=None, init=False, eq=False, repr=False)
    #: from_cubin: the launch bounds and code of each function of ``_decomposed`` as read,
    #: against which to_cubin checks what changed since (:meth:`_as_read`)
    _read_as: tuple[tuple[tuple[object, ...], bytes], ...] | None = attrs.field(default=None, init=False, eq=False, repr=False)
    #: from_cubin, -g with shared memory: copies of the data as read, against which to_cubin
    #: checks the shared layout of kernels whose code is the one read
    #: (:meth:`_refuse_moved_shared_since_read`)
    _read_data: tuple[DataObject, ...] | None = attrs.field(default=None, init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        parse_target(self.target)
        names = [f.name for f in self.functions]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ModelError(f"function {sorted(dup)[0]!r} is defined twice")

    @property
    def sm(self) -> int:
        return parse_target(self.target)[0]

    @property
    def device_debug(self) -> bool:
        """-g, or PTX that says ``.target sm_XX, debug`` (nvcc -G): ptxas builds the same
        debug layout for both (fact ``ptx_debug``; the options note only records -g)."""
        return bool(self.options.get("debug")) or bool(self.facts.get("ptx_debug"))

    def has_code(self) -> bool:
        """Whether the cubin has a .text section (:func:`_defines_code`)."""
        return _defines_code(self.functions)

    def ordering_mode(self) -> Mode:
        """The build mode as the function-order rules see it (-c, -g, -O level)."""
        from ..funcorder import Mode

        opt = self.options.get("opt_level")
        return Mode(
            relocatable=bool(self.options.get("compile_only")),
            debug=bool(self.options.get("debug")),
            opt_level=int(opt) if opt is not None else 3,  # type: ignore[call-overload]
            ptx_debug=bool(self.facts.get("ptx_debug")),
        )

    # --- the fixed API -------------------------------------------------------------------------
    @classmethod
    def from_cubin(cls, data: bytes) -> Module:
        """The leaf data of a ptxas cubin (CubinFormatError if malformed; NotImplementedError
        names what the semantic level does not model yet)."""
        from ..reader import read_cubin
        from .decompose import decompose

        module = decompose(read_cubin(data, quirks=False))
        module._decomposed = (tuple(module.functions), tuple(module.data))
        module._read_as = tuple((_launch_bounds(f), f.sass) for f in module.functions)
        if module.device_debug and any(d.space == "shared" for d in module.data):
            module._read_data = tuple(attrs.evolve(d, users=list(d.users)) for d in module.data)
        return module

    def _added_since_read(self) -> list[Function]:
        """The functions added since the module was read from a cubin, by identity (none for
        a module that was not read: it follows the builder's rules throughout)."""
        if self._decomposed is None:
            return []
        read = {id(f) for f in self._decomposed[0]}
        return [f for f in self.functions if id(f) not in read]

    def _as_read(self) -> dict[int, tuple[tuple[object, ...], bytes]] | None:
        """Each function read from the cubin (by object id, so a copy of the module, which
        copies ``_decomposed`` with its functions, answers for its own) -> its launch bounds
        and code as read; None for a module that was not read (a cubin without functions
        gives an empty mapping: what is added to it is checked all the same)."""
        if self._decomposed is None or self._read_as is None:
            return None
        return {id(f): read for f, read in zip(self._decomposed[0], self._read_as)}

    def to_cubin(self) -> bytes:
        """The cubin ptxas 13.0.88 writes for this module; ModelError where a module read
        from a cubin was given what ptxas would answer with new code or text
        (:meth:`_refuse_additions_unlike_ptxas`)."""
        from .build import build

        self._refuse_stale_text_name()
        self._refuse_additions_unlike_ptxas()
        self._refuse_rebounded_callers()
        self._refuse_moved_shared_since_read()
        facts = self._compat_after_code_changes()
        functions = self._copy_names_after_additions()
        if facts is self.facts and functions is self.functions:
            return build(self)
        return build(attrs.evolve(self, facts=facts, functions=functions))

    def _refuse_stale_text_name(self) -> None:
        """ModelError when a line table names another PTX text section than the module holds:
        relocatable output with line tables names the text ``.nv_debug_ptx_txt.<Adler-32 of
        the PTX file>``, and the line tables name it as their file, so text given for an
        edited PTX (a new checksum) needs the edited build's line tables too (CUDA samples
        LargeKernelParameter -g -c with a variable added and its text given: the line table
        kept the old name)."""
        txt = next((d for d in self.debug if d.name.startswith(".nv_debug_ptx_txt.")), None)
        if txt is None:
            return
        for d in self.debug:
            data = bytes(d.data) if d.name in LINE_TABLES else b""
            if b".nv_debug_ptx_txt." in data and name_bytes(txt.name) + b"\0" not in data:
                raise ModelError(f"{d.name} names another PTX text than {txt.name}: give the line tables of the build that embeds that text too")

    def _copy_names_after_additions(self) -> list[Function]:
        """Whole program, functions added since the module was read from a cubin: the
        functions with the names of their builtin copies (``$__internal_N_$<b>``, in their
        facts) as the module now numbers them. The counter runs over the kernels in .text
        order, so an added kernel ptxas compiles first takes the first numbers and the kept
        kernels' copies move up (CUDA samples boxFilter_kernel without d_boxfilter_x_global,
        added back: each kept copy one up). A function whose facts already hold its names
        stays the same object."""
        if not self.ordering_mode().whole_program or not self._added_since_read():
            return self.functions
        from .emit import builtin_copy_names

        names = builtin_copy_names(self)
        if not names:
            return self.functions
        out = []
        for f in self.functions:
            mapping: dict[str, str] = {}
            for text in _strings(f.facts):
                m = _COPY_NAME.fullmatch(text)
                want = names.get((f.name, m.group(1))) if m else None
                if want is not None and want != text:
                    mapping[text] = want
            out.append(attrs.evolve(f, facts=_renamed_all(f.facts, mapping)) if mapping else f)
        return out if any(a is not b for a, b in zip(out, self.functions)) else self.functions

    def _compat_after_code_changes(self) -> dict[str, object]:
        """The module facts with .nv.compat's ISA class, CAN_FASTPATH_FINALIZE mask and
        INST_TENSORMAP_V1 bit 0 following the code added or given since the module was read
        from a cubin: ptxas derives them from all of the module's code (CUDA samples
        bgr_resize's texture kernel added to its empty module: class 2; conjugateGradient
        MultiDeviceCG sm_120 with multiGpuConjugateGradient given the code of `.maxnreg 32`:
        class 2). New code raises each by its known triggers; where the code it replaced
        alone was known to ask for one, it goes down to what the module's code is known to
        ask, as after a removal (:meth:`_compat_after_removal`). The module's own facts where
        no code changed. An added function that allocates tensor memory is refused: the
        partition it asks in .nv.shared.reserved.0 is not modelled for additions."""
        read_as = self._as_read()
        if self._decomposed is None or read_as is None:
            return self.facts
        from ..nvinfo.gating import fastpath_default, fastpath_mask, isa_class_asked, makes_tensor_copies

        old = self._decomposed[0]
        added = [f for f in self._added_since_read() if f.sass]
        # functions given other code since
        replaced = [(f, read_as[id(f)][1]) for f in self.functions if id(f) in read_as and f.sass != read_as[id(f)][1]]
        if not added and not replaced:
            return self.facts
        for f in added:
            if _keeps_tcgen05_partition(f) and not self.facts.get("tcgen05"):
                raise ModelError(f"function {f.name!r} added: its tensor-memory allocation makes a partition in .nv.shared.reserved.0 that the module read from the cubin does not have (not modelled for additions)")
        new_code = added + [f for f, _ in replaced]
        old_code = [was for _, was in replaced]
        facts = dict(self.facts)
        current = int(facts.get("isa_class", 1))  # type: ignore[call-overload]
        isa = max([current] + [isa_class_asked(self.target, f.sass) for f in new_code])
        if isa == current > 1 and not facts.get("tcgen05"):
            left = max((isa_class_asked(self.target, f.sass) for f in self.functions if f.sass), default=1)
            if left < current <= max((isa_class_asked(self.target, c) for c in old_code), default=1):
                isa = left
        if isa > 1:
            facts["isa_class"] = isa
        else:
            facts.pop("isa_class", None)
        tensormap = int(facts.get("tensormap", 0))  # type: ignore[call-overload]
        if any(makes_tensor_copies(f.sass) for f in new_code):
            tensormap |= 1
        elif tensormap & 1 and any(map(makes_tensor_copies, old_code)) and not any(makes_tensor_copies(f.sass) for f in self.functions):
            tensormap &= ~1
        if tensormap:
            facts["tensormap"] = tensormap
        else:
            facts.pop("tensormap", None)
        had_code = _defines_code(list(old))
        default = fastpath_default(self.target, has_code=True)
        before = int(facts.get("fastpath", fastpath_default(self.target, has_code=had_code)) if had_code else default)  # type: ignore[call-overload]
        after = before & ~self._fastpath_clears(new_code)
        if replaced:
            # bits only the replaced code cleared come back where the mask read is what the
            # known triggers of the code read give
            as_read = [attrs.evolve(f, sass=read_as[id(f)][1]) for f in old]
            if before == fastpath_mask(self.target) & ~self._fastpath_clears(as_read):
                after = fastpath_mask(self.target) & ~self._fastpath_clears(self.functions)
        if after == default:
            facts.pop("fastpath", None)
        else:
            facts["fastpath"] = after
        return facts if facts != self.facts else self.facts

    def _refuse_additions_unlike_ptxas(self) -> None:
        """A module read from a cubin and changed since (functions or data added, dropped or
        moved; the edit methods check their own): ModelError where ptxas's output for the
        changed PTX would hold what the module cannot give (:meth:`_refuse_missing_from_ptx_text`,
        :meth:`_refuse_moved_code_slots`)."""
        if self._decomposed is None:
            return
        functions, data = self._decomposed
        if len(functions) == len(self.functions) and len(data) == len(self.data) and all(map(operator.is_, functions, self.functions)) and all(map(operator.is_, data, self.data)):
            return
        self._refuse_missing_from_ptx_text({f.name for f in functions} | {d.name for d in data})
        self._refuse_moved_code_slots(functions, data)
        self._refuse_reshuffled_ties(data)
        self._refuse_added_kernels_beside_takers()
        self._refuse_added_callers_under_g()

    def _refuse_reshuffled_ties(self, data: tuple[DataObject, ...]) -> None:
        """ModelError when a .global or .const variable is added to, or dropped from, a section
        whose variables read from the cubin share an alignment and a size while one of them
        holds an alignment its size does not (C and C++ sizes are multiples of their
        alignment). ptxas sorts such a section by alignment and size (.nv.constant3 outside
        whole program only), and the equal ones come out in an order that depends on the whole
        list (alloc._common.list_sort), which another variable reshuffles: the builder follows
        it where the alignments are the true ones, and the decomposer takes the natural ones
        wherever they reproduce the layout (CUDA samples conjugateGradientMultiDeviceCG,
        libcu++'s one-byte `__cpo` objects; tests/probes_edits/add_beside_ties). An alignment
        above that says the offsets alone told it, and the true one may be less."""
        from .data import alloc_mode, section_of, sorted_by_alignment

        mode = alloc_mode(self)

        def section(d: DataObject) -> str | None:
            if d.space not in ("global", "const") or d.linkage == "extern":
                return None
            name = section_of(d)
            return name if sorted_by_alignment(name, mode) else None

        read = {id(d) for d in data}
        now = {id(d) for d in self.data}
        changed = [d for d in self.data if id(d) not in read] + [d for d in data if id(d) not in now]
        for d in changed:
            where = section(d)
            if where is None:
                continue
            peers = [x for x in data if section(x) == where]
            if all(x.align <= x.size & -x.size for x in peers):
                continue
            keys = collections.Counter((x.align, x.size) for x in peers)
            tie = next((x for x in peers if keys[(x.align, x.size)] > 1 and x is not d), None)
            if tie is not None:
                what = "add" if id(d) not in read else "drop"
                raise ModelError(
                    f"cannot {what} {d.name!r}: ptxas sorts its section by alignment and size, and orders {tie.name!r} and the others of its alignment and size anew, in an order the cubin does not tell"
                )

    def _refuse_missing_from_ptx_text(self, known: set[str]) -> None:
        """ModelError when the PTX text the module embeds (``.nv_debug_ptx_txt``, under
        -lineinfo and -g) never names a function or variable (of any space) added since the
        cubin was read: ptxas embeds the text it compiled, so an added variable
        (``add_global``) needs the text that declares it, given in ``Module.debug``
        (tests/probes_edits/add_global_slot). Without the check the cubin would carry the old
        text, unlike ptxas's on the edited PTX. ptxas's builtins are not in the text."""
        txt = next((d for d in self.debug if d.name.startswith(".nv_debug_ptx_txt")), None)
        if txt is None or not txt.data:
            return
        added = [_ptx_name(d.name) for d in self.data if d.name not in known and not _made_by_reader(d.name)]
        added += [f.name for f in self.functions if f.name not in known and f.linkage != "builtin" and not f.name.startswith("__cuda_")]
        if not added:
            return
        tokens = set(_IDENTIFIER.findall(bytes(txt.data)))
        for name in added:
            if name_bytes(name) not in tokens:
                raise ModelError(
                    f"{txt.name} (the PTX text ptxas embeds) never names {name!r}: ptxas writes the text it compiled, so a function or variable added to the module needs the text that declares it (replace {txt.name} in Module.debug)"
                )

    def _refuse_added_kernels_beside_takers(self) -> None:
        """ModelError when a kernel was added to a whole-program module whose kernels take
        function addresses. ptxas shuffles such a module's kernels by their number and moves
        the takers first (funcorder._shuffled), in an order that depends on the PTX
        declaration order; the cubin keeps the result only, and the module read from it
        holds an order that gives that result without the shuffle (the addresses are
        resolved: no function says it takes one). Appending a kernel to it gives another
        order than ptxas's for the PTX with the kernel appended (CUDA samples
        FunctionPointers_kernels without SobelCopyImage, added back: ptxas puts it last,
        after the two takers; tests/probes_edits add_beside_takers). A module whose functions
        say what they take (built, not read) follows the builder's rule and passes."""
        if not self.ordering_mode().whole_program:
            return
        if any(f.address_taken or f.has_indirect_call for f in self.functions):
            return
        from .emit import address_table_functions

        added = [f.name for f in self._added_since_read() if f.is_kernel and f.linkage != "extern"]
        if not added:
            return
        takers = [f.name for f in self.functions if f.is_kernel and address_table_functions(f)]
        if takers:
            raise ModelError(
                f"cannot add kernel {added[0]!r}: kernel {takers[0]!r} takes function addresses (its .nv.constant2 table), and ptxas orders the kernels of such a module by their PTX declaration order, which the cubin does not keep"
            )

    def _refuse_moved_shared_since_read(self) -> None:
        """-g: ModelError when the shared layout a kernel's code uses (the offsets of its
        variables, the base of extern shared memory after the static ones) changed since the
        module was read while that kernel keeps the code read with it: -g lays shared memory
        out over the module, so a variable added for one kernel moves another's (CUDA samples
        bodysystemcuda -g, integrateBodies<float> given an own .shared array:
        integrateBodies<double>'s extern __smem moves up; probe g_dynamic_shared). The
        removal and reorder checks cover their own edits; this one covers data and code
        given since."""
        read_as = self._as_read()
        if self._read_data is None or self._decomposed is None or read_as is None or not self.device_debug:
            return
        functions = self._decomposed[0]
        same_functions = len(functions) == len(self.functions) and all(map(operator.is_, functions, self.functions))
        if same_functions and list(self._read_data) == self.data:
            return
        from .data import shared_layout

        before = shared_layout(attrs.evolve(self, functions=list(functions), data=list(self._read_data)), self.sm)
        after = shared_layout(self, self.sm)
        if before is None:
            return
        for k in self.functions:
            read = read_as.get(id(k))
            if not k.is_kernel or read is None or k.sass is not read[1] or k.name not in before.offsets:
                continue
            was, now = dict(before.offsets.get(k.name, {})), dict(after.offsets.get(k.name, {})) if after is not None else {}
            moved = next((n for n in sorted(was) if n in now and was[n] != now[n]), None)
            if moved is not None:
                raise ModelError(f"kernel {k.name!r} keeps the code read from the cubin, and under -g ptxas lays the shared memory out anew: {moved!r} moves from {was[moved]:#x} to {now[moved]:#x} in its code (give it its new code)")

    def _refuse_rebounded_callers(self) -> None:
        """ModelError when a kernel's launch bounds (.maxntid, .reqntid, .minnctapersm,
        .maxnreg) changed since the module was read from a cubin while a function it calls
        keeps the code read with it: outside whole-program builds (where callees are copies
        inside the kernel's own code) ptxas compiles the callees, builtins included, within
        their callers' register budget, so their code changes with the bounds (CUDA samples
        jacobi -c sm_75, JacobiMethod given .maxnreg 32: __cuda_sm20_div_rn_f64_full grows
        from 1536 to 1664 bytes; simplePitchLinearTexture -g: the f32 division slow path;
        whether a cap binds depends on the callee's registers, which the cubin does not
        tell). A callee given code since passes."""
        read_as = self._as_read()
        if read_as is None or not (self.options.get("compile_only") or self.device_debug):
            return
        from .data import call_closure

        by_name = {f.name: f for f in self.functions}
        # a call through a pointer may reach any device function (FunctionPointers_kernels -g
        # sm_120, SobelShared given .maxnreg 32: ComputeSobel, whose address only the data
        # takes)
        devices = {f.name for f in self.functions if not f.is_kernel}
        for k in self.functions:
            read = read_as.get(id(k))
            if not k.is_kernel or read is None or _launch_bounds(k) == read[0]:
                continue
            reached = call_closure(by_name, k.name)
            if any(by_name[n].has_indirect_call for n in reached):
                reached |= devices
            for callee in sorted(reached - {k.name}):
                fn = by_name[callee]
                was = read_as.get(id(fn))
                # (the very bytes read: code assigned since passes, even where the cap leaves
                # it as it was)
                if fn.sass and was is not None and fn.sass is was[1]:
                    raise ModelError(f"kernel {k.name!r}: its launch bounds changed since the module was read, and ptxas compiles {callee!r}, which it calls, within its callers' register budget: give {callee!r} its new code")

    def _refuse_added_callers_under_g(self) -> None:
        """ModelError when a kernel added to a module read from a cubin calls functions the
        module had, where ptxas then compiles those anew: whole-program -g puts the callees'
        FP64 literals and tables in each calling kernel's .nv.constant2.<k>, at offsets the
        callees' one copy of code reads, laid out for the kernels there are (CUDA samples
        interval -g sm_75 with test_interval_newton added back: newton_interval_rec reads
        c[0x2][0x10], not c[0x2][0x0]); -g and -c -O0 compile each callee within its callers'
        tightest register budget, which an added kernel with launch bounds may tighten (the
        removal checks' converse, :meth:`_refuse_moved_debug_sequences`,
        :meth:`_refuse_loosened_register_budget`)."""
        debug = self.device_debug
        if not debug and not self.options.get("compile_only"):
            return
        from .data import call_closure

        added = {f.name for f in self._added_since_read()}
        by_name = {f.name: f for f in self.functions}
        old = [(_launch_bounds(k), call_closure(by_name, k.name)) for k in self.functions if k.is_kernel and k.name not in added]
        mode = self._budget_mode()
        for k in self.functions:
            if not k.is_kernel or k.name not in added:
                continue
            callees = sorted(call_closure(by_name, k.name) - added)
            if not callees:
                continue
            if debug and not self.options.get("compile_only") and k.constants:
                raise ModelError(f"cannot add kernel {k.name!r}: under -g its .nv.constant2 holds constants of the functions it calls ({callees[0]!r}), which ptxas then lays out anew (their code changes)")
            capped = _first_newly_capped(k, callees if _caps_registers(k) else self._bounded_callees(k, callees), old)
            if capped is not None:
                raise ModelError(f"cannot add kernel {k.name!r}: under {mode} its launch bounds cap the registers of {capped!r}, which ptxas then compiles anew")

    def _refuse_moved_code_slots(self, functions: tuple[Function, ...], data: tuple[DataObject, ...]) -> None:
        """ModelError when the module now puts a name's .nv.constant4 slot, or a .const
        variable's .nv.constant3 offset, elsewhere than the cubin's ``functions`` and ``data``
        did while a function keeps the code it had: whole program, that code reads both at
        fixed offsets (every -O level: a variable added through ``add_global`` after the
        code, visible, or static at -O0, takes a slot before the kept ones; one added through
        ``add_constant``, visible, is placed before the static ones;
        tests/probes_edits/add_global_slot). Only functions whose code reads the bank count
        (:func:`_reads_constant_bank`). A function given new code, or data added back in the
        cubin's order, passes. -g alike (not position independent: no .nv.constant4, but the
        code reads .nv.constant3 at fixed offsets; CUDA samples ParticleSystem_cuda -g with a
        .const added: cudaParams moves to 0x8, the kernels read it there)."""
        if self.options.get("compile_only"):
            return
        code = {f.sass for f in functions if f.sass}
        kept = [f for f in self.functions if f.sass and f.sass in code]
        if not kept:
            return
        slots, consts = attrs.evolve(self, functions=list(functions), data=list(data))._read_at_fixed_offsets()
        slots_now, consts_now = self._read_at_fixed_offsets()
        moves = []
        slot = _first_moved_slot(slots, slots_now)
        if slot is not None:
            moves.append((4, f"{slot!r} would move from slot {slots.index(slot)} to slot {slots_now.index(slot)} of .nv.constant4"))
        moved = [n for n, at in consts_now.items() if n in consts and consts[n] != at]
        if moved:
            moves.append((3, f"{moved[0]!r} would move from {consts[moved[0]]:#x} to {consts_now[moved[0]]:#x} in .nv.constant3"))
        for bank, why in moves:
            # only code that reads the bank changes (Warp's unused pnanovdb .const tables:
            # a visible .const added before them leaves every kernel's code as it was)
            readers = [f.name for f in kept if _reads_constant_bank(f.sass, bank)]
            if readers:
                raise ModelError(f"{why}: the code of {readers[0]!r}, as read from the cubin, reads c[{bank:#x}] at fixed offsets, and ptxas compiles such code anew (give the functions their new code)")

    def _read_at_fixed_offsets(self) -> tuple[tuple[str, ...], dict[str, int]]:
        """Whole program: the names holding .nv.constant4 address slots, in slot order, and
        the .const variables' offsets in .nv.constant3, which the code reads as they stand."""
        from ..funcorder import function_order
        from .data import CONSTANT3, plan
        from .decompose import ptx_functions

        p = plan(self, function_order(ptx_functions(self), self.ordering_mode()))
        consts = p.layouts.get(CONSTANT3)
        return tuple(p.constant4), dict(consts.offsets) if consts is not None else {}

    def _constant4_slots(self) -> tuple[str, ...]:
        """The names holding .nv.constant4 address slots, in slot order (whole program)."""
        return self._read_at_fixed_offsets()[0]

    def to_spec(self) -> dict[str, object]:
        """The versioned JSON form (cubinemit.semantic.spec)."""
        from .spec import to_spec

        return to_spec(self)

    @classmethod
    def from_spec(cls, obj: dict[str, object]) -> Module:
        from .spec import from_spec

        return from_spec(obj)

    # --- builder methods ----------------------------------------------------------------------
    def add_kernel(self, name: str, sass: bytes, **fields: object) -> Function:
        """Append a kernel (``.entry``) in declaration order; ``fields`` are further
        :class:`Function` fields (relocations, facts, calls...)."""
        return self._add_function(Function(name, is_kernel=True, sass=sass, **fields))  # type: ignore[arg-type]

    def add_function(self, name: str, sass: bytes = b"", *, linkage: str = "static", **fields: object) -> Function:
        """Append a device function (``.func``); ``linkage="extern"`` declares one defined
        elsewhere (no SASS)."""
        return self._add_function(Function(name, linkage=linkage, sass=sass, **fields))  # type: ignore[arg-type]

    def _add_function(self, fn: Function) -> Function:
        if any(f.name == fn.name for f in self.functions):
            raise ModelError(f"function {fn.name!r} is defined twice")
        self.functions.append(fn)
        return fn

    def add_global(
        self,
        name: str,
        size: int,
        *,
        align: int = 1,
        init: bytes | None = None,
        visible: bool = False,
        weak: bool = False,
        common: bool = False,
        relocations: list[Relocation] | None = None,
    ) -> DataObject:
        """Append a module ``.global`` variable (``init`` None: uninitialised, in .nv.global);
        ``weak`` for ``.weak .global`` (nvcc's templated __device__ variables under -rdc),
        ``common`` for ``.common .global`` (uninitialised)."""
        linkage = _data_linkage(name, visible, weak)
        if common:
            if visible or weak or init is not None:
                raise ModelError(f"common variable {name!r} cannot be visible, weak or initialised")
            linkage = "common"
        return self._add_data(DataObject(name, "global", size, align, init, linkage, relocations=list(relocations or ())))

    def add_constant(
        self, name: str, size: int, *, align: int = 1, init: bytes | None = None, visible: bool = False, weak: bool = False, relocations: list[Relocation] | None = None
    ) -> DataObject:
        """Append a module ``.const`` variable (``__constant__``; zero-filled without ``init``)."""
        return self._add_data(DataObject(name, "const", size, align, init if init is not None else bytes(size), _data_linkage(name, visible, weak), relocations=list(relocations or ())))

    def add_shared(
        self, name: str, size: int, *, align: int = 1, users: list[str] | None = None, scope: str | None = None, visible: bool = False, weak: bool = False, extern: bool = False
    ) -> DataObject:
        """Append a ``.shared`` variable: module scope (``scope`` None; ``extern`` for dynamic
        shared memory, size 0; ``weak`` for ``.weak .shared``, a templated kernel's __shared__
        array under -rdc) or declared in function ``scope``; ``users`` are the functions whose
        code references it."""
        if extern and (visible or weak):
            raise ModelError(f"extern shared variable {name!r} cannot be visible or weak")
        if scope is not None and (visible or weak):
            raise ModelError(f"function-scope shared variable {name!r} cannot be visible or weak")
        linkage = "extern" if extern else _data_linkage(name, visible, weak)
        obj = DataObject(name, "shared", size, align, None, linkage, users=list(users or ()), scope=scope)
        if extern:
            if size != 0:
                raise ModelError(f"extern shared variable {name!r} must have size 0, not {size}")
            self.data.append(obj)
            return obj
        return self._add_data(obj)

    def add_local(self, name: str, size: int, *, align: int = 1) -> DataObject:
        """Append a module-scope ``.local`` variable (PTX before ISA 3.1: ptxas then disables
        the ABI, and gives every kernel a ``.nv.local.<k>`` section holding all of them).
        A module read from a cubin holds them as one block, :data:`LOCAL_BLOCK`: the cubin
        keeps no names."""
        return self._add_data(DataObject(name, "local", size, align, None, "static"))

    def _add_data(self, obj: DataObject) -> DataObject:
        if obj.size < 1 or obj.align < 1 or obj.align & (obj.align - 1):
            raise ModelError(f"data object {obj.name!r}: size {obj.size} and alignment {obj.align} must be positive, the alignment a power of two")
        if any(d.name == obj.name for d in self.data) or any(f.name == obj.name for f in self.functions):
            raise ModelError(f"data object {obj.name!r}: the name is taken")
        self.data.append(obj)
        return obj

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise ModelError(f"no function named {name!r}")

    def remove_function(self, name: str) -> None:
        """Remove a function and what only it needed: device functions no other function calls
        or has inlined (in -c builds only externs and builtins: ptxas compiles every defined
        function there), their call-graph edges and facts, their .debug_frame entries. A
        function still called by another one cannot be removed (ModelError names the caller);
        the last kernel goes where the cubin tells the module without kernels
        (:meth:`_refuse_unknown_kernelless`); neither can a function with line-table rows in relocatable
        output (:meth:`_lines_edited`), nor a -g removal that may move a line sequence
        (:meth:`_refuse_moved_debug_sequences`), nor, in whole-program modules that take
        function addresses, a kernel whose removal the cubin cannot tell the outcome of
        (:meth:`_kernel_order_after`), nor a removal whose
        bytes depend on a PTX declaration order the cubin does not keep
        (:meth:`_refuse_unknown_creation_order`, :func:`_refuse_unknown_builtin_order`) or that moves a kept kernel's
        ``.nv.constant4`` slots (:meth:`_refuse_moved_constant4`), nor one that makes a kernel
        the cubin does not say uses shared memory the first one that might
        (:meth:`_refuse_unknown_shared_use`). Other line tables follow the PTX with the
        function's definition cut out."""
        self._refuse_searched_shared_users(f"remove {name!r}", name)
        self._edit_checked(f"remove {name!r}", lambda m: m._remove_function(name))

    def _remove_function(self, name: str) -> None:
        victim = self.function(name)
        everything = list(self.functions)
        seen = self._kept_without(victim)
        if victim.is_kernel and not any(f.is_kernel for f in self.functions if f is not victim):
            self._refuse_unknown_kernelless(name, victim, seen)
        for f in self.functions:
            if f is victim:
                continue
            if name in f.calls or any(r.symbol == name for r in f.relocations):
                raise ModelError(f"cannot remove {name!r}: {f.name!r} calls it")
            if any(c == name for c, _, _ in f.inlined):
                # whole program: the kernel holds a copy of it (of a ptxas builtin, or of a
                # device function its PTX calls): the PTX without it does not build, and a
                # builtin is no PTX definition to remove (fuzzed: bi_copy_renumber, fo_fptr -O0)
                raise ModelError(f"cannot remove {name!r}: {f.name!r} holds a copy of it")
            if name in f.address_taken:
                raise ModelError(f"cannot remove {name!r}: {f.name!r} takes its address")
        kept = [f for f in self.functions if f.name in seen]
        gone = {f.name for f in self.functions} - seen
        after = self.functions[self.functions.index(victim) + 1 :]
        self._refuse_moved_lines(after, f"remove {name!r}", [victim])
        kernel_order = self._kernel_order_after(name, gone)
        self._refuse_unknown_creation_order(name, seen, gone)
        for dbg in self.debug:  # refuse before changing anything
            if dbg.name not in (".debug_frame", *LINE_PAYLOADS) and any(r.symbol in gone for r in dbg.relocations):
                raise ModelError(f"cannot remove {name!r}: its {dbg.name} rows are not removable yet")
        self._refuse_moved_debug_sequences(f"remove {name!r}", gone)
        self._refuse_carried_bindless(f"remove {name!r}")
        self._refuse_kernel_addresses(f"remove {name!r}")
        self._refuse_unexplained_compat(f"remove {name!r}")
        debug, facts = self._lines_edited(f"remove {name!r}", removed=name, gone=frozenset(gone))
        from .frame import prune

        takings = self._table_takings_after(name, kept, gone)
        functions = _builtins_recreated(kept, everything, gone)
        _refuse_unknown_builtin_order(f"remove {name!r}", functions, everything, gone)
        if kernel_order is not None:
            # the builder lays the kernels out in reverse model order (no takings known)
            slots = [i for i, f in enumerate(functions) if f.is_kernel]
            by_name = {f.name: f for f in functions}
            for i, k in zip(slots, reversed(kernel_order)):
                functions[i] = by_name[k]
        data = self._data_after_removal(gone)
        holder = next((d for d in data if any(r.symbol in gone for r in d.relocations)), None)
        if holder is not None:
            # the variable stays and its initializer names the function (fuzzed: fo_table_load
            # -c without f1, whose address tl holds: ptxas makes f1 an undefined symbol there,
            # which is not modelled)
            gone_name = next(r.symbol for r in holder.relocations if r.symbol in gone)
            raise ModelError(f"cannot remove {name!r}: variable {holder.name!r} holds the address of {gone_name!r}")
        self._refuse_moved_constant4(f"remove {name!r}", functions, data)
        self._refuse_unknown_extern_order(f"remove {name!r}", functions)
        self._refuse_resolved_data_takings(f"remove {name!r}", functions)
        self._refuse_debug_data_takings(f"remove {name!r}", functions, data)
        self._refuse_moved_first_address(f"remove {name!r}", functions)
        text_before = self._text_order()
        text_after = attrs.evolve(self, functions=functions)._text_order()
        self._refuse_unfollowed_sequences(f"remove {name!r}", text_before, text_after, functions, gone)
        self._refuse_moved_handle_slots(f"remove {name!r}", functions)
        self._refuse_moved_indirect_callers(f"remove {name!r}", functions)
        raised = self._first_function_raised(f"remove {name!r}", functions, text_before, text_after)
        self._refuse_lost_texture_query(f"remove {name!r}", kept)
        if _defines_code(functions):
            removing = [f for f in everything if f.name in gone]
            self._refuse_unknown_tensormap_replace(f"remove {name!r}", removing)
            self._refuse_unknown_tcgen05_partition(f"remove {name!r}", removing, kept)
        self._refuse_unknown_cap_resolution(f"remove {name!r}", gone)
        refs = self._references_after(f"remove {name!r}", functions)
        copies = self._builtin_copies()
        renumbered = self._shared_renumbered(gone)
        self.facts = facts  # before prune, which renumbers the Mercury CFA facts in place
        self.debug = [prune(dbg, gone, self) if dbg.name == ".debug_frame" else dbg for dbg in debug]
        self.functions = functions
        self.data = data
        self._put_references(refs)
        self._raise_registers(raised)
        for taker, taken in takings.items():
            self.function(taker).address_taken = taken
        for d in self.data:
            d.users = [u for u in d.users if u not in gone]
        if renumbered:
            self._rename_data(renumbered)
        self._follow_text_order(text_before)
        # and the facts of the removed kernels' copies, keyed by copy name (the Mercury frame
        # sizes: a stale `$__internal_0_$` of a removed kernel would stand for the kept copy
        # renumbered to it; fz h015 sm_100a)
        stale = {copy for (kernel, _), copy in copies.items() if kernel in gone}
        stale |= {f"${f.name}${callee}" for f in everything if f.name in gone and f.is_kernel for callee, _, _ in f.inlined}
        self.facts = _without(self.facts, gone | stale)  # type: ignore[assignment]
        # the builtin copies after a removed kernel's are numbered anew (fz3 h001: k1's copies
        # gone, k0's rcp copy goes from 4 to 2)
        self._renumber_builtin_copies(copies)
        removed = [f for f in everything if f.name in gone]
        if not self.has_code():
            # no code left: the module facts of its instructions go with it (.nv.compat's ISA
            # class 1, TENSORMAP 0, CAN_FASTPATH_FINALIZE 0, no tcgen05 partition in
            # .nv.shared.reserved.0: tests/probes_gfold fold_flags_tail -O0, rsv_tcgen05_100a
            # -c; _refuse_unknown_kernelless keeps out the PTX that still allocates)
            self.facts = {k: v for k, v in self.facts.items() if k not in _CODE_FACTS}
        else:
            self._compat_after_removal(removed, kept)
        if "fastpath" in self.facts and self.has_code():
            # CAN_FASTPATH_FINALIZE is the AND over the module's code: a bit comes back when the
            # removed code cleared it (sm_100: FP64 arithmetic, f32 compares against an
            # immediate, div.rn and sqrt.rn) and no kept code does (tests/probes_data/
            # fastpath_fp64; fz3 h030: -c keeps 1 with sqrt.rn.f32 left, whole program gets 9
            # back with rcp.rn.f32's RCP; gemm_softmax: 9 back with MUFU.EX2 softmax code left)
            from ..nvinfo.gating import fastpath_mask

            value = int(self.facts["fastpath"])  # type: ignore[call-overload]
            back = self._fastpath_clears(removed) & ~self._fastpath_clears(kept) & fastpath_mask(self.target) & ~value
            if back and value | back == fastpath_mask(self.target):
                self.facts = {k: v for k, v in self.facts.items() if k != "fastpath"}
            elif back:
                self.facts = {**self.facts, "fastpath": value | back}

    def _rename_data(self, names: dict[str, str]) -> None:
        """Give the variables ``names`` maps their new names, and every reference to them (the
        relocations, the facts that name them) with them, all at once."""
        for d in self.data:
            d.name = names.get(d.name, d.name)
            for r in d.relocations:
                r.symbol = names.get(r.symbol, r.symbol)  # type: ignore[arg-type]
        for f in self.functions:
            f.facts = _renamed_all(f.facts, names)  # type: ignore[assignment]
            for r in [*f.relocations, *f.constant_relocations]:
                r.symbol = names.get(r.symbol, r.symbol)  # type: ignore[arg-type]
        for dbg in self.debug:
            for r in dbg.relocations:
                r.symbol = names.get(r.symbol, r.symbol)  # type: ignore[arg-type]
        self.facts = _renamed_all(self.facts, names)  # type: ignore[assignment]

    def _compat_after_removal(self, removed: list[Function], kept: list[Function]) -> None:
        """.nv.compat's ISA class and INST_TENSORMAP_V1 bit 0 are the module's code's: each
        goes down when only removed code held an instruction known to ask for it, to what the
        kept code is known to ask (tests/probes_data/isa_class_surface; tests/probes_compat
        compat_wgmma_90a: the wgmma kernel's class 4 goes back to the TMA kernel's 2, and
        bit 0 goes with the last cp.async.bulk.tensor). The tensor-memory partition in
        .nv.shared.reserved.0 goes with the last function that keeps it
        (:func:`_keeps_tcgen05_partition`, :meth:`_refuse_unknown_tcgen05_partition`;
        CUTLASS 70_blackwell_fp16_gemm sm_100a without its GEMM kernel)."""
        from ..nvinfo.gating import isa_class_asked, makes_tensor_copies

        facts = dict(self.facts)
        if facts.get("tcgen05") and any(map(_keeps_tcgen05_partition, removed)) and not any(map(_keeps_tcgen05_partition, kept)):
            del facts["tcgen05"]
            facts.pop("tcgen05_first", None)
        # the partition asks class 2 while it stays; once it goes, the class follows the kept
        # code (CuTe blackwell 01_mma_sm100 without gemm_device: class 1 with the CUB kernels)
        current = int(facts.get("isa_class", 1))  # type: ignore[call-overload]
        if current > 1 and not facts.get("tcgen05"):
            left = max((isa_class_asked(self.target, f.sass) for f in kept), default=1)
            if left < current <= max((isa_class_asked(self.target, f.sass) for f in removed), default=1):
                facts["isa_class"] = left
                if left == 1:
                    del facts["isa_class"]
        tensormap = int(facts.get("tensormap", 0))  # type: ignore[call-overload]
        if tensormap & 1 and any(makes_tensor_copies(f.sass) for f in removed) and not any(makes_tensor_copies(f.sass) for f in kept):
            facts["tensormap"] = tensormap & ~1
            if not facts["tensormap"]:
                del facts["tensormap"]
        self.facts = facts

    def _fastpath_clears(self, functions: list[Function]) -> int:
        """The CAN_FASTPATH_FINALIZE bits these functions' code is known to clear
        (:func:`~cubinemit.nvinfo.gating.fastpath_cleared`); -g compiles the device code
        unoptimised, as -O0 does (bi_two_kernels -g sm_100a without Kdiv: 9 back with Ksqrt's
        sqrt builtin left)."""
        from ..nvinfo.gating import fastpath_cleared

        optimized = self.ordering_mode().opt_level > 0 and not self.device_debug
        bits = 0
        for f in functions:
            bits |= fastpath_cleared(self.target, f.sass, optimized=optimized, callees=[*f.calls, *(c for c, _, _ in f.inlined)])
        return bits

    def _refuse_unexplained_compat(self, edit: str) -> None:
        """ModelError when .nv.compat says more than the module's code is known to ask: an
        ISA_CLASS above every function's known triggers (with no tensor-memory partition to
        ask it), or a CAN_FASTPATH_FINALIZE bit no function is known to clear. The instruction
        responsible may be in the removed code or in the kept code, and the cubin does not
        tell which (none of 3,681 class-2+ and 12,881 sm_100 cubins of the sweeps was so)."""
        from ..nvinfo.gating import fastpath_mask, isa_class_asked

        current = int(self.facts.get("isa_class", 1))  # type: ignore[call-overload]
        if current > 1 and not self.facts.get("tcgen05") and max((isa_class_asked(self.target, f.sass) for f in self.functions), default=1) < current:
            raise ModelError(f"cannot {edit}: .nv.compat ISA_CLASS {current} is asked by code the cubin does not show, which the edit may remove")
        if "fastpath" in self.facts:
            missing = fastpath_mask(self.target) & ~int(self.facts["fastpath"]) & ~self._fastpath_clears(self.functions)  # type: ignore[call-overload]
            if missing:
                raise ModelError(f"cannot {edit}: .nv.compat CAN_FASTPATH_FINALIZE bits {missing:#x} are cleared by code the cubin does not show, which the edit may remove")

    def _refuse_unknown_tcgen05_partition(self, edit: str, removed: list[Function], kept: list[Function]) -> None:
        """ModelError when the edit takes the last code that keeps the tensor-memory partition
        (:func:`_keeps_tcgen05_partition`) out of the cubin but maybe not out of the PTX: the
        partition follows tcgen05.alloc in any PTX
        function left, compiled or not (tests/probes_gfold fold_flags_tail), and a device
        function whole-program code only holds as copies inside the removed kernels has no
        records to tell whether it allocates."""

        if not self.facts.get("tcgen05") or any(map(_keeps_tcgen05_partition, kept)) or not any(map(_keeps_tcgen05_partition, removed)):
            return
        for f in removed:
            if not f.is_kernel and f.linkage not in ("builtin", "extern") and not is_builtin_name(f.name) and not isinstance(f.facts.get("nvinfo"), dict):
                raise ModelError(
                    f"cannot {edit}: {f.name!r} stays in the PTX, and the cubin does not say whether it allocates tensor memory "
                    "(tcgen05.alloc), which keeps the partition in .nv.shared.reserved.0"
                )

    def _refuse_unknown_tensormap_replace(self, edit: str, removed: list[Function]) -> None:
        """ModelError when the module uses ``tensormap.replace`` (.nv.compat INST_TENSORMAP_V1
        bit 1) and the edit removes code that may be where: ptxas compiles it to a plain store,
        so the cubin does not say whether the kept code still uses it (tests/probes_compat
        compat_tensormap: the bit goes with the replacing kernel)."""
        if int(self.facts.get("tensormap", 0)) & 2 and any(f.sass for f in removed):  # type: ignore[call-overload]
            raise ModelError(
                f"cannot {edit}: the module uses tensormap.replace (.nv.compat INST_TENSORMAP_V1 bit 1), "
                "which leaves no instruction of its own, so the cubin does not say whether the kept code still does"
            )

    def _refuse_lost_texture_query(self, edit: str, kept: list[Function]) -> None:
        """ModelError when the whole-program module queries a texture, surface or sampler and
        the kept code may no longer: ptxas then lays the module out as one without queries
        (.nv.callgraph again, other module records, the texture symbols in another order:
        texref_unified without k_txq), which is not modelled. The SASS tells where a query
        stays (:func:`~cubinemit.nvinfo.gating.queries_texture`); a sampler query leaves no
        TXQ, so a module whose kept code has none is refused even where it still queries."""
        from ..nvinfo.gating import queries_texture

        info = self.facts.get("nvinfo")
        if not isinstance(info, dict) or not info.get("uses_texture_query"):
            return
        if not any(queries_texture(f.sass) for f in kept):
            raise ModelError(f"cannot {edit}: the module queries a texture, surface or sampler, and the SASS does not show a query in the kept code (a module without queries is laid out anew: not modelled)")

    def _table_takings_after(self, name: str, kept: list[Function], gone: set[str]) -> dict[str, list[str]]:
        """Relocatable and -g builds: a variable holding function addresses (a vtable) whose
        taker goes is taken by the next function that references it in ptxas's walk
        (funcorder.table_takers; cuda-samples newdelete -c without complexVector: its
        destructor takes the vtable). Returns taker -> its new address_taken; refused where
        that function takes other addresses too (where the table's fall among them is not
        modelled)."""
        from .decompose import function_tables

        tables = function_tables(self)
        if not tables or not any(f.address_taken for f in self.functions):
            return {}
        # the tables a removed function took: it references them and holds their contents
        lost = {r.symbol for f in self.functions if f.name in gone for r in f.relocations if r.symbol in tables and set(tables[r.symbol]) <= set(f.address_taken)}
        takers = _table_takers(kept, tables)
        out: dict[str, list[str]] = {}
        # a kept taker may lose its turn: the walk reached it through a removed kernel first
        # (fo_table_load_taker -g without k1: static h, which k1 called, no longer comes
        # before k3, which then takes tm)
        for v, old in _table_takers(self.functions, tables).items():
            fn = next((f for f in kept if f.name == old), None)
            if fn is None or takers.get(v) == old or not set(tables.get(v, ())) <= set(fn.address_taken):
                continue
            if list(fn.address_taken) != list(tables[v]):
                raise ModelError(f"cannot remove {name!r}: {old!r} would no longer take the addresses in {v!r}, which it takes among its own, in an order not modelled")
            out[old] = []
            lost.add(v)
        for v in sorted(lost):
            taker = takers.get(v)
            if taker is None:
                continue  # nothing references it any more: taken by the data alone
            fn = next(f for f in kept if f.name == taker)
            if out.get(taker, fn.address_taken):  # (an old taker that lost its table takes none)
                raise ModelError(f"cannot remove {name!r}: {taker!r} would take the addresses in {v!r} among its own, in an order not modelled")
            out[taker] = list(tables[v])
        return out

    def _kernel_order_after(self, name: str, gone: set[str]) -> tuple[str, ...] | None:
        """Whole program, a module whose kernels take function addresses: the kernel order after
        removing ``gone``, or ModelError when the cubin cannot tell the bytes ptxas writes. The
        kernels with a function-address table take an address or call through a pointer, but
        which kernel takes which function the cubin does not keep, so a removal that could
        change another kernel's code is refused (see the comments below). ptxas also shuffles
        such a module's kernels by their number and moves those kernels first
        (funcorder._shuffled); the cubin keeps the result only, so each place they may have
        held is tried (funcorder.shuffled_orders_after) and the removal goes ahead when all
        give one order (as when two kernels are left), refused otherwise (fz h003: after k0, the order of
        k3 k1 k2 depends on where the takers stood in the PTX). None where nothing is shuffled
        or the model says who takes what (a module built with address_taken facts: the
        builder's rule applies)."""
        from ..funcorder import function_order, shuffled_orders_after
        from .decompose import ptx_functions
        from .emit import address_table_functions

        mode = self.ordering_mode()
        if not mode.whole_program:
            return None
        if any(f.address_taken or f.has_indirect_call for f in self.functions):
            return None
        tables = {f.name: address_table_functions(f) for f in self.functions if f.is_kernel}
        lead = {k for k, taken in tables.items() if taken}
        if not lead:
            return None
        left = [f.name for f in self.functions if f.is_kernel and f.name not in gone]
        if len(left) == 1 and left[0] in lead:
            # measured: a lone kernel materialises function addresses without a table
            raise ModelError(f"cannot remove {name!r}: {left[0]!r} would be the only kernel, and ptxas compiles a lone kernel's function addresses without its .nv.constant2 table (its SASS changes)")
        if name in lead:
            # its table lists every function whose address the module takes: if only the
            # removed kernel took one, ptxas drops that function's copies from the kernels with
            # a table and compiles the copies that direct calls keep anew; their SASS changes
            # (fz h000: k2 alone took f0's address, k0 and k1 lose $k$f0; fz h078: k1's copy of
            # f0, no longer address-taken, is compiled anew)
            touched = [f.name for f in self.functions if f.is_kernel and f.name not in gone and any(c in tables[name] for c, _, _ in f.inlined)]
            if touched:
                raise ModelError(
                    f"cannot remove {name!r}: it takes function addresses or calls through a pointer, and the cubin does not say whether it alone takes some function's address, which would change the code of {touched[0]!r}"
                )
        order = [n for n in function_order(ptx_functions(self), mode) if n in tables]
        orders = shuffled_orders_after(order, lead, gone)
        if orders is None or len(orders) != 1:
            raise ModelError(
                f"cannot remove {name!r}: ptxas orders the kernels of a module that takes function addresses by their PTX declaration order, which the cubin does not keep, and the possible orders disagree after the removal"
            )
        return next(iter(orders))

    def _refuse_unfollowable_frame(self, edit: str, functions: list[Function]) -> None:
        """ModelError, at the edit rather than when the cubin is built, where the .debug_frame
        pairs cannot follow the new .text order (frame.rewrite: from sm_90 on a relocatable
        payload's last CIE that would move off the end has no known pointer step)."""
        from .build import _frame_in_text_order
        from .decompose import ptx_functions

        edited = attrs.evolve(self, functions=functions)
        try:
            _frame_in_text_order(edited, ptx_functions(edited))  # works on a copy of the facts
        except ModelError as exc:
            raise ModelError(f"cannot {edit}: {exc}") from None

    def _table_takings_moved(self, functions: list[Function]) -> dict[str, list[str]]:
        """Relocatable and -g builds, a reorder: a variable holding function addresses is taken
        by the first function that references it in ptxas's walk (funcorder.table_takers),
        which the new order may change (random module a/s0014 -g sm_80: with compute_14<double>
        defined first, it takes ftab12, where the model kept compute_14<float>; .nv.callgraph
        lists the other symbol). Returns function -> its new address_taken: the old taker's
        list goes to the new one where it was exactly the table's and the new one took none;
        refused otherwise (where a table's takings fall among a function's own is not
        modelled)."""
        from .decompose import function_tables

        if self.ordering_mode().whole_program:
            return {}
        tables = function_tables(self)
        if not tables or not any(f.address_taken for f in self.functions):
            return {}

        before, after = _table_takers(self.functions, tables), _table_takers(functions, tables)
        out: dict[str, list[str]] = {}
        for v, old in before.items():
            new = after.get(v)
            if new is None or new == old:
                continue
            if list(self.function(old).address_taken) != list(tables[v]) or out.get(new, self.function(new).address_taken):
                raise ModelError(f"cannot reorder functions: {new!r} would take the addresses in {v!r} from {old!r}, among other takings, in an order not modelled")
            out[old], out[new] = [], list(tables[v])
        return out

    def _refuse_debug_data_takings(self, edit: str, functions: list[Function], data: Sequence[DataObject]) -> None:
        """ModelError for a -g (executable) removal of the last function calling through a
        pointer while a variable's initializer keeps a function's address: ptxas then writes
        the address as the number 1 and drops its relocation (tests/probes_edits
        g_data_taking_last_caller: `tab = {f}` relocated beside kc, 1 without it; a random
        nvcc module, k2 calling through `fptab`), which is not modelled."""
        if not self.device_debug or self.options.get("compile_only"):
            return
        if not any(f.has_indirect_call for f in self.functions) or any(f.has_indirect_call for f in functions):
            return
        holder = attrs.evolve(self, functions=functions, data=list(data))._address_holder()
        if holder is not None:
            raise ModelError(f"cannot {edit}: no function would call through a pointer, and under -g ptxas then writes the function addresses {holder.name!r} holds as numbers, which is not modelled")

    def _refuse_resolved_data_takings(self, edit: str, functions: list[Function], moved: Sequence[str] = ()) -> None:
        """Whole program: ModelError for an edit of the kernels of a module whose variables'
        initializers may hold function addresses ptxas resolved (fact ``resolved_data``: the
        relocation sections it asked and dropped; or any initializer beside a kernel's address
        table). The cubin does not say which functions they took. Their values are offsets in
        the kernels' address tables or copies, or numbers where none holds one (random module
        q0002 -O3 sm_80: ``ftab = {f0}`` holds 8 while k1's table lists f0, 1 once k1, the one
        kernel calling through a pointer, is removed; tests/probes_edits/wp_resolved_table).
        And with no kernel taking an address, the takings still shuffle the kernel order
        (funcorder._shuffled), which the declaration order found does not account for (q0006
        sm_90: k2 before k1 once k0 goes; swapping f0 and k2 moves k2 before k0 and k1), and
        the values point into the kernels' copies (q0164, q0187: with two kernels too): any
        edit of the kernels of a module with several is refused there (a lone kernel's
        reorders among device functions move nothing: fo_data_declared). ``moved``: the
        functions a reorder names."""
        from .emit import address_table_functions

        if not self.ordering_mode().whole_program:
            return
        before = [f.name for f in self.functions if f.is_kernel]
        after = [f.name for f in functions if f.is_kernel]
        if before == after and not set(moved) & set(before):
            return
        lead = [f.name for f in self.functions if f.is_kernel and address_table_functions(f)]
        # an initializer's resolved addresses leave plain bytes: where a data section kept
        # relocations of its own (q0088: gptr = generic(gbuf) beside ftab = {f0}) no fact
        # tells them apart, so any initializer with bytes may hold some
        initialised = next((d.name for d in self.data if d.space in ("global", "const") and any(d.init or b"")), None)
        if lead and not set(lead) & set(after) and (self.facts.get("resolved_data") or initialised):
            raise ModelError(
                f"cannot {edit}: {initialised or 'an initializer'!r} may hold function addresses ptxas resolved through {lead[0]!r}'s address table, which change once no kernel keeps one (the cubin keeps them as plain bytes)"
            )
        if not lead and len(before) > 1:
            if self.facts.get("resolved_data"):
                raise ModelError(
                    f"cannot {edit}: the initializers hold function addresses ptxas resolved, which shuffle the kernel order by a PTX declaration order the cubin does not keep and point into the kernels' code"
                )
            holder = _may_hold_resolved_addresses(self.data)
            if holder is not None:
                raise ModelError(
                    f"cannot {edit}: {holder.name!r} may hold function addresses ptxas resolved (small numbers in 8-byte words, the relocation sections they ask being those of the other initializers), which shuffle the kernel order by a PTX declaration order the cubin does not keep"
                )

    def _refuse_moved_constant4(self, edit: str, functions: list[Function], data: list[DataObject]) -> None:
        """Whole program: ModelError when the edit moves a kept name's ``.nv.constant4`` slot.
        The kept kernels read the global-address bank at fixed offsets in their SASS (no
        relocation), so ptxas's code for them changes (tests/probes_rw realistic sm_75: without
        bigparam, mathy comes first and its extern __assertfail takes slot 0, so mathy reads
        gbuf at c[0x4][0x8] instead of c[0x4][0x0]; alloc.data.constant4_order)."""
        if not self.ordering_mode().whole_program or not _defines_code(functions):
            return  # (no code left: nothing reads the bank)
        before = self._constant4_slots()
        if not before:
            return
        after = attrs.evolve(self, functions=functions, data=data)._constant4_slots()
        moved = _first_moved_slot(before, after)
        if moved is not None:
            raise ModelError(
                f"cannot {edit}: it moves {moved!r} from slot {before.index(moved)} to slot {after.index(moved)} of .nv.constant4, which the kept kernels' code reads at fixed offsets (ptxas compiles them anew)"
            )

    def _address_holder(self) -> DataObject | None:
        """The first variable whose initializer holds a function's address, or None."""
        names = {f.name for f in self.functions}
        return next((d for d in self.data if any(r.symbol in names for r in d.relocations)), None)

    def _kept_without(self, victim: Function) -> set[str]:
        """The names of the functions left once ``victim``'s definition is cut out of the PTX."""
        # callees nothing reaches any more go too: keep what the kernels and the visible and
        # weak functions reach through calls, inlined copies and relocations (a recursive
        # function reaching itself does not keep itself). Relocatable and -g builds compile
        # every defined function, static ones nothing calls included (ptxas -c, measured on
        # func_calls and recursion): there only externs and builtins go with their last caller
        rest = {f.name: f for f in self.functions if f is not victim}
        every = bool(self.options.get("compile_only") or self.options.get("debug"))
        mode = self.ordering_mode()
        # whole program: a device function lives only as copies inside kernels, so one no kept
        # kernel reaches goes, visible or not (fz h001: k0 was f1's only caller)
        roots = ("visible", "weak", "static") if every else () if mode.whole_program else ("visible", "weak")

        # ptxas's builtins (-c binds them LOCAL like static functions) are not in the PTX: they
        # go with their last caller (printf_switch -c: __cuda_sm20_div_rn_f64_full)
        reached = [n for n, f in rest.items() if f.is_kernel or (f.linkage in roots and not is_builtin_name(n))]
        seen = set(reached)
        while reached:
            f = rest[reached.pop()]
            for n in [*f.calls, *(c for c, _, _ in f.inlined), *(r.symbol for r in f.relocations if r.symbol)]:
                if n in rest and n not in seen:
                    seen.add(n)
                    reached.append(n)
        return seen

    def _refuse_unknown_kernelless(self, name: str, victim: Function, kept: set[str]) -> None:
        """ModelError when removing the last kernel leaves a module whose layout the cubin
        does not tell:

        * its texture, surface and sampler references are named in declaration order once no
          code uses them (texref_unified with k_surf alone names sref, tref; without it tref,
          sref), and the cubin keeps the use order;
        * a data initialiser may hold a function's address (whole program: the offset of the
          kernel's copy), where ptxas writes a function number once no kernel is left
          (tests/probes_data/init_ops_first: {1, 2}); any initialiser word equal to a copy's
          offset is taken for one;
        * the tensor-memory partition follows tcgen05.alloc in any PTX function left, even one
          ptxas does not compile (whole program) or compiles without it showing here;
        * -c: builtins and functions whose address data takes are created in an order not
          modelled once no kernel leads;
        * whole-program -g: the device functions left, where they take addresses, get an
          order not modelled;
        * DWARF the PTX brings (nvcc -G) is written anew; the line tables and -g's register
          tables follow the PTX text as in other removals;
        * whole program: the kernel's shared section may hide extern (dynamic) shared memory
          (aligned 16 or more and a multiple of 16 long), which a module without kernels keeps
          in .nv_debug.shared (shared_dynamic with k_dyn alone).

        Other modules without kernels are laid out as PTX that declares no kernel is.
        ``kept``: the functions left (:meth:`_kept_without`)."""
        why = self._kernelless_unknown(name, victim, kept)
        if why is not None:
            raise ModelError(f"cannot remove {name!r}, the last kernel: {why}")

    def _kernelless_unknown(self, name: str, victim: Function, kept: set[str]) -> str | None:
        """What the cubin does not tell of the module without ``victim``, its last kernel
        (:meth:`_refuse_unknown_kernelless`), or None."""
        from .data import DYNAMIC_SHARED, KERNEL_SHARED
        from .texrefs import refs

        # the line tables and -g's register tables follow the PTX text (_lines_edited)
        tables = [d.name for d in self.debug if d.data and d.name not in FOLLOWED_PAYLOADS]
        if tables:
            return f"a module without code writes its debug tables ({tables[0]}) anew, which is not modelled"
        # the builtins only the kernel called go with it (ggml scale.cu -g, -c: a module
        # without functions left)
        others = [f for f in self.functions if f.name in kept and f.linkage != "extern"]
        if self.device_debug and not self.options.get("compile_only") and others:
            # whole-program -g keeps the device functions. Once no kernel leads, ptxas orders
            # those that take addresses or call through pointers by a rule not measured
            # (tests/funcorder_probes fo_static_reached, probes_fp fp_takers, probes_data
            # init_ops_first without their kernels: other .text orders). Otherwise it keeps
            # their order, call frame rules and line sequences (CUDA samples -rdc, ggml,
            # probes; sm_75 to sm_120). A kernel's launch bounds that capped a callee's
            # registers are _refuse_loosened_register_budget's (params_spill without
            # conv2d_direct: the CIE's R64-R67 rules change)
            takes = next((f for f in others if f.address_taken or f.has_indirect_call), None)
            held = self._address_holder()
            # (an initializer's resolved addresses leave no relocation, only the taking in
            # .nv.callgraph: fact taken_by_data; random module b/s0057 -g without step13,
            # `ftab11 = {h8, h9, h7}`: ptxas gives h7 h8 h9, every target)
            data_taken = next((f for f in others if f.facts.get("taken_by_data")), None)
            if takes is not None or held is not None or data_taken is not None:
                why = (
                    f"{takes.name!r} takes function addresses or calls through them"
                    if takes is not None
                    else f"{held.name!r} holds a function's address" if held is not None else f"a variable's initializer holds {data_taken.name!r}'s address"
                )
                return f"under -g ptxas orders the device functions left anew once no kernel leads, and {why}, which that order depends on by a rule not modelled"
        if self.facts.get("tcgen05") and (self.ordering_mode().whole_program or any(f.linkage != "builtin" and not is_builtin_name(f.name) for f in others)):
            # the partition follows the PTX, not the code: fold_flags_tail -O0 keeps it for
            # the visible d that no kernel calls any more, and whole-program cubins do not
            # keep the functions no kernel reached
            return "the PTX left may still allocate tensor memory (tcgen05.alloc), whose reserved shared partition a module without kernels keeps, and the cubin does not tell"
        # (-c -O0: code taking an address counts as data does: tests/probes_fp fp_takers -O0
        # -c without k, whose static h takes fb: ptxas gives h fa fb, the shuffle rule h fb fa;
        # plain -c orders by the call graph and matches ptxas there)
        taken = {r.symbol for d in self.data for r in d.relocations} if self.options.get("compile_only") else set()
        if self.options.get("compile_only") and self.ordering_mode().creation_style:
            taken |= {n for f in others for n in f.address_taken}
        if self.options.get("compile_only") and len(others) > 1 and any(f.linkage == "builtin" or is_builtin_name(f.name) or f.name in taken for f in others):
            # -c creates the builtins and the functions data takes the address of in an order
            # of their own once no kernel leads (bi_forward_split: the builtins swap;
            # virtual_shapes: the vtable functions' symbols in another order)
            return "a relocatable module without kernels creates its builtins' and address-taken functions' symbols in an order not modelled"
        if len(refs(self)) > 1:
            return f"a module without kernels names its {len(refs(self))} texture/surface/sampler references in PTX declaration order, which the cubin does not keep"
        copies = {offset for _, offset, _ in victim.inlined}
        for d in self.data:
            words = {int.from_bytes(d.init[i : i + 8], "little") for i in range(0, len(d.init) - 7, 4)} if d.init else set()
            if words & copies:
                return f"{d.name!r} may hold a function's address, where ptxas writes a function number once no kernel is left (not modelled)"
        if self.ordering_mode().whole_program and not any(d.name == DYNAMIC_SHARED for d in self.data):
            own = [d for d in self.data if d.name == KERNEL_SHARED.format(kernel=name)]
            if any(d.align >= 16 and d.size % 16 == 0 for d in own):
                return "its shared memory may end in extern (dynamic) shared memory, which a module without kernels keeps in .nv_debug.shared, and the cubin does not tell"
        return None

    def _refuse_moved_handle_slots(self, edit: str, functions: list[Function]) -> None:
        """ModelError when the edit moves a kept kernel's texture/surface/sampler handle slots.
        From sm_90 on (and under -g) the slots start after the module's largest parameter list,
        not the kernel's own, and the kernels read them at fixed bank-0 offsets: removing the
        kernel with the most parameter bytes moves them, and ptxas compiles the kept kernels
        anew (tests/probes_data/handle_slots_moved: k_suq reads its surface at c[0x0][0x218]
        instead of c[0x0][0x228] once k_wide goes, sm_90; texrefs.plan_slots)."""
        from .texrefs import plan_slots

        self._refuse_moved_relocatable_handles(edit, functions)
        before = plan_slots(self)
        if not before:
            return
        after = plan_slots(attrs.evolve(self, functions=functions))
        for kernel, slots in after.items():
            if kernel in before and before[kernel] != slots:
                raise ModelError(
                    f"cannot {edit}: it moves the texture/surface handle slots of {kernel!r} from bank-0 offset {before[kernel][0].offset:#x} to {slots[0].offset:#x},"
                    " which its code reads at fixed offsets (ptxas compiles it anew)"
                )

    def _refuse_moved_indirect_callers(self, edit: str, functions: list[Function]) -> None:
        """ModelError for a relocatable (-c) edit that changes which functions ptxas compiles
        after one making indirect calls (removing it, or moving them), where such a function's
        register count is the caller's or :data:`RAISED_REGISTERS`: ptxas may have raised it,
        and the cubin keeps only the raised count (tests/probes_const2/ftab -c sm_75: k_itab's
        REGCOUNT is 24 after k_ftab, 4 of its own once k_ftab goes or comes after it)."""
        if not self.options.get("compile_only"):
            return
        # a device-side launch (taking a kernel's address for cudaLaunchDevice) raises the
        # functions after it as well, to 24 whatever the launcher's own count (CUDA samples
        # cdpAdvancedQuicksort -rdc: cub's EmptyKernel has 24 after qsort_warp's 30, 4 of its
        # own; tests/probes_edits cdp_raise)
        from .decompose import launched_kernels

        launched = set(launched_kernels(self))
        callers = [f for f in self.functions if f.has_indirect_call or launched.intersection(f.address_taken)]
        if not callers or not any(f.address_taken for f in self.functions):
            # calls through pointers to functions the module takes the address of; the
            # tcgen05 guardrail calls mark their kernels too, without raising anything
            # (tests/probes_compat/tensor_memory -c: k_plain keeps its own 8 after k_relinq)
            return
        # the order ptxas compiles them in: the model's (creation) order, not .text order
        before = [f.name for f in self.functions]
        after = [f.name for f in functions]
        if sorted(before) == sorted(after) and self._text_order() == attrs.evolve(self, functions=functions)._text_order():
            return  # a reorder that moves nothing ptxas lays out (fo_data_declared -c: fa and k)
        # a caller itself keeps the raised count (fp_caller_order: k2 without k1)
        count = {f.name: _register_count(f) for f in self.functions if not f.has_indirect_call}
        for c in callers:
            later = set(before[before.index(c.name) + 1 :]) & set(after)
            now = set(after[after.index(c.name) + 1 :]) if c.name in after else set()
            # a function that may have been raised (its count is the caller's) and whose place
            # after the caller the edit changes
            # (24 is a function's own count once it calls anything: k_free's own __cudaCDP2Free
            # call in tests/probes_rw6/rules/launch_externs, after k_launch)
            raised = sorted(
                n
                for n in later ^ now
                if n in count and ((c.has_indirect_call and count[n] == _register_count(c)) or (count[n] == RAISED_REGISTERS and not self.function(n).calls))
            )
            if raised:
                does = "makes indirect calls" if c.has_indirect_call else "launches kernels from the device"
                raise ModelError(
                    f"cannot {edit}: {raised[0]!r} comes after {c.name!r}, which {does}, with its register count, which -c may have raised to the caller's;"
                    " its own count is not in the cubin"
                )

    def _first_function_raised(self, edit: str, functions: list[Function], before: list[str] | None = None, after: list[str] | None = None) -> str | None:
        """-c in a module whose code takes function addresses: the function an edit giving
        ``functions`` puts first in .text (``before``, ``after``: the .text orders now and
        then, where the caller has them), where its register count rises to
        :data:`RAISED_REGISTERS` (None where nothing rises). ptxas takes the address-taken
        functions for the first function's callees (funcorder), and a caller has at least 24
        registers: tests/funcorder_probes fo_shuffle_kernels -c, k6 first with 24; without
        k6, k5 first with 24 where it had its own 4; without k1, the only taker, k6 has 4
        (sm_75, sm_90, sm_100a, sm_120; cdp_raise -O0 -c without parent, the only launcher:
        nothing rises). ModelError where the function that was first stays, loses the raise
        and has 24 registers while calling nothing (its own count is not in the cubin), and
        where only initializers take addresses (not measured)."""
        if not self.options.get("compile_only"):
            return None
        before = self._text_order() if before is None else before
        after = attrs.evolve(self, functions=functions)._text_order() if after is None else after
        initializers = self._address_holder() is not None
        code_takes = any(f.address_taken for f in functions)
        took = any(f.address_taken for f in self.functions) or initializers
        takes = code_takes or initializers
        was = before[0] if before and took else None
        now = after[0] if after and takes else None
        if was == now:
            return None
        by_name = {f.name: f for f in functions}
        old = by_name.get(was) if was is not None else None
        if old is not None and _register_count(old) == RAISED_REGISTERS and not (old.calls or old.has_indirect_call or old.address_taken):
            raise ModelError(
                f"cannot {edit}: {old.name!r}, first in .text, has the {RAISED_REGISTERS} registers -c gives the first function of a module taking function addresses;"
                f" after the edit its own count applies, and the cubin does not show it"
            )
        count = _register_count(by_name[now]) if now is not None else None
        if now is None or count is None or count >= RAISED_REGISTERS:
            return None
        if not code_takes:
            raise ModelError(f"cannot {edit}: {now!r} comes first in .text, and whether -c raises its registers where only initializers take function addresses is not known")
        return now

    def _raise_registers(self, name: str | None) -> None:
        """The register count of the function ``name`` (if any) raised to :data:`RAISED_REGISTERS`
        (:meth:`_first_function_raised`)."""
        if name is None:
            return
        f = self.function(name)
        f.facts = {**f.facts, "nvinfo": {**_nvinfo(f), "register_count": RAISED_REGISTERS}}

    def _refuse_moved_relocatable_handles(self, edit: str, functions: list[Function]) -> None:
        """ModelError for a relocatable (-c) edit from sm_90 on that changes the module's largest
        parameter list while a kept function names texture/surface/sampler references: -c keeps
        their handles after that list too, and the code reads them at fixed bank-0 offsets
        (tests/probes_data/handle_slots_moved -c sm_90: k_suq's SASS changes once k_wide goes;
        ref_params -c sm_90: k_unused's once k_tex goes)."""
        from ..arch import facts as arch_facts
        from .texrefs import param_end, param_refs

        if not self.options.get("compile_only") or arch_facts(self.sm).handle_slot_scope != "module":
            return
        refs = {d.name for d in self.data if d.space in REF_TYPES}

        def widest(fs: list[Function]) -> int:
            return max((param_end(self, f)[1] for f in fs if f.is_kernel), default=0)

        # device functions too: their relocated handle reads hold the same offset
        # (q0001 random module -c sm_90: f2's SULD once k0, the widest, goes)
        users = [f.name for f in functions if (f.is_kernel and param_refs(f)) or any(r.symbol in refs for r in f.relocations)]
        if users and widest(functions) != widest(self.functions):
            raise ModelError(f"cannot {edit}: it changes the module's largest parameter list, after which -c keeps the texture/surface handles {users[0]!r} reads at fixed offsets (ptxas compiles it anew)")

    def _refuse_unknown_creation_order(self, name: str, seen: set[str], gone: set[str]) -> None:
        """ModelError when the PTX declaration orders that give this cubin give different
        cubins once ``gone`` is removed (semantic.creation): ptxas's outcome is one of them,
        and the cubin does not say which."""
        from .creation import edit_outcome_unknown
        from .decompose import ptx_functions

        def after(functions: list[Function]) -> list[Function]:
            return _builtins_recreated([f for f in functions if f.name in seen], functions, gone)

        other = edit_outcome_unknown(self.functions, ptx_functions(self), self.ordering_mode(), self.sm, after, _weak_builtins_after_callers)
        if other is not None:
            moved = next(a for a, b in zip(other, (f.name for f in self.functions)) if a != b)
            raise ModelError(
                f"cannot remove {name!r}: the cubin keeps ptxas's function order, not the PTX declaration order behind it, and the orders that give this cubin"
                f" (one declares {moved!r} elsewhere) give different cubins without {name!r}"
            )

    def _lines_edited(
        self, edit: str, *, removed: str | None = None, gone: frozenset[str] = frozenset(), order: Sequence[str] = (), functions: list[Function] | None = None
    ) -> tuple[list[DebugSection], dict[str, object]]:
        """The debug payloads and facts after an edit of the PTX text that deletes the
        definition of ``removed`` or puts those of ``order`` in that order in the places they
        held (:mod:`.lines`): the embedded text edited, the rows mapped to their new PTX lines,
        the line-table sequences of the ``gone`` functions dropped, the others in their order
        or, for a reorder giving ``functions``, in its .text order (:meth:`_sequence_orders`),
        the Mercury clones' rows alike. The module itself does not change. Its own payloads
        and facts where it has no line tables; ModelError where the edit cannot be followed:
        a removal beside DWARF the PTX brings, relocatable output (which names the PTX text
        after a checksum of the whole file), a function the text does not define."""
        from . import lines

        if not self._has_line_tables():
            return list(self.debug), self.facts
        # -g: the register tables' records of removed functions go, a reorder's come in the
        # new .text order (ptxas -g on PTX without DWARF of its own: tests/probes_lines);
        # DWARF that PTX brings (nvcc -G) describes the PTX too, and is not edited: a removal
        # would drop its rows; a reorder leaves it as it is, since it names the functions by
        # relocation (tests/probes_edits g_nvcc_kernels; CUDA samples -G, sm_75 and sm_90)
        dwarf = self._ptx_dwarf()
        if dwarf is not None and not order:
            raise ModelError(f"cannot {edit}: {dwarf} (-g) is not edited with the PTX text yet")
        txt = next((d for d in self.debug if d.name.startswith(".nv_debug_ptx_txt")), None)
        if txt is None:
            raise ModelError(f"cannot {edit}: the line tables map the code to a PTX text the module does not hold")
        if txt.name != ".nv_debug_ptx_txt":
            raise ModelError(f"cannot {edit}: {txt.name} is named after a checksum of the whole PTX file, which the edit changes")
        defs = lines.definitions(txt.data)
        for n in [*order, *([removed] if removed else [])]:
            if n not in defs:
                raise ModelError(f"cannot {edit}: .nv_debug_ptx_txt holds no definition of {n!r}")
        blocks = sorted(defs.values())
        slot = {b: i for i, b in enumerate(blocks)}
        fill: list[int | None] = list(range(len(blocks)))
        if removed:
            fill[slot[defs[removed]]] = None
        # the k-th place (in text order) of the named functions takes the k-th one's definition
        for place, n in zip(sorted(order, key=defs.__getitem__), order):
            fill[slot[defs[place]]] = slot[defs[n]]
        text, line_map = lines.rearranged(txt.data, blocks, fill)
        if removed and not self._loc_left(removed, set(defs) - {removed}, gone):
            # without -lineinfo or -g only .loc directives make ptxas write line tables: with
            # none left it writes no line tables, no PTX text and no .debug_str
            dropped = (*LINE_PAYLOADS, ".debug_str")
            return [d for d in self.debug if not d.name.startswith(dropped)], _mercury_without_lines(self.facts, dropped)

        def arrange(names: list[str]) -> list[str]:
            return [n for n in names if n not in gone]

        clone_arrange = record_arrange = arrange
        if functions is not None:
            arrange, record_arrange, clone_arrange = self._sequence_orders(functions, edit)

        def records(name: str, data: bytes) -> bytes:
            # -g register tables: a removed function's record goes, a reorder puts them in
            # the new .text order
            data = _records_without(name, data, gone)
            return _records_arranged(name, data, record_arrange) if order else data

        out = []
        strings = None
        for d in self.debug:
            if d is txt:
                d = DebugSection(d.name, text, list(d.relocations), list(d.labels))
            elif d.name in LINE_PAYLOADS:
                edited = lines.edited_table(d, arrange, line_map if d.name == ".nv_debug_line_sass" else None)
                if lines.lost_names_offset(d, edited):
                    strings = next((s for s in self.debug if s.name == ".debug_str"), None)
                d = edited
            elif d.name in NAME_RECORD_PAYLOADS:
                d = DebugSection(d.name, records(d.name, d.data), list(d.relocations), list(d.labels))
            out.append(d)
        sass = next((i for i, d in enumerate(out) if d.name == ".nv_debug_line_sass"), None)
        if sass is not None and not out[sass].relocations and self.debug[sass].relocations:
            # no sequence left (the last kernel removed): ptxas writes the .debug_line unit
            # here too, its directory and file tables included, where .nv_debug_line_sass
            # otherwise has none (lines.ptx and ggml argmax_75 without kernels)
            src = next(d for d in out if d.name == ".debug_line")
            out[sass] = DebugSection(out[sass].name, src.data, [], list(out[sass].labels))
        if strings is not None:
            # the line program no longer makes .debug_str: ptxas makes it where the PTX
            # declares it, after the functions (and so after the PTX text's section)
            out.remove(strings)
            out.insert(out.index(next(d for d in out if d.name == txt.name)) + 1, strings)
        facts_out = _mercury_debug_edited(
            self.facts,
            records,
            lambda name, events: lines.edited_events(name, events, clone_arrange, line_map if name.endswith(".nv_debug_line_sass") else None),
        )
        return out, facts_out

    def _loc_left(self, removed: str, left: set[str], gone: frozenset[str]) -> bool:
        """Whether the PTX keeps a ``.loc`` directive once ``removed``, the last kernel, goes,
        where that is what decides the line tables (whole program without -lineinfo or -g;
        True otherwise). PTX allows ``.loc`` only in function bodies and the embedded text
        blanks them, so the code tells: a function left whose copy in the removed code starts
        .debug_line rows holds some (tests/probes_lines lines: square_plus keeps the tables);
        one whose copy starts none holds none (Triton's __internal_trig_reduction_slowpathd,
        probes_debug dbg_cu_helper without its only kernel: no tables). One with no copy left
        to read (its callers removed before) is taken to hold some, as nvcc writes them in
        every function (lines without its four kernels, one at a time)."""
        from ..mercury import decode_line_events

        if self.device_debug or self.options.get("lineinfo") or self.options.get("compile_only"):
            return True
        if any(f.is_kernel and f.name != removed and f.name not in gone for f in self.functions):
            return True
        table = next((d for d in self.debug if d.name == ".debug_line"), None)
        if table is None:
            return True
        try:
            rows = [ev[1] for ev in decode_line_events(table.data)[1] if ev[0] == "row"]
        except CubinemitError as e:
            raise ModelError(f".debug_line: {e}") from None
        copies = [(c, off, size) for f in self.functions if f.name == removed or f.name in gone for c, off, size in f.inlined]
        for name in sorted(left):
            mine = [(off, size) for c, off, size in copies if c == name]
            if not mine or any(off <= r < off + size for off, size in mine for r in rows):
                return True
        return False

    def _ptx_dwarf_payloads(self) -> list[DebugSection]:
        """The debug payloads that are DWARF the PTX brings (nvcc -G: .debug_info and the
        like, which ptxas -g does not make from plain PTX)."""
        return [d for d in self.debug if d.data and d.name not in FOLLOWED_PAYLOADS and not d.name.startswith(".nv_debug_ptx_txt.")]

    def _ptx_dwarf(self) -> str | None:
        """The first debug section that is DWARF the PTX brings, or None."""
        return next((d.name for d in self._ptx_dwarf_payloads()), None)

    def _ptx_dwarf_naming(self, name: str) -> str | None:
        """The first debug section of DWARF the PTX brings that holds the function ``name``:
        its name's bytes (a DW_AT_name) or a relocation against it (a DW_AT_low_pc), or None."""
        return next((d.name for d in self._ptx_dwarf_payloads() if name_bytes(name) in d.data or any(r.symbol == name for r in d.relocations)), None)

    def _text_order(self) -> list[str]:
        """The functions' names in the order ptxas lays out their .text sections."""
        from ..funcorder import function_order
        from .decompose import ptx_functions

        return function_order(list(ptx_functions(self)), self.ordering_mode())

    def _follow_text_order(self, text_before: list[str]) -> None:
        """After a removal: the line-table sequences and the -g register-table records (and
        their Mercury clones) that stood in .text order (``text_before``) put in the module's
        .text order now, which the removal may change beyond dropping names; others stay as
        they stand. ptxas writes both in .text order: a builtin's record and sequence follow
        its first caller left (softmax_warp -g without softmax_rows<float>: the shuffle and
        reciprocal builtins after softmax_rows<half>), and kernels whose order the removal
        changes swap theirs (fp_remove_taker without k_take: k_call's before k_call2's). From
        sm_90 on -g lists the device functions' sequences first, in an order of their own
        (:meth:`_refuse_moved_debug_sequences`), and the kernels' after them in .text order:
        those follow too (fp_remove_taker -g sm_100a: f_t, k_call2, k_take, k_call becomes f_t,
        k_call, k_call2)."""
        after = self._text_order()
        kept = set(after)
        walked = self._walked_sequences()
        if [n for n in text_before if n in kept] == after and walked is None:
            return
        from . import lines

        kernels = {f.name for f in self.functions if f.is_kernel}
        arrange = _sequence_arranger(text_before, after, kernels, hidden=self._hidden_sequences())
        clone_arrange = _sequence_arranger(text_before, after, kernels)
        debug = []
        for d in self.debug:
            if d.name in NAME_RECORD_PAYLOADS:
                d = DebugSection(d.name, _records_arranged(d.name, d.data, arrange), d.relocations, d.labels)
            elif d.name in LINE_TABLES and d.relocations:
                d = lines.edited_table(d, arrange if walked is None else _walk_arranger(walked))
            debug.append(d)
        self.debug = debug
        self.facts = _mercury_debug_edited(
            self.facts,
            lambda name, data: _records_arranged(name, data, clone_arrange),
            lambda name, events: lines.edited_events(name, events, clone_arrange, None),
        )

    def _walked_sequences(self) -> list[str] | None:
        """The order in which -g lists the functions' ELF line sequences from sm_90 on (the
        register records keep .text order), where the module's code takes no function
        addresses and calls through none, and no variable holds one: ptxas walks the functions in .text order, each
        placing itself and then its direct callees (in .text order) not yet placed, and lists
        those not .visible first (func_calls -g: f_shared f_c1 f_c3 f_c2; without k_chain,
        f_c1's only caller, f_shared f_c3 f_c2 f_c1; fo_recursion without K1: odd before even).
        Measured on 1,650 line tables: CUDA samples, Rodinia, gpuocelot, ggml and the probes,
        -g and -g -c, sm_90/sm_100a/sm_120. Where addresses are taken the order differs
        (fo_fptr, fo_vtables, ftab), and None is returned."""
        if self.sm < 90 or not self.device_debug:
            return None
        if any(f.address_taken or f.has_indirect_call for f in self.functions) or self._address_holder() is not None:
            return None
        text = self._text_order()
        pos = {n: i for i, n in enumerate(text)}
        calls = {f.name: f.calls for f in self.functions}
        placed: dict[str, None] = {}
        for n in text:
            placed.setdefault(n)
            for c in sorted((c for c in calls.get(n, ()) if c in pos), key=pos.__getitem__):
                placed.setdefault(c)
        hidden = self._hidden_sequences()
        return [n for n in placed if n in hidden] + [n for n in placed if n not in hidden]

    def _hidden_sequences(self) -> frozenset[str]:
        """The functions whose ELF line sequences ptxas lists before the others from sm_90 on:
        those not .visible (:meth:`_sequence_orders`; the -g register records keep .text
        order)."""
        return frozenset(f.name for f in self.functions if f.linkage != "visible") if self.sm >= 90 else frozenset()

    def _refuse_unfollowed_sequences(self, edit: str, before: list[str], after: list[str], functions: list[Function], gone: set[str]) -> None:
        """ModelError before a removal where :meth:`_follow_text_order` could not tell where the
        kept line sequences or register-table records go (:func:`_sequence_arranger`);
        ``before`` and ``after``: the .text orders of the module now and with ``functions``."""
        if [n for n in before if n in set(after)] == after:
            return
        arrange = _sequence_arranger(before, after, {f.name for f in functions if f.is_kernel}, edit, self._hidden_sequences())
        walked = attrs.evolve(self, functions=functions)._walked_sequences() is not None
        for d in self.debug:
            if d.name in NAME_RECORD_PAYLOADS:
                names = [n for n, _ in _name_records(d.name, d.data)]
            elif d.name in LINE_TABLES and d.relocations and not walked:
                names = [r.symbol for r in sorted(d.relocations, key=lambda r: r.offset) if r.symbol]
            else:
                continue
            names = [n for n in dict.fromkeys(names) if n not in gone]
            if len(names) == len(set(names)):
                arrange(names)

    def _has_line_tables(self) -> bool:
        return any(d.name in LINE_TABLES and d.data for d in self.debug)

    def _refuse_moved_debug_sequences(self, edit: str, gone: set[str]) -> None:
        """ModelError when a -g removal changes the kept code (module shared memory and
        texture references are laid out anew, and so are the callees' constants a removed
        kernel's .nv.constant2 holds), or may move a device function's line
        sequence: from sm_90 on -g lists the sequences in a walk of .text order
        (:meth:`_walked_sequences`), measured where no function's address is taken; where
        one is, a kept function whose only kernel callers go is refused rather than guessed
        (fo_table_load_taker without k2)."""
        # -g code generation, with or without the line tables (-suppress-debug-info drops
        # them: annotate_notes -g -suppress-debug-info without k_annotated, whose .maxnreg
        # capped scale, came out with the old .debug_frame; tests/probes_flags)
        if not self.device_debug:
            if self.options.get("compile_only"):
                # -c -O0 calls every function through the ABI as -g does, and compiles each
                # once within its callers' tightest budget (tests/probes_edits g_bounds_callee
                # -O0 -c sm_90 without k_bounded: the division slow path's code changes);
                # optimised -c does so too (tests/probes_edits c_bounds_callee,
                # c_budget_builtin)
                self._refuse_loosened_register_budget(edit, gone)
            return
        self._refuse_recompiled_under_g(edit, gone)
        self._refuse_unreached_debug_shared(edit, gone)
        self._refuse_loosened_register_budget(edit, gone)
        kernels = [f for f in self.functions if f.is_kernel]
        if not self.options.get("compile_only"):
            # whole-program -g puts the callees' FP64 literals and tables in each calling
            # kernel's .nv.constant2.<k>, at offsets the callees' code reads, laid out for the
            # kernels there are: ptxas lays them out anew without one whose bank holds some
            # (late_banks -g sm_75 without k_a: dev_poly reads c[0x2][0x0], not c[0x2][0x200])
            from .data import call_closure

            by_name = {f.name: f for f in self.functions}
            for k in kernels:
                if k.name in gone and k.constants:
                    kept = sorted(call_closure(by_name, k.name) - {k.name} - gone)
                    if kept:
                        raise ModelError(f"cannot {edit}: under -g {k.name!r}'s .nv.constant2 may hold constants of {kept[0]!r}, which ptxas then lays out anew (its code changes)")
        if self.sm < 90 or not self._has_line_tables():
            return
        from .decompose import function_tables

        tables = function_tables(self)
        in_tables = {n for names in tables.values() for n in names}
        walked = self._walked_sequences() is not None
        for f in kernels:
            if f.name not in gone:
                continue
            for callee in f.calls if not walked else ():
                if callee not in gone and not any(callee in k.calls for k in kernels if k.name not in gone):
                    raise ModelError(f"cannot {edit}: {callee!r} loses its last kernel caller, and where -g then lists its line sequence is not modelled")
            # a function a variable's initializer holds whose address only the removed kernel
            # takes (the vtable's functions make takes: tests/funcorder_probes fo_data_taker -g
            # sm_90 without make lists d1, d0 and m in another order; an address the code
            # takes moves nothing, fp_remove_taker without k_take)
            # (or whose table only the removed kernel loads from: fo_table_load_taker -g sm_90
            # without k3, whose code loads f2 from tm, lists f1 f2 h, not h f1 f2)
            loaded = [n for r in f.relocations if r.symbol in tables for n in tables[r.symbol]]
            for taken in dict.fromkeys([*f.address_taken, *loaded]):
                if taken in in_tables and taken not in gone and not any(taken in k.calls or taken in k.address_taken for k in kernels if k.name not in gone):
                    raise ModelError(f"cannot {edit}: {taken!r}, whose address {f.name!r} takes, loses its last kernel to reach it, and where -g then lists its line sequence is not modelled")

    def _first_function_references(self, functions: list[Function]) -> list[str] | None:
        """The texture/surface/sampler references the first function in .text order names, in
        the order it names them (its bank-0 handle slots, texrefs.plan_slots, or its code's
        relocations: None where both name some, an order not measured)."""
        from .texrefs import plan_slots

        refs = {d.name for d in self.data if d.space in REF_TYPES}
        module = attrs.evolve(self, functions=functions)
        order = module._text_order()
        first = next((f for f in functions if order and f.name == order[0]), None)
        if first is None:
            return []
        slots = plan_slots(module).get(first.name, ())
        named = list(dict.fromkeys(name for slot in slots for name, _ in slot.handles if name in refs))
        code = list(dict.fromkeys(r.symbol for r in sorted(first.relocations, key=lambda r: r.offset) if r.symbol in refs))
        if named and code:
            return None
        return named or code

    def _references_after(self, edit: str, functions: list[Function]) -> list[DataObject]:
        """The module's references in the order ptxas names them once its functions are
        ``functions``: those the first function in .text order names, as it names them, then
        the others in declaration order (tests/probes_texg texg_first_two sm_75: k_b first
        names t4, then t0 t1 t2 t3; without k_b, k_a names t3 t1, then t0 t2 t4). The cubin
        shows the declaration order of the others only: ModelError where a reference the old
        first function named joins them and its declared place among them is unknown."""
        refs = [d for d in self.data if d.space in REF_TYPES]
        before = self._first_function_references(self.functions)
        after = self._first_function_references(functions)
        if len(refs) < 2:
            return refs
        spaces = {d.name: d.space for d in refs}
        if before == after:
            old_first, new_first = (attrs.evolve(self, functions=fns)._text_order()[:1] for fns in (self.functions, functions))
            if old_first == new_first or not self.ordering_mode().whole_program or len({spaces[n] for n in after or ()}) < 2:
                return refs
            # the same handle slots, but another kernel's code names them: in its own order
            # (random h0025 sm_100a without k2: k2 named tx0 sf0, k1 names sf0 tx0)
            raise ModelError(f"cannot {edit}: the first function in .text would be {new_first[0]!r}, which names the references {after}, textures and surfaces, in its code's order, which a whole-program cubin does not keep")
        from .texrefs import independent

        if independent(self) and not self.options.get("compile_only"):
            # texmode_independent: the handle slots put texture-sampler pairs before single
            # handles, so they do not show the order the code names them in
            # (texg_independent: k_a names t0 with txq before t1, m1 with tex; slots t1 m1 t0);
            # -c names them by the code's relocations, in order
            raise ModelError(f"cannot {edit}: it changes the first function's texture/sampler references, whose naming order independent texturing mode does not show")
        if before is None or after is None or [d.name for d in refs[: len(before)]] != before:
            raise ModelError(f"cannot {edit}: it changes the first function's texture/surface references, and how ptxas then orders {refs[0].name!r} and the others is not modelled")
        if self.ordering_mode().whole_program and len({spaces[n] for n in after}) > 1:
            # whole program keeps a kernel's uses as handle slots, textures before surfaces,
            # and ptxas names them in its code's order (tests/probes_edits/refs_use_order:
            # ky reads surface C, then texture A, and ptxas names C A; the slots give A C)
            raise ModelError(f"cannot {edit}: the first function in .text would name the references {after}, textures and surfaces, in its code's order, which a whole-program cubin does not keep")
        by_name = {d.name: d for d in refs}
        rest = [d for d in refs[len(before) :] if d.name not in after]
        displaced = [n for n in before if n not in after]
        if displaced and (rest or len(displaced) > 1):
            raise ModelError(f"cannot {edit}: {displaced[0]!r} is no longer named by the first function, and its declared place among the other references is not in the cubin")
        return [by_name[n] for n in after] + rest + [by_name[n] for n in displaced]

    def _refuse_unknown_extern_order(self, edit: str, functions: list[Function]) -> None:
        """Whole program: ModelError when the edit makes ptxas name the extern functions in an
        order the cubin does not tell. It names them walking the kernels in .text order, each
        kernel's externs (its inlined copies' included) in declaration order; the cubin shows
        that order only between externs one kernel names together, so the model's declaration
        order is one of several that give the cubin. Every order that names them as the cubin
        does must name them alike after the edit (random r0134: k1 first names malloc free
        through f0's copy, then k0 vprintf; with k0 first it names vprintf malloc free, as
        they were declared, where the decomposed order, malloc free vprintf, gives that)."""
        if not self.ordering_mode().whole_program:
            return
        externs = [f.name for f in self.functions if f.linkage == "extern"]
        if len(externs) < 2:
            return

        def walk(fns: list[Function]) -> list[set[str]]:
            # the externs each function calls, in .text order (worked out once per module)
            by_name = {f.name: f for f in fns}
            return [set(by_name[n].calls) & set(externs) for n in attrs.evolve(self, functions=fns)._text_order() if n in by_name]

        def naming(calls: list[set[str]], order: Sequence[str]) -> list[str]:
            seq: list[str] = []
            for called in calls:
                seq += [e for e in order if e in called and e not in seq]
            return seq

        old, new = walk(self.functions), walk(functions)
        base, want = naming(old, externs), naming(new, externs)
        for order in itertools.islice(itertools.permutations(externs), 5040):
            if naming(old, order) == base and naming(new, order) != want:
                raise ModelError(
                    f"cannot {edit}: ptxas would name the extern functions {want} in their declaration order, which the cubin does not keep ({list(order)} gives it too)"
                )

    def _refuse_unknown_cap_resolution(self, edit: str, gone: set[str]) -> None:
        """Whole program, sm_90: ModelError when a removed function references shared memory
        beside kept ones. ptxas deletes .nv.reservedSmem.cap once some function's code keeps a
        shared reference, and keeps it named where the optimizer removed them all; the
        cubin's deleted cap tells that some function kept one, not which, so whether the kept
        ones do is not known (random r0396 without k0: k1's references were gone, and ptxas
        names the cap). A kept one whose code shows a shared access settles it."""
        from .data import _accesses_shared, cap_resolved, live_shared_refs

        if self.device_debug or self.options.get("compile_only") or family_of(self.sm) is not Family.HOPPER or not cap_resolved(self):
            return
        removed = [f for f in self.functions if f.name in gone and live_shared_refs(self, f)]
        kept = [f for f in self.functions if f.name not in gone and live_shared_refs(self, f)]
        # a kept kernel whose code (its inlined copies' too) accesses shared memory keeps the
        # reference that deletes the cap (tests/probes_data/shared_use_unknown without k_last:
        # k_store's STS); an access reached otherwise (TMA, generic addresses) is not seen,
        # and refused (tests/probes_compat/compat_tensormap without k_replace: k_store's
        # bulk tensor store keeps it, a refusal ptxas's bytes do not need)
        if removed and kept and not any(_accesses_shared(f, copies=True) for f in kept):
            raise ModelError(
                f"cannot {edit}: {removed[0].name!r} and {kept[0].name!r} reference shared memory, and the cubin does not tell whether {kept[0].name!r}'s references outlived the optimizer, which decides whether ptxas keeps .nv.reservedSmem.cap"
            )

    def _put_references(self, refs: list[DataObject]) -> None:
        """The references in the places references hold among the module's data, in this order."""
        slots = [i for i, d in enumerate(self.data) if d.space in REF_TYPES]
        for i, d in zip(slots, refs):
            self.data[i] = d

    def _refuse_kernel_addresses(self, edit: str) -> None:
        """ModelError when a module variable holds kernel addresses (R_CUDA_FUNC_DESC_64: clang
        -fgpu-rdc's __clang_gpu_used_external): where such kernels' symbols, .nv.constant4
        slots and -c EXTERNS records go after an edit is not measured, and removals and
        reorders of CUDA samples Mandelbrot and matrixMul built so gave other bytes than ptxas
        (tests/probes_data init_kernel_addresses)."""
        from .data import R_CUDA_FUNC_DESC_64

        for d in self.data:
            if any(r.type == R_CUDA_FUNC_DESC_64 for r in d.relocations):
                raise ModelError(f"cannot {edit}: {d.name!r} holds kernel addresses, and where their symbols, slots and EXTERNS records go after an edit is not modelled")

    def _refuse_moved_first_address(self, edit: str, functions: list[Function]) -> None:
        """-g without -c: ModelError when an edit changes the first function in .text while
        a module variable no code references holds function addresses in its initializer.
        ptxas leaves a relocation for the first function's slots and writes the others'
        resolved values, numbers it gives the functions in initializer order, which the cubin
        keeps only as bytes (tests/funcorder_probes fo_shuffle_data -g: ``tbl = {f2}`` holds an
        R_CUDA_64 to f2 while f2 comes first, 1 once f0 is removed and f4 comes first); which
        function a resolved slot names is not kept, so the slots after the edit are not
        known."""
        from .data import R_CUDA_64

        if not self.device_debug or self.options.get("compile_only"):
            return
        names = {f.name for f in self.functions}
        # a variable some code references keeps a relocation per function (probed: a static
        # device function's `mov.u64 %rd, tbl` is enough)
        referenced = {r.symbol for f in self.functions for r in (*f.relocations, *f.constant_relocations)}
        unreferenced = [d for d in self.data if d.name not in referenced and d.init]
        holder = next((d for d in unreferenced if any(r.type == R_CUDA_64 and r.symbol in names for r in d.relocations)), None)
        # (every slot resolved, none left to relocate: .nv.callgraph still lists the takings,
        # fact taken_by_data; random module b/s0052 -rdc -g sm_80 without apply14: step17
        # comes first and the slots of h8, numbered 4, become relocations)
        resolved = self.facts.get("resolved_data") or any(f.facts.get("taken_by_data") for f in self.functions)
        if holder is None and not (resolved and any(any(d.init or b"") for d in unreferenced)):
            return
        before = self._text_order()
        after = attrs.evolve(self, functions=functions)._text_order()
        if before[:1] != after[:1]:
            what = repr(holder.name) if holder is not None else "a module variable"
            raise ModelError(
                f"cannot {edit}: {what} holds function addresses, which -g resolves to numbers the cubin does not tie to their functions except the first function's in .text, "
                f"which moves from {before[0]!r} to {after[0] if after else None!r}"
            )

    def _refuse_carried_bindless(self, edit: str) -> None:
        """ModelError when a function carries its BINDLESS_*_BANK records as a fact (below
        sm_90 under -c and -g ptxas repeats them, nvinfo.builder._bindless): how many and in
        which order depends on the kernels around it, not only on its own uses
        (tests/probes texref_unified -c sm_75: k_tex writes TEXTURE, SURFACE before k_surf and
        TEXTURE alone after it; ref_params: k_unused TEXTURE, SURFACE, TEXTURE once it
        precedes k_all), which is not modelled: removals and reorders gave wrong bytes."""
        for f in self.functions:
            if _nvinfo(f).get("legacy_bindless") is not None:
                raise ModelError(f"cannot {edit}: {f.name!r} carries BINDLESS records whose repetition depends on the kernels around it (below sm_90, -c and -g), which is not modelled")

    def _budget_mode(self) -> str:
        """The mode whose register budgets an edit loosens, for messages."""
        if self.device_debug:
            return "-g"
        return "-c -O0" if self.options.get("opt_level") == 0 else "-c"

    def _refuse_loosened_register_budget(self, edit: str, gone: set[str]) -> None:
        """ModelError when a -g removal takes away a kernel whose launch bounds (.maxntid,
        .reqntid, .minnctapersm, .maxnreg) cap the registers of the functions it calls while
        another caller keeps them: -g calls builtins and device functions through the ABI and
        compiles each once within its callers' tightest register budget, so ptxas compiles them
        anew without that kernel (realistic -g sm_80 without reduce, .maxntid 256
        .minnctapersm 2: the .debug_frame CIE of __cuda_sm70_barrier_sync_0, which gridsync
        still calls, changes its rules from R128 up; llm.c layernorm_backward -g without
        kernel8, .maxntid 1024 .minnctapersm 2: __cuda_sm3x_div_rn_noftz_f32_slowpath is
        allocated other registers). A kept kernel with the same bounds keeps the budget; bounds
        that leave 255 registers or more per thread of the 64K register file cap nothing (XLA's
        .reqntid 64 kernels beside __cuda_sm70_shflsync_bfly: exact)."""
        from .data import call_closure, shared_calls

        by_name = {f.name: f for f in self.functions}
        mode = self._budget_mode()
        # -g: a call through a pointer reaches the taken functions of its prototype, which
        # ptxas compiles within the caller's budget too (random module q0013 sm_90: without
        # k0, .maxntid 1024, the CIE of f0, which k0 only calls through a pointer, keeps
        # R64 up undefined rather than same_value)
        edges = self._budget_edges(shared_calls(self))
        kept = [(_launch_bounds(k), call_closure(by_name, k.name, edges)) for k in self.functions if k.is_kernel and k.name not in gone]
        for k in self.functions:
            if not k.is_kernel or k.name not in gone:
                continue
            callees = sorted(call_closure(by_name, k.name, edges) - {k.name} - gone)
            if not _caps_registers(k):
                capped = _first_newly_capped(k, self._bounded_callees(k, callees), kept)
                if capped is not None:
                    raise ModelError(f"cannot {edit}: under {mode} ptxas compiles {capped!r} for the launch bounds of its callers, {k.name!r}'s among them, and anew without it")
                continue
            # every callee counts, -g, -c -O0 and optimised -c alike: the module's own device
            # functions (random synthetic modules, sm_75/sm_90 -c: static f1, called by k0
            # with .maxnreg 32 and by k1, changes without k0 although it uses 24 registers;
            # probe c_bounds_callee) and ptxas's builtins, whose code a budget changes only at
            # times, which the cubin does not tell (g_bounds_callee -c: k_bounded's budget of
            # 24, not of 32 or 40, changes the f32 division slow path; random r0025 -c sm_90:
            # without k1's budget of 40 the f64 division k2 still calls takes 30 registers,
            # not 32, probe c_budget_builtin)
            capped = _first_newly_capped(k, callees, kept)
            if capped is not None:
                raise ModelError(f"cannot {edit}: under {mode} {k.name!r}'s launch bounds cap the registers of {capped!r}, which ptxas compiles anew without it")

    def _budget_edges(self, edges: dict[str, list[str]]) -> dict[str, list[str]]:
        """``edges`` with, under optimised -c, the device functions a function may reach
        through pointers: those whose addresses its code takes, those held by the initialisers
        of the variables it references, and, where it calls through a pointer, every one
        taken. ptxas compiles them within the launch bounds of such kernels too (random u0057
        -c sm_90: the static f2, in `fptab`, frames 56 bytes while k3, with .maxntid 256
        .minnctapersm 2, reads fptab, and 48 without k3, without its bounds or without its
        reference to fptab; probe c_bounds_taken). Which of these reach is not measured
        apart: all count."""
        if not self.options.get("compile_only") or self.device_debug:
            return edges
        from .decompose import function_tables

        devices = {f.name for f in self.functions if not f.is_kernel}
        held = function_tables(self)
        taken = sorted({t for f in self.functions for t in f.address_taken} | {t for names in held.values() for t in names})
        out: dict[str, list[str]] = {}
        for f in self.functions:
            callees = edges[f.name]
            reach = [*f.address_taken, *(t for r in f.relocations for t in held.get(r.symbol, ())), *(taken if f.has_indirect_call else ())]
            out[f.name] = [*callees, *dict.fromkeys(t for t in reach if t in devices and t not in callees)]
        return out

    def _bounded_callees(self, kernel: Function, callees: Sequence[str]) -> Sequence[str]:
        """The ``callees`` relocatable output compiles for ``kernel``'s launch bounds even where
        they cap no register: under -c from sm_90 on any .maxntid or .reqntid changes ptxas's
        builtins and the module's device functions, a 128-thread bound too (random r0124 -c
        sm_90 without k0, .reqntid 128: __cuda_sm20_div_rn_f64_full; r0187 without k0,
        .reqntid 128: the device functions f0 and f2; probe c_budget_builtin with .maxntid
        128 or .reqntid 256 alone: sm_90 changes, sm_75 and -g do not)."""
        if not self.options.get("compile_only") or self.device_debug or self.sm < 90:
            return []
        if all(b is None for b in _launch_bounds(kernel)):
            return []
        return callees

    def _refuse_recompiled_under_g(self, edit: str, gone: set[str] | None = None) -> None:
        """ModelError when the module is built under -g (line tables or not: -g
        -suppress-debug-info) and an edit makes ptxas compile the kept kernels anew. -g lays
        texture slots and shared memory out for the kernels there are (tests/probes
        texref_unified: a texture slot; shared_module without k_sh1: k_sh2's shared
        offsets), and a reorder makes the walk name the shared symbols in another order
        (gsh_nvcc, texg_first_two): textures are refused, and reorders beside static shared
        variables that are not each a kernel's own (:meth:`_walk_names_shared`). Extern
        (dynamic) shared memory has no offset to lay out (XLA and Triton modules, which all
        declare global_smem[]; tests/probes_edits g_dynamic_shared).

        A removal (``gone``) beside static shared variables goes through where the layout of
        what is kept comes out the same without the removed functions
        (:meth:`_refuse_moved_debug_shared`): 707 removals from CUDA samples, llm.c, ggml and
        tinygrad modules -g (sm_80, sm_90, sm_120) match ptxas, and the 10 refused are those
        whose layout moves or whose function order the cubin does not tell."""
        if not self.device_debug:
            return
        spaced = next((d for d in self.data if d.space in ("tex", "surf", "sampler")), None)
        if spaced is not None:
            raise ModelError(f"cannot {edit}: under -g ptxas compiles the kernels anew around {spaced.space} variable {spaced.name!r}, which changes their code")
        from .data import shared_layout

        layout = shared_layout(self, self.sm) if gone is None and any(d.space == "shared" for d in self.data) else None
        for d in self.data if gone is None else ():
            why = self._walk_names_shared(d, layout)
            if why is not None:
                what = "an unused .shared variable it dropped" if d.name.startswith("$dropped_shared") else f"shared variable {d.name!r}"
                raise ModelError(f"cannot {edit}: under -g ptxas names {what} {why}, which the reorder changes")
        if gone is not None and any(d.space == "shared" and d.linkage != "extern" for d in self.data):
            self._refuse_moved_debug_shared(edit, gone)

    def _refuse_unreached_debug_shared(self, edit: str, gone: set[str]) -> None:
        """ModelError for a -g removal of the function first in .text beside a static .shared
        variable that only device functions no kept kernel reaches use: ptxas then names the
        shared variable elsewhere among the symbols (before the module's variables where its
        function comes first), which is not modelled (tests/probes_edits/g_shared_unreached:
        f_sh's `fs`, f_sh called by no kernel, comes before `$str` once f_first goes; removing
        k is exact; a random nvcc -rdc module, sm_90a: f4's `fs4` once f0 goes)."""
        from .data import call_closure, shared_calls

        first = self._text_order()[:1]
        if not gone.intersection(first):
            return
        # (call_closure walks only the kept functions: edges into the removed ones end there)
        by_name = {f.name: f for f in self.functions if f.name not in gone}
        edges = shared_calls(self)
        reached = set().union(*(call_closure(by_name, k.name, edges) for k in by_name.values() if k.is_kernel))
        for d in self.data:
            users = [u for u in d.users if u not in gone]
            if d.space == "shared" and d.linkage != "extern" and users and not set(users) & reached:
                raise ModelError(f"cannot {edit}: under -g ptxas names shared variable {d.name!r}, which no kernel reaches, elsewhere once {first[0]!r}, first in .text, goes, which is not modelled")

    def _refuse_searched_shared_users(self, edit: str, name: str) -> None:
        """-g: ModelError for removing ``name`` beside module .shared variables coloured into
        .nv_debug.shared whose users the decomposer searched for (fact ``searched_users``: the
        other sets of users that give the cubin's layout). ptxas resolved the references, and
        the set found first need not be the one ptxas saw; once a kernel goes the sets may lay
        the memory out differently (random -g modules: q0062 sm_90 s0 is k0's and k2's, read
        as k0's and k1's, and ptxas privatises it to k0 without k2; r0033, r0056). The removal
        is built with every set found and goes ahead where they agree; refused where they do
        not, or where the search for other sets stopped at its bound."""
        if not self.device_debug:
            return
        victim = self.function(name)
        fact = self.facts.get("searched_users")
        if not isinstance(fact, dict):
            return
        if not fact.get("complete"):
            if victim.is_kernel:
                raise ModelError(f"cannot {edit}: under -g the kernels using the module's coloured .shared variables are searched for, and whether other users give this cubin too was not settled")
            return
        built: set[bytes] = set()
        for users in [None, *fact.get("others", ())]:  # type: ignore[union-attr]
            trial = copy.deepcopy(self)
            del trial.facts["searched_users"]
            for d in trial.data:
                if users is not None and d.name in users:
                    d.users = list(users[d.name])
            try:
                trial._remove_function(name)
                built.add(trial.to_cubin())
            except CubinemitError:
                built.add(b"")  # refused with these users: the outcome is not the same
            if len(built) > 1:
                shared = next(iter(users or {}), "?")
                raise ModelError(
                    f"cannot {edit}: under -g the kernels using shared variable {shared!r} are searched for, several sets give this cubin's layout, and without {name!r} they lay the memory out differently"
                )

    def _walk_names_shared(self, d: DataObject, layout: SharedLayout | None) -> str | None:
        """-g: why a reorder may change what ptxas makes of the static .shared variable ``d``
        (``layout``: the module's shared layout), or None. A kernel's own variable (function
        scope, in its .nv.shared.<k>, under its PTX name) is named in that kernel's walk, and
        moves with it (Rodinia's backprop, lud, nw, srad, dwt2d: 92 reorders and reversals,
        sm_75 and sm_90, match ptxas). Not so a variable of module scope, or of unknown scope,
        or one in .nv_debug.shared: the walk that names it and makes .nv_debug.shared is the
        first kernel's (gsh_nvcc: ``As`` stays in matmul's
        block when reduce moves first; gsh_unused_no_cap), nor a variable ptxas numbered
        (``loc.1``: the numbers follow declaration order; tests/probes_edits
        g_shared_dup_local)."""
        from ..alloc.shared import DEBUG_SECTION

        if d.space != "shared" or d.linkage == "extern":
            return None
        if d.scope is None:
            return "in the first kernel's walk (a variable of module scope, or of a scope the cubin does not tell)"
        if self._numbered_shared(d.name):
            return "after its place in declaration order"
        if layout is not None and layout.symbols.get(d.name, ("",))[0] == DEBUG_SECTION:
            return "in .nv_debug.shared, in the first kernel's walk"
        return None

    def _numbered_shared(self, name: str) -> bool:
        """Whether -g named a .shared variable ``name`` ``<base>.<n>`` or left ``<base>`` to
        a variable others were numbered after (:meth:`_shared_renumbered`)."""
        base, n = _shared_number(name)
        return n > 0 or sum(1 for d in self.data if d.space == "shared" and _shared_number(d.name)[0] == base) > 1

    def _refuse_moved_debug_shared(self, edit: str, gone: set[str]) -> None:
        """ModelError when removing ``gone`` changes the -g shared layout of what is kept: an
        offset a kept kernel's code uses, a section's size or alignment, a symbol's section or
        value, or whether any object is coloured (shared by kernels in .nv_debug.shared: then
        every kernel section takes .nv_debug.shared's alignment, which hides the alignments of
        the kernels' own variables. tests/probes_edits g_shared_layout: without ka, m is kb's
        alone and kc's section goes from 16 to its own 2; CUDA samples dct8x8 without
        CUDAkernel1DCT: CurBlockLocal1/2 private, the short kernels' sections aligned 2, not 4)."""
        from ..alloc.shared import DEBUG_SECTION, SharedLayout, kernel_section
        from .data import call_closure, shared_layout

        shared = [d for d in self.data if d.space == "shared"]
        by_name = {f.name: f for f in self.functions}
        orphans = set().union(*(call_closure(by_name, g) for g in gone)) - gone
        dropped = next((d for d in shared if d.linkage != "extern" and d.scope not in gone and d.users and set(d.users) <= gone), None)
        device_gone = sorted(g for g in gone if g in by_name and not by_name[g].is_kernel)
        for d in shared if device_gone else ():
            # a device function's use of a module variable is resolved, no relocation names
            # it: the decomposition takes one that explains the layout, and a removed device
            # function may have been the user (tests/probes_weak weak_lib_rdc -g sm_75: w_s
            # taken for f_v's, f_w's in the PTX; without f_w .nv_debug.shared goes)
            guessed = [u for u in d.users if u in by_name and u not in gone and not by_name[u].is_kernel and not any(r.symbol == d.name for r in by_name[u].relocations)]
            if d.linkage != "extern" and d.scope is None and guessed:
                raise ModelError(f"cannot {edit}: under -g which device function uses {d.name!r} is not in the cubin ({guessed[0]!r} is taken for its user), and {device_gone[0]!r} may be it")
        if dropped is not None:
            # the users a -g decomposition records are the kernels that explain the layout: the
            # variable may be a kept callee's, which ptxas then colours (tests/probes_edits
            # g_shared_layout without kd: f's hs stays, in .nv_debug.shared), or a device
            # function's that no kernel calls, compiled all the same (an object of one kernel and
            # of uncalled functions is that kernel's; tests/probes_edits g_shared_uncalled
            # without k0: s0 stays, at 0 in .nv_debug.shared)
            kept_kernels = [f.name for f in self.functions if f.is_kernel and f.name not in gone]
            reached = set().union(*(call_closure(by_name, k) for k in kept_kernels))
            uncalled = {f.name for f in self.functions if not f.is_kernel and f.linkage not in ("extern", "builtin") and f.name not in gone and f.name not in reached}
            holders = sorted(orphans | uncalled)
            if holders:
                raise ModelError(f"cannot {edit}: under -g {dropped.name!r} may belong to {holders[0]!r}, which ptxas still compiles without it, and the cubin does not tell")
        trial = attrs.evolve(
            self,
            functions=[f for f in self.functions if f.name not in gone],
            data=[attrs.evolve(d, users=[u for u in d.users if u not in gone]) for d in self._data_after_removal(gone) if d.scope not in gone],
        )
        before, after = shared_layout(self, self.sm), shared_layout(trial, self.sm)
        assert before is not None
        kept = {f.name for f in trial.functions if f.is_kernel}
        # an extern's symbol follows the static sizes of its kernels (a derived value the kept
        # offsets already compare); the other symbols say where each object went
        # (a variable that lost every user stays declared without kernels, unplaced)
        names = {d.name for d in self.data if d.space == "shared" and d.linkage != "extern" and d.scope not in gone and not (d.users and set(d.users) <= gone)}

        def coloured(layout: SharedLayout | None, objects: list[DataObject]) -> bool:
            return layout is not None and any(layout.symbols.get(d.name, ("",))[0] == DEBUG_SECTION for d in objects if d.space == "shared" and d.linkage != "extern")

        moved: str | None = None
        if coloured(before, self.data) != coloured(after, trial.data):
            moved = "whether kernels share a variable in .nv_debug.shared"
        else:
            after = after or SharedLayout({}, {}, {})  # no shared memory left
            sections = {s for s in (*before.sections, *after.sections) if s == DEBUG_SECTION or s in {kernel_section(k) for k in kept}}
            moved = next((f"section {s}" for s in sorted(sections) if before.sections.get(s) != after.sections.get(s)), None)
            moved = moved or next((f"the offsets {k!r} uses" for k in sorted(kept) if dict(before.offsets.get(k, {})) != dict(after.offsets.get(k, {}))), None)
            moved = moved or next((f"symbol {n!r}" for n in sorted(names) if before.symbols.get(n) != after.symbols.get(n)), None)
        if moved is not None:
            raise ModelError(f"cannot {edit}: under -g ptxas lays the shared memory out anew without it ({moved}), which changes the kept code")

    def _shared_renumbered(self, gone: set[str]) -> dict[str, str]:
        """-g names a shared variable declared again under a name already taken ``<name>.<n>``,
        numbered in declaration order ('loc', 'loc.1', 'loc.2'; tinygrad's kernels all declare
        local0). PTX names hold no '.', so the suffix is ptxas's. Without the variables of the
        functions ``gone`` the later ones are numbered anew: the new name of each variable
        whose number changes (tests/probes_edits g_shared_names without ka: kb's loc.1 is
        loc). A module variable the removal drops stays declared in the PTX and keeps its
        number."""
        if not self.device_debug:
            return {}
        groups: dict[str, list[tuple[int, DataObject]]] = {}
        for d in self.data:
            if d.space != "shared":
                continue
            base, n = _shared_number(d.name)
            groups.setdefault(base, []).append((n, d))
        names: dict[str, str] = {}
        for base, members in groups.items():
            left = [d for _, d in sorted(members, key=lambda m: m[0]) if d.scope not in gone]
            for i, d in enumerate(left):
                name = f"{base}.{i}" if i else base
                if name != d.name:
                    names[d.name] = name
        return names

    def _data_after_removal(self, gone: set[str]) -> list[DataObject]:
        """The module's variables once ``gone`` is removed. Whole program drops variables no
        function uses any more; a relocatable module keeps every variable its PTX declares
        (ptxas -c, measured on shared_dynamic, shared_module). Extern (dynamic) shared memory
        stays declared: it gives every kernel a .nv.shared.<k> section, used or not (CUDA
        samples SobelFilter sm_120: SobelTex keeps its section when SobelShared, the user of
        LocalBlock[], goes)."""
        if self.options.get("compile_only"):
            return list(self.data)
        # -g: a module .shared variable no kept function uses stays declared, and ptxas makes
        # .nv_debug.shared for it (and drops it: its name stays in .shstrtab; tests/probes_weak
        # weak_shared_one -g without k, tests/probes_gshared gsh_builtin_first without k1)
        return [
            d
            for d in self.data
            if not d.users or set(d.users) - gone or (d.space == "shared" and (d.linkage == "extern" or (self.device_debug and d.scope is None)))
        ]

    def _sequence_orders(self, functions: list[Function], edit: str) -> tuple[Callable[[list[str]], list[str]], ...]:
        """How the sequences stand once the module's functions are ``functions``: the arrangers
        of the ELF line tables, the -g register tables and the Mercury clones. In .text order
        where they stood so before (whole program: 366 of the 373 -lineinfo cubins of the ggml
        and CUTLASS edit sweeps); in the ELF tables from sm_90 on, the functions that are not
        .visible (weak and static ones, kernels too) first, then the visible ones, each group
        in .text order, where they stood so (measured on five kernels of each linkage and on
        callees, default, -c and -g: tests/probes_lines/seq_hidden_first); the ELF line tables
        of -g modules taking no address in :meth:`_walked_sequences` order; others are
        refused."""
        before = self._text_order()
        edited = attrs.evolve(self, functions=functions)
        after = edited._text_order()
        walked = edited._walked_sequences()

        def arranger(hidden: set[str]) -> Callable[[list[str]], list[str]]:
            def grouped(order: list[str], names: list[str]) -> list[str]:
                return [n for n in order if n in names and n in hidden] + [n for n in order if n in names and n not in hidden]

            def arrange(names: list[str]) -> list[str]:
                if hidden:
                    self._refuse_caller_ordered_sequences(edit, names)
                if hidden and grouped(before, names) == names:
                    # the hidden functions' sequences first (tests/probes_weak weak_func
                    # -lineinfo sm_100a: kw before kv, in .text order or not;
                    # nvcc_templates_80: the template kernels before use_helper; CUTLASS
                    # basic_gemm: the static cutlass::Kernel<Gemm> before the visible kernels;
                    # sm_75 and the Mercury clones keep .text order)
                    return grouped(after, names)
                if [n for n in before if n in names] != names:
                    raise ModelError(f"cannot {edit}: the line tables list the functions in an order other than .text order, which the edit would change")
                return [n for n in after if n in names]

            return arrange

        # -g from sm_90 on, no address taken: the ELF line tables follow the walk of the new
        # .text order (fo_recursion, func_calls); the register records do not
        # (bi_copy_renumber), nor do they put the hidden functions first: they keep .text
        # order (seq_hidden_first -g sm_90, sm_100a; random u0055 -g sm_90a with the visible
        # k1 defined before the weak template kernel tk0<4, double>: k1's record first)
        in_text_order = arranger(set())
        return arranger(set(self._hidden_sequences())) if walked is None else _walk_arranger(walked), in_text_order, in_text_order

    def _refuse_caller_ordered_sequences(self, edit: str, names: list[str]) -> None:
        """ModelError when a reorder's line table holds sequences of two or more static device
        functions under -g: from sm_90 on ptxas lists them in the order their callers reach
        them, not in .text order (dbg_calls_L -g sm_90: with k_blend defined before k_poly,
        blend comes before square and poly, whose .text places stay). That walk
        (:meth:`_walked_sequences`) is measured where no address is taken; this check guards
        the modules where one is."""
        static = {f.name for f in self.functions if f.linkage == "static" and not f.is_kernel}
        if self.device_debug and len(static.intersection(names)) > 1:
            raise ModelError(f"cannot {edit}: under -g the line tables list the static device functions in the order their callers reach them, which the edit would change")

    def _refuse_moved_lines(self, functions: list[Function], edit: str, named: Sequence[Function]) -> None:
        """ModelError when an edit moves the PTX lines of these functions and one of them has a
        variable named after its PTX line: ptxas names a function-scope .shared variable
        ``$__<name>__<line>`` in relocatable output (measured: one blank line more before
        it, one more in its name), and the module does not know how many lines a function
        spans.

        ``functions`` follow the edited ones (``named``) in the module's order, which keeps
        the PTX order within the static and within the other functions only: the cubin does
        not tell where a static function was defined among the others (funcorder: the
        statics are declared first), so those of the other kind may move too (ggml mean.cu
        -rdc, -c: without the weak kernel divide_by_count defined first, the static kernel
        reduce_rows_f32's shared_vals__114 becomes __95)."""
        kinds = {f.linkage == "static" for f in named}
        edited = {f.name for f in named}
        owners = {f.name for f in functions} | {f.name for f in self.functions if f.name not in edited and kinds - {f.linkage == "static"}}
        for d in self.data:
            if d.scope in owners and _LINE_NAMED.match(d.name):
                raise ModelError(f"cannot {edit}: {d.name!r} of {d.scope!r} is named after its PTX line, which the edit moves")

    def reorder_functions(self, names: list[str], *, prototyped: bool = False, no_prototypes: bool = False) -> None:
        """Put the named functions in this PTX definition order, in the places they held among
        the module's functions (naming every function reorders the whole module). ptxas's
        .text order, symbols, records and .debug_frame entries follow when the cubin is built.
        Line tables follow the PTX with the definitions moved as blocks, the lines between them
        staying (:meth:`_lines_edited`), and under -g the register tables' records follow the
        new .text order; refused under -g beside texture variables and shared variables the
        first kernel's walk names (:meth:`_refuse_recompiled_under_g`).

        ptxas creates a function where the PTX first mentions it, by prototype or by
        definition, and the cubin does not keep which. nvcc and LLVM declare a function a
        variable's initializer points to by prototype before the variable, where moving its
        definition moves nothing (probes_rw3 virtual_shapes -c); PTX that defines it before
        the variable creates it there, and the move moves it (tests/funcorder_probes
        fo_data_defined, probes_weak weak_vtable_last -c). ``prototyped=True`` says the
        module's PTX has those prototypes (the compiler that wrote it knows); without it
        both are tried. ``no_prototypes=True`` says the PTX declares no function by prototype
        before its definition, so each device function stood where ptxas created it (a
        compiler that defines every function before its uses knows; without it a device
        function's definition may have stood anywhere after its creation, and a swap whose
        outcome depends on that is refused). The reorder is refused where the places a definition may have held
        give different cubins (:meth:`_reordered`), and where it
        moves a kept name's ``.nv.constant4`` slot (whole program), or makes a kernel the cubin
        does not say uses shared memory the first one that might
        (:meth:`_refuse_unknown_shared_use`)."""
        if prototyped and no_prototypes:
            raise ModelError("cannot reorder: prototyped=True and no_prototypes=True contradict each other")
        self._edit_checked("reorder functions", lambda m: m._reorder_functions(names, prototyped, no_prototypes))

    def _reorder_functions(self, names: list[str], prototyped: bool = False, no_prototypes: bool = False) -> None:
        if len(set(names)) != len(names):
            raise ModelError(f"cannot reorder: {next(n for n in names if names.count(n) > 1)!r} is named twice")
        for n in names:
            self.function(n)  # a ModelError naming an unknown function, before anything else
        self._refuse_static_among_others(names)
        self._refuse_moved_launches(names)
        before = self._builtin_copies()
        slots = [i for i, f in enumerate(self.functions) if f.name in set(names)]
        self._refuse_moved_lines(self.functions[min(slots) : max(slots) + 1] if slots else [], "reorder functions", [self.function(n) for n in names])
        functions = self._reordered(names, prototyped, no_prototypes)
        self._refuse_moved_constant4("reorder functions", functions, self.data)
        self._refuse_unknown_extern_order("reorder functions", functions)
        self._refuse_resolved_data_takings("reorder functions", functions, names)
        self._refuse_unfollowable_frame("reorder functions", functions)
        self._refuse_moved_first_address("reorder functions", functions)
        self._refuse_recompiled_under_g("reorder functions")
        self._refuse_carried_bindless("reorder functions")
        self._refuse_kernel_addresses("reorder functions")
        self._refuse_moved_indirect_callers("reorder functions", functions)
        raised = self._first_function_raised("reorder functions", functions)
        refs = self._references_after("reorder functions", functions)
        takings = self._table_takings_moved(functions)
        debug, facts = self._lines_edited("reorder functions", order=names, functions=functions)
        self.functions = functions
        self._put_references(refs)
        self._raise_registers(raised)
        for taker, taken in takings.items():
            self.function(taker).address_taken = taken
        self.debug = debug
        self.facts = facts
        self._renumber_builtin_copies(before)

    def _refuse_moved_launches(self, names: list[str]) -> None:
        """-c: ModelError when a reorder moves a device-side launcher or a kernel launched from
        the device. ptxas orders such modules by a rule not modelled (tests/probes_rw6/rules
        device_launch -c: with self_launch defined before leaf<int>, self_launch comes first
        in .text, where the model kept parent<int>)."""
        if not self.options.get("compile_only"):
            return
        from .decompose import launched_kernels

        launched = set(launched_kernels(self))
        moved = next((n for n in names if n in launched or launched.intersection(self.function(n).address_taken)), None)
        if moved is not None:
            raise ModelError(f"cannot reorder {names!r}: {moved!r} launches a kernel or is launched from the device, and where -c then lays such functions out is not modelled")

    def _refuse_static_among_others(self, names: list[str]) -> None:
        """-g and -c -O0: ModelError when a static kernel and a function that is not static
        trade places. ptxas lists the static functions after all the others there
        (funcorder.g_order), so the cubin does not keep where a static kernel (created at its
        definition, with no prototype) stands among them, and a function moved into its place
        lands somewhere the cubin does not tell (tests/funcorder_probes fo_linkage -g sm_75:
        with the static kernel K2's definition in K1's place, K1 follows vfn1, whose prototype
        stood between them). A static device function's body is placed by the reorder's own
        hypotheses (:func:`semantic.creation.reorder_outcomes`)."""
        if not self.ordering_mode().creation_style:
            return
        static = [n for n in names if self.function(n).linkage == "static" and self.function(n).is_kernel]
        other = [n for n in names if self.function(n).linkage != "static"]
        if static and other:
            raise ModelError(
                f"cannot reorder {names!r}: under -g and -c -O0 ptxas lists static functions after the others, so where the static kernel {static[0]!r} is defined among them, "
                f"and so where {other[0]!r} would go, is not kept"
            )

    def _edit_checked(self, edit: str, apply: Callable[[Module], None]) -> None:
        """Apply an edit, first to a copy where a kernel's use of shared memory is unknown
        (:meth:`_refuse_unknown_shared_use` needs the edited module), so that a refused edit
        leaves the module as it was; then to the module itself, not by taking the copy's
        state, so that the Function and DataObject objects a caller holds stay its own."""
        if any(f.facts.get("shared_use_unknown") for f in self.functions):
            trial = copy.deepcopy(self)
            apply(trial)
            trial._refuse_unknown_shared_use(edit)
        apply(self)

    def _refuse_unknown_shared_use(self, edit: str) -> None:
        """ModelError when the edited module's bytes depend on whether the kernels with fact
        ``shared_use_unknown`` use the dynamic shared area: from sm_90 on ptxas puts
        .nv.reservedSmem.cap after the first kernel that uses shared memory, and the cubin
        only tells for the kernels before the cap's. Whole program: a kernel with inlined
        copies keeps its empty .rela.text.<k> either way (data._dynamic_users); -g: every
        kernel's section ends where the externs sit once an object is coloured
        (data._unknown_extern_users). Both answers are built, the other one making such
        kernels users of every extern; when they agree (the first user comes before every
        such kernel) the edit goes ahead."""
        unknown = {f.name for f in self.functions if f.facts.get("shared_use_unknown")}
        if not unknown:
            return
        other = copy.deepcopy(self)
        for d in other.data:
            if d.space == "shared" and d.linkage == "extern":
                d.users = sorted(set(d.users) | unknown)
        if other.to_cubin() != self.to_cubin():
            first = next(f.name for f in self.functions if f.name in unknown)
            raise ModelError(
                f"cannot {edit}: the cubin does not say whether {first!r} uses the dynamic shared memory, and ptxas puts .nv.reservedSmem.cap after the first kernel that does"
            )

    def _reordered(self, names: list[str], prototyped: bool = False, no_prototypes: bool = False) -> list[Function]:
        """The creation order after putting ``names``' definitions in this order, or ModelError
        where something the cubin does not keep decides the bytes:

        * where a function declared by prototype was defined, and whether one a variable's
          initializer points to was declared so (unless ``prototyped``: :func:`_reordered_from`);
        * outside whole program, the declaration order behind ptxas's function order
          (semantic.creation.edit_outcome_unknown: every creation order that gives this
          cubin must give the same one after the reorder; fz r045 -c -O0);
        * whole program, the kernels' places before ptxas shuffled those of a module whose
          kernels take function addresses (funcorder._shuffled; fz r058: k1 and k2 swapped)."""
        from .creation import edit_outcome_unknown
        from .decompose import ptx_functions
        from .emit import address_table_functions

        self._refuse_moved_builtin_makers_under_target_debug(names)
        ptx = ptx_functions(self)
        mode = self.ordering_mode()
        if mode.creation_style:
            self._refuse_unplaced_kernel_bodies(names, ptx)
        declared = {r.symbol for d in self.data for r in d.relocations if r.symbol} if prototyped else set()
        # (a static function's creation among the others is not kept: ptxas lists the static
        # ones apart, so where it stood stays a hypothesis; random r0001 -c -O0, f1 static)
        defined = {f.name for f in self.functions if f.linkage != "static"} if no_prototypes else set()
        functions = _reordered_from(list(self.functions), names, ptx, mode, self.sm, declared, defined)
        if mode.whole_program:
            # the shuffle moved the takers first, so even a reorder that leaves the model's
            # kernel order as it is may move ptxas's (fz r058: k2 k3 swapped)
            tables = {n for f in self.functions if f.is_kernel for n in address_table_functions(f)}
            if len(names) > 1 and any(self.function(n).is_kernel for n in names) and tables:
                raise ModelError(
                    f"cannot reorder {names!r}: ptxas orders the kernels of a module that takes function addresses by their PTX declaration order, which the cubin does not keep"
                )
            self._refuse_moved_table_order(names, functions, tables)
            return functions
        other = edit_outcome_unknown(self.functions, ptx, mode, self.sm, lambda fns: _reordered_from(fns, names, ptx, mode, self.sm, declared, defined), _weak_builtins_after_callers)
        if other is not None:
            moved = next(a for a, b in zip(other, (f.name for f in self.functions)) if a != b)
            raise ModelError(
                f"cannot reorder {names!r}: the cubin keeps ptxas's function order, not the PTX declaration order behind it, and the orders that give this cubin"
                f" (one declares {moved!r} elsewhere) give different cubins after the reorder"
            )
        return functions

    def _refuse_unplaced_kernel_bodies(self, names: list[str], ptx: Sequence[PtxFunction]) -> None:
        """-g and -c -O0: ModelError when the decomposed creation order has a kernel whose new
        builtins do not follow it. A kernel's body stands at its declaration and makes the
        builtins it calls first right there, so that order is no PTX's: it gives the cubin, but
        the reorder's hypotheses start from where the kernel is not (random r0178 -c -O0: the
        static k1 and k2, listed apart by ptxas, decomposed before f1 while the builtins they
        made follow k0; swapping f2 and k0 put those builtins first)."""
        from .creation import _kernel_bodies_in_place

        if not _kernel_bodies_in_place(list(ptx)):
            raise ModelError(
                f"cannot reorder {names!r}: the cubin keeps ptxas's function order, and the declaration order found for it has a kernel apart from the builtins its body made, so where the kernels stood is not known"
            )

    def _refuse_moved_builtin_makers_under_target_debug(self, names: list[str]) -> None:
        """ModelError when PTX that says ``.target sm_XX, debug`` (nvcc -G) has a reorder move
        a function calling a ptxas builtin. There ptxas does not make the builtins at their
        first caller's body, as the reorder's hypotheses take (tests/probes_builtin): nvcc -G
        simpleCudaGraphs defines the static wrappers __barrier_sync then __syncwarp, yet
        __cuda_sm70_warpsync comes before __cuda_sm70_barrier_sync, whichever wrapper is
        defined first. The model took the wrappers for prototyped and kept them in place;
        ptxas swaps them."""
        if not self.facts.get("ptx_debug") and self._ptx_dwarf() is None:  # -g on nvcc -G PTX: the DWARF it brings tells
            return
        by_name = {f.name: f for f in self.functions}
        for n in names:
            made = next((c for c in self.function(n).calls if c in by_name and _builtin_kind(by_name[c])), None)
            if made is not None:
                raise ModelError(
                    f"cannot reorder {names!r}: {n!r} calls the builtin {made!r}, and under .target debug (nvcc -G) where ptxas makes builtins, and so where {n!r} was defined, is not kept"
                )

    def _refuse_moved_table_order(self, names: list[str], functions: list[Function], tables: set[str]) -> None:
        """ModelError when a whole-program reorder on sm_100+ changes the order of functions
        whose addresses a kernel's table holds: the table's Mercury relocations follow their
        declaration order, which moves with their definitions only where no prototype declared
        them first, and the cubin does not show prototypes (tests/probes_fp/fp_table_prototyped:
        nvcc declares f1 and f2 before tab[] = {f1, f2}, and ptxas keeps f1 first when their
        definitions swap)."""
        if "mercury" in self.facts and [f.name for f in self.functions if f.name in tables] != [f.name for f in functions if f.name in tables]:
            raise ModelError(
                f"cannot reorder {names!r}: the Mercury relocations of a function-address table follow the functions' declaration order, "
                "and the cubin does not say whether a prototype declared them before their definitions"
            )

    def _builtin_copies(self) -> dict[tuple[str, str], str]:
        """Whole program: the names of the kernels' builtin copies, before an edit that may
        renumber them (:meth:`_renumber_builtin_copies`); empty elsewhere."""
        from .emit import builtin_copy_names

        return builtin_copy_names(self) if self.ordering_mode().whole_program else {}

    def _renumber_builtin_copies(self, before: dict[tuple[str, str], str]) -> None:
        """Whole program: the copies ``$__internal_N_$<builtin>`` are numbered in .text order
        over the module, so an edit that reorders or removes functions renames those of the
        kernels that remain in the facts (``before``: :meth:`_builtin_copies` before it)."""
        if not before:
            return
        from .emit import builtin_copy_names

        after = builtin_copy_names(self)
        names_map = {before[k]: after[k] for k in before if k in after and before[k] != after[k]}
        if names_map:
            self.facts = _renamed_all(self.facts, names_map)  # type: ignore[assignment]
            for f in self.functions:
                f.facts = _renamed_all(f.facts, names_map)  # type: ignore[assignment]

    def rename_function(self, old: str, new: str) -> None:
        """Rename a function and every reference to it (relocations, calls, users, inlined
        copies and their ``$kernel$callee`` names, the facts)."""
        if any(f.name == new for f in self.functions):
            raise ModelError(f"cannot rename {old!r} to {new!r}: {new!r} exists")
        fn = self.function(old)  # a ModelError naming an unknown function, before anything else
        dwarf = self._ptx_dwarf_naming(old)
        if dwarf is not None:
            # ptxas compiles a function renamed in such PTX anew, even for a name of the same
            # length: its SASS (llm.c adamw -G, sm_90: adamw_kernel1) or its register tables
            # (tests/probes_debug dbg_calls_G: k_poly's records) change, which the module
            # holds as leaf data. DWARF that does not name it (Triton's compile unit without
            # subprograms) leaves the code as it was
            raise ModelError(f"cannot rename {old!r}: the DWARF the PTX brings names it ({dwarf}; nvcc -G writes such DWARF), and ptxas compiles a renamed function's code anew there")
        for dbg in self.debug:
            if dbg.name.startswith(".nv_debug_ptx_txt."):
                # relocatable output with line tables names the PTX text section after the
                # Adler-32 of the whole PTX file, comments included (measured: ThunderKittens
                # -lineinfo PTX, -c), which a rename changes and the module does not hold
                raise ModelError(f"cannot rename {old!r}: {dbg.name} is named after a checksum of the whole PTX file, which the rename changes")
        for f in self.functions:
            # whole program: ptxas lays a kernel's copies of its callees out in its code by the
            # callee's name (fz3 h006 def: f1 f2 f4; f2 renamed zz_f2 comes after f4, with other
            # call offsets in the SASS), so a rename that passes another copy's name would
            # change the SASS, which the module holds as leaf data
            if not any(n == old for n, _, _ in f.inlined):
                continue
            passed = next((n for n, _, _ in f.inlined if n != old and (name_bytes(old) < name_bytes(n)) != (name_bytes(new) < name_bytes(n))), None)
            if passed is not None:
                raise ModelError(f"cannot rename {old!r} to {new!r}: its copy in {f.name!r} would move past the copy of {passed!r} (ptxas lays copies out by name), which changes the SASS")
        from .texrefs import param_refs

        # reference parameters named after the function (nvcc's and the PTX's `<name>_t`) are
        # renamed with it, and so are their LOCAL symbols (ref_params: k_all_t, k_all_s)
        params = {p: new + p[len(old) :] for p, _ in param_refs(fn) if p.startswith(old)}
        fn.name = new
        fn.facts = _renamed_all(fn.facts, params)  # type: ignore[assignment]
        for r in [*fn.relocations, *fn.constant_relocations]:
            r.symbol = params.get(r.symbol, r.symbol)
        self.facts = _renamed(self.facts, old, new)  # type: ignore[assignment]
        for f in self.functions:
            f.facts = _renamed(f.facts, old, new)  # type: ignore[assignment]
            f.calls = [new if c == old else c for c in f.calls]
            f.address_taken = [new if c == old else c for c in f.address_taken]
            f.capsule_symbols = [(_renamed(n, old, new), v, sz) for n, v, sz in f.capsule_symbols]  # type: ignore[misc]
            for r in [*f.relocations, *f.constant_relocations]:
                r.symbol = _renamed(r.symbol, old, new)  # type: ignore[assignment]
            f.inlined = [(new if n == old else n, o, s) for n, o, s in f.inlined]
        for d in self.data:
            d.users = [new if u == old else u for u in d.users]
            if d.scope == old:
                d.scope = new
                d.name = _renamed(d.name, old, new)  # type: ignore[assignment]
            for r in d.relocations:
                r.symbol = _renamed(r.symbol, old, new)  # type: ignore[assignment]
        for dbg in self.debug:
            for r in dbg.relocations:
                r.symbol = _renamed(r.symbol, old, new)  # type: ignore[assignment]
            if dbg.name == ".nv_debug_ptx_txt":
                # the PTX text ptxas embeds (-lineinfo, -g): the name's tokens, as in the
                # renamed PTX (same lines, so the line tables stand)
                dbg.data = _renamed_ptx(dbg.data, old, new)
            elif dbg.name in NAME_RECORD_PAYLOADS:
                dbg.data = _renamed_records(dbg.name, dbg.data, old, new)
        merc = self.facts.get("mercury")
        clones = merc.get("debug") if isinstance(merc, dict) else None
        if isinstance(clones, dict) and "$map" in clones:  # their Mercury clones' bytes (leaf)
            for pair in clones["$map"]:
                if isinstance(pair[0], str) and pair[0].endswith(NAME_RECORD_PAYLOADS) and isinstance(pair[1], dict) and "$bytes" in pair[1]:
                    data = _renamed_records(pair[0], bytes.fromhex(pair[1]["$bytes"]), old, new)
                    pair[1] = {"$bytes": data.hex()}
