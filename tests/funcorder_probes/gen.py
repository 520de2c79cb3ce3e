"""Write the funcorder probes (PTX modules about function order, calls and prototypes).

    python3 tests/funcorder_probes/gen.py

A probe is a list of functions in declaration order, one line each::

    <linkage> <kind> <name>[/<ret>/<params>] : <body tokens>

* linkage: ``v`` .visible, ``w`` .weak, ``s`` static (no qualifier), ``e`` .extern (declared only);
* kind: ``k`` kernel (.entry), ``f`` device function (.func), ``d`` a forward declaration (prototype
  only) of a function defined later;
* ``/<ret>/<params>``: PTX types of the return value (``-`` for none) and the comma-separated
  parameters of a device function (``b8[12]`` is an array), default ``b32`` and ``b32``;
* body tokens, in order: ``name`` a direct call, ``&name`` taking the address, ``*`` an indirect
  call through the last address taken (or a pointer parameter if none), ``*N`` the same with a
  prototype of N ``.b64`` parameters and no return value (signature ``#v`` + ``l`` * N), ``%op`` an instruction
  that makes ptxas call a builtin (``%div``: div.rn.f64, ``%sqrt``, ``%rcp``, ``%divf``: div.rn.f32,
  ``%rem``: rem.s64).

``vprintf``, ``malloc`` and ``free`` get their CUDA signatures; they are syscalls, so modules that
call them still link in whole-program mode. Other externs need ``-c``.

The ``modes`` of a probe are the tests/oracle.py modes it compiles in; COMBOS of test_funcorder.py
are added for probes that compile with -c.
"""

from __future__ import annotations

import random
from pathlib import Path

HERE = Path(__file__).resolve().parent

ALL = ["def", "c", "lineinfo", "g", "O0"]

SYSCALL_SIG = {
    "vprintf": ("b32", ["b64", "b64"]),
    "malloc": ("b64", ["b64"]),
    "free": (None, ["b64"]),
}

OPS = {
    "div": ("f64", "div.rn.f64 %fd{o}, %fd{a}, %fd1;"),
    "sqrt": ("f64", "sqrt.rn.f64 %fd{o}, %fd{a};"),
    "rcp": ("f64", "rcp.rn.f64 %fd{o}, %fd{a};"),
    "divf": ("f32", "div.rn.f32 %f{o}, %f{a}, %f1;"),
    "rem": ("s64", "rem.s64 %rd{o}, %rd{a}, %rd1;"),
}

_REG = {"b8": "%rs", "b16": "%rs", "b32": "%r", "b64": "%rd", "f32": "%f", "f64": "%fd", "s64": "%rd", "u64": "%rd",
        "u32": "%r", "s32": "%r"}


def _parse_type(t: str) -> tuple[str, int | None]:
    if "[" in t:
        base, n = t.rstrip("]").split("[")
        return base, int(n)
    return t, None


def _decl(t: str, name: str) -> str:
    base, n = _parse_type(t)
    if n is None:
        return f".param .{base} {name}"
    size = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "f16": 2, "b32": 4, "u32": 4, "f32": 4, "b64": 8, "u64": 8, "f64": 8}[base]
    return f".param .align {max(size, 4)} .{base} {name}[{n}]"


def _store(t: str, name: str) -> str:
    base, n = _parse_type(t)
    if n is not None:
        return f"st.param.b8 [{name}], 0;"
    width = base[1:]
    return f"st.param.b{width} [{name}], 0;"


class Func:
    def __init__(self, line: str):
        head, _, body = line.partition(":")
        link, kind, spec = head.split()
        self.link, self.kind = link, kind
        parts = spec.split("/")
        self.name = parts[0]
        if self.name in SYSCALL_SIG:
            self.ret, self.params = SYSCALL_SIG[self.name]
        else:
            self.ret = parts[1] if len(parts) > 1 else "b32"
            self.ret = None if self.ret == "-" else self.ret
            self.params = parts[2].split(",") if len(parts) > 2 and parts[2] else (["b32"] if len(parts) <= 2 else [])
        self.body = body.split()

    def header(self) -> str:
        qual = {"v": ".visible ", "w": ".weak ", "s": "", "e": ".extern "}[self.link]
        if self.kind == "k":
            return f"{qual}.entry {self.name}(.param .u64 {self.name}_out, .param .u64 {self.name}_fp)"
        ret = f"({_decl(self.ret, self.name + '_ret')}) " if self.ret else ""
        params = ", ".join(_decl(t, f"{self.name}_p{i}") for i, t in enumerate(self.params))
        return f"{qual}.func {ret}{self.name}({params})"


def render(lines: list[str], debug_target: bool = False) -> str:
    funcs = [Func(l) for l in lines if l.strip()]
    table = {f.name: f for f in funcs}
    out = [".version 9.0", ".target sm_75" + (", debug" if debug_target else ""), ".address_size 64", ""]
    if any(f.name == "vprintf" for f in funcs):
        out.append(".global .align 1 .b8 fmt_str[4] = {37, 100, 10, 0};")
        out.append("")
    seq = 0
    for f in funcs:
        if f.kind == "d" or f.link == "e":
            out.append(("" if f.kind == "d" else "") + f.header() + ";")
            out.append("")
            continue
        out.append(f.header())
        out.append("{")
        out.append(" .reg .b32 %r<64>; .reg .b64 %rd<64>; .reg .f64 %fd<64>; .reg .f32 %f<64>; .reg .pred %p<4>;")
        if f.kind == "k":
            out.append(f" ld.param.u64 %rd2, [{f.name}_fp];")
        else:
            out.append(" mov.u32 %r9, %ctaid.x; cvt.u64.u32 %rd9, %r9; ld.global.u64 %rd2, [%rd9];")
        out.append(" mov.u32 %r1, %tid.x; cvt.rn.f64.u32 %fd1, %r1; cvt.rn.f32.u32 %f1, %r1; cvt.u64.u32 %rd1, %r1; mov.u64 %rd3, %rd1;")
        cur = {"f64": 1, "f32": 1, "s64": 1}
        last_addr = None
        for tok in f.body:
            seq += 1
            if tok.startswith("%"):
                ty, text = OPS[tok[1:]]
                o = cur[ty] + 1
                out.append(" " + text.format(o=o, a=cur[ty]))
                cur[ty] = o
            elif tok.startswith("&"):
                last_addr = f"%rd{10 + seq % 40}"
                out.append(f" mov.u64 {last_addr}, {tok[1:]};")
                out.append(f" add.u64 %rd3, %rd3, {last_addr};")
            elif tok[0] == "*" and tok[1:].isdigit():
                ptr = last_addr or "%rd2"
                n = int(tok[1:])
                args = ", ".join(f"ia{seq}_{i}" for i in range(n))
                out.append(" {")
                out.append("  " + " ".join(f".param .b64 ia{seq}_{i}; st.param.b64 [ia{seq}_{i}], %rd1;" for i in range(n)))
                out.append(f"  proto{seq}: .callprototype _ (" + ", ".join([".param .b64 _"] * n) + ");")
                out.append(f"  call {ptr}, ({args}), proto{seq};")
                out.append(" }")
            elif tok == "*":
                ptr = last_addr or "%rd2"
                out.append(" {")
                out.append(f"  .param .b32 ia{seq}; .param .b32 ir{seq};")
                out.append(f"  st.param.b32 [ia{seq}], %r1;")
                out.append(f"  proto{seq}: .callprototype (.param .b32 _) _ (.param .b32 _);")
                out.append(f"  call (ir{seq}), {ptr}, (ia{seq}), proto{seq};")
                out.append(f"  ld.param.b32 %r2, [ir{seq}];")
                out.append(" }")
            else:
                g = table[tok]
                args = [f"a{seq}_{i}" for i in range(len(g.params))]
                out.append(" {")
                for t, a in zip(g.params, args):
                    out.append(f"  {_decl(t, a)};")
                    out.append(f"  {_store(t, a)}" if g.name not in SYSCALL_SIG else f"  st.param.b64 [{a}], %rd1;")
                if g.ret:
                    out.append(f"  {_decl(g.ret, f'r{seq}')};")
                rets = f"(r{seq}), " if g.ret else ""
                out.append(f"  call.uni {rets}{g.name}, ({', '.join(args)});")
                out.append(" }")
        if f.kind == "k":
            out.append(f" ld.param.u64 %rd4, [{f.name}_out];")
            out.append(" st.global.u32 [%rd4], %r1; st.global.f64 [%rd4+8], %fd" + str(cur["f64"]) + ";")
            out.append(" st.global.f32 [%rd4+16], %f" + str(cur["f32"]) + "; st.global.u64 [%rd4+24], %rd" + str(cur["s64"]) + ";")
            out.append(" st.global.u64 [%rd4+32], %rd3;")
        else:
            out.append(" st.global.u32 [%rd3], %r1; st.global.f64 [%rd3+8], %fd" + str(cur["f64"]) + ";")
            out.append(" st.global.f32 [%rd3+16], %f" + str(cur["f32"]) + "; st.global.u64 [%rd3+24], %rd" + str(cur["s64"]) + ";")
            if f.ret:
                base, n = _parse_type(f.ret)
                out.append(f" {_store(f.ret, f.name + '_ret')}")
        out.append(" ret;")
        out.append("}")
        out.append("")
    return "\n".join(out)


def random_graph(seed: int, n: int, *, addr: bool) -> list[str]:
    """A random module: n device functions (calls only to earlier ones, plus some forward
    declared callees for cycles) and a few kernels."""
    rng = random.Random(seed)
    lines: list[str] = []
    names = [f"f{i:02d}" for i in range(n)]
    links = [rng.choice("ssvvw") for _ in names]
    # forward declarations for a few cycles
    fwd = set(rng.sample(names[n // 2 :], 2))
    for nm in sorted(fwd):
        lines.append(f"{links[names.index(nm)]} d {nm} :")
    taken: list[str] = []
    for i, nm in enumerate(names):
        body: list[str] = []
        for _ in range(rng.randint(0, 3)):
            r = rng.random()
            if r < 0.6 and i:
                body.append(rng.choice(names[:i]))
            elif r < 0.7 and fwd:
                body.append(rng.choice(sorted(fwd)))
            elif r < 0.8:
                body.append(rng.choice(["%div", "%sqrt", "%rcp", "%divf", "%rem"]))
            elif addr and r < 0.9 and i:
                t = rng.choice(names[:i])
                body.append("&" + t)
                taken.append(t)
        if addr and rng.random() < 0.15:
            body.append("*")
        body = [b for k, b in enumerate(body) if b.startswith("&") or b == "*" or b not in body[:k]]
        lines.append(f"{links[i]} f {nm} : {' '.join(body)}")
    for k in range(4):
        calls = rng.sample(names, 3)
        extra = ["%div"] if k == 1 else []
        if addr and k == 2:
            extra += ["&" + rng.choice(names), "*"]
        lines.append(f"{rng.choice('vvs')} k K{k} : {' '.join(calls + extra)}")
    return lines


PROBES: dict[str, dict] = {
    "fo_chain_diamond": dict(
        description="call chain, diamond, kernels sharing callees, uncalled static/visible/weak functions",
        lines="""
            s f leaf :
            v f mid1 : leaf
            w f mid2 : leaf
            s f top : mid2 mid1
            s f chain3 :
            s f chain2 : chain3
            v f chain1 : chain2
            v k K1 : top leaf chain1
            v k K2 : mid1 chain1
            s f unused :
            v f vunused :
            w f wunused :
            v k K3 : mid2
        """,
    ),
    "fo_recursion": dict(
        description="self recursion (visible), mutual recursion through a forward declaration (static), a cycle of three",
        lines="""
            v f fact : fact
            s d odd :
            s f even : odd
            s f odd : even
            v d c3 :
            s f c1 : c3
            w f c2 : c1
            v f c3 : c2
            v k K1 : even fact
            v k K2 : c2 c1
        """,
    ),
    "fo_linkage": dict(
        description="static, weak and visible kernels and functions in a mixed order; forward declarations in another order than the definitions",
        lines="""
            w d wfn :
            s d sfn :
            v k K1 : wfn
            v d vfn1 :
            s k K2 : sfn
            w k K3 : vfn1
            v f vfn1 :
            s f sfn : vfn1
            w f wfn : sfn
            v k K4 :
            s f tail :
        """,
    ),
    "fo_fptr": dict(
        description="address-taking by static, visible and kernel takers; indirect calls; the same address taken twice; a function both called and address-taken",
        lines="""
            s f op_a :
            v f op_b :
            s f op_c :
            w f op_d :
            s f taker_s : &op_b &op_a &op_b
            v f taker_v : &op_c op_d &op_c *
            v k K1 : taker_s taker_v &op_c &op_a *
            v k K2 : &op_a
            v k K3 : op_b
        """,
    ),
    "fo_static_reached": dict(
        description="weak functions and a static one calling through pointers, declared before their bodies; the static one reached late through a chain of calls (the .callprototype strings follow a pre-order walk of the calls from each function in G order)",
        lines="""
            v f fma/-/b64,b64,b64,b64 :
            w d f153 :
            w d f155 :
            s d ZZ :
            w d alloc :
            w d C1a :
            w d f350 :
            w d C1b :
            w d f352 :
            w d D1 :
            w d f354 :
            w d f355 :
            w d f359 :
            w d f360 :
            w f f153 : alloc
            w f f155 : f355
            s f ZZ : &fma *5
            w f alloc : &fma *3
            w f C1a : &fma *2
            w f f350 : C1a
            w f C1b : &fma *2
            w f f352 : C1b
            w f D1 : &fma *1 f153
            w f f354 : D1
            w f f355 : ZZ
            w f f359 : f155
            w f f360 : f359
            v k K :
        """,
    ),
    "fo_shuffle_protos": dict(
        description="static kernels and weak functions calling through pointers: several G orders give the .text order and symbols, the .callprototype strings (depth-first order) tell them apart",
        lines="""
            v f fma/-/b64,b64,b64,b64 :
            s k K1 : &fma *4
            s k K2 : &fma *4
            s f S/-/b64 : &fma *1
            w f A/-/b64 : &fma *3
            w f B/-/b64 : &fma *2
            w f C/-/b64 : &fma *1
            w f U/-/b64 : S
        """,
    ),
    "fo_group_externs": dict(
        description="a function whose body first names weak functions and externs declared between them: ptxas creates the externs of the group first, then the weak functions, each part in declaration order (-g, -c -O0, -g -c)",
        lines="""
            w d tw/-/b64 :
            w d t1/-/b64 :
            e f malloc :
            w d t2/-/b64 :
            e f vprintf :
            w f tw/-/b64 : t1 malloc t2 vprintf
            w f t1/-/b64 :
            w f t2/-/b64 :
            v k K : tw
        """,
    ),
    "fo_fptr_param": dict(
        description="indirect calls through pointer parameters (no address taken anywhere), from a static and a visible function",
        lines="""
            s f icall_s : *
            v f icall_v : *
            v k K1 : icall_s
            v k K2 : icall_v icall_s *
        """,
    ),
    "fo_builtins": dict(
        description="ptxas builtins (double div/sqrt/rcp, float div, s64 rem) from kernels, static, visible and forward-declared functions",
        lines="""
            v d later/f64/f64 :
            v f vdiv/f64/f64,f64 : %div
            s f ssqrt/f64/f64 : %sqrt
            v k K1 : ssqrt vdiv %rcp %div
            v k K2 : %rcp %divf later
            s f srem/s64/s64 : %rem %sqrt
            v f later/f64/f64 : %divf srem
            v k K3 : %sqrt
        """,
    ),
    "fo_syscalls": dict(
        description="vprintf/malloc/free from kernels and device functions, repeated calls, calls in another order than the declarations",
        lines="""
            e f vprintf :
            e f malloc :
            e f free :
            s f helper : vprintf free
            v f vhelper/-/b64 : malloc helper
            v k K1 : malloc helper free
            v k K2 : helper
            v k K3 : free malloc vprintf vhelper
            v k K4 : vprintf vprintf
        """,
    ),
    "fo_externs": dict(
        description="externs (relocatable only): called in another order than declared, from a static function, one never called",
        modes=["c"],
        lines="""
            e f ext1 :
            e f ext2/f64/f64,b64 :
            e f ext3/-/b8[12],f32 :
            e f ext_unused :
            e f malloc :
            s f s1 : ext3 ext1
            v f v1 : ext2 s1 malloc
            v k K1 : ext3 v1 ext1
            v k K2 : ext2
        """,
    ),
    "fo_signatures": dict(
        description="prototype strings: scalar and array parameters of every size, f32/f64, no return value",
        lines="""
            v f p_i/b32/b32 :
            v f p_l/u64/s64,b32 :
            v f p_f/f32/f32,f64 :
            v f p_d/f64/f64 :
            v f p_arr/b8[12]/b8[3],b32[2],b16[3],f32[2],u64[2],f64[2] :
            w f p_void/-/ :
            v f p_none/-/b64 :
            v k K : p_i p_l p_f p_d p_arr p_void p_none
        """,
    ),
}


SYSCALL_NAMES = """vprintf malloc free vfprintf __assertfail __profile cnpGetParameterBuffer cnpLaunchDevice
    cnpCtxSynchronize cnpFuncGetAttribute cnpStreamCreate cnpStreamDestroy cnpStreamWaitEvent
    cnpEventCreate cnpEventRecord cnpEventDestroy cnpDeviceGetName cnpDeviceGetAttribute
    cnpGetDeviceCount cnpGetDevice cnpGetLastError cnpSetLastError cnpGetCacheConfig
    cnpGetSharedMemConfig cnpGetLimit cnpDeviceGetTotalMem cnpGetParameterBufferV2
    cnpLaunchDeviceV2 cudaGraphLaunch cudaGraphSetConditional cudaGraphKernelNodeSetParam
    cudaGraphKernelNodeSetGridDim cudaGraphKernelNodeSetEnabled cudaGraphKernelNodeUpdatesApply""".split()


def probes() -> dict[str, dict]:
    out = dict(PROBES)
    others = [n for n in SYSCALL_NAMES if n not in SYSCALL_SIG]
    out["fo_syscall_names"] = dict(
        description="every name ptxas treats as a syscall, declared extern and called (relocatable only), plus a non-syscall extern",
        modes=["c"],
        lines="\n".join(
            [f"e f {n} :" for n in SYSCALL_SIG]
            + [f"e f {n}/b32/b64,b32 :" for n in others]
            + ["e f cudaGetParameterBufferV2/b32/b64,b32 :"]
            + ["v k K : " + " ".join(SYSCALL_NAMES + ["cudaGetParameterBufferV2"])]
        ),
    )
    out["fo_random_dag"] = dict(
        description="a random module of 24 device functions and 4 kernels (seeded): calls, cycles, builtins",
        lines="\n".join(random_graph(7, 24, addr=False)),
    )
    out["fo_random_fptr"] = dict(
        description="a random module with address-taking and indirect calls (seeded)",
        lines="\n".join(random_graph(11, 18, addr=True)),
    )
    return out


DEBUG_EXTRA = """
    v f dbg_a :
    s f dbg_s : %div
    v f dbg_b : dbg_s
    w f dbg_c :
    v k dbg_K : dbg_b dbg_c dbg_a
"""


def debug_target_probe() -> str:
    """tests/probes/dwarf_g.ptx (nvcc -G: `.target sm_75, debug` and DWARF) with generated functions
    added before its DWARF sections: `.target ..., debug` makes every mode order like -g."""
    src = (HERE.parent / "probes" / "dwarf_g.ptx").read_text()
    extra = render([l.strip() for l in DEBUG_EXTRA.strip().splitlines()]).split(".address_size 64\n", 1)[1]
    cut = src.index("\t.section\t.debug_loc")
    head = "// dwarf_g.ptx plus functions whose -c (DFS) and -g orders differ; .target debug acts as -g\n"
    combos = "c+O0 c+g c+lineinfo g+O0 lineinfo+O0"  # -O1 with .target debug: "Optimized debugging not supported"
    return head + f"// modes: {' '.join(ALL)}\n// combos: {combos}\n// generated by gen.py: do not edit\n" + src[:cut] + extra + "\n" + src[cut:]


def main() -> None:
    for name, spec in probes().items():
        lines = [l.strip() for l in spec["lines"].strip().splitlines()]
        modes = spec.get("modes", ALL)
        text = f"// {spec['description']}\n// modes: {' '.join(modes)}\n// generated by gen.py: do not edit\n" + render(lines)
        (HERE / f"{name}.ptx").write_text(text)
    (HERE / "fo_debug_target.ptx").write_text(debug_target_probe())


if __name__ == "__main__":
    main()
