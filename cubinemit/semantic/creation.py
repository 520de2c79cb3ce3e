"""Whether a removal's outcome depends on a PTX declaration order the cubin does not keep.

A relocatable or ``-g`` cubin keeps the function order ptxas derived, not the creation order it
derived it from (funcorder): the decomposer picks one creation order that gives the cubin's
bytes (funcorder.declaration_order_from), and several may. After a removal those orders can
part: a function the removed kernel reached first, in the post-order DFS of ``-c``, becomes a
root whose turn comes from where the PTX declared it (fz r014 sm_80 -c: without k0, f0's body
stands after k1's or before it, and the cubin of the whole module is the same either way);
under ``-c -O0`` and ``-g`` an address-taking module's list is shuffled by its length, and the
places the takers held before the shuffle are lost (fz r048). ptxas writes one of the outcomes
for the edited PTX; which one, the cubin cannot tell, so such a removal is refused.

The creation orders tried are the decomposer's other candidates and every order with one
function, or one function with the builtins its body made, moved, bounded by
:data:`MOVES_LIMIT` (a bound, not a rule). Two orders are told
apart by what the order rules derive: the ``.text`` order, the symbols, ``.nv.callgraph``,
``.nv.prototype`` and the signature strings.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from ..errors import ModelError
from ..funcorder import (
    Mode,
    PtxFunction,
    callgraph,
    declaration_order_from,
    definition_order,
    function_order,
    is_builtin_name,
    prototypes,
    signature_strings,
    symbol_order,
    taken_functions,
)

if TYPE_CHECKING:
    from .model import Function

#: at most this many moves are tried (each orders the whole module)
MOVES_LIMIT = 4000
#: at most this many of the decomposer's candidate orders are tried
SEARCH_LIMIT = 64

Derived = tuple[object, ...]


def _derived(fs: list[PtxFunction], mode: Mode, sm: int, order: list[str] | None = None) -> Derived | None:
    """What the order rules derive from the creation order ``fs`` (``order``: its function
    order, when known), or None where they cannot take it."""
    try:
        order = function_order(fs, mode) if order is None else order
        return (
            tuple(order),
            tuple(symbol_order(fs, mode, order)),
            repr(callgraph(fs, mode, order, sm=sm)),
            tuple(p.symbol for p in prototypes(fs, mode, order, sm)),
            tuple(signature_strings(fs, mode, order, sm)),
        )
    except (ModelError, KeyError, ValueError):  # an order the rules cannot take is no candidate
        return None


def _moves(names: list[str]) -> Iterator[list[str]]:
    """Every order with one function, or one function with the builtins right after it (the
    ones its body made), moved elsewhere, nearest places first (funcorder.definition_order
    tells which places a builtin can take)."""
    blocks = []
    for i, n in enumerate(names):
        end = i + 1
        if not is_builtin_name(n):
            while end < len(names) and is_builtin_name(names[end]):
                end += 1
        blocks.append((i, end))
        if end > i + 1:
            blocks.append((i, i + 1))
    for step in range(1, len(names)):
        for i, end in blocks:
            block, rest = names[i:end], names[:i] + names[end:]
            for j in (i - step, i + step):
                if 0 <= j <= len(rest):
                    yield rest[:j] + block + rest[j:]


def _kernel_bodies_in_place(fs: list[PtxFunction]) -> bool:
    """Whether each kernel's new builtins follow it right away: a body creates the builtins it
    calls first, and a kernel's body stands at its declaration (nvcc writes no prototype for
    a kernel it defines), so only a device function's body may come later."""
    made: set[str] = set()
    for i, f in enumerate(fs):
        new = [c for c in f.calls if is_builtin_name(c) and c not in made]
        if f.is_kernel and [g.name for g in fs[i + 1 : i + 1 + len(new)]] != new:
            return False
        made.update(c for c in f.calls if is_builtin_name(c))
        made.add(f.name)
    return True


def _searched(ptx: list[PtxFunction], mode: Mode, want: Derived) -> Iterator[list[str]]:
    """The creation orders the decomposer's search finds for this module's function order
    (the unshuffled lists of an address-taking -g / -c -O0 module)."""
    found: list[list[str]] = []

    def collect(cand: list[PtxFunction]) -> bool:
        found.append([f.name for f in cand])
        return len(found) >= SEARCH_LIMIT

    try:
        declaration_order_from(list(want[0]), ptx, mode, symbols=list(want[1]), accept=collect)  # type: ignore[arg-type]
    except ModelError:  # the search ends so when every candidate was refused
        pass
    yield from found


def removal_outcome_unknown(
    functions: Sequence[Function],
    ptx: Sequence[PtxFunction],
    mode: Mode,
    sm: int,
    after: Callable[[list[Function]], list[Function]],
    realize: Callable[[list[Function]], list[Function]] = lambda fns: fns,
) -> list[str] | None:
    """A creation order of ``functions`` that the cubin cannot tell from theirs and that
    ``after`` (the removal, on a creation order) turns into other bytes, or None.

    ``ptx``: the funcorder view of ``functions`` (decompose.ptx_functions), by the same names.
    ``realize``: where ptxas puts what a creation order does not place by itself (the WEAK
    builtins below sm_90, right after their first callers), applied to each candidate."""
    if mode.whole_program:
        return None  # only the kernels' order counts there (Module._kernel_order_after)
    by_ptx = {p.name: p for p in ptx}
    by_name = {f.name: f for f in functions}

    def derived(fns: list[Function]) -> Derived | None:
        return _derived([by_ptx[f.name] for f in fns], mode, sm)

    names = [f.name for f in functions]
    if [f.name for f in realize(list(functions))] != names:
        # the module's own order does not follow that rule (-c -O0 binds every builtin WEAK,
        # and makes each in its first caller's body)
        realize = lambda fns: fns  # noqa: E731
    base = derived(list(functions))
    want = derived(after(list(functions)))
    if base is None or want is None:
        return None
    tried = {tuple(names)}
    searched = _searched(list(ptx), mode, base) if mode.creation_style and taken_functions(list(ptx)) else iter(())
    moves = 0
    for cand in itertools.chain(searched, _moves(names)):
        if tuple(cand) in tried or len(cand) != len(names):
            continue
        tried.add(tuple(cand))
        moves += 1
        if moves > MOVES_LIMIT + SEARCH_LIMIT:
            break
        cand = [f.name for f in realize([by_name[n] for n in cand])]
        fs = [by_ptx[n] for n in cand]
        try:  # quick test first: most moves change the .text order
            order = function_order(fs, mode)
        except (ModelError, KeyError, ValueError):  # an order the rules cannot take is no candidate
            continue
        if order != list(base[0]) or definition_order(fs) is None or not _kernel_bodies_in_place(fs) or _derived(fs, mode, sm, order) != base:
            continue
        if derived(after([by_name[n] for n in cand])) != want:
            return cand
    return None
