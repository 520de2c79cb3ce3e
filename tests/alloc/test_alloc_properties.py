"""Invariants of the allocators on random inputs (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cubinemit.arch import facts
from cubinemit.alloc import (
    DebugKernel,
    GlobalVar,
    Mode,
    Param,
    SharedFunction,
    SharedModule,
    SharedObject,
    SharedScope,
    SharedVar,
    allocate_debug_shared,
    layout_globals,
    layout_params,
    layout_shared,
    list_sort,
)

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
aligns = st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128])
sizes = st.integers(1, 300)


@st.composite
def debug_inputs(draw):  # type: ignore[no-untyped-def]
    nk = draw(st.integers(1, 6))
    kernels = [f"k{i}" for i in range(nk)]
    objects = []
    for i in range(draw(st.integers(0, 25))):
        extern = draw(st.booleans()) and draw(st.booleans()) and draw(st.booleans())
        users = draw(st.frozensets(st.sampled_from(kernels), max_size=nk))
        objects.append(SharedObject(f"o{i}", 0 if extern else draw(sizes), draw(aligns), users, draw(st.booleans()) or extern, extern))
    own = [DebugKernel(k, [SharedVar(f"{k}v{j}", draw(sizes), draw(aligns)) for j in range(draw(st.integers(0, 3)))]) for k in kernels]
    return objects, own, draw(st.sampled_from([0, 0x400]))


def _placed(lay, kernel: str, objects, own):  # type: ignore[no-untyped-def]
    byname = {o.name: o for o in objects}
    byname.update({v.name: v for k in own for v in k.own})
    return [(name, off, byname[name]) for name, off in lay.offsets[kernel].items()]


@SETTINGS
@given(debug_inputs())
def test_debug_allocator_invariants(inputs) -> None:  # type: ignore[no-untyped-def]
    objects, own, base = inputs
    lay = allocate_debug_shared(objects, own, base=base)
    assert lay == allocate_debug_shared(list(objects), list(own), base=base)  # deterministic
    for k in own:
        placed = _placed(lay, k.name, objects, own)
        section = lay.sections.get(f".nv.shared.{k.name}")
        real = [(n, off, o) for n, off, o in placed if o.size]
        for name, off, o in placed:
            assert section is not None, (k.name, name)
            assert base <= off and off + o.size <= section.size, (k.name, name)  # inside the kernel's section
            if not getattr(o, "extern", False):
                assert off % o.align == 0, name  # alignment (ptxas ignores extern alignment under -g)
        # nothing a kernel reaches overlaps: interfering objects and private ones are disjoint
        spans = sorted((off, off + o.size, n) for n, off, o in real)
        for (a0, a1, an), (b0, b1, bn) in zip(spans, spans[1:]):
            assert a1 <= b0, (k.name, an, bn)
    # every kept object has a symbol; unreferenced ones are dropped
    for o in objects:
        assert (o.name in lay.symbols) == (o.referenced or o.extern), o.name


@SETTINGS
@given(debug_inputs())
def test_debug_allocator_ignores_user_order(inputs) -> None:  # type: ignore[no-untyped-def]
    objects, own, base = inputs
    shuffled = [SharedObject(o.name, o.size, o.align, frozenset(sorted(o.users, reverse=True)), o.referenced, o.extern) for o in objects]
    assert allocate_debug_shared(shuffled, own, base=base) == allocate_debug_shared(objects, own, base=base)


@st.composite
def modules(draw):  # type: ignore[no-untyped-def]
    scopes = st.sampled_from([SharedScope.INTERNAL, SharedScope.VISIBLE, SharedScope.EXTERN])
    mv = []
    for i in range(draw(st.integers(0, 6))):
        scope = draw(scopes)
        mv.append(SharedVar(f"m{i}", 0 if scope is SharedScope.EXTERN else draw(sizes), draw(aligns), scope))
    names = [v.name for v in mv]
    nf = draw(st.integers(0, 3))
    funcs = []
    for j in range(nf):
        fv = [SharedVar(f"f{j}v{i}", draw(sizes), draw(aligns)) for i in range(draw(st.integers(0, 2)))]
        uses = draw(st.frozensets(st.sampled_from(names + [v.name for v in fv]))) if names or fv else frozenset()
        calls = draw(st.lists(st.sampled_from([f"fn{x}" for x in range(nf)]), max_size=2)) if nf else []
        funcs.append(SharedFunction(f"fn{j}", False, fv, uses, calls))
    kernels = []
    for k in range(draw(st.integers(1, 3))):
        fv = [SharedVar(f"k{k}v{i}", draw(sizes), draw(aligns)) for i in range(draw(st.integers(0, 2)))]
        uses = draw(st.frozensets(st.sampled_from(names + [v.name for v in fv]))) if names or fv else frozenset()
        calls = draw(st.lists(st.sampled_from([f"fn{x}" for x in range(nf)]), max_size=3)) if nf else []
        kernels.append(SharedFunction(f"k{k}", True, fv, uses, calls))
    return SharedModule(mv, funcs + kernels)


@SETTINGS
@given(modules(), st.sampled_from([75, 90, 100]))
def test_shared_layouts_are_consistent(module, sm) -> None:  # type: ignore[no-untyped-def]
    sizes_of = {v.name: v for v in module.variables}
    sizes_of.update({v.name: v for f in module.functions for v in f.shared})
    for mode in (Mode.WHOLE_PROGRAM, Mode.DEBUG):
        lay = layout_shared(module, sm, mode)
        assert lay == layout_shared(module, sm, mode)
        for kernel, offs in lay.offsets.items():
            section = lay.sections.get(f".nv.shared.{kernel}")
            for name, off in offs.items():
                v = sizes_of[name]
                assert section is not None and off + v.size <= section.size
                if v.scope is not SharedScope.EXTERN and mode is Mode.WHOLE_PROGRAM:
                    assert off % v.align == 0
                if mode is Mode.WHOLE_PROGRAM or v.scope is not SharedScope.EXTERN:
                    assert section.align % v.align == 0 or v.scope is SharedScope.EXTERN
    rel = layout_shared(module, sm, Mode.RELOCATABLE)
    for name, (_, value) in rel.symbols.items():
        assert value == sizes_of[name].align


@SETTINGS
@given(st.lists(st.tuples(sizes, aligns), max_size=30), st.sampled_from([75, 90, 100]))
def test_params_packed(specs, sm) -> None:  # type: ignore[no-untyped-def]
    params = [Param(f"p{i}", s, a) for i, (s, a) in enumerate(specs)]
    if sum(s + a for s, a in specs) > 0x7000:
        return
    lay = layout_params(params, sm)
    cursor = 0
    for p in params:
        off = lay.offsets[p.name]
        assert off >= cursor
        arch = facts(sm)
        absolute = arch.param_align_absolute_large if lay.large else arch.param_align_absolute
        assert ((lay.base if absolute else 0) + off) % p.align == 0
        cursor = off + p.size
    assert lay.param_bytes == cursor


@SETTINGS
@given(st.lists(st.tuples(sizes, aligns, st.booleans(), st.booleans()), max_size=30))
def test_globals_disjoint_and_aligned(specs) -> None:  # type: ignore[no-untyped-def]
    vs = [GlobalVar(f"g{i}", s, a, vis, init) for i, (s, a, vis, init) in enumerate(specs)]
    lay = layout_globals(vs)
    for sec, init in ((lay.init, True), (lay.uninit, False)):
        mine = [v for v in vs if v.initialized == init]
        spans = sorted((sec.offsets[v.name], sec.offsets[v.name] + v.size) for v in mine)
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
        assert all(sec.offsets[v.name] % v.align == 0 for v in mine)
        assert sec.size == (max((e for _, e in spans), default=0))


@SETTINGS
@given(st.lists(st.integers(0, 20), max_size=60))
def test_list_sort_is_a_sort(values) -> None:  # type: ignore[no-untyped-def]
    out = list_sort(values, lambda a, b: a < b)
    assert out == sorted(values)
    out = list_sort(values, lambda a, b: a >= b)
    assert out == sorted(values, reverse=True)
