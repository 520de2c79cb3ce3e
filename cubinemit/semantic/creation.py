"""Whether an edit's outcome depends on a PTX declaration order the cubin does not keep.

A relocatable or ``-g`` cubin keeps the function order ptxas derived, not the creation order it
derived it from (funcorder): the decomposer picks one creation order that gives the cubin's
bytes (funcorder.declaration_order_from), and several may. After a removal those orders can
part: a function the removed kernel reached first, in the post-order DFS of ``-c``, becomes a
root whose turn comes from where the PTX declared it (fz r014 sm_80 -c: without k0, f0's body
stands after k1's or before it, and the cubin of the whole module is the same either way);
under ``-c -O0`` and ``-g`` an address-taking module's list is shuffled by its length, and the
places the takers held before the shuffle are lost (fz r048). ptxas writes one of the outcomes
for the edited PTX; which one, the cubin cannot tell, so such a removal is refused. Reorders
ask the same question (:func:`edit_outcome_unknown`), and one more: where a function declared
by prototype was defined (:func:`reorder_outcomes`).

The creation orders tried are the decomposer's other candidates and every order with one
function, or one function with the builtins its body made, moved, bounded by
:data:`MOVES_LIMIT` (a bound, not a rule). Two orders are told
apart by what the order rules derive: the ``.text`` order, the symbols, ``.nv.callgraph``,
``.nv.prototype`` and the signature strings.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence, Set
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


def derived_by_rules(fs: list[PtxFunction], mode: Mode, sm: int, order: list[str] | None = None) -> Derived | None:
    """What the order rules derive from the creation order ``fs`` (``order``: its function
    order, when known), or None where they cannot take it."""
    try:
        order = function_order(fs, mode) if order is None else order
        if mode.whole_program:  # kernels only: no function symbols or prototypes are ordered
            return (tuple(order), repr(callgraph(fs, mode, order, sm=sm)))
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


#: modules of at most this many functions also try every order, not only single moves
PERMUTE_LIMIT = 6


def _permutations(names: list[str]) -> Iterator[list[str]]:
    """Every order of a small module's functions, builtins included (at most
    :data:`PERMUTE_LIMIT`): orders two or more moves away from the decomposed one can give the
    cubin too (static kernels after prototyped device functions, gpuocelot's bodysystemcuda
    -g: the decomposition finds the kernels first, ptxas's PTX defines them last;
    tests/probes_edits static_kernels_late)."""
    if len(names) <= PERMUTE_LIMIT:
        yield from (list(p) for p in itertools.permutations(names))


def _grouped(names: list[str], kernels: set[str]) -> Iterator[list[str]]:
    """The orders that keep each group's own order (device functions, builtins, kernels) and
    put the groups one after another, in any order: PTX 2.x from nvopencc prototypes its
    device functions and defines the kernels last, which a larger module's single moves do not
    reach (gpuocelot's bodysystemcuda -g, eight functions)."""
    groups = (
        [n for n in names if n not in kernels and not is_builtin_name(n)],
        [n for n in names if is_builtin_name(n)],
        [n for n in names if n in kernels],
    )
    for order in itertools.permutations(groups):
        yield [n for g in order for n in g]


def _kernel_bodies_in_place(fs: list[PtxFunction]) -> bool:
    """Whether each kernel's new builtins follow it right away: a body creates the builtins it
    calls first, and a kernel's body stands at its declaration (nvcc writes no prototype for
    a kernel it defines), so only a device function's body may come later."""
    # the functions before, builtins counted only where they stand: a device function calling
    # one may have made it later, its body after its prototype (fz r036 -c: f0 declared
    # first, k0 made div.u64)
    made: set[str] = set()
    for i, f in enumerate(fs):
        new = [c for c in f.calls if is_builtin_name(c) and c not in made]
        if f.is_kernel and [g.name for g in fs[i + 1 : i + 1 + len(new)]] != new:
            return False
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


def edit_outcome_unknown(
    functions: Sequence[Function],
    ptx: Sequence[PtxFunction],
    mode: Mode,
    sm: int,
    after: Callable[[list[Function]], list[Function]],
    realize: Callable[[list[Function]], list[Function]] = lambda fns: fns,
) -> list[str] | None:
    """A creation order of ``functions`` that the cubin cannot tell from theirs and that
    ``after`` (the edit, on a creation order: a removal or a reorder) turns into other bytes,
    or None.

    ``ptx``: the funcorder view of ``functions`` (decompose.ptx_functions), by the same names.
    ``realize``: where ptxas puts what a creation order does not place by itself (the WEAK
    builtins below sm_90, right after their first callers), applied to each candidate."""
    if mode.whole_program:
        return None  # only the kernels' order counts there (Module._kernel_order_after)
    by_ptx = {p.name: p for p in ptx}
    by_name = {f.name: f for f in functions}

    def derived(fns: list[Function]) -> Derived | None:
        return derived_by_rules([by_ptx[f.name] for f in fns], mode, sm)

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
    # a decomposed order with a kernel apart from the builtins its body made is no PTX's
    # either; candidates are then held to its standard (random r0137 -c sm_75: f1 and f3,
    # static and called by k1 alone, become roots without it, in an order the cubin does not
    # keep, and every single move of the decomposed order keeps k1 apart)
    in_place = _kernel_bodies_in_place([by_ptx[n] for n in names])
    builtins = {n for n in by_ptx if is_builtin_name(n)}
    searched = _searched(list(ptx), mode, base) if mode.creation_style and taken_functions(list(ptx)) else iter(())
    moves = 0
    kernels = {f.name for f in functions if f.is_kernel}
    for cand in itertools.chain(searched, _grouped(names, kernels), _moves(names), _permutations(names)):
        if tuple(cand) in tried or len(cand) != len(names):
            continue
        tried.add(tuple(cand))
        moves += 1
        if moves > MOVES_LIMIT + SEARCH_LIMIT:
            break
        cand = [f.name for f in realize([by_name[n] for n in cand])]
        tries = dict.fromkeys(tuple(c) for c in (cand, _kernel_builtins_placed(cand, by_ptx, builtins), _kernel_builtins_placed(cand, by_ptx, builtins, every_body=True)))
        for c in map(list, tries):
            fs = [by_ptx[n] for n in c]
            try:  # quick test first: most moves change the .text order
                order = function_order(fs, mode)
            except (ModelError, KeyError, ValueError):  # an order the rules cannot take is no candidate
                continue
            if order != list(base[0]) or definition_order(fs) is None or (in_place and not _kernel_bodies_in_place(fs)) or derived_by_rules(fs, mode, sm, order) != base:
                continue
            if derived(after([by_name[n] for n in c])) != want:
                return c
    return None


def _kernel_builtins_placed(names: list[str], by_ptx: dict[str, PtxFunction], builtins: Set[str], every_body: bool = False) -> list[str]:
    """``names`` with the builtins each kernel's body makes (those it calls that do not stand
    before it) moved right after it, in call order: a single move of a kernel leaves the
    builtins it made behind, where the kernel that now calls them first makes them (random
    r0113 -c: the static k2 defined after k1, both calling the same three builtins, which
    follow k1; the decomposed order has k2 first). ``every_body``: device functions' bodies
    too, each taken to stand at its creation (random r0145 -c -O0: the static k0 and k1,
    decomposed first, defined after f0 and f1, each followed by the builtins it made).
    ``builtins``: the names in ``by_ptx`` that are ptxas builtins."""
    out = list(names)
    if not builtins:
        return out
    made: set[str] = set()
    i = 0
    while i < len(out):
        f = by_ptx[out[i]]
        if f.name in builtins:
            made.add(f.name)
        elif f.is_kernel or every_body:
            new = [c for c in dict.fromkeys(f.calls) if c in builtins and c not in made]
            if new:  # most bodies make none: leave the list alone (200-kernel modules, -g)
                moved = set(new)
                out = out[: i + 1] + new + [n for n in out[i + 1 :] if n not in moved]
                made.update(new)
                i += len(new)
        i += 1
    return out


#: at most this many hypotheses on where the named functions' definitions stand are tried
REORDER_LIMIT = 4000


def _builtin_makers(order: Sequence[str], kernels: set[str], builtins: set[str], calls: dict[str, Sequence[str]]) -> dict[str, str | None]:
    """The function whose body made each called builtin (None where the cubin cannot tell): the
    nearest function before it that calls it (a body makes its builtins right where it
    stands), else the one device function before it that calls it, its body there and its
    prototype earlier (fz r034 -c -O0: f1's sqrt builtin follows k0)."""
    out: dict[str, str | None] = {}
    for i, b in enumerate(order):
        if b not in builtins or not any(b in calls[n] for n in order if n not in builtins):
            continue
        j = i - 1
        while j >= 0 and order[j] in builtins:
            j -= 1
        if j >= 0 and b in calls[order[j]]:
            out[b] = order[j]
            continue
        callers = [n for n in order[:i] if n not in builtins and n not in kernels and b in calls[n]]
        out[b] = callers[0] if len(callers) == 1 else None
    return out


def reorder_outcomes(
    order: Sequence[str],
    names: Sequence[str],
    kernels: set[str],
    builtins: set[str],
    calls: dict[str, Sequence[str]],
    declared: set[str],
    defined: Set[str] = frozenset(),
) -> Iterator[list[str]] | None:
    """The creation orders reordering ``names``' definitions into this order may give, one per
    hypothesis on where their definitions stood (None past :data:`REORDER_LIMIT`).

    ptxas creates a function where the PTX first mentions it, by prototype or by definition.
    The cubin keeps the creation order (``order``), not where a function declared by
    prototype was defined: any device function may have been (fz r013 sm_80: f1 declared
    first, defined between k2 and k1; swapping f1 and k1 leaves the kernels' order as it
    was, where moving k1 into f1's place would put it first). A kernel is defined where it
    is created (nvcc writes no prototype for a kernel it defines), as is a function whose
    first builtins follow it; one whose body makes builtins stands right before the first
    of them; ``declared`` ones have a prototype (the caller knows: nvcc and LLVM declare a
    function a variable's initializer points to before the variable, while PTX that defines
    it first creates it at its definition, and the cubin keeps neither: tests/funcorder_probes
    fo_data_declared and fo_data_defined give one cubin); ``defined`` ones have none (the
    caller knows its PTX defines them where it first mentions them). A moved
    function without prototype is created at its new definition; a body makes the builtins
    it calls that do not exist yet where it stands, in call order (builtins that only
    builtins call keep their places after every user body: tests/probes_builtin/bi_nested)."""
    pos = {n: i for i, n in enumerate(order)}
    first = _builtin_makers(order, kernels, builtins, calls)
    unknown = [b for b, m in first.items() if m is None and any(b in calls[n] for n in names)]
    if unknown:
        raise ModelError(f"cannot tell which body made {unknown[0]!r}: several device functions call it, and where they are defined is not kept")
    made = {n: sorted((b for b in builtins if first.get(b) == n), key=pos.__getitem__) for n in order if n not in builtins}
    choices: list[list[float | None]] = []
    for f in names:
        if f in kernels or f in builtins:
            choices.append([None])
        elif made[f]:
            b0 = pos[made[f][0]]
            at = [None] if b0 == pos[f] + 1 and f not in declared else []
            choices.append(at if f in defined else at + [b0 - 0.5])
        elif f in defined:
            choices.append([None])
        else:
            choices.append(([] if f in declared else [None]) + [j - 0.5 for j in range(pos[f] + 1, len(order) + 1)])
    count = 1
    for c in choices:
        count *= len(c)
    if count > REORDER_LIMIT:
        return None
    # the other bodies that make builtins stand right before the first of them
    bodies = {n: float(pos[n]) for n in order if n not in builtins}
    for n, bs in made.items():
        if bs and n not in names:
            bodies[n] = pos[bs[0]] - 0.5

    def outcome(combo: tuple[float | None, ...]) -> list[str]:
        was = {f: float(pos[f]) if h is None else h for f, h in zip(names, combo)}
        places = sorted(was.values())
        now = dict(zip(names, places))
        created = {n: float(pos[n]) for n in order if n not in builtins}
        body = dict(bodies)
        for f, h in zip(names, combo):
            body[f] = now[f]
            if h is None:
                created[f] = now[f]
        # a builtin is made by the first body that calls it, right after it, in call order.
        # Where a device function's body stands is kept only where it made a builtin (fz r034
        # -c -O0: f2, declared first, is defined last), so a first caller moving later may
        # leave its builtins to another device function's body, at a place not kept
        at: dict[str, tuple[float, int]] = {}
        for n in sorted(body, key=lambda n: (body[n], created[n])):
            for k, c in enumerate(calls[n]):
                if c in builtins and c in pos and c not in at and (n in now or n in kernels or first.get(c) == n):
                    at[c] = (body[n], k)
        for b, maker in first.items():
            if maker in now and now[maker] > was[maker] and any(b in calls[u] for u in order if u not in now and u != maker and u not in kernels):
                raise ModelError(f"cannot tell which body makes {b!r} once {maker!r} is defined later: where its other callers are defined is not kept")
        keys = {n: (created[n], 0, 0) for n in created}
        keys.update({b: (p, 1, k) for b, (p, k) in at.items()})
        keys.update({b: (float(pos[b]), 0, 0) for b in order if b in builtins and b not in at})
        return sorted(order, key=lambda n: keys[n])

    return (outcome(combo) for combo in itertools.product(*choices))
