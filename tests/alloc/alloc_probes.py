"""PTX probes of the memory-layout tests, the facts they are made from, and oracle helpers.

Each probe is written from a spec (the facts: sizes, alignments, scopes, uses, calls), and the
committed ``tests/alloc/probes/<name>.ptx`` must equal what the spec renders (a test checks it),
so the tests compare ptxas's cubins with the allocators run on facts, never on the cubin.
``python tests/alloc/alloc_probes.py`` rewrites the committed probes.

Random specs come from fixed seeds: the same probes every run.
"""

from __future__ import annotations

import functools
import random
import re
import struct
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import attrs

HERE = Path(__file__).resolve().parent
PROBES = HERE / "probes"
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent.parent))

from cubinemit import toolchain  # noqa: E402
from cubinemit.alloc import (  # noqa: E402
    ConstVar,
    GlobalVar,
    HandleKind,
    HandleUse,
    Param,
    SharedFunction,
    SharedModule,
    SharedScope,
    SharedVar,
)

HEADER = ".version 9.0\n.target {target}\n.address_size 64\n"


# --- parameters ---------------------------------------------------------------------------------


def param_decl(p: Param, kernel: str) -> str:
    scalar = {1: ".u8", 2: ".u16", 4: ".u32", 8: ".u64"}
    if p.size == p.align and p.size in scalar and not p.name.startswith("arr"):
        return f".param {scalar[p.size]} {p.name}"
    return f".param .align {p.align} .b8 {p.name}[{p.size}]"


def render_params(kernels: Sequence[tuple[str, Sequence[Param]]]) -> str:
    out = [HEADER.format(target="sm_75")]
    for name, params in kernels:
        decls = ",\n".join("\t" + param_decl(p, name) for p in params)
        out.append(f".visible .entry {name}(\n{decls}\n)\n{{\n\tret;\n}}\n" if params else f".visible .entry {name}()\n{{\n\tret;\n}}\n")
    return "\n".join(out)


def _p(name: str, size: int, align: int) -> Param:
    return Param(name, size, align)


PARAM_KERNELS: list[tuple[str, list[Param]]] = [
    ("k_none", []),
    ("k_u8", [_p("a", 1, 1)]),
    ("k_scalars", [_p("a", 1, 1), _p("b", 8, 8), _p("c", 2, 2), _p("d", 4, 4), _p("e", 1, 1), _p("f", 8, 8)]),
    ("k_arrays", [_p("arr0", 7, 1), _p("arr1", 32, 16), _p("arr2", 3, 2), _p("arr3", 24, 8), _p("arr4", 5, 4), _p("arr5", 1, 32)]),
    ("k_tail", [_p("a", 8, 8), _p("arr0", 1, 1)]),
    ("k_4352", [_p("arr0", 4352, 4)]),
    ("k_4352b", [_p("a", 1, 1), _p("arr0", 4348, 4)]),
    ("k_4353", [_p("arr0", 4353, 1)]),
    ("k_4356", [_p("arr0", 4356, 4)]),
    ("k_4356b", [_p("a", 4, 4), _p("arr0", 4344, 8), _p("b", 1, 1)]),
    ("k_max", [_p("a", 8, 8), _p("arr0", 32756, 4)]),
    ("k_al32", [_p("arr0", 4, 32)]),
    ("k_al64", [_p("arr0", 4, 64)]),
    ("k_al128", [_p("a", 2, 2), _p("arr0", 4, 128)]),
    ("k_al256", [_p("a", 1, 1), _p("arr0", 4, 256)]),
    ("k_big_al256", [_p("arr0", 4400, 4), _p("arr1", 4, 256)]),
]


def random_param_kernels(seed: int = 7, count: int = 60) -> list[tuple[str, list[Param]]]:
    """Kernels with random parameter blocks, large alignments and near-4352-byte sizes included."""
    r = random.Random(seed)
    kernels = []
    for k in range(count):
        ps = []
        for i in range(r.randint(0, 8)):
            align = r.choice([1, 2, 4, 8, 16, 32, 64, 128, 256])
            size = r.choice([1, 2, 3, 4, 8, 12, 16, 24, 100]) if r.random() < 0.9 else r.choice([2000, 4000, 4350])
            ps.append(Param(f"arr{i}", size, align))
        if sum(p.size + p.align for p in ps) > 30000:
            ps = ps[:2]
        kernels.append((f"k{k}", ps))
    return kernels


# --- texture / surface handles ------------------------------------------------------------------


@attrs.frozen
class HandleProbe:
    name: str
    independent: bool
    #: module handles in declaration order
    handles: tuple[tuple[str, HandleKind], ...]
    #: (kernel, parameter bytes (>= 8), uses)
    kernels: tuple[tuple[str, int, tuple[HandleUse, ...]], ...]

    def params(self, kernel: str, nbytes: int) -> tuple[Param, ...]:
        ps = [Param(f"{kernel}_out", 8, 8)]
        if nbytes > 8:
            ps.append(Param(f"arr_{kernel}_pad", nbytes - 8, 4 if nbytes % 4 == 0 else 1))
        return tuple(ps)


def render_handles(p: HandleProbe) -> str:
    out = [HEADER.format(target="sm_75, texmode_independent" if p.independent else "sm_75")]
    for name, kind in p.handles:
        if kind is HandleKind.TEXTURE:
            out.append(f".global .texref {name};")
        elif kind is HandleKind.SURFACE:
            out.append(f".global .surfref {name};")
        else:
            out.append(f".global .samplerref {name} = {{ addr_mode_0 = clamp_to_edge, filter_mode = nearest }};")
    for kname, nbytes, uses in p.kernels:
        decls = ",\n".join("\t" + param_decl(q, kname) for q in p.params(kname, nbytes))
        body = [
            "\t.reg .b32 %r<200>;",
            "\t.reg .b64 %rd<4>;",
            f"\tld.param.u64 %rd1, [{kname}_out];",
            "\tcvta.to.global.u64 %rd2, %rd1;",
            "\tmov.u32 %r1, %tid.x;",
        ]
        for i, u in enumerate(uses):
            r = 10 + 4 * i
            if u.surface is not None:
                body.append(f"\tsuld.b.1d.b32.trap {{%r{r}}}, [{u.surface}, {{%r1}}];")
            elif u.texture is not None and u.sampler is not None:
                body.append(f"\ttex.1d.v4.s32.s32 {{%r{r}, %r{r + 1}, %r{r + 2}, %r{r + 3}}}, [{u.texture}, {u.sampler}, {{%r1}}];")
            elif u.texture is not None and i % 2:
                body.append(f"\ttxq.width.b32 %r{r}, [{u.texture}];")
            elif u.texture is not None and not p.independent:
                body.append(f"\ttex.1d.v4.s32.s32 {{%r{r}, %r{r + 1}, %r{r + 2}, %r{r + 3}}}, [{u.texture}, {{%r1}}];")
            elif u.texture is not None:
                body.append(f"\ttxq.width.b32 %r{r}, [{u.texture}];")
            else:
                body.append(f"\ttxq.filter_mode.b32 %r{r}, [{u.sampler}];")
            body.append(f"\tst.global.u32 [%rd2+{4 * i}], %r{r};")
        body.append("\tret;")
        out.append(f".visible .entry {kname}(\n{decls}\n)\n{{\n" + "\n".join(body) + "\n}")
    return "\n".join(out) + "\n"


T, S, P = HandleKind.TEXTURE, HandleKind.SURFACE, HandleKind.SAMPLER


def _tex(t: str) -> HandleUse:
    return HandleUse(texture=t)


def _srf(s: str) -> HandleUse:
    return HandleUse(surface=s)


def _smp(s: str) -> HandleUse:
    return HandleUse(sampler=s)


def _pair(t: str, s: str) -> HandleUse:
    return HandleUse(texture=t, sampler=s)


HANDLE_PROBES = [
    HandleProbe(
        "hnd_unified",
        False,
        (("t0", T), ("t1", T), ("s0", S), ("t2", T), ("s1", S), ("s2", S)),
        (
            ("k_a", 8, (_tex("t2"), _srf("s1"), _tex("t0"), _srf("s0"), _tex("t2"))),
            ("k_b", 40, (_srf("s2"), _tex("t1"))),
            ("k_c", 21, ()),
            ("k_d", 100, ()),
            ("k_e", 13, (_tex("t0"),)),
        ),
    ),
    HandleProbe(
        "hnd_unified_large",
        False,
        (("t0", T), ("s0", S)),
        (("k_big", 4400, (_tex("t0"),)), ("k_small", 17, (_srf("s0"), _tex("t0")))),
    ),
    HandleProbe(
        "hnd_independent",
        True,
        (("t0", T), ("t1", T), ("p0", P), ("s0", S), ("p1", P), ("t2", T)),
        (
            ("k_pairs", 8, (_pair("t0", "p0"), _pair("t1", "p0"), _pair("t0", "p1"))),
            ("k_lone", 12, (_smp("p1"), _srf("s0"), _pair("t1", "p0"), _tex("t0"))),
            ("k_fill", 9, (_smp("p0"), _smp("p1"), _tex("t0"))),
            ("k_fill2", 8, (_tex("t0"), _tex("t1"), _smp("p0"))),
            ("k_mixed", 24, (_pair("t1", "p0"), _smp("p1"), _tex("t0"), _pair("t2", "p1"), _tex("t1"))),
            ("k_plain", 30, ()),
        ),
    ),
]


# --- globals, constants -------------------------------------------------------------------------


def _values(size: int, salt: int) -> str:
    return ", ".join(str((i * 7 + salt) % 256) for i in range(size))


def render_globals(variables: Sequence[GlobalVar], unused: frozenset[str]) -> str:
    out = [HEADER.format(target="sm_75")]
    for v in variables:
        vis = ".visible " if v.visible else ""
        init = f" = {{{_values(v.size, 1)}}}" if v.initialized else ""
        out.append(f"{vis}.global .align {v.align} .b8 {v.name}[{v.size}]{init};")
    body = ["\t.reg .b64 %rd<4>;", "\tld.param.u64 %rd1, [k_p];"]
    for v in variables:
        if v.name not in unused:
            body += [f"\tmov.u64 %rd2, {v.name};", "\tst.global.u64 [%rd1], %rd2;"]
    out.append(".visible .entry k(.param .u64 k_p)\n{\n" + "\n".join(body) + "\n\tret;\n}")
    return "\n".join(out) + "\n"


def render_consts(variables: Sequence[ConstVar], initialised: frozenset[str], unused: frozenset[str]) -> str:
    out = [HEADER.format(target="sm_75")]
    for v in variables:
        vis = ".visible " if v.visible else ""
        # every initialised constant holds the same byte pattern: equal values of equal sizes
        init = f" = {{{_values(v.size, 1)}}}" if v.name in initialised else ""
        out.append(f"{vis}.const .align {v.align} .b8 {v.name}[{v.size}]{init};")
    body = ["\t.reg .b64 %rd<4>;", "\t.reg .b32 %r<4>;", "\tld.param.u64 %rd1, [k_p];"]
    for v in variables:
        if v.name not in unused:
            body += [f"\tld.const.u8 %r1, [{v.name}];", "\tst.global.u32 [%rd1], %r1;"]
    out.append(".visible .entry k(.param .u64 k_p)\n{\n" + "\n".join(body) + "\n\tret;\n}")
    return "\n".join(out) + "\n"


def random_globals(seed: int) -> tuple[list[GlobalVar], frozenset[str]]:
    r = random.Random(seed)
    vs = [
        GlobalVar(f"g{i}_{r.randint(0, 99)}", r.choice([1, 2, 3, 4, 5, 8, 12, 16, 24, 100]), r.choice([1, 2, 4, 8, 16, 32, 64]), r.random() < 0.3, r.random() < 0.5)
        for i in range(r.randint(1, 14))
    ]
    return vs, frozenset(v.name for v in vs if r.random() < 0.2)


def random_consts(seed: int) -> tuple[list[ConstVar], frozenset[str], frozenset[str]]:
    r = random.Random(seed)
    vs = [ConstVar(f"c{i}_{r.randint(0, 99)}", r.choice([1, 2, 3, 4, 5, 8, 12, 16, 24, 100]), r.choice([1, 2, 4, 8, 16, 32]), r.random() < 0.3) for i in range(r.randint(1, 12))]
    return vs, frozenset(v.name for v in vs if r.random() < 0.5), frozenset(v.name for v in vs if r.random() < 0.2)


# --- .nv.constant4 ------------------------------------------------------------------------------

EXTERN_PROTOS = {
    "malloc": ".extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);",
    "free": ".extern .func free(.param .b64 free_param_0);",
    "vprintf": ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);",
}
EXTERN_CALLS = {
    "malloc": ["\t.param .b64 a0;", "\tst.param.b64 [a0], %rd1;", "\t.param .b64 r0;", "\tcall.uni (r0), malloc, (a0);", "\tld.param.b64 %rd2, [r0];", "\tst.global.u64 [%rd1], %rd2;"],
    "free": ["\t.param .b64 a0;", "\tst.param.b64 [a0], %rd1;", "\tcall.uni free, (a0);"],
    "vprintf": ["\t.param .b64 a0;", "\tst.param.b64 [a0], %rd1;", "\t.param .b64 a1;", "\tst.param.b64 [a1], %rd1;", "\t.param .b32 r0;", "\tcall.uni (r0), vprintf, (a0, a1);"],
}


@attrs.frozen
class C4Probe:
    name: str
    #: declarations in PTX order: extern function names or GlobalVar
    decls: tuple[str | GlobalVar, ...]
    #: kernels in PTX order: (name, extern calls in call order, globals used)
    kernels: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]


def render_c4(p: C4Probe) -> str:
    out = [HEADER.format(target="sm_75")]
    for d in p.decls:
        if isinstance(d, str):
            out.append(EXTERN_PROTOS[d])
        else:
            vis = ".visible " if d.visible else ""
            init = f" = {{{_values(d.size, 3)}}}" if d.initialized else ""
            out.append(f"{vis}.global .align {d.align} .b8 {d.name}[{d.size}]{init};")
    for kname, calls, used in p.kernels:
        body = ["\t.reg .b64 %rd<9>;", f"\tld.param.u64 %rd1, [{kname}_p];"]
        for c in calls:
            body += ["\t{"] + EXTERN_CALLS[c] + ["\t}"]
        for g in used:
            body += [f"\tmov.u64 %rd3, {g};", "\tst.global.u64 [%rd1], %rd3;"]
        out.append(f".visible .entry {kname}(.param .u64 {kname}_p)\n{{\n" + "\n".join(body) + "\n\tret;\n}")
    return "\n".join(out) + "\n"


C4_PROBES = [
    C4Probe(
        "c4_single",
        (GlobalVar("ga", 4, 4), GlobalVar("gv", 4, 4, visible=True), "free", "vprintf", GlobalVar("gb", 8, 8, initialized=True), "malloc"),
        (("k", ("malloc", "vprintf", "free"), ("ga",)),),
    ),
    C4Probe(
        "c4_kernels",
        ("malloc", "free", "vprintf", GlobalVar("ga", 4, 4), GlobalVar("gv", 2, 2, visible=True)),
        (("k1", ("free",), ()), ("k2", ("malloc",), ("ga",)), ("k3", ("vprintf", "free"), ())),
    ),
    C4Probe("c4_unused_extern", ("malloc", "free", GlobalVar("ga", 4, 4)), (("k1", (), ()), ("k2", ("malloc",), ()))),
]


# --- shared -------------------------------------------------------------------------------------


def render_shared(m: SharedModule) -> str:
    out = [HEADER.format(target="sm_75"), ".global .u64 gout;"]
    for v in m.variables:
        pre = {SharedScope.INTERNAL: "", SharedScope.VISIBLE: ".visible ", SharedScope.EXTERN: ".extern "}[v.scope]
        dim = "[]" if v.scope is SharedScope.EXTERN else f"[{v.size}]"
        out.append(f"{pre}.shared .align {v.align} .b8 {v.name}{dim};")
    funcs = [f for f in m.functions if not f.kernel]
    for f in funcs:
        out.append(f".func {f.name}();")
    for index, f in enumerate(m.functions):
        body = [f"\t.shared .align {v.align} .b8 {v.name}[{v.size}];" for v in f.shared]
        body += ["\t.reg .b32 %r<10>;", "\t.reg .b64 %rd<10>;"]
        if f.kernel:
            body += [f"\tld.param.u64 %rd1, [{f.name}_p];", "\tcvta.to.global.u64 %rd2, %rd1;"]
            store_base = 0
        else:
            body += ["\tld.global.u64 %rd2, [gout];"]
            store_base = 1024 * (funcs.index(f) + 1)
        body.append("\tmov.u32 %r1, %tid.x;")
        for i, name in enumerate(used_in_order(m, f)):
            body += [
                f"\tmov.u32 %r2, {name};",
                "\tadd.s32 %r2, %r2, %r1;",
                "\tst.shared.u32 [%r2], %r1;",
                f"\tmov.u32 %r3, {name};",
                f"\tst.global.u32 [%rd2+{store_base + 4 * i}], %r3;",
            ]
        body += [f"\tcall.uni {c};" for c in f.calls]
        body.append("\tret;")
        head = f".visible .entry {f.name}(.param .u64 {f.name}_p)" if f.kernel else f".func {f.name}()"
        out.append(head + "\n{\n" + "\n".join(body) + "\n}")
        del index
    return "\n".join(out) + "\n"


def used_in_order(m: SharedModule, f: SharedFunction) -> list[str]:
    """The variables ``f`` uses, in the order its body references them (module vars first)."""
    return [v.name for v in m.variables if v.name in f.uses] + [v.name for v in f.shared if v.name in f.uses]


def store_offset(m: SharedModule, f: SharedFunction, var: str) -> int:
    """Global-memory offset where the probe stores ``var``'s address from ``f``'s body."""
    funcs = [g for g in m.functions if not g.kernel]
    base = 0 if f.kernel else 1024 * (funcs.index(f) + 1)
    return base + 4 * used_in_order(m, f).index(var)


def random_shared(seed: int, *, externs: bool = False) -> SharedModule:
    r = random.Random(seed)
    mv = [
        SharedVar(f"m{i}", r.choice([1, 2, 3, 4, 8, 12, 20, 36, 64, 100]), r.choice([1, 2, 4, 8, 16, 32]), r.choice([SharedScope.INTERNAL, SharedScope.INTERNAL, SharedScope.VISIBLE]))
        for i in range(r.randint(0, 6))
    ]
    if externs:
        for i in range(r.randint(1, 2)):
            mv.insert(r.randint(0, len(mv)), SharedVar(f"x{i}", 0, r.choice([1, 4, 8, 16, 32, 64]), SharedScope.EXTERN))
    nf = r.randint(0, 3)
    funcs = []
    for j in range(nf):
        fv = [SharedVar(f"f{j}v{i}", r.choice([4, 8, 12, 40]), r.choice([4, 8, 16])) for i in range(r.randint(0, 2))]
        uses = [v.name for v in mv if r.random() < 0.3] + [v.name for v in fv if r.random() < 0.7]
        calls = [f"fn{x}" for x in range(j + 1, nf) if r.random() < 0.4]
        funcs.append(SharedFunction(f"fn{j}", False, fv, uses, calls))
    kernels = []
    for k in range(r.randint(1, 3)):
        fv = [SharedVar(f"k{k}v{i}", r.choice([4, 8, 12, 40, 72]), r.choice([4, 8, 16])) for i in range(r.randint(0, 2))]
        uses = [v.name for v in mv if r.random() < 0.5] + [v.name for v in fv if r.random() < 0.8]
        calls = [f"fn{x}" for x in range(nf) if r.random() < 0.4]
        kernels.append(SharedFunction(f"k{k}", True, fv, uses, calls))
    return SharedModule(mv, funcs + kernels)


def _v(name: str, size: int, align: int, scope: SharedScope = SharedScope.INTERNAL) -> SharedVar:
    return SharedVar(name, size, align, scope)


INT, VIS, EXT = SharedScope.INTERNAL, SharedScope.VISIBLE, SharedScope.EXTERN

# Hand-written -g probes: module .shared reached by several kernels through different call
# graphs, and the same module with its declarations permuted.
_IG_VARS = [_v("A", 64, 4), _v("B", 128, 8), _v("C", 32, 16), _v("D", 256, 128), _v("E", 20, 4), _v("F", 48, 8, VIS)]
_IG_FUNCS = [
    SharedFunction("dev_a", False, [_v("da", 24, 8)], ["A", "C", "da"]),
    SharedFunction("dev_b", False, [_v("db", 36, 16), _v("db_unused", 8, 4)], ["B", "E", "db"], ["dev_c"]),
    SharedFunction("dev_c", False, [], ["E", "F"]),
    SharedFunction("dev_lonely", False, [_v("dl", 12, 4)], ["dl"]),
]
_IG_KERNELS = [
    SharedFunction("k1", True, [_v("k1a", 40, 16)], ["k1a", "A"], ["dev_a"]),
    SharedFunction("k2", True, [], ["A", "E"], ["dev_b"]),
    SharedFunction("k3", True, [_v("k3a", 8, 8), _v("k3b", 100, 4)], ["B", "k3b"], []),
    SharedFunction("k4", True, [], ["D"], ["dev_b"]),
    SharedFunction("k5", True, [], ["D", "C"], ["dev_c"]),
    SharedFunction("k6", True, [], ["F"], []),
]


def _permuted(order: Sequence[int]) -> SharedModule:
    return SharedModule([_IG_VARS[i] for i in order], _IG_FUNCS + _IG_KERNELS)


SHARED_NAMED: dict[str, SharedModule] = {
    "sh_callgraph": _permuted(range(6)),
    "sh_callgraph_perm1": _permuted([5, 3, 1, 4, 0, 2]),
    "sh_callgraph_perm2": _permuted([2, 0, 4, 1, 5, 3]),
    "sh_equal_sizes": SharedModule(
        [_v(f"e{i}", 16, 4 << (i % 3), VIS if i % 4 == 1 else INT) for i in range(7)],
        [SharedFunction("ka", True, [], [f"e{i}" for i in range(7)]), SharedFunction("kb", True, [], [f"e{i}" for i in range(0, 7, 2)])],
    ),
    "sh_extern_align": SharedModule(
        [_v("dyn", 0, 64, EXT), _v("m0", 36, 4), _v("v0", 3, 8, VIS)],
        [SharedFunction("ka", True, [_v("ka0", 5, 1)], ["dyn", "m0", "ka0"]), SharedFunction("kb", True, [], ["v0"]), SharedFunction("kc", True, [])],
    ),
}
RANDOM_SHARED_SEEDS = list(range(24))
RANDOM_SHARED_EXTERN_SEEDS = list(range(100, 112)) + [2001, 2007, 2012, 2014, 2020, 2026]


def shared_specs() -> dict[str, SharedModule]:
    specs = dict(SHARED_NAMED)
    for s in RANDOM_SHARED_SEEDS:
        specs[f"sh_rand{s}"] = random_shared(s)
    for s in RANDOM_SHARED_EXTERN_SEEDS:
        specs[f"sh_rext{s}"] = random_shared(s, externs=True)
    return specs


# --- reserved shared memory ---------------------------------------------------------------------

RESERVED_PLAIN = """.version 9.0
.target sm_90
.address_size 64
.shared .align 4 .b8 s[16];
.visible .entry k(.param .u64 p)
{
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<4>;
\tmov.u32 %r1, s;
\tld.param.u64 %rd1, [p];
\tst.global.u32 [%rd1], %r1;
\tret;
}
"""

RESERVED_TCGEN05 = """.version 9.0
.target {target}
.address_size 64
.shared .align 4 .b32 taddr;
.visible .entry k(.param .u64 p)
{{
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<4>;
\tmov.u32 %r1, taddr;
\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
\tld.shared.u32 %r2, [taddr];
\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
\ttcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
\tld.param.u64 %rd1, [p];
\tst.global.u32 [%rd1], %r2;
\tret;
}}
"""

#: tcgen05 probes: PTX target -> probe name
TCGEN05_TARGETS = {"sm_100a": "rsv_tcgen05_100a", "sm_103a": "rsv_tcgen05_103a", "sm_110a": "rsv_tcgen05_110a"}

GLOBAL_SEEDS = list(range(12))
#: 20 uninitialised globals of equal size and alignment: pins the list sort's shuffle
GLOBAL_EQUAL = [GlobalVar(f"q{i}", 4, 4) for i in range(20)]
CONST_SEEDS = list(range(12))


def all_probes() -> dict[str, str]:
    """Every committed probe: name -> PTX text."""
    out = {"params": render_params(PARAM_KERNELS), "params_rand": render_params(random_param_kernels()), "rsv_plain": RESERVED_PLAIN}
    for target, name in TCGEN05_TARGETS.items():
        out[name] = RESERVED_TCGEN05.format(target=target)
    for hp in HANDLE_PROBES:
        out[hp.name] = render_handles(hp)
    for s in GLOBAL_SEEDS:
        out[f"glob{s}"] = render_globals(*random_globals(s))
    out["glob_equal"] = render_globals(GLOBAL_EQUAL, frozenset())
    for s in CONST_SEEDS:
        out[f"const{s}"] = render_consts(*random_consts(s))
    for c4 in C4_PROBES:
        out[c4.name] = render_c4(c4)
    for name, spec in shared_specs().items():
        out[name] = render_shared(spec)
    return out


def probe_path(name: str) -> Path:
    return PROBES / f"{name}.ptx"


# --- reading cubins -----------------------------------------------------------------------------


def nvinfo_records(data: bytes) -> list[tuple[int, int, bytes]]:
    """(format, attribute, payload) of each EIATTR record."""
    out = []
    i = 0
    while i < len(data):
        fmt, attr = data[i], data[i + 1]
        if fmt == 4:
            (size,) = struct.unpack_from("<H", data, i + 2)
            out.append((fmt, attr, data[i + 4 : i + 4 + size]))
            i += 4 + size
        else:
            out.append((fmt, attr, data[i + 2 : i + 4]))
            i += 4
    return out


@attrs.frozen
class KparamInfo:
    offsets: tuple[int, ...]  # by ordinal
    sizes: tuple[int, ...]
    v2: bool
    cbank: tuple[int, int] | None  # PARAM_CBANK (base, bytes)
    param_size: int | None  # CBANK_PARAM_SIZE


def kparam_info(obj, kernel: str) -> KparamInfo:  # type: ignore[no-untyped-def]
    sec = next(s for s in obj.sections if s.name == f".nv.info.{kernel}")
    recs: dict[int, tuple[int, int]] = {}
    v2 = False
    cbank = None
    psize = None
    for _fmt, attr, p in nvinfo_records(sec.data):
        if attr == 0x17:
            _idx, ordinal, off, w = struct.unpack("<IHHI", p)
            recs[ordinal] = (off, w >> 18)
        elif attr == 0x45:
            _idx, ordinal, off, size, _la, _sp = struct.unpack("<IHHHBB", p)
            recs[ordinal] = (off, size)
            v2 = True
        elif attr == 0x0A:
            _sym, base, nbytes = struct.unpack("<IHH", p)
            cbank = (base, nbytes)
        elif attr == 0x19:
            (psize,) = struct.unpack("<H", p)
    keys = sorted(recs)
    return KparamInfo(tuple(recs[k][0] for k in keys), tuple(recs[k][1] for k in keys), v2, cbank, psize)


_MOV = re.compile(r"\b(?:MOV|IMAD\.MOV\.U32)\s+(R\d+),\s*(?:RZ,\s*RZ,\s*)?(0x[0-9a-f]+|RZ)\s*;")
_STG = re.compile(r"\bSTG\.E(?:\.\w+)*\s+\[(?:UR\d+|R\d+)(?:\.64)?(?:\+(0x[0-9a-f]+))?\],\s*(R\d+|RZ)\s*;")


@functools.lru_cache(maxsize=None)
def sass_stored_constants(cubin: Path) -> dict[str, dict[int, int]]:
    """sm_75 SASS, per kernel: {global offset: constant stored there} for each STG of a register
    loaded with an immediate. The shared probes store every variable's address this way."""
    text = subprocess.run([str(toolchain.nvdisasm()), "-c", str(cubin)], capture_output=True, text=True, check=True).stdout
    per_kernel: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        m = re.match(r"\s*\.section\s+\.text\.(\S+?),", line)
        if m:
            current = per_kernel.setdefault(m.group(1), [])
            continue
        if current is not None:
            current.append(line)
    out: dict[str, dict[int, int]] = {}
    for kernel, lines in per_kernel.items():
        regs: dict[str, int] = {"RZ": 0}
        stores: dict[int, int] = {}
        for line in lines:
            m = _MOV.search(line)
            if m:
                regs[m.group(1)] = 0 if m.group(2) == "RZ" else int(m.group(2), 16)
                continue
            m = _STG.search(line)
            if m and m.group(2) in regs:
                stores[int(m.group(1), 16) if m.group(1) else 0] = regs[m.group(2)]
        out[kernel] = stores
    return out


def write_all() -> None:
    PROBES.mkdir(exist_ok=True)
    for name, text in all_probes().items():
        probe_path(name).write_text(text)


if __name__ == "__main__":
    write_all()
    print(f"wrote {len(all_probes())} probes to {PROBES}")
