"""Function order, ``.nv.callgraph`` and ``.nv.prototype`` from PTX leaf data (cubinemit.funcorder),
checked against ptxas 13.0.88 on tests/probes and tests/funcorder_probes.

The leaf model of every probe is computed from its PTX by the small scanner below (never from a
cubin); the cubins are only compared with.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from cubinemit import funcorder as fo
from cubinemit.elf.layout import layout
from cubinemit.errors import ModelError
from cubinemit.nvinfo.callgraph import CallEdge, CallGraph, FunctionMark, Prototype, decode_callgraph, decode_prototype
from cubinemit.reader import read_cubin

sys.path.insert(0, str(Path(__file__).resolve().parent))
import oracle  # noqa: E402
import probes_manifest  # noqa: E402

HERE = Path(__file__).resolve().parent
OWN = HERE / "funcorder_probes"
TARGETS = ("sm_75", "sm_90", "sm_100a")
MODES = ("def", "c", "lineinfo", "g", "O0")
# further flag combinations, on the funcorder probes only
COMBOS = ("c+O0", "c+g", "c+lineinfo", "g+O0", "c+O1", "lineinfo+O0")


# --------------------------------------------------------------------------------------------
# PTX scanner: the leaf model of a module, in creation order


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_HEADER = re.compile(
    r"((?:\.(?:visible|weak|extern)\s+)*)\.(entry|func)\s*(\([^()]*\))?\s*([A-Za-z_$%][\w$]*)\s*(\([^()]*\))?", re.S
)
_PARAM = re.compile(r"\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+[\w$%]+\s*(?:\[\s*(\d+)\s*\])?")
_CALL = re.compile(r"(?<![\w.])call(?:\.uni)?\s+(?:\([^()]*\)\s*,\s*)?([%\w$]+)")
_IDENT = re.compile(r"[A-Za-z_$%][\w$]*")
_PROTO = re.compile(r"([\w$]+)\s*:\s*\.callprototype\s*(\([^()]*\))?\s*_\s*(\([^()]*\))?")
_OPCODE = re.compile(r"(?:^|[;{}:])\s*(?:@!?%\w+\s+)?([a-z][\w.]*)")
_VARIABLE = re.compile(r"\.(?:global|const)\b[^;{]*?([A-Za-z_$][\w$]*)\s*(?:\[[^\]]*\]\s*)*=\s*\{")


def _params(text: str | None) -> list[fo.Param]:
    if not text:
        return []
    return [fo.Param(t, int(n) if n else None) for t, n in _PARAM.findall(text)]


def _body_end(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError("unbalanced braces")


def scan_ptx(text: str) -> list[fo.PtxFunction]:
    """Functions of a PTX module in creation order (first mention; builtins where the body that
    first needs them is parsed). A module variable whose initializer holds function addresses
    counts as taking them in the function funcorder.table_takers names (``taken_by_data`` when
    none does)."""
    text = _COMMENT.sub(" ", text)
    order: list[str] = []
    info: dict[str, dict] = {}
    tables: dict[str, list[str]] = {}  # variable -> functions in its initializer
    static_tables: dict[str, bool] = {}  # variable -> no .visible/.weak
    refs: dict[str, list[tuple[str, str]]] = {}  # function -> its ("addr"/"table", name) in code order
    pos = 0
    while True:
        m = _HEADER.search(text, pos)
        for vm in _VARIABLE.finditer(text, pos, m.start() if m else len(text)):
            init = text[vm.end() - 1 : _body_end(text, vm.end() - 1)]
            funcs = [t for t in _IDENT.findall(init) if t in info]
            if funcs:
                tables[vm.group(1)] = funcs
                quals = text[text.rfind("\n", 0, vm.start()) + 1 : vm.start()]
                static_tables[vm.group(1)] = not re.search(r"\.(?:visible|weak|common)\b", quals)
        if m is None:
            break
        quals, kind, ret, name, params = m.groups()
        rest = m.end()
        # skip performance directives up to the body or the ';'
        j = rest
        while j < len(text) and text[j] not in "{;":
            j += 1
        has_body = j < len(text) and text[j] == "{"
        if name not in info:
            linkage = "static"
            if ".extern" in quals:
                linkage = "extern"
            elif ".weak" in quals:
                linkage = "weak"
            elif ".visible" in quals:
                linkage = "visible"
            order.append(name)
            info[name] = dict(
                name=name, is_kernel=kind == "entry", linkage=linkage, calls=[], call_sites=[], address_taken=[],
                address_uses=[],
                has_indirect_call=False, params=_params(params), returns=_params(ret), call_prototypes=[],
            )
        if not has_body:
            pos = j + 1
            continue
        end = _body_end(text, j)
        body = text[j:end]
        f = info[name]
        if f["linkage"] == "extern":
            f["linkage"] = "visible"
        call_targets: set[int] = set()
        events: list[tuple[float, str, str]] = []
        # an indirect call's signature string comes from the .callprototype it names last
        protos = {
            pm.group(1): fo.signature(fo.PtxFunction(pm.group(1), returns=_params(pm.group(2)), params=_params(pm.group(3))), 75)
            for pm in _PROTO.finditer(body)
        }
        for cm in _CALL.finditer(body):
            target = cm.group(1)
            call_targets.add(cm.start(1))
            if target.startswith("%"):
                f["has_indirect_call"] = True
                label = _IDENT.findall(body[cm.end() : body.index(";", cm.end())])[-1:]
                if label and label[0] in protos:
                    f["call_prototypes"].append(protos[label[0]])
            else:
                events.append((cm.start(1), "call", target))
        for im in _IDENT.finditer(body):
            if im.group(0) in info and im.start() not in call_targets:
                events.append((im.start(), "addr", im.group(0)))
            elif im.group(0) in tables:
                # `ld.global.u64 %rd, [tbl]` loads from the table, taking nothing; `mov.u64
                # %rd, tbl` takes its contents (fo_table_load)
                load = body[: im.start()].rstrip().endswith("[")
                events.append((im.start(), "load" if load else "table", im.group(0)))
        for om in _OPCODE.finditer(body):
            b = fo.BUILTIN_FOR_OP.get(om.group(1))
            if b:
                events.append((om.start(1), "call", b))
        for _, what, target in sorted(events):
            if what == "call":
                if target not in info:  # a builtin, created here
                    order.append(target)
                    info[target] = dict(name=target, linkage="builtin")
                if target not in f["calls"]:
                    f["calls"].append(target)
                f["call_sites"].append(target)
            else:
                refs.setdefault(name, []).append((what, target))
        pos = end
    # a table's takings go to the function funcorder.table_takers names; the others only use
    # its contents
    plain = [fo.PtxFunction(n, linkage=info[n]["linkage"], calls=info[n].get("calls", ())) for n in order]
    takers = fo.table_takers(plain, {n: [t for what, t in r if what == "table"] for n, r in refs.items()})
    claimed: set[str] = set()
    for n in order:
        f = info[n]
        for what, target in refs.get(n, ()):
            if what == "addr":
                f["address_taken"].append(target)
                f["address_uses"].append(target)
                continue
            if what == "load":
                f["address_uses"] += tables[target]
                continue
            if takers.get(target) == n and target not in claimed:
                # ptxas meets a visible table's takings before any static function's
                # (funcorder._x_order): a static function referencing it does not take them
                # (fo_x_data_read -c and -g: k lists only its own `h10 h12 h9 h11`)
                if not (f["linkage"] == "static" and not static_tables[target]):
                    f["address_taken"] += tables[target]
                    claimed.add(target)
            f["address_uses"] += tables[target]
    # a variable no body references still takes the addresses it holds (fo_shuffle_data)
    unclaimed = {t for v, funcs in tables.items() if v not in claimed for t in funcs}
    # where X meets each function in the initializers (funcorder.PtxFunction.data_rank)
    ranks = fo.data_ranks(tables, static_tables)
    return [fo.PtxFunction(**info[n], taken_by_data=n in unclaimed, data_rank=ranks.get(n)) for n in order]


# --------------------------------------------------------------------------------------------
# what a cubin says


class Facts:
    """Text order, decoded .nv.callgraph and .nv.prototype, and the FUNC symbols of a cubin."""

    def __init__(self, data: bytes):
        obj = read_cubin(data)
        lay = layout(obj)
        names = [""] + [s.name for s in lay.symbols]
        self.order = [s.name[len(".text.") :] for s in lay.order if s.name.startswith(".text.")]
        self.func_symbols = [s.name for s in lay.symbols if s.info & 0xF == 2]
        self.callgraph: CallGraph | None = None
        self.prototypes: list[Prototype] | None = None
        strtab = lay.contents[id(next(s for s in lay.order if s.name == ".strtab"))]
        #: the signature strings at the head of .strtab, before ".shstrtab"
        self.signatures = [t.decode() for t in strtab.split(b"\0")[1 : strtab.split(b"\0").index(b".shstrtab")]]
        for s in lay.order:
            if s.name == ".nv.callgraph":
                self.callgraph = decode_callgraph(s.data, symbol_name=names.__getitem__)
            elif s.name == ".nv.prototype":
                self.prototypes = decode_prototype(
                    s.data,
                    symbol_name=names.__getitem__,
                    string_at=lambda off: strtab[off : strtab.index(b"\0", off)].decode(),
                )

    def hint(self) -> list[str]:
        """Symbol creation order as far as the cubin tells: address-taken list, prototypes, then
        the function symbols (for the externs of a -g build, which has no prototypes: the
        decomposer reads their order from the symbols too, semantic.decompose._extern_order)."""
        taken = [m.function for m in self.callgraph.address_taken] if self.callgraph else []
        return list(dict.fromkeys(taken + [p.symbol for p in self.prototypes or []] + self.func_symbols))


# --------------------------------------------------------------------------------------------
# the probe matrix


def _flags(mode: str) -> list[str]:
    return oracle.MODES[mode] if mode in oracle.MODES else ["-" + part for part in mode.split("+")]


def _compile(ptx: Path, target: str, mode: str) -> Path:
    """oracle.compile_ptx, for the flag combinations too (same cache, keyed by text+target+flags)."""
    if mode in oracle.MODES:
        return oracle.compile_ptx(ptx, target, mode)
    import hashlib
    import shutil
    import subprocess

    from cubinemit import toolchain
    from cubinemit.errors import ToolchainError

    flags = _flags(mode)
    key = hashlib.sha256(ptx.read_bytes() + target.encode() + " ".join(flags).encode()).hexdigest()[:16]
    out = oracle.CACHE / key / f"{ptx.stem}.cubin"
    if out.exists():
        return out
    tmp = out.parent / "tmp" / out.name
    tmp.parent.mkdir(parents=True, exist_ok=True)
    args = [str(toolchain.ptxas()), "-arch", target, *flags, ptx.name, "-o", str(tmp)]
    proc = subprocess.run(args, cwd=ptx.parent, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise ToolchainError(f"ptxas {' '.join(args[1:])} failed: {proc.stderr.strip()}")
    shutil.move(str(tmp), out)
    return out


def _own_modes(ptx: Path) -> list[str]:
    m = re.search(r"^// modes: (.*)$", ptx.read_text(), re.M)
    return m.group(1).split() if m else list(MODES)


def _own_combos(ptx: Path, modes: list[str]) -> list[str]:
    m = re.search(r"^// combos: (.*)$", ptx.read_text(), re.M)
    if m:
        return m.group(1).split()
    if modes == ["c"]:  # externs: relocatable only
        return [c for c in COMBOS if c.startswith("c+")]
    return list(COMBOS)


@lru_cache(maxsize=None)
def probe_jobs() -> dict[str, list[tuple[str, str]]]:
    """probe stem -> (target, mode) pairs: the corpus with its manifest modes, the funcorder probes
    with theirs, plus COMBOS on sm_90 for those that compile with -c."""
    jobs: dict[str, list[tuple[str, str]]] = {}
    for p in probes_manifest.probes():
        jobs[p["name"]] = [(t, m) for t in TARGETS for m in p["modes"] if m in MODES]
    for ptx in sorted(OWN.glob("*.ptx")):
        modes = _own_modes(ptx)
        combos = _own_combos(ptx, modes)
        jobs[ptx.stem] = [(t, m) for t in TARGETS for m in modes] + [("sm_90", c) for c in combos]
    return jobs


def _ptx(stem: str) -> Path:
    own = OWN / f"{stem}.ptx"
    return own if own.exists() else oracle.PROBES / f"{stem}.ptx"


@pytest.fixture(scope="session")
def compiled(ptxas_ok: None) -> dict[tuple[str, str, str], Facts]:
    """Every (probe, target, mode) compiled (two threads) and read."""
    from concurrent.futures import ThreadPoolExecutor

    todo = [(stem, t, m) for stem, pairs in probe_jobs().items() for t, m in pairs]
    with ThreadPoolExecutor(2) as pool:
        paths = dict(zip(todo, pool.map(lambda j: _compile(_ptx(j[0]), j[1], j[2]), todo)))
    return {k: Facts(v.read_bytes()) for k, v in paths.items()}


def _model(stem: str, mode: str) -> tuple[list[fo.PtxFunction], fo.Mode]:
    text = _ptx(stem).read_text()
    debug = bool(re.search(r"^\s*\.target[^\n]*\bdebug\b", text, re.M))
    return scan_ptx(text), fo.Mode.named(mode, ptx_debug=debug)


def _sm(target: str) -> int:
    return int(target[3:].rstrip("af"))


PROBE_STEMS = sorted(probe_jobs())


def _offsets(strings: list[str]) -> dict[str, int]:
    """Where each signature string stands in .strtab: from offset 1, one after another."""
    out, at = {}, 1
    for text in strings:
        out[text] = at
        at += len(text) + 1
    return out


@pytest.mark.parametrize("stem", PROBE_STEMS)
def test_probe_matches_ptxas(stem: str, compiled: dict) -> None:
    """function_order, symbol_order, callgraph and prototypes equal what ptxas wrote, for every
    target and mode of the probe (address-taking modules included: their shuffled orders)."""
    for target, mode in probe_jobs()[stem]:
        facts = compiled[(stem, target, mode)]
        funcs, m = _model(stem, mode)
        where = (stem, target, mode)
        assert fo.function_order(funcs, m) == facts.order, where
        order = facts.order
        strings = fo.signature_strings(funcs, m, order, _sm(target))
        assert strings == facts.signatures, where
        assert fo.callgraph(funcs, m, order, string_offset=_offsets(strings).__getitem__) == (facts.callgraph or CallGraph()), where
        assert fo.prototypes(funcs, m, order, _sm(target)) == (facts.prototypes or []), where
        assert (facts.prototypes is not None) == (m.relocatable and bool(fo.prototypes(funcs, m, order, _sm(target)))), where
        if not m.whole_program:
            assert fo.symbol_order(funcs, m, order) == facts.func_symbols, where


@pytest.mark.parametrize("stem", PROBE_STEMS)
def test_inverse_roundtrip(stem: str, compiled: dict) -> None:
    """cubin -> declaration order -> function_order gives the cubin's order back; with the cubin's
    hint, symbols and signature strings the rebuilt .nv.callgraph and .nv.prototype equal the
    cubin's too. The leaf data is fed
    shuffled, so nothing comes from the PTX order."""
    import random

    for target, mode in probe_jobs()[stem]:
        facts = compiled[(stem, target, mode)]
        funcs, m = _model(stem, mode)
        shuffled = list(funcs)
        random.Random(f"{stem}{target}{mode}").shuffle(shuffled)
        # what the decomposer checks a candidate with: the symbols, and the signature strings
        # (fo_shuffle_protos: the G orders that give the .text order differ there); in -c
        # builds, and where externs are declared, the decomposer moves externs and device
        # functions to fit the strings
        # afterwards (semantic.decompose._place_externs; fo_static_reached), so there the
        # strings are no test of the search alone, and the marks are read at the cubin's
        # string offsets
        symbols = None if m.whole_program else facts.func_symbols
        moved = m.relocatable or any(f.linkage == "extern" for f in funcs)
        decl = fo.declaration_order_from(
            facts.order,
            shuffled,
            m,
            hint=facts.hint(),
            symbols=symbols,
            accept=lambda cand: moved or fo.signature_strings(cand, m, facts.order, _sm(target)) == facts.signatures,  # noqa: B023
        )
        where = (stem, target, mode)
        assert sorted(f.name for f in decl) == sorted(f.name for f in funcs if f.linkage != "builtin" or any(f.name in g.calls for g in funcs)), where
        assert fo.function_order(decl, m) == facts.order, where
        assert fo.definition_order(decl) is not None, where
        strings = facts.signatures if moved else fo.signature_strings(decl, m, facts.order, _sm(target))
        assert fo.callgraph(decl, m, facts.order, string_offset=_offsets(strings).__getitem__) == (facts.callgraph or CallGraph()), where
        assert fo.prototypes(decl, m, facts.order, _sm(target)) == (facts.prototypes or []), where


def test_matrix_covers_the_brief(compiled: dict) -> None:
    """Every corpus probe, the three targets and the five modes, and shuffled (address-taking
    whole-program, -g and -c -O0) orders of several lengths, are in the matrix."""
    jobs = probe_jobs()
    assert {p["name"] for p in probes_manifest.probes()} <= set(jobs)
    assert {t for pairs in jobs.values() for t, _ in pairs} == set(TARGETS)
    assert {m for pairs in jobs.values() for _, m in pairs} >= set(MODES) | set(COMBOS)

    def shuffled(key: tuple[str, str, str]) -> bool:
        funcs, m = _model(key[0], key[2])
        return any(f.address_taken for f in funcs) and (m.whole_program or m.creation_style)

    lengths = {len(compiled[k].order) for k in compiled if shuffled(k)}
    assert {"func_pointer", "fo_shuffle_nine", "fo_shuffle_kernels", "fo_shuffle_data"} <= set(jobs) and len(lengths) >= 4


# --------------------------------------------------------------------------------------------
# rules on hand-written leaf data (no ptxas)


def F(name: str, linkage: str = "visible", *calls: str, kernel: bool = False, takes: tuple[str, ...] = (),
      icall: bool = False) -> fo.PtxFunction:
    return fo.PtxFunction(name, kernel, linkage, calls, takes, icall)  # type: ignore[arg-type]


C = fo.Mode.named("c")
G = fo.Mode.named("g")
WHOLE = fo.Mode.named("def")


def test_modes() -> None:
    assert fo.Mode.named("c") == fo.Mode(relocatable=True)
    assert fo.Mode.named("c+O0") == fo.Mode.from_flags(["-c", "-O0"]) == fo.Mode(relocatable=True, opt_level=0)
    assert fo.Mode.named("def").whole_program and fo.Mode.named("O0").whole_program
    assert fo.Mode.named("lineinfo").whole_program and not fo.Mode.named("lineinfo").creation_style
    assert not fo.Mode.named("g").whole_program and fo.Mode.named("g").creation_style
    assert fo.Mode.named("c+O0").creation_style and not fo.Mode.named("c+O1").creation_style
    assert fo.Mode.named("def", ptx_debug=True).creation_style
    assert not fo.Mode.named("def", ptx_debug=True).whole_program


def test_dfs_example() -> None:
    """ptxas-container.md §2.3's h_order2 shape: statics are roots first (reverse creation), then
    the others; callees are visited last to first."""
    funcs = [
        F("s1", "static"), F("s2", "static", "s1"), F("v1"), F("v2", "visible", "v1", "s2"),
        F("K1", "visible", "v2", "v1", kernel=True), F("K2", "visible", "s1", kernel=True),
    ]
    assert fo.function_order(funcs, C) == ["s1", "s2", "K2", "v1", "v2", "K1"]
    assert fo.function_order(funcs, G) == ["v1", "v2", "K1", "K2", "s1", "s2"]
    assert fo.function_order(funcs, WHOLE) == ["K2", "K1"]


def test_address_taken_are_children_of_takers_and_indirect_callers() -> None:
    funcs = [F("a"), F("b"), F("I", "visible", icall=True), F("T", "visible", kernel=True, takes=("b", "a")),
             F("K", "visible", "I", kernel=True)]
    # X = (b, a): visited last to first by I, which K reaches first
    assert fo.address_taken_order(funcs) == ["b", "a"]
    assert fo.function_order(funcs, C) == ["a", "b", "I", "K", "T"]
    cg = fo.callgraph(funcs, C, fo.function_order(funcs, C))
    assert cg.address_taken == (FunctionMark("a"), FunctionMark("b"))
    assert cg.indirect_callers == (FunctionMark("I"),)
    assert cg.indirect_targets == (CallEdge("T", "b"), CallEdge("T", "a"))
    # -g and whole program shuffle the list (G order a b I T K; kernels K T) by its length and
    # put the takers first; whole program counts K, which calls the indirect caller I
    assert fo.function_order(funcs, G) == ["T", "I", "b", "a", "K"]
    assert fo.function_order(funcs, WHOLE) == ["K", "T"]


def test_repeated_address_taking() -> None:
    """-c keeps each target once, at its last taking; -g (EXEC) keeps every taking."""
    funcs = [F("f1"), F("f2"), F("f3"), F("T", "visible", kernel=True, takes=("f3", "f1", "f2", "f3", "f1"))]
    order = fo.function_order(funcs, C)
    assert order == ["f2", "f1", "f3", "T"]
    assert [e.callee for e in fo.callgraph(funcs, C, order).indirect_targets] == ["f2", "f3", "f1"]
    g_order = fo.function_order(funcs, G)
    assert [e.callee for e in fo.callgraph(funcs, G, g_order).indirect_targets] == ["f3", "f1", "f2", "f3", "f1"]


def test_whole_program_extern_edges() -> None:
    """Kernel -> extern edges only, each kernel's externs (inlined callees' included) from the
    last call site backwards."""
    funcs = [
        F("malloc", "extern"), F("free", "extern"), F("vprintf", "extern"),
        fo.PtxFunction("h", linkage="static", calls=("vprintf", "free")),
        fo.PtxFunction("K", True, "visible", calls=("free", "malloc", "vprintf", "h"),
                       call_sites=("free", "malloc", "vprintf", "h", "malloc")),
    ]
    cg = fo.callgraph(funcs, WHOLE, ["K"])
    assert cg == CallGraph([CallEdge("K", "malloc"), CallEdge("K", "free"), CallEdge("K", "vprintf")])
    # relocatable: every edge, first-call order
    order = fo.function_order(funcs, C)
    assert fo.callgraph(funcs, C, order).calls == (
        CallEdge("h", "vprintf"), CallEdge("h", "free"), CallEdge("K", "free"), CallEdge("K", "malloc"),
        CallEdge("K", "vprintf"), CallEdge("K", "h"),
    )


def test_builtins_roots_and_weakness() -> None:
    div, rcp = "__cuda_sm20_div_rn_f64_full", "__cuda_sm20_dblrcp_rn_slowpath_v3"
    funcs = [F("vdiv", "visible", div), F(div, "builtin"), F("k2", "visible", rcp, div, kernel=True), F(rcp, "builtin")]
    # builtins are non-static roots: rcp (created last) is a root before k2
    assert fo.function_order(funcs, C) == [rcp, div, "k2", "vdiv"]
    assert fo.function_order(funcs, G) == ["vdiv", div, "k2", rcp]
    # local in -c (no prototype), weak in -c -g / -c -O0 (prototype with a fixed signature)
    assert [p.symbol for p in fo.prototypes(funcs, C, fo.function_order(funcs, C), 90)] == ["vdiv"]
    cg_mode = fo.Mode.named("c+g")
    protos = fo.prototypes(funcs, cg_mode, fo.function_order(funcs, cg_mode), 90)
    assert Prototype(div, "#ddd") in protos and Prototype(rcp, "#ddi") in protos
    assert fo.place_builtins([funcs[0], funcs[2], funcs[1], funcs[3]]) == funcs


def test_signatures() -> None:
    P = fo.Param
    f = fo.PtxFunction("f", params=[P("b32"), P("u64"), P("f32"), P("f64"), P("b8", 12), P("b16", 3), P("f16x2", 2)],
                       returns=[P("s32")])
    assert fo.signature(f, 90) == "#iilfdb12h3i2"
    assert fo.signature(fo.PtxFunction("g"), 75) == "#v"
    vp = fo.PtxFunction("vprintf", linkage="extern", params=[P("b64"), P("b64")], returns=[P("b32")])
    assert fo.signature(vp, 75) == "#ill"
    assert fo.signature(vp, 80) == "#ill|12p4r20sRx" + "0" * 60 + "fff9"
    assert fo.signature(fo.PtxFunction("vprintf", params=[P("b64")]), 90) == "#vl"  # a defined one is no syscall
    with pytest.raises(ModelError):
        fo.signature(fo.PtxFunction("h", params=[P("pred")]), 90)


def test_prototype_selection() -> None:
    """Visible and weak functions (called or not) and called externs, not kernels, statics or
    address-taken functions, in symbol creation order."""
    funcs = [F("e_unused", "extern"), F("e1", "extern"), F("w"), F("t"), F("s", "static"),
             F("K", "visible", "e1", "s", kernel=True, takes=("t",))]
    order = fo.function_order(funcs, C)
    assert order == ["s", "t", "K", "w"]
    assert [p.symbol for p in fo.prototypes(funcs, C, order, 90)] == ["e1", "w"]
    assert fo.prototypes(funcs, G, fo.function_order(funcs, C), 90) == []


def test_validation() -> None:
    with pytest.raises(ModelError):
        fo.function_order([F("a"), F("a")], C)
    with pytest.raises(ModelError):
        fo.function_order([F("a", "visible", "nope")], C)
    with pytest.raises(ModelError):
        fo.function_order([F("K", kernel=True), F("a", "visible", "K")], C)
    with pytest.raises(ModelError):
        fo.callgraph([F("a"), F("b")], C, ["a"])
    with pytest.raises(ModelError):
        fo.PtxFunction("a", calls=("b", "b")) and fo.function_order([F("b"), fo.PtxFunction("a", calls=("b", "b"))], C)


def test_json_roundtrip() -> None:
    f = fo.PtxFunction(
        "f", False, "weak", calls=("g",), address_taken=("h", "h"), has_indirect_call=True, call_sites=("g", "g"),
        address_uses=("h", "h", "g"), params=[fo.Param("b8", 4)], returns=[fo.Param("f64")],
    )
    data = f.to_json()
    import json

    assert fo.PtxFunction.from_json(json.loads(json.dumps(data))) == f


def test_definition_order() -> None:
    div, sq = "__cuda_sm20_div_rn_f64_full", "__cuda_sm20_dsqrt_rn_f64_mediumpath_v1"
    later = F("later", "visible", sq)
    funcs = [later, F("a", "visible", div), F(div, "builtin"), F(sq, "builtin")]
    # a's body creates div; later (declared first) has its body parsed next and creates sqrt
    assert fo.definition_order(funcs) == ["a", "later"]
    assert fo.definition_order([F(div, "builtin"), F("a", "visible", div)]) is None


def test_inverse_on_hand_data() -> None:
    funcs = [F("s1", "static"), F("s2", "static", "s1"), F("v1"), F("v2", "visible", "v1", "s2"),
             F("K1", "visible", "v2", "v1", kernel=True), F("K2", "visible", "s1", kernel=True)]
    for mode in (C, G, WHOLE, fo.Mode.named("c+O0")):
        order = fo.function_order(funcs, mode)
        back = fo.declaration_order_from(order, reversed(funcs), mode)
        assert fo.function_order(back, mode) == order
    with pytest.raises(ModelError):
        fo.declaration_order_from(["v1", "s1", "s2", "v2", "K2", "K1"], funcs, C)


def test_table_takers_follow_the_walk_not_the_bodies() -> None:
    """Who takes a table's addresses, as ptxas 13.0.88 -c decided it on small modules (statics
    f0-f3 in tbl, declared first; measured by the .nv.callgraph taker and .text order): a
    visible function defined after a static referencing the table; a kernel's callee before a
    later kernel; of two callees, the last called."""
    statics = [F(f"f{i}", "static") for i in range(4)]
    assert fo.table_takers([*statics, F("v4")], {"f1": ["tbl"], "v4": ["tbl"]}) == {"tbl": "v4"}
    kernels = [F("k5", "visible", "f1", kernel=True), F("k4", "visible", kernel=True)]
    assert fo.table_takers([*statics, *kernels], {"f1": ["tbl"], "k4": ["tbl"]}) == {"tbl": "f1"}
    both = [F("k5", "visible", "f1", "f2", kernel=True)]
    assert fo.table_takers([*statics, *both], {"f1": ["tbl"], "f2": ["tbl"]}) == {"tbl": "f2"}
    own = [F("k4", "visible", "f1", kernel=True)]
    assert fo.table_takers([*statics, *own], {"f1": ["tbl"], "k4": ["tbl"]}) == {"tbl": "k4"}


def test_scanner_on_func_pointer() -> None:
    funcs = scan_ptx((oracle.PROBES / "func_pointer.ptx").read_text())
    assert [f.name for f in funcs] == ["_Z6op_addii", "_Z6op_mulii", "_Z6op_subii", "_Z6k_fptrPiiii"]
    k = funcs[-1]
    assert k.is_kernel and k.has_indirect_call and k.address_taken == ("_Z6op_addii", "_Z6op_mulii", "_Z6op_subii")
    assert all(f.linkage == "static" for f in funcs[:3])
