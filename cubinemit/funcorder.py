"""Function order, ``.nv.callgraph`` and ``.nv.prototype`` from what a PTX module declares.

A compiler backend knows, for every function of a module, its name, whether it is a kernel, its
linkage, the functions it calls (in order of first call site), the functions whose address it
takes, whether it makes an indirect call and its parameter types. From that leaf data alone this
module derives what ptxas 13.0.88 does with it:

* :func:`function_order`: which functions get a ``.text.<f>`` and in which order (every
  per-function section kind follows that order);
* :func:`symbol_creation_order`: the order in which ptxas creates the function symbols, which
  orders ``.nv.callgraph``, ``.nv.prototype`` and, split into local/weak and global, ``.symtab``;
* :func:`callgraph`: the four lists of ``.nv.callgraph``;
* :func:`prototypes`: the entries of ``.nv.prototype`` with their signature strings;
* :func:`signature_strings`: the signature strings at the head of ``.strtab``;
* :func:`declaration_order_from`: the inverse, a declaration order that makes
  :func:`function_order` give the order found in a cubin.

The input is a list of :class:`PtxFunction` in **creation order**: the order in which the PTX first
mentions each function (by prototype or by definition). Builtins that ptxas injects for some
instructions (``div.rn.f64`` calls ``__cuda_sm20_div_rn_f64_full``, see :data:`BUILTIN_FOR_OP`)
are functions of linkage ``"builtin"``; ptxas creates one while it parses the body of the first
function that needs it, so it stands in the list right after that function (after anything the
PTX mentions before that body ends). :func:`place_builtins` puts them there.

Rules (ptxas 13.0.88, every target; measured, see tests/test_funcorder.py):

Let *G* be the non-static functions (visible, weak, extern, builtin, kernels included) in creation
order followed by the static ones (``.func``/``.entry`` without ``.visible``/``.weak``/``.extern``)
in creation order. Let *X* be the address-taken functions, in order of first address-taking when
the functions are walked in *G* order (each one's address uses in code order, see
:attr:`PtxFunction.address_uses`).

* **whole program** (EXEC without ``-g``: default, ``-lineinfo``, ``-O0``): only kernels get a
  ``.text`` (device functions are cloned into their callers). Order: kernels in reverse creation
  order, whatever their linkage.
* **``-g``** (EXEC or with ``-c``) and **``-c -O0``**: every defined function gets a ``.text``, in
  *G* order (builtins count as non-static; uncalled functions included).
* **other relocatable builds** (``-c``, ``-c -lineinfo``, ``-c -O1``...): post-order depth-first
  search. Roots: the static functions in reverse creation order, then the non-static ones in
  reverse creation order. Children of a function: its direct callees in order of first call
  site, followed, when it takes an address or makes an indirect call, by all of *X*; children are
  visited last to first. A function is emitted after its children.
* **address taking** (whole program, ``-g``, ``-c -O0``): when the module takes the address of a
  function (in code or in a variable's initializer), ptxas sorts the list above with equal keys,
  which shuffles it by a rule of its length alone: entry *i* is the list's element
  ``reversed(alloc.params.debug_slot_permutation(n))[i]`` (the permutation of ptxas's -g
  texture-handle table, read backwards: 2 functions keep their order, 3 give 1 2 0, 4 give
  2 0 3 1). The functions that take an address or call through a pointer (in whole program:
  the kernels that reach one) then move to the front, keeping their shuffled order. Measured
  on 2-16 functions in every such mode and target (tests/funcorder_probes fo_shuffle_*,
  tests/probes_fp); the DFS builds are unaffected.
* A PTX ``.target sm_XX, debug`` (nvcc -G) acts as ``-g`` whatever the options
  (:attr:`Mode.ptx_debug`).

Symbols: ptxas walks the order and creates each function's symbol, then those of the functions it
calls that have none yet, in *G* order (externs included: an ``.extern`` function gets a symbol
only when something calls it); for the first function of the order, the address-taken functions
of the whole module join its callees there. ``.symtab`` lists the local and weak ones (static
functions, builtins, weak functions) first, then the global ones, each group in creation order.
Builtins are local in DFS builds and weak in ``-g`` / ``-c -O0`` builds. Being local does not
make them static for the order: a builtin stays a non-static root created in its first caller's
body (printf_switch -c: ``[__internal_accurate_pow, _Z5helloi, __cuda_sm20_div_rn_f64_full,
_Z4calc…]`` with the static declared first; cluster_sm90_90 -c on sm_90+; tests/probes_builtin,
every target), so a reader of a cubin tells them from static functions by name
(``__cuda_sm<N>_``, :func:`is_builtin_name`).

``.nv.callgraph`` (whole program: only kernel -> extern edges, kernels in order, each one's
externs (its inlined callees' included) from its last call site backwards; the other three lists
empty):

1. call edges: callers in symbol creation order, each one's callees in first-call order;
2. address-taken functions, in symbol creation order;
3. functions that make an indirect call, in symbol creation order;
4. ``{taker, target}`` for the addresses a function takes (indirect call or not), takers in
   symbol creation order, targets in the taker's order: every taking in EXEC ``-g`` builds,
   each target once at its last taking in relocatable builds (that is the code order of
   optimized code; for plain ``mov``/use sequences it is the PTX order).

Each mark of lists 2 and 3 carries the ``.strtab`` offset of a signature: an address-taken
function's own, and for an indirect caller one mark per call site with its ``.callprototype``'s
(:func:`callgraph`). Those strings stand at the head of ``.strtab`` with the ``.nv.prototype``
ones (:func:`signature_strings`).

``.nv.prototype`` (``-c`` only): every non-kernel visible or weak function (called or not) and
every called extern, except address-taken functions, plus the builtins where they are weak
(``-c -g``, ``-c -O0``), in symbol creation order, with the signature ``#`` + return code +
parameter codes (:func:`signature`); the syscalls of :data:`SYSCALLS` get :data:`SYSCALL_ABI`
appended on sm_80 and later (none on sm_75).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, Literal, get_args

import attrs

from .errors import ModelError
from .nvinfo.callgraph import CallEdge, CallGraph, FunctionMark, Prototype

Linkage = Literal["visible", "weak", "static", "extern", "builtin"]
_Finish = Callable[..., "list[PtxFunction] | None"]
LINKAGES: tuple[str, ...] = get_args(Linkage)

#: Instructions for which ptxas 13.0.88 calls an injected builtin (sm_75 .. sm_120, -c and -g).
BUILTIN_FOR_OP: dict[str, str] = {
    "div.rn.f64": "__cuda_sm20_div_rn_f64_full",
    "div.rz.f64": "__cuda_sm20_div_rz_f64_v2",
    "div.rm.f64": "__cuda_sm20_div_rd_f64_v2",
    "rcp.rn.f64": "__cuda_sm20_dblrcp_rn_slowpath_v3",
    "rcp.rz.f64": "__cuda_sm20_rcp_rz_f64",
    "sqrt.rn.f64": "__cuda_sm20_dsqrt_rn_f64_mediumpath_v1",
    "sqrt.rz.f64": "__cuda_sm20_dsqrt_rz_f64",
    "rsqrt.approx.f64": "__cuda_sm20_drsqrt_f64_slowpath_v2",
    "div.rn.f32": "__cuda_sm3x_div_rn_noftz_f32_slowpath",
    "div.rn.ftz.f32": "__cuda_sm3x_div_rn_ftz_f32_slowpath",
    "div.rz.f32": "__cuda_sm20_div_rz_f32",
    "sqrt.rn.f32": "__cuda_sm20_sqrt_rn_f32_slowpath",
    "sqrt.rn.ftz.f32": "__cuda_sm20_sqrt_rn_ftz_f32_slowpath",
    "sqrt.rz.f32": "__cuda_sm20_sqrt_rz_f32_slowpath",
    "rcp.rn.f32": "__cuda_sm20_rcp_rn_f32_slowpath",
    "rcp.rn.ftz.f32": "__cuda_sm20_rcp_rn_ftz_f32_slowpath",
    "rcp.rz.f32": "__cuda_sm20_rcp_rz_f32_slowpath",
    "div.s64": "__cuda_sm20_div_s64",
    "div.u64": "__cuda_sm20_div_u64",
    "rem.s64": "__cuda_sm20_rem_s64",
    "rem.u64": "__cuda_sm20_rem_u64",
    "div.s16": "__cuda_sm20_div_s16",
}

#: ``.nv.prototype`` strings of the builtins (they get one in ``-c -g`` and ``-c -O0``, where
#: their symbols are weak; in other ``-c`` builds they are local and get none).
BUILTIN_SIGNATURE: dict[str, str] = {
    "__cuda_sm20_div_rn_f64_full": "#ddd",
    "__cuda_sm20_div_rz_f64_v2": "#ddd",
    "__cuda_sm20_div_rd_f64_v2": "#ddd",
    "__cuda_sm20_dblrcp_rn_slowpath_v3": "#ddi",
    "__cuda_sm20_rcp_rz_f64": "#dd",
    "__cuda_sm20_dsqrt_rn_f64_mediumpath_v1": "#ddiddd",
    "__cuda_sm20_dsqrt_rz_f64": "#dd",
    "__cuda_sm20_drsqrt_f64_slowpath_v2": "#dd",
    "__cuda_sm3x_div_rn_noftz_f32_slowpath": "#fff",
    "__cuda_sm3x_div_rn_ftz_f32_slowpath": "#fff",
    "__cuda_sm20_div_rz_f32": "#fff",
    "__cuda_sm20_sqrt_rn_f32_slowpath": "#ff",
    "__cuda_sm20_sqrt_rn_ftz_f32_slowpath": "#ff",
    "__cuda_sm20_sqrt_rz_f32_slowpath": "#ff",
    "__cuda_sm20_rcp_rn_f32_slowpath": "#ff",
    "__cuda_sm20_rcp_rn_ftz_f32_slowpath": "#ff",
    "__cuda_sm20_rcp_rz_f32_slowpath": "#ff",
    "__cuda_sm20_div_s64": "#lll",
    "__cuda_sm20_div_u64": "#lll",
    "__cuda_sm20_rem_s64": "#lll",
    "__cuda_sm20_rem_u64": "#lll",
    "__cuda_sm20_div_s16": "#iii",
}

#: Extern functions that ptxas treats as syscalls (the list next to ``vprintf`` in its strings,
#: and the device graph calls named beside its .nv.constant bank names: cudaGraphSetConditional
#: of CUDA-samples graphConditionalNodes gets the ABI suffix from sm_80 on).
SYSCALLS: frozenset[str] = frozenset(
    """vprintf malloc free vfprintf __assertfail __profile cnpGetParameterBuffer cnpLaunchDevice
    cnpCtxSynchronize cnpFuncGetAttribute cnpStreamCreate cnpStreamDestroy cnpStreamWaitEvent
    cnpEventCreate cnpEventRecord cnpEventDestroy cnpDeviceGetName cnpDeviceGetAttribute
    cnpGetDeviceCount cnpGetDevice cnpGetLastError cnpSetLastError cnpGetCacheConfig
    cnpGetSharedMemConfig cnpGetLimit cnpDeviceGetTotalMem cnpGetParameterBufferV2
    cnpLaunchDeviceV2 cudaGraphLaunch cudaGraphSetConditional cudaGraphKernelNodeSetParam
    cudaGraphKernelNodeSetGridDim cudaGraphKernelNodeSetEnabled cudaGraphKernelNodeUpdatesApply""".split()
)


def is_syscall(name: str) -> bool:
    """A PTX-level syscall (:data:`SYSCALLS`), or one ptxas calls itself: ``__cuda_syscall_*``
    (sm_120 lowers ``cp.async.bulk`` to an extern ``__cuda_syscall_cp_async_bulk_unicast``,
    whose -c signature carries :data:`SYSCALL_ABI` like the others: ``#vllill|12p4r20sRx...``,
    tests/probes_rw/realistic_sm90 and tests/nvinfo/probes/builder/kitchen90, sm_120 -c)."""
    return name in SYSCALLS or name.startswith("__cuda_syscall_")


#: What a syscall's signature string carries after ``|`` on sm_80 and later.
SYSCALL_ABI = "12p4r20sRx" + "0" * 60 + "fff9"

# PTX scalar type -> signature letter (8-bit and 16-bit scalars cannot be ABI parameters, but
# arrays of them can: .b8 x[12] is b12, .b16 x[3] is h3).
_TYPE_CODE = {
    **dict.fromkeys(("b8", "u8", "s8"), "b"),
    **dict.fromkeys(("b16", "u16", "s16", "f16", "bf16"), "h"),
    **dict.fromkeys(("b32", "u32", "s32", "f16x2", "bf16x2"), "i"),
    **dict.fromkeys(("b64", "u64", "s64"), "l"),
    "f32": "f",
    "f64": "d",
}


#: the converter of the name-tuple fields: tuple itself (a C call, no Python frame per field)
_names: Callable[[Iterable[str]], tuple[str, ...]] = tuple


def _params(values: Iterable[Param | dict[str, Any]]) -> tuple[Param, ...]:
    """Params as given, or from their JSON form (``{"type": "b8", "count": 12}``)."""
    if type(values) in (tuple, list) and not values:  # most functions have none
        return ()
    return tuple(v if isinstance(v, Param) else Param(**v) for v in values)


@attrs.frozen
class Param:
    """A PTX ``.param`` as declared: ``type`` without the dot (``"b32"``, ``"f64"``); ``count`` for
    an array (``.align 8 .b8 x[16]`` is ``Param("b8", 16)``); alignment does not matter here."""

    type: str
    count: int | None = None

    def code(self) -> str:
        try:
            letter = _TYPE_CODE[self.type]
        except KeyError:
            raise ModelError(f"parameter type .{self.type} has no known signature code") from None
        return letter if self.count is None else f"{letter}{self.count}"


@attrs.frozen
class PtxFunction:
    """A function of a PTX module, as its backend knows it.

    ``calls``: direct callees (builtins and externs included) in order of first call site, no
    duplicates. ``call_sites``: every call site in order, duplicates kept; only whole-program
    ``.nv.callgraph`` edges to externs need it (left empty, ``calls`` stands for it).
    ``address_taken``: every taking of a function's address in the body, in PTX
    order, duplicates kept (``mov.u64 %rd1, f;`` twice is ``("f", "f")``); a module variable
    whose initializer holds function addresses (``.global .u64 tbl[2] = {f, g};``) counts as
    taking them, in initializer order, in the function :func:`table_takers` names (and in no
    other). ``address_uses``: the function addresses the body's code uses, in code order: its
    own takings and the contents of every table it references, whether the table's
    takings went to it or not; it orders *X* only, and defaults to ``address_taken``. Code order
    is the order of the final code (after scheduling), which the PTX order only approximates. ``params`` and
    ``returns``: only needed for :func:`prototypes` and for address-taken functions (builtins
    use :data:`BUILTIN_SIGNATURE`). ``call_prototypes``: the signature (as :func:`signature`
    writes it) of each indirect call's ``.callprototype``, one per call site in code order;
    empty with ``has_indirect_call`` stands for calls whose prototypes are not known.
    """

    name: str
    is_kernel: bool = False
    linkage: Linkage = "visible"
    calls: tuple[str, ...] = attrs.field(default=(), converter=_names)
    address_taken: tuple[str, ...] = attrs.field(default=(), converter=_names)
    has_indirect_call: bool = False
    call_sites: tuple[str, ...] = attrs.field(default=(), converter=_names)
    address_uses: tuple[str, ...] = attrs.field(default=(), converter=_names)
    params: tuple[Param, ...] = attrs.field(default=(), converter=_params)
    returns: tuple[Param, ...] = attrs.field(default=(), converter=_params)
    call_prototypes: tuple[str, ...] = attrs.field(default=(), converter=_names)
    #: the function's address is in the initializer of a module variable no function body
    #: references (a library's table of entry points): taken, by no function
    taken_by_data: bool = False
    #: where the module variables' initializers first hold the function's address, as *X*
    #: walks them (:func:`_x_order`): ``(0, i)`` the i-th address in the initializers of the
    #: visible and weak variables, in declaration order; ``(1, i)`` in the static ones'. None
    #: where no initializer holds it (or the cubin does not say: resolved addresses)
    data_rank: tuple[int, int] | None = attrs.field(default=None, converter=lambda v: None if v is None else (int(v[0]), int(v[1])))

    @property
    def is_static(self) -> bool:
        return self.linkage == "static"

    @property
    def is_defined(self) -> bool:
        return self.linkage != "extern"

    def to_json(self) -> dict[str, object]:
        return attrs.asdict(self, recurse=True, value_serializer=lambda _i, _a, v: list(v) if isinstance(v, tuple) else v)

    @classmethod
    def from_json(cls, data: dict[str, object]) -> PtxFunction:
        return cls(**data)  # type: ignore[arg-type]


_MODE_NAMES = {
    "def": (),
    "c": ("-c",),
    "lineinfo": ("-lineinfo",),
    "g": ("-g",),
    "O0": ("-O0",),
}


@attrs.frozen
class Mode:
    """The ptxas options that matter here: ``-c``, ``-g``, ``-O<n>`` and ``-lineinfo``, and
    ``ptx_debug``: the PTX says ``.target sm_XX, debug`` (nvcc -G), which acts as ``-g``."""

    relocatable: bool = False
    debug: bool = False
    opt_level: int = 3
    lineinfo: bool = False
    ptx_debug: bool = False

    @classmethod
    def from_flags(cls, flags: Iterable[str], *, ptx_debug: bool = False) -> Mode:
        """``Mode.from_flags(["-c", "-O0"])``; unknown flags are ignored."""
        rel = dbg = li = False
        opt = 3
        for f in flags:
            if f in ("-c", "--compile-only"):
                rel = True
            elif f in ("-g", "--device-debug"):
                dbg = True
            elif f in ("-lineinfo", "--generate-line-info"):
                li = True
            elif f.startswith("-O") and f[2:].isdigit():
                opt = int(f[2:])
        return cls(rel, dbg, opt, li, ptx_debug)

    @classmethod
    def named(cls, name: str, *, ptx_debug: bool = False) -> Mode:
        """A mode of tests/oracle.py (``def``, ``c``, ``lineinfo``, ``g``, ``O0``) or ``+``-joined
        flags without dashes (``c+O0``)."""
        flags = _MODE_NAMES.get(name)
        if flags is None:
            flags = tuple("-" + part for part in name.split("+") if part and part != "def")
        return cls.from_flags(flags, ptx_debug=ptx_debug)

    @property
    def device_debug(self) -> bool:
        """-g, or a PTX ``.target ..., debug``."""
        return self.debug or self.ptx_debug

    @property
    def whole_program(self) -> bool:
        """EXEC without -g: device functions are cloned into their callers."""
        return not self.relocatable and not self.device_debug

    @property
    def creation_style(self) -> bool:
        """-g, or -c -O0: functions in G order instead of the post-order DFS."""
        return self.device_debug or (self.relocatable and self.opt_level == 0)


def _table(functions: Sequence[PtxFunction]) -> dict[str, PtxFunction]:
    table: dict[str, PtxFunction] = {}
    for f in functions:
        if f.name in table:
            raise ModelError(f"function {f.name!r} declared twice")
        if f.linkage not in LINKAGES:
            raise ModelError(f"function {f.name!r}: unknown linkage {f.linkage!r}")
        table[f.name] = f
    for f in functions:
        refers = f.calls or f.address_taken or f.address_uses  # most functions name none
        if refers or f.call_sites:
            _check_references(f, table)
        if f.is_kernel and f.linkage == "builtin":
            raise ModelError(f"kernel {f.name!r} cannot have linkage {f.linkage!r}")
        if f.linkage == "extern" and (refers or f.has_indirect_call):
            raise ModelError(f"extern function {f.name!r} has no body")
    for f in functions:
        for r in f.calls:
            if table[r].is_kernel:
                raise ModelError(f"function {f.name!r} calls kernel {r!r}")
    return table


def _check_references(f: PtxFunction, table: dict[str, PtxFunction]) -> None:
    """:func:`_table`'s checks of the functions ``f`` calls or takes the address of."""
    if len(set(f.calls)) != len(f.calls):
        raise ModelError(f"function {f.name!r}: calls lists a callee twice (call_sites keeps repeats)")
    if f.call_sites and _first(f.call_sites) != list(f.calls):
        raise ModelError(f"function {f.name!r}: call_sites disagree with calls")
    for what, refs in (
        ("calls", f.calls),
        ("takes the address of", f.address_taken),
        ("uses the address of", f.address_uses),
    ):
        for r in refs:
            if r not in table:
                raise ModelError(f"function {f.name!r} {what} unknown function {r!r}")


def _first(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _last(values: Iterable[str]) -> list[str]:
    return list(reversed(dict.fromkeys(reversed(list(values)))))


def table_takers(functions: Sequence[PtxFunction], references: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Which function takes the addresses a module variable's initializer holds (a vtable):
    the first that references the variable in ptxas's walk, which starts from each function in
    *G* order and visits a function before its direct callees, those last to first, wherever
    the bodies stand. ``functions`` in creation order with their ``calls``; ``references``:
    function -> the variables its code references, in code order. Returns variable -> taker.
    (tests/funcorder_probes fo_data_taker: kernel make, defined after destructor d1, takes vt;
    fo_fptr_global: K references tbl, then its static callee pick takes ctbl before kernel L;
    cuda-samples newdelete -c.)"""
    table = _table(functions)
    takers: dict[str, str] = {}
    seen: set[str] = set()
    stack = list(reversed(g_order(functions)))
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        for var in references.get(name, ()):
            takers.setdefault(var, name)
        stack += [c for c in table[name].calls if c in table and c not in seen]
    return takers


def g_order(functions: Sequence[PtxFunction]) -> list[str]:
    """*G*: non-static functions in creation order, then static ones in creation order."""
    return [f.name for f in functions if not f.is_static] + [f.name for f in functions if f.is_static]


def address_taken_order(functions: Sequence[PtxFunction]) -> list[str]:
    """*X*: address-taken functions by first use, as :func:`_x_order` walks the functions in
    *G* order and the module variables; then the other functions only module data takes, in
    *G* order."""
    table = _table(functions)
    return _first([*_x_order(g_order(functions), table), *(n for n in g_order(functions) if table[n].taken_by_data)])


def data_ranks(tables: Mapping[str, Sequence[str]], static: Mapping[str, bool]) -> dict[str, tuple[int, int]]:
    """:attr:`PtxFunction.data_rank` of each function the module variables' initializers hold:
    ``tables`` maps each such variable, in declaration order, to the functions in its
    initializer, ``static`` whether it is static. The visible and weak variables' come first
    (phase 0), then the static ones' (phase 1), referenced by a function or not."""
    ranks: dict[str, tuple[int, int]] = {}
    for phase in (0, 1):
        at = 0
        for name, funcs in tables.items():
            if static[name] == bool(phase):
                for f in funcs:
                    ranks.setdefault(f, (phase, at))
                    at += 1
    return ranks


def _x_order(takers: Iterable[str], table: Mapping[str, PtxFunction]) -> list[str]:
    """*X* from ``takers`` in *G* order: the non-static functions' uses (``address_uses``),
    then the function addresses the visible and weak variables' initializers hold (declaration
    order), then the static functions' uses, then the static variables' addresses. A static
    kernel taking h10 h12 h9 h11 beside an unread ``.visible .global ftab[4] = {h12, h9, h11,
    h10}`` visits X as the table has it; a visible kernel, or a static table, as the kernel
    does (fz s0021 -c, every target; tests/funcorder_probes fo_x_data_phases)."""
    names = list(takers)
    data = sorted((f for f in table.values() if f.data_rank is not None), key=lambda f: f.data_rank)  # type: ignore[arg-type,return-value]
    return _first(
        [
            *(t for n in names if not table[n].is_static for t in _uses(table[n])),
            *(f.name for f in data if f.data_rank[0] == 0),  # type: ignore[index]
            *(t for n in names if table[n].is_static for t in _uses(table[n])),
            *(f.name for f in data if f.data_rank[0] == 1),  # type: ignore[index]
        ]
    )


def taken_functions(functions: Sequence[PtxFunction]) -> set[str]:
    """Every function whose address something takes (a body, or module data alone)."""
    return {t for f in functions for t in f.address_taken} | {f.name for f in functions if f.taken_by_data}


def first_group_takings(functions: Sequence[PtxFunction], mode: Mode) -> set[str]:
    """The address-taken functions whose symbols ptxas creates with the first function's
    callees (:func:`_creation_groups`): every taken one in relocatable builds, module data's
    takings too (tests/funcorder_probes/fo_table_load -c); in -g executables as well when some
    function calls through a pointer (fo_table_load, fo_g_data_take_icall), else only those
    some code takes. There a function only a variable's initializer takes (``.global .u64
    ftab[2] = {f0, f2};``; static: the address resolved, the taking still listed) is named by
    its first caller like any callee (tests/funcorder_probes/fo_g_data_take: ``f1 k0 .text.k0
    f0 .nv.constant0.k0 k1 .text.k1 f2``; fo_g_data_take_visible; every target)."""
    if mode.device_debug and not mode.relocatable and not any(f.has_indirect_call for f in functions):
        return {t for f in functions for t in f.address_taken}
    return taken_functions(functions)


def _uses(f: PtxFunction) -> tuple[str, ...]:
    return f.address_uses or f.address_taken


def _has_text(f: PtxFunction, mode: Mode) -> bool:
    if not f.is_defined:
        return False
    return f.is_kernel or not mode.whole_program


def _shuffled(names: list[str], table: dict[str, PtxFunction], whole_program: bool) -> list[str]:
    """The order of a whole-program, -g or -c -O0 module that takes a function's address (by
    code or in a variable's initializer): ptxas sorts its list of functions with equal keys, which
    shuffles them by a rule of their number alone (the reverse of
    alloc.params.debug_slot_permutation, the -g texture-handle order), and the functions that
    take addresses or call through a pointer sort first (tests/funcorder_probes fo_shuffle_*;
    measured on 2-16 functions, -g, -c -O0 and whole program, every target)."""
    from .alloc.params import debug_slot_permutation

    out = [names[j] for j in reversed(debug_slot_permutation(len(names)))]
    lead = _takers(table, whole_program)
    return [n for n in out if n in lead] + [n for n in out if n not in lead]


def shuffled_orders_after(order: Sequence[str], lead: set[str], gone: set[str], limit: int = 20_000) -> set[tuple[str, ...]] | None:
    """Whole program with addresses taken: the kernel orders ptxas may give once the kernels
    ``gone`` are removed, given the kernels' ``order`` and the ``lead`` ones (those that take an
    address or call through a pointer; the survivors of ``lead`` still lead afterwards).

    The order alone does not tell the declaration order back: the leading kernels' places in
    the shuffled list are lost when they move to the front (:func:`_shuffled`). Every placement
    is one declaration order; each gives an order after the removal. None when the placements
    exceed ``limit`` or ``order`` does not start with the ``lead`` kernels."""
    from itertools import combinations
    from math import comb

    from .alloc.params import debug_slot_permutation

    n, t = len(order), len(lead)
    if set(order[:t]) != lead or comb(n, t) > limit:
        return None
    back = list(reversed(debug_slot_permutation(n)))  # shuffled[i] = names[back[i]]
    kept_lead = lead - gone
    out: set[tuple[str, ...]] = set()
    for places in combinations(range(n), t):
        shuffled: list[str] = []
        leaders, others = iter(order[:t]), iter(order[t:])
        chosen = set(places)
        for i in range(n):
            shuffled.append(next(leaders) if i in chosen else next(others))
        names = [""] * n  # the kernels in reverse declaration order
        for i, j in enumerate(back):
            names[j] = shuffled[i]
        left = [k for k in names if k not in gone]
        # no kernel left that takes an address: nothing is shuffled any more
        again = [left[j] for j in reversed(debug_slot_permutation(len(left)))] if kept_lead else left
        out.add(tuple([k for k in again if k in kept_lead] + [k for k in again if k not in kept_lead]))
    return out


def _takers(table: dict[str, PtxFunction], whole_program: bool) -> set[str]:
    """The functions that take an address or call through a pointer; in whole-program builds a
    kernel counts when a function inlined into it does (fo_random_fptr: K1 and K3 only call such
    functions and still lead K0)."""
    direct = {n for n, f in table.items() if f.address_taken or f.has_indirect_call}
    if not whole_program:
        return direct
    out = set()
    for name in table:
        seen, stack = {name}, [name]
        while stack:
            cur = stack.pop()
            if cur in direct:
                out.add(name)
                break
            for c in table[cur].calls:
                if c in table and c not in seen:
                    seen.add(c)
                    stack.append(c)
    return out


def without_launches(functions: Sequence[PtxFunction]) -> list[PtxFunction]:
    """The functions with the kernel addresses their code takes left out: a device-side launch
    (dynamic parallelism: ``mov.u64 %rd, kernel;`` for cudaLaunchDevice) takes a kernel's
    address, which .nv.callgraph lists like any other taking, but the order of the functions
    ignores it: no DFS children, no shuffle (dynpar_rdc, tests/probes_rw6: -c gives the non-static
    roots in reverse creation order, -c -O0 and -g -c the plain *G* order, every target)."""
    kernels = {f.name for f in functions if f.is_kernel}
    if not any(t in kernels for f in functions for t in (*f.address_taken, *f.address_uses)):
        return list(functions)
    return [
        attrs.evolve(
            f,
            address_taken=tuple(t for t in f.address_taken if t not in kernels),
            address_uses=tuple(t for t in f.address_uses if t not in kernels),
        )
        for f in functions
    ]


def function_order(functions: Sequence[PtxFunction], mode: Mode) -> list[str]:
    """The functions that get a ``.text``, in ptxas's order (see module doc for the rules)."""
    functions = without_launches(functions)
    table = _table(functions)
    if mode.whole_program:
        order = [f.name for f in reversed(functions) if _has_text(f, mode)]
    elif mode.creation_style:
        order = [n for n in g_order(functions) if table[n].is_defined]
    else:
        return _dfs_order(functions, table)
    return _shuffled(order, table, mode.whole_program) if taken_functions(functions) else order


def _dfs_order(functions: Sequence[PtxFunction], table: dict[str, PtxFunction]) -> list[str]:
    taken = address_taken_order(functions)
    roots = [f.name for f in reversed(functions) if f.is_static] + [
        f.name for f in reversed(functions) if not f.is_static
    ]
    out: list[str] = []
    seen: set[str] = set()

    def children(f: PtxFunction) -> list[str]:
        kids = list(f.calls)
        if f.address_taken or f.has_indirect_call:
            kids += taken
        return kids

    for root in roots:
        if root not in seen:
            out += _post_order(root, lambda name: children(table[name]), seen, lambda name: table[name].is_defined)
    return out


def _post_order(root: str, children: Callable[[str], list[str]], seen: set[str], keep: Callable[[str], bool]) -> list[str]:
    """The functions reached from ``root`` and not ``seen`` yet, each after its children, which
    are visited last to first; only those ``keep`` accepts are listed. ``seen`` is updated.
    Iterative: (function, its children left to visit) on a stack."""
    out: list[str] = []
    seen.add(root)
    stack: list[tuple[str, list[str]]] = [(root, children(root))]
    while stack:
        name, kids = stack[-1]
        while kids and kids[-1] in seen:
            kids.pop()
        if kids:
            kid = kids.pop()
            seen.add(kid)
            stack.append((kid, children(kid)))
            continue
        stack.pop()
        if keep(name):
            out.append(name)
    return out


def symbol_creation_order(functions: Sequence[PtxFunction], mode: Mode, order: Sequence[str]) -> list[str]:
    """The function symbols in the order ptxas creates them (``order`` as :func:`function_order`).

    Whole program: the kernels in ``order``, each followed by the externs it (or a device function
    cloned into it) calls, in *G* order. Clones (``$kernel$func``) are not listed.
    """
    table = _table(functions)
    _check_order(table, mode, order)
    g_rank = {n: i for i, n in enumerate(g_order(functions))}
    created: dict[str, None] = {}
    if mode.whole_program:
        for k, externs in _kernel_externs(functions, table, order).items():
            created.setdefault(k, None)
            for e in sorted(externs, key=g_rank.__getitem__):
                created.setdefault(e, None)
        return list(created)
    for group in _creation_groups(table, first_group_takings(functions, mode), order):
        created.update(dict.fromkeys(sorted(group, key=lambda n: (_group_class(table[n]), g_rank[n]))))
    return list(created)


def _group_class(f: PtxFunction) -> int:
    """Within a creation group ptxas creates the externs first, then the functions the module
    defines, each part in *G* order (tests/funcorder_probes fo_group_externs: ``tw`` calls
    weak ``t1``, ``malloc``, weak ``t2``, ``vprintf``, declared in that order, and -g -c writes
    the symbols and ``.nv.prototype`` of malloc, vprintf, t1, t2; nvcc -G thrust samples, where
    ``terminate_with_message`` calls ``vprintf`` and the earlier declared ``cuda::std::terminate``)."""
    return 0 if f.linkage == "extern" else 1


def _creation_groups(table: dict[str, PtxFunction], taken: set[str], order: Sequence[str]) -> list[list[str]]:
    """Outside whole program, the function symbols as ptxas creates them, in groups: each
    function of ``order`` in turn, then together the functions it calls (the first one: also
    those any code takes the address of) that do not exist yet, which ptxas creates in *G*
    order, externs first (:func:`_group_class`). Which functions form a group does not depend
    on the *G* order."""
    created: set[str] = set()
    groups: list[list[str]] = []
    for i, name in enumerate(order):
        if name not in created:
            created.add(name)
            groups.append([name])
        refs = set(table[name].calls) | (taken if i == 0 else set())
        new = sorted(c for c in refs if c not in created)
        if new:
            created.update(new)
            groups.append(new)
    return groups


def symbol_order(functions: Sequence[PtxFunction], mode: Mode, order: Sequence[str]) -> list[str]:
    """The function symbols in ``.symtab`` order: local and weak ones (static functions,
    builtins, weak functions), then global ones, each in creation order. Not for whole-program
    builds (whose clones are not modelled)."""
    if mode.whole_program:
        raise ModelError("symbol_order models relocatable and -g builds only")
    table = _table(functions)
    created = symbol_creation_order(functions, mode, order)
    local = [n for n in created if table[n].linkage in ("static", "weak", "builtin")]
    local_set = set(local)
    return local + [n for n in created if n not in local_set]


def _kernel_externs(functions: Sequence[PtxFunction], table: dict[str, PtxFunction], order: Sequence[str]) -> dict[str, list[str]]:
    """Whole program: each kernel of ``order`` -> the externs it reaches (:func:`_externs_reached`),
    through the address-taken copies too when it takes an address or calls through a pointer."""
    copies = _copied(functions, table)
    lead = _takers(table, whole_program=True) if copies else set()
    return {k: _externs_reached(table, k, copies if k in lead else ()) for k in order}


def _copied(functions: Sequence[PtxFunction], table: dict[str, PtxFunction]) -> list[str]:
    """Whole program: the device functions every kernel that takes an address or calls through
    a pointer gets a copy of (the address-taken ones), in their layout order: by name."""
    return sorted((n for n in taken_functions(functions) if table[n].is_defined and not table[n].is_kernel), key=str.encode)


def _externs_reached(table: dict[str, PtxFunction], kernel: str, copies: Sequence[str] = ()) -> list[str]:
    """Externs a kernel calls once its device functions are inlined into it, in the order of
    their last call (each call site of a device function expands its body; recursion stops).
    ``copies``: for a kernel that takes an address or calls through a pointer, every
    address-taken function, by name: it gets a copy of each after its own code, laid out by
    name (Module.rename_function), so their calls come after its own
    (tests/funcorder_probes/fo_data_taker: use, which only calls through the vtable, calls free
    in d0's copy; cuda-samples newdelete)."""
    seq: list[str] = []

    def walk(name: str, stack: tuple[str, ...]) -> None:
        f = table[name]
        for c in f.call_sites or f.calls:
            if table[c].linkage == "extern":
                seq.append(c)
            elif c not in stack:
                walk(c, stack + (c,))

    walk(kernel, (kernel,))
    for name in copies:
        walk(name, (kernel, name))
    return _last(seq)


def _check_order(table: dict[str, PtxFunction], mode: Mode, order: Sequence[str]) -> None:
    want = {n for n, f in table.items() if _has_text(f, mode)}
    if len(set(order)) != len(order) or set(order) != want:
        missing, extra = sorted(want - set(order)), sorted(set(order) - want)
        raise ModelError(f"order does not list each function with a .text once (missing {missing}, extra {extra})")


def callgraph(
    functions: Sequence[PtxFunction],
    mode: Mode,
    order: Sequence[str],
    *,
    string_offset: Callable[[str], int] | None = None,
    sm: int = 75,
) -> CallGraph:
    """The four lists of ``.nv.callgraph`` as ptxas writes them.

    A mark's value is the ``.strtab`` offset of a signature (``string_offset``; 1 without it):
    an address-taken function's own signature, and for an indirect caller one mark per call
    site (:attr:`PtxFunction.call_prototypes`) with its ``.callprototype``'s signature."""
    table = _table(functions)
    if mode.whole_program:
        _check_order(table, mode, order)
        # a kernel whose address an initializer holds (R_CUDA_FUNC_DESC_64) is marked taken,
        # with no string (their order: semantic.build, from the .nv.constant4 slots;
        # tests/probes_data init_kernel_addresses)
        marks = [FunctionMark(k, 0) for k in order if k in table and table[k].is_kernel and table[k].taken_by_data]
        return CallGraph([CallEdge(k, e) for k, externs in _kernel_externs(functions, table, order).items() for e in reversed(externs)], marks)
    created = symbol_creation_order(functions, mode, order)
    defined_callers = [n for n in created if table[n].is_defined]
    calls = [CallEdge(n, c) for n in defined_callers for c in table[n].calls]
    taken = taken_functions(functions)

    def takes(name: str) -> list[str]:
        seq = table[name].address_taken
        return _last(seq) if mode.relocatable else list(seq)

    def offset(text: str) -> int:
        return string_offset(text) if string_offset is not None else 1

    def indirect(name: str) -> list[FunctionMark]:
        protos = table[name].call_prototypes
        if not protos:
            return [FunctionMark(name)] if table[name].has_indirect_call else []
        return [FunctionMark(name, offset(p)) for p in protos]

    return CallGraph(
        calls,
        # a kernel taken for a device-side launch is marked with no string (0; dynpar_rdc)
        [FunctionMark(n, (0 if table[n].is_kernel else offset(signature(table[n], sm))) if string_offset else 1) for n in created if n in taken],
        [m for n in defined_callers for m in indirect(n)],
        [CallEdge(n, t) for n in defined_callers for t in takes(n)],
    )


#: the names of the functions ptxas injects for some instructions (``div.rn.f64`` calls
#: ``__cuda_sm20_div_rn_f64_full``, cooperative-group barriers ``__cuda_sm70_barrier_sync_0``...;
#: :data:`BUILTIN_FOR_OP`): ``__cuda_sm<N>_``, ``__cuda_sm3x_``, ``__cuda_sm_8x_`` (the sm_80+
#: emulation of Volta's mma.sync.m8n8k4: tests/probes_builtin/bi_nested), ``__cuda_reduxsync_``
#: (redux.sync under -g/-O0: ggml mmid), and the other families ptxas's strings name
#: (``__cuda_sm1xx_``, ``__cuda_scalar_video*``, ``__cuda_cp_async*``); not its syscalls
#: (``__cuda_syscall_``) nor the sanitizer's hooks
_BUILTIN_NAME = re.compile(r"^__cuda_(sm_?[0-9x]+|reduxsync|scalar|cp_async)_")


def is_builtin_name(name: str) -> bool:
    """Whether ``name`` is one of ptxas's injected builtins (see :data:`_BUILTIN_NAME`)."""
    return _BUILTIN_NAME.match(name) is not None


#: the sm_70 warp-synchronous builtins, WEAK in every mode (the others are WEAK only under -g
#: and -c -O0, and stand right after their first caller already)
_WARP_BUILTIN = "__cuda_sm70_"


def _injected(f: PtxFunction) -> bool:
    """Whether ptxas creates ``f`` in the body of its first caller: a builtin, also where a
    reader of the cubin holds it as a WEAK function (the sm_70 warp builtins in every mode,
    every builtin under -g), since no PTX declares one (dxtc -c sm_75: bar.warp.sync,
    rcp.rn.f32, then barrier.sync 0 create __cuda_sm70_warpsync, the rcp slow path and
    __cuda_sm70_barrier_sync_0 in k's body, in that order, and the DFS roots them last to
    first; tests/probes_builtin/bi_warp_creation)."""
    return f.linkage == "builtin" or (f.linkage == "weak" and is_builtin_name(f.name))


#: builtins ptxas creates along with another one that a body calls, though the body does not
#: call them: tcgen05.alloc's guardrails create the tensor-memory mask helper right after
#: ..._allocation_granularity_invalid. It is kept only where some code calls it (the -g
#: guardrails of tcgen05.ld/st), and then it stands there, before that code (tests/
#: probes_compat/tensor_memory -g sm_100a: k_alloc's guardrails, the helper, k_ld's)
_CREATED_WITH: Final = {
    "__cuda_sm10x_tcgen05_guardrail_trap_allocation_granularity_invalid": ("__cuda_sm10x_create_mask_from_bit_idx_and_alloc_size_v1",),
}


def _creates(f: PtxFunction, table: Mapping[str, PtxFunction]) -> list[str]:
    """The builtins ``f``'s body creates where they do not exist yet, in creation order: those
    it calls, each with its :data:`_CREATED_WITH` companions that the module keeps."""
    out: list[str] = []
    for c in f.calls:
        if _injected(table[c]):
            out += [n for n in (c, *(x for x in _CREATED_WITH.get(c, ()) if x in table)) if n not in out]
    return out


def _creation_rank(functions: Sequence[PtxFunction]) -> dict[str, float]:
    """Where ptxas creates each function's prototype entry: at its declaration, but a WEAK
    builtin (``__cuda_sm70_shflsync_down_p`` of ``shfl.sync.down`` with a predicate, sm_75-89)
    in the body of its first caller, right after it, although it stands with the front of the
    declaration order (tests/probes_builtin/bi_weak_strings -c sm_75-89: fa, k1 (calls it),
    fb give the strings of fa, the builtin, fb)."""
    rank = {f.name: float(i) for i, f in enumerate(functions)}
    for i, f in enumerate(functions):
        if f.linkage == "weak" and f.name.startswith(_WARP_BUILTIN):
            callers = [rank[g.name] for g in functions if f.name in g.calls and not g.name.startswith(_WARP_BUILTIN)]
            if callers and min(callers) > i:
                # right after the caller; several of them in their declaration (first-call)
                # order. Never earlier than its own place: ggml_misc_G -c sm_75, where the
                # builtins follow the weak functions and their static callers come first
                rank[f.name] = min(callers) + 0.5 + i / (2 * len(functions) + 2)
    return rank


def signature_strings(functions: Sequence[PtxFunction], mode: Mode, order: Sequence[str], sm: int) -> list[str]:
    """The signature strings ptxas puts at the head of ``.strtab`` (before ``.shstrtab``), in
    ``.strtab`` order, each once where it first stands.

    Measured on every target in -c, -g, -g -c and -O0 -c, with nvcc -G's ``.target debug`` too
    (tests/probes_fp, tests/funcorder_probes fo_static_reached, fo_shuffle_protos), the order
    is the mode's whatever the ``.text`` order:

    * the ``.callprototype`` signatures of the indirect calls, functions walked depth first
      (pre-order: a function, then its callees in call order) from each function in *G*
      order, a function's call sites last to first;
    * the signature of every address-taken function, *X* order last to first (even though
      ``.nv.prototype`` leaves those functions out);
    * the ``.nv.prototype`` signatures, declaration order last to first.

    (CuTe's thrust allocators under nvcc -G: the constructors' and destructor's strings come
    before those of the deallocators they reach, which an earlier function walks first.)"""
    table = _table(functions)
    declared = _creation_rank(functions)
    created = [p.signature for p in sorted(prototypes(functions, mode, order, sm), key=lambda p: declared[p.symbol])]
    if mode.whole_program:
        return list(dict.fromkeys(reversed(created)))
    seen: set[str] = set()
    walk: list[str] = []
    for root in g_order(functions):
        stack = [root]
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            walk.append(name)
            stack += [c for c in reversed(table[name].calls) if c not in seen]
    strings = [p for n in walk if table[n].is_defined for p in reversed(table[n].call_prototypes)]
    # a kernel taken for a device-side launch gets no string (its .nv.callgraph mark holds 0:
    # dynpar_rdc, tests/probes_rw6)
    strings += reversed([signature(table[n], sm) for n in address_taken_order(functions) if not table[n].is_kernel])
    return list(dict.fromkeys(strings + created[::-1]))


def signature(function: PtxFunction, sm: int) -> str:
    """The ``.nv.prototype`` string: ``#``, the return code (``v`` for none), parameter codes,
    and ``|`` + :data:`SYSCALL_ABI` for a syscall on sm_80+. Codes: ``i`` 32-bit integer,
    ``l`` 64-bit integer, ``f`` f32, ``d`` f64; arrays: element code (``b`` 8-bit, ``h`` 16-bit,
    ``i``, ``l``, ``f``, ``d``) followed by the element count (``.b8 x[12]`` is ``b12``)."""
    if function.linkage == "builtin":
        try:
            return BUILTIN_SIGNATURE[function.name]
        except KeyError:
            raise ModelError(f"builtin {function.name!r} has no known signature") from None
    if len(function.returns) > 1:
        raise ModelError(f"function {function.name!r}: more than one return parameter")
    ret = function.returns[0].code() if function.returns else "v"
    text = "#" + ret + "".join(p.code() for p in function.params)
    if function.linkage == "extern" and is_syscall(function.name) and sm >= 80:
        text += "|" + SYSCALL_ABI
    return text


def prototypes(functions: Sequence[PtxFunction], mode: Mode, order: Sequence[str], sm: int) -> list[Prototype]:
    """The entries of ``.nv.prototype`` (empty unless ``-c``); ``sm`` is the target (75, 90, 100...)."""
    if not mode.relocatable:
        return []
    table = _table(functions)
    created = symbol_creation_order(functions, mode, order)
    taken = taken_functions(functions)
    kinds = ("visible", "weak", "extern", "builtin") if mode.creation_style else ("visible", "weak", "extern")
    return [
        Prototype(n, signature(table[n], sm))
        for n in created
        if not table[n].is_kernel and table[n].linkage in kinds and n not in taken
    ]


def place_builtins(functions: Sequence[PtxFunction]) -> list[PtxFunction]:
    """The creation order ptxas sees when the functions (builtins ignored) are declared in this
    order and each body comes as early as it can: right after the function and everything it
    calls or takes the address of are declared (without forward references, that is right at
    its declaration). A body creates the builtins it calls that do not exist yet, in call order;
    a builtin nothing calls is dropped."""
    table = _table(functions)
    users = [f for f in functions if not _injected(f)]
    out: list[PtxFunction] = []
    declared: set[str] = set()
    pending: list[PtxFunction] = []

    def needs(f: PtxFunction) -> set[str]:
        return {c for c in f.calls if not _injected(table[c])} | set(f.address_taken) | {f.name}

    for f in users:
        out.append(f)
        declared.add(f.name)
        if f.is_defined:
            pending.append(f)
        progress = True
        while progress:
            progress = False
            for g in list(pending):
                if needs(g) <= declared:
                    pending.remove(g)
                    for c in _creates(g, table):
                        if table[c] not in out:
                            out.append(table[c])
                    progress = True
                    break
    made = {f.name for f in out}
    out += [table[n] for n in _builtin_tail([f.name for f in out if _injected(f)], table, made)]
    return out


def _builtin_tail(builtins: Sequence[str], table: dict[str, PtxFunction], made: set[str]) -> list[str]:
    """The builtins that the bodies of ``builtins`` create, in creation order: ptxas parses an
    injected builtin's body after the module's, and it creates the builtins it calls that do
    not exist yet (``mma.sync.m8n8k4`` on sm_80+ calls __cuda_sm_8x_mma_col_row_f32_f16_f16_f32,
    whose body calls __cuda_sm_8x_mma_shfl_f16 and ..._row_col_...: they come after every
    user function; CUTLASS 07_volta_tensorop_gemm for compute_80, tests/probes_builtin/
    bi_nested). ``made``: the functions created already (updated)."""
    queue, tail = list(builtins), []
    for b in queue:  # grows while it is walked
        for c in _creates(table[b], table):
            if c not in made:
                made.add(c)
                tail.append(c)
                queue.append(c)
    return tail


def declaration_order_from(
    order: Sequence[str],
    functions: Iterable[PtxFunction],
    mode: Mode,
    *,
    hint: Sequence[str] = (),
    budget: int = 150_000,
    symbols: Sequence[str] | None = None,
    accept: Callable[[list[PtxFunction]], bool] | None = None,
) -> list[PtxFunction]:
    """A creation order of ``functions`` for which :func:`function_order` gives ``order``.

    ``functions`` may come in any order. ``hint``: function names in the order ptxas created their
    symbols, as far as the cubin tells (the ``.nv.callgraph`` address-taken list followed by the
    ``.nv.prototype`` entries is a good one); where the rules leave freedom, functions follow it,
    so that the symbols, ``.nv.callgraph`` and ``.nv.prototype`` come out as in the cubin too.
    Functions without a ``.text`` (externs; device functions in whole-program builds) are put
    first, in ``hint`` order.

    The result is a realizable PTX creation order (see :func:`definition_order`); builtins stand
    where ptxas creates them. Ambiguity, and what this returns:

    * functions without a ``.text`` do not take part in the order;
    * whole program: only the kernels' relative order is fixed (reversed);
    * ``-g`` / ``-c -O0``: only the order within the non-static and within the static functions
      is fixed; the statics are declared first;
    * ``-c``: in the post-order DFS, a function that was already emitted when its turn as a root
      comes may stand almost anywhere; the root sequence found first (longest DFS blocks first,
      the other functions in ``hint`` order) is used, and the relative order of the address-taking functions (which decides the order
      X is visited in) is searched.

    ``symbols``: the function symbols in ``.symtab`` order as the cubin has them (relocatable
    and -g builds); a candidate must give them too (:func:`symbol_order`), so the search goes on
    where the hint alone picks a creation order that names them otherwise.

    ``accept``: a last test of each candidate (the decomposer's: the signature strings come out
    as in the cubin), the search going on past a candidate it refuses. Where a module takes an
    address, several *G* orders give the same ``.text`` order and symbols, but the walk from
    each function in *G* order that orders the ``.callprototype`` strings differs (tests/funcorder_probes
    fo_shuffle_protos: static kernels and weak functions that call through pointers, -g and
    nvcc -G).

    Raises :class:`ModelError` when no order is found (``budget`` bounds the search).
    """
    real = _table(list(functions))
    # the search orders by the rules of function_order, which ignore device-side launches
    funcs = without_launches(list(real.values()))
    table = _table(funcs)
    _check_order(table, mode, order)
    want = list(order)
    hint_rank = {n: i for i, n in enumerate(hint)}
    users = [f.name for f in funcs if not _injected(f)]
    wanted = set(want)
    no_text = sorted((n for n in users if n not in wanted), key=lambda n: hint_rank.get(n, len(hint_rank)))
    no_text_set = set(no_text)

    later = [0]

    def finish(user_order: Sequence[str], builtins_placed: bool = False) -> list[PtxFunction] | None:
        named = list(no_text) + [n for n in user_order if n not in no_text_set]
        if builtins_placed:
            cand = [table[n] for n in named]
            if definition_order(cand) is None:
                return None
        else:
            named_set = set(named)
            named += [n for n in users if n not in named_set]
            cand = place_builtins([table[n] for n in named] + [f for f in funcs if _injected(f)])
        cand = [real[f.name] for f in cand]
        if _matches(cand):
            return cand
        if builtins_placed or not any(_injected(f) for f in cand):
            return None
        got = function_order(cand, mode)
        if got == want or [n for n in got if not _injected(table[n])] != [n for n in want if not _injected(table[n])]:
            return None  # (moving builtins changes where only they land)
        for moved in _later_builtins(cand):
            # one budget for the whole search: each candidate may try thousands of places,
            # and a cubin no PTX gives may offer many candidates (a cubin with the sm_70 warp
            # builtins of cg_algos -c sm_75 in the wrong order ran for hours)
            later[0] += 1
            if later[0] > _LATER_LIMIT:
                raise ModelError(f"no declaration order makes ptxas emit {want} ({mode}): the search for later bodies gave up after {_LATER_LIMIT} places")
            if _matches(moved):
                return moved
        return None

    def _matches(cand: list[PtxFunction]) -> bool:
        if function_order(cand, mode) == want and (symbols is None or symbol_order(cand, mode, want) == list(symbols)):
            return accept is None or accept(cand)
        return False

    found: list[PtxFunction] | None = None
    if mode.whole_program or mode.creation_style:
        # an address-taking module's order is shuffled: try every unshuffled list
        bases = [want]
        if taken_functions(funcs):
            # an unshuffled list that keeps the hinted functions (address-taken ones in creation
            # order, then prototypes) in their order is tried first
            def disorder(base: list[str]) -> int:
                ranks = [hint_rank[n] for n in (reversed(base) if mode.whole_program else base) if n in hint_rank]
                return sum(1 for i, a in enumerate(ranks) for b in ranks[i + 1 :] if a > b)

            # (creation style: _unshuffled gives only G orders, static functions last)
            before = _g_precedence(list(real.values()), table, want, symbols, mode) if symbols is not None and not mode.whole_program else None
            bases = sorted(_unshuffled(want, table, UNSHUFFLE_LIMIT, mode.whole_program, before), key=disorder)
        for base in bases:
            found = finish(list(reversed(base))) if mode.whole_program else _inverse_g(base, table, finish)
            if found is not None:
                break
    else:
        found = _inverse_dfs(want, funcs, table, finish, budget, hint_rank)
    if found is None:
        raise ModelError(f"no declaration order makes ptxas emit {want} ({mode})")
    return found


#: the placements of the bodies that create builtins tried, times the functions (a bound, not
#: a rule: each try orders the whole module)
_BODY_PLACES = 400_000
#: the later-body placements one search may try over all its candidates (a bound, not a rule)
_LATER_LIMIT = 60_000


def _later_builtins(cand: list[PtxFunction]) -> Iterator[list[PtxFunction]]:
    """Creation orders of ``cand``'s functions with the bodies that create builtins parsed later
    than :func:`place_builtins` puts them. ptxas creates a body's builtins, those it calls that
    do not exist yet, when it parses the body, and a body may come well after its function is
    first mentioned: a prototype declared it earlier (fz f064 -c sm_100a: ``e d`` declared, then
    ``d``, ``k`` and ``e`` defined, e's tcgen05.alloc guardrails are created after k and the DFS
    emits them before k; fz2 g054: f0 declared first and defined after k0, whose body creates
    the f64 division builtin, so f0's creates only the f32 one, after it)."""
    table = _table(cand)
    users = [f for f in cand if not _injected(f)]
    index = {f.name: i for i, f in enumerate(users)}
    creators = [f for f in users if f.is_defined and any(_injected(table[c]) for c in f.calls)]

    def earliest(f: PtxFunction) -> int:
        refs = [index[c] for c in (*f.calls, *f.address_taken) if c in index]
        return max([index[f.name], *refs])

    def created(bodies: dict[int, Sequence[PtxFunction]]) -> list[PtxFunction]:
        out: list[PtxFunction] = []
        made: set[str] = set()
        for i, u in enumerate(users):
            out.append(u)
            made.add(u.name)
            for f in bodies.get(i, ()):
                for c in _creates(f, table):
                    if c not in made:
                        made.add(c)
                        out.append(table[c])
        return out + [table[n] for n in _builtin_tail([f.name for f in out if _injected(f)], table, made)]

    first = [earliest(f) for f in creators]
    tries = 0
    for place in itertools.product(*(range(e, len(users)) for e in first)):
        groups: dict[int, list[PtxFunction]] = {}
        for f, at in zip(creators, place):
            groups.setdefault(at, []).append(f)
        # bodies after the same declaration come in either order in the PTX text
        keys = sorted(groups)
        for orders in itertools.product(*(itertools.permutations(groups[k]) for k in keys)):
            tries += len(cand)
            if tries > _BODY_PLACES:
                return
            out = created(dict(zip(keys, orders)))
            if len(out) == len(cand) and out != cand:
                yield out


def definition_order(functions: Sequence[PtxFunction]) -> list[str] | None:
    """How to write a creation order that has builtins as PTX: the defined functions in the order
    their bodies must come. Write each function's prototype (or its body) where the creation
    order first mentions it; a body creates the builtins it calls that do not exist yet, in call
    order, so the body of the function returned for a run of builtins must come right before
    that run, and the bodies that create nothing may come anywhere after their callees are
    declared. None if no order of bodies creates the builtins where they stand."""
    table = _table(functions)
    names = [f.name for f in functions]
    created: set[str] = set()
    declared: list[str] = []
    bodies: list[str] = []

    def new(u: str) -> list[str]:
        return [c for c in _creates(table[u], table) if c not in created]

    def ready(u: str) -> bool:
        refs = [c for c in table[u].calls if not _injected(table[c])] + list(table[u].address_taken)
        return u not in bodies and table[u].is_defined and all(r in declared for r in refs)

    i = 0
    while i < len(names):
        n = names[i]
        if not _injected(table[n]):
            declared.append(n)
            i += 1
            continue
        j = i
        while j < len(names) and _injected(table[names[j]]):
            j += 1
        run = names[i:j]
        for u in reversed(declared):
            nb = new(u) if ready(u) else []
            if nb and nb == run[: len(nb)]:
                bodies.append(u)
                created.update(nb)
                i += len(nb)
                break
        else:
            # the builtins the builtins' own bodies create, after the module's (_builtin_tail)
            rest = names[i:]
            made = set(created)
            if not all(_injected(table[x]) for x in rest) or _builtin_tail([x for x in names[:i] if _injected(table[x])], table, made) != rest:
                return None
            created.update(rest)
            i = len(names)
    for n in declared:
        if n not in bodies and table[n].is_defined:
            if new(n):
                return None
            bodies.append(n)
    return bodies


#: at most this many unshuffled lists are tried (each as long as the module's function list)
UNSHUFFLE_LIMIT = 2000

#: at most this many steps of the depth-first walk over the takers' places (a bound, not a rule)
_UNSHUFFLE_STEPS = 2_000_000


def _unshuffled(
    order: list[str],
    table: dict[str, PtxFunction],
    budget: int,
    whole_program: bool,
    before: dict[str, set[str]] | None = None,
) -> Iterator[list[str]]:
    """Every list :func:`_shuffled` turns into ``order``: the takers lead ``order``, and each
    choice of their places in the permuted list gives one (at most ``budget``).

    Outside whole program the list must be a *G* order, its static functions last, so a place
    is only taken where the function that lands there is static exactly when its slot in the
    list is one of the last; and ``before[x]`` names functions that must stand before ``x`` in
    it (what the symbols tell, :func:`_g_precedence`). Taker by taker, the search tries each
    place for it after the previous one, placing the functions between as it goes, so that a
    function that cannot stand where it would land ends the run of places (and a table of
    which (place, takers so far) states can still finish cuts it shorter): a module of
    hundreds of functions with a few takers would otherwise run through millions of
    placements first (nvcc -G CuTe sgemm with thrust: 903 and 1,242 functions, 6 takers, 10
    statics)."""
    from .alloc.params import debug_slot_permutation

    n = len(order)
    lead = _takers(table, whole_program)
    k = sum(1 for x in order if x in lead)
    takers, others = order[:k], order[k:]
    if any(x in lead for x in others):
        return
    source = list(reversed(debug_slot_permutation(n)))  # permuted slot i holds base[source[i]]
    tail = n - (0 if whole_program else sum(1 for x in order if table[x].is_static))
    before = before or {}
    after: dict[str, set[str]] = {}
    for x, earlier in before.items():
        for e in earlier:
            after.setdefault(e, set()).add(x)

    def fits(name: str, i: int) -> bool:
        return whole_program or table[name].is_static == (source[i] >= tail)

    # ok[i][t]: slots i.. can be filled once t takers stand before slot i
    ok = [[False] * (k + 1) for _ in range(n + 1)]
    ok[n][k] = True
    for i in range(n - 1, -1, -1):
        for t in range(min(i, k), -1, -1):
            r = i - t
            ok[i][t] = (t < k and fits(takers[t], i) and ok[i + 1][t + 1]) or (r < len(others) and fits(others[r], i) and ok[i + 1][t])
    if not ok[0][0]:
        return
    domains = _taker_counts(others, k, source, fits, ok, before)
    if domains is None:
        return
    at: dict[str, int] = {}  # base position of each function placed so far

    def placeable(name: str, i: int) -> bool:
        p = source[i]
        return all(at.get(e, -1) < p for e in before.get(name, ())) and all(at.get(x, n) > p for x in after.get(name, ()))

    steps = 0

    def place(name: str, slot: int, t: int, r: int | None = None) -> bool:
        # slot ``slot`` can hold ``name`` with ``t`` takers before it (and after it, for a taker
        # itself, one more) and the rest still be filled; ``r``: the index of an other
        nonlocal steps
        steps += 1
        if not fits(name, slot) or not ok[slot + 1][t] or not placeable(name, slot):
            return False
        if r is not None and t not in domains[r]:
            return False
        at[name] = source[slot]
        return True

    def level(j: int, r0: int) -> Iterator[list[str]]:
        # the takers before j are placed and the others before r0; taker j goes after u
        # others, the others r0..u-1 between it and taker j-1 (an other that cannot stand
        # there cannot either once the taker goes further, so the loop stops at it)
        if j == k:
            if all(place(others[r], r + k, k, r) for r in range(r0, len(others))):
                base = [""] * n
                for x, p in at.items():
                    base[p] = x
                yield base
            for r in range(r0, len(others)):
                at.pop(others[r], None)
            return
        u = r0
        while steps < _UNSHUFFLE_STEPS:
            if place(takers[j], u + j, j + 1):
                yield from level(j + 1, u)
                del at[takers[j]]
            if u == len(others) or not place(others[u], u + j, j, u):
                break
            u += 1
        for r in range(r0, u):
            del at[others[r]]

    made = 0
    for base in level(0, 0):
        yield base
        made += 1
        if made >= budget:
            return


def _taker_counts(
    others: list[str],
    k: int,
    source: list[int],
    fits: Callable[[str, int], bool],
    ok: list[list[bool]],
    before: dict[str, set[str]],
) -> list[set[int]] | None:
    """For each function of ``others`` (in their order in the permuted list), how many takers
    may stand before it: a number that puts it where it fits and the rest can follow, not more
    than the next one's nor fewer than the previous one's, and that leaves every function
    ``before`` asks to precede it (or to follow it) a place of its own; narrowed until nothing
    changes. None when one has no number left (no unshuffled list exists)."""
    m = len(others)
    index = {x: r for r, x in enumerate(others)}
    reach = [[False] * (k + 1) for _ in range(m + k + 1)]  # (slot, takers before) reachable
    reach[0][0] = True
    for i in range(m + k):
        for t in range(min(i, k) + 1):
            if reach[i][t]:
                reach[i + 1][t] = reach[i + 1][t] or (i - t < m)
                if t < k:
                    reach[i + 1][t + 1] = True
    doms = [{t for t in range(k + 1) if reach[r + t][t] and fits(x, r + t) and ok[r + t + 1][t]} for r, x in enumerate(others)]
    pairs: list[tuple[int, int]] = [(index[e], index[x]) for x, earlier in before.items() if x in index for e in earlier if e in index]
    changed = True
    while changed:
        changed = False
        for r in range(1, m):  # the counts never fall along the list
            low = min(doms[r - 1], default=k + 1)
            keep = {t for t in doms[r] if t >= low}
            if keep != doms[r]:
                doms[r], changed = keep, True
        for r in range(m - 2, -1, -1):
            high = max(doms[r + 1], default=-1)
            keep = {t for t in doms[r] if t <= high}
            if keep != doms[r]:
                doms[r], changed = keep, True
        for a, b in pairs:  # others[a] stands before others[b] in the unshuffled list
            keep_a = {ta for ta in doms[a] if any(source[a + ta] < source[b + tb] for tb in doms[b])}
            keep_b = {tb for tb in doms[b] if any(source[a + ta] < source[b + tb] for ta in keep_a)}
            if keep_a != doms[a] or keep_b != doms[b]:
                doms[a], doms[b], changed = keep_a, keep_b, True
        if any(not d for d in doms):
            return None
    return doms


def _g_precedence(functions: Sequence[PtxFunction], table: dict[str, PtxFunction], order: Sequence[str], symbols: Sequence[str], mode: Mode) -> dict[str, set[str]]:
    """What the function symbols tell of the *G* order: the functions ptxas creates together
    (:func:`_creation_groups`) come in *G* order, externs apart (:func:`_group_class`), locals
    apart from globals (:func:`symbol_order`)."""
    rank = {x: i for i, x in enumerate(symbols)}
    before: dict[str, set[str]] = {}
    for group in _creation_groups(table, first_group_takings(functions, mode), order):
        for local, cls in ((True, 1), (False, 0), (False, 1)):
            same = sorted(
                (x for x in group if x in rank and (table[x].linkage in ("static", "weak", "builtin")) == local and _group_class(table[x]) == cls),
                key=rank.__getitem__,
            )
            for a, b in zip(same, same[1:]):
                before.setdefault(b, set()).add(a)
    return before


def _inverse_g(order: list[str], table: dict[str, PtxFunction], finish: _Finish) -> list[PtxFunction] | None:
    """G = non-static then static, so the creation order is the statics (declared first, which
    lets every body come wherever its builtins must be created), then the non-static sequence
    with its builtins as they stand."""
    statics = [n for n in order if table[n].is_static]
    return finish(statics + [n for n in order if not table[n].is_static], True)


def _inverse_dfs(
    order: list[str],
    funcs: list[PtxFunction],
    table: dict[str, PtxFunction],
    finish: _Finish,
    budget: int,
    hint_rank: dict[str, int],
) -> list[PtxFunction] | None:
    """Search the root sequence of the post-order DFS (longest blocks first, so that as many
    functions as possible are free to follow ``hint``; backtracking), for each relative order of
    the address-taking functions, and check each candidate."""
    takers = [f.name for f in funcs if _uses(f)]
    statics = {f.name for f in funcs if f.is_static}
    defined = {n for n in order}
    steps = [0]
    # X ends with the functions only module data takes (address_taken_order), in G order:
    # taken as the hint has them (a static table {h7, h9, h7} no function reads beside a kernel
    # taking h9 and h6: X = h9 h6 h7, and the kernel's DFS emits h7 first; fz s0047 -c, every
    # target; tests/probes_data/init_table_unread)
    data_only = sorted((f.name for f in funcs if f.taken_by_data), key=lambda n: (hint_rank.get(n, len(hint_rank)), n))
    for perm in _taker_orders(takers, table, order, hint_rank):
        x = _first([*_x_order(perm, table), *data_only])

        def children(name: str, x: list[str] = x) -> list[str]:
            f = table[name]
            kids = list(f.calls)
            if f.address_taken or f.has_indirect_call:
                kids += x
            return kids

        def emit(root: str, seen: set[str], children: Callable[[str], list[str]] = children) -> list[str]:
            return _post_order(root, children, seen, defined.__contains__)

        # how many functions each root reaches: a root cannot emit a longer block, so no block
        # is longer than the largest count (the scan below starts there, not at the end: with
        # thousands of kernels, scanning every later root for each block was quadratic)
        reach = {r: len(emit(r, set())) for r in order}
        longest = max(reach.values(), default=0)

        def candidates(i: int, seen: set[str]) -> Iterator[tuple[int, set[str], str]]:
            """The roots that can emit the next block order[i:j+1], the longest first (a root
            that reaches fewer functions than the block holds cannot)."""
            static_phase = not statics <= seen
            for j in reversed(range(i, min(len(order), i + longest))):
                r = order[j]
                if r in seen or (r in statics) != static_phase:
                    continue
                if reach[r] < j + 1 - i:
                    continue
                trial = set(seen)
                if emit(r, trial) == order[i : j + 1]:
                    yield j + 1, trial, r

        def search() -> list[PtxFunction] | None:
            """Backtracking over root sequences, on an explicit stack (a module has as many
            roots as kernels: thousands would overflow Python's recursion)."""
            stack: list[tuple[int, set[str], list[str], Iterator[tuple[int, set[str], str]]]] = [(0, set(), [], candidates(0, set()))]
            while stack:
                steps[0] += 1
                if steps[0] > budget:
                    return None
                i, seen, roots, options = stack[-1]
                if i == len(order):
                    stack.pop()
                    if statics <= seen:
                        for user in _creations(roots, order, table, list(perm), hint_rank):
                            # each candidate counts: a cubin no ptxas order gives may offer
                            # millions of them (a reorder's output before the sm_70 warp
                            # builtins were placed right, cg_algos -c sm_75, ran for minutes)
                            steps[0] += 1
                            if steps[0] > budget:
                                return None
                            done = finish(user)
                            if done is not None:
                                return done
                    continue
                step = next(options, None)
                if step is None:
                    stack.pop()
                    continue
                k, trial, r = step
                stack.append((k, trial, roots + [r], candidates(k, trial)))
            return None

        found = search()
        if found is not None or steps[0] > budget:
            return found
    return None


def _taker_orders(takers: list[str], table: dict[str, PtxFunction], order: list[str], hint_rank: dict[str, int]) -> Iterator[tuple[str, ...]]:
    """The *G* orders of the address-using functions the DFS search tries (5040 at most from
    each start): first from the likely *G* order (non-static first, in reverse ``.text``
    order, which undoes the DFS roots' reversal; then the static ones in ``hint`` order, whose
    address-taken list follows their creation), then from the order they were given in. From
    there the budget ran out long before the likely order with eleven of them (cuda-samples
    newdelete -c: eight destructors, and three kernels taking the vtables first)."""
    pos = {n: i for i, n in enumerate(order)}
    likely = sorted(takers, key=lambda n: (table[n].is_static, hint_rank.get(n, len(hint_rank)) if table[n].is_static else 0, -pos.get(n, -1)))
    tried: set[tuple[str, ...]] = set()
    for start in (likely, takers):
        for perm in itertools.islice(itertools.permutations(start), 5040):
            if perm not in tried:
                tried.add(perm)
                yield perm


def _creations(
    roots: list[str], order: list[str], table: dict[str, PtxFunction], takers_g: list[str], hint_rank: dict[str, int]
) -> Iterable[list[str]]:
    """User creation orders (builtins left out) whose DFS roots start with ``roots``: each group
    is its effective roots reversed, the other functions of the group placed in front of it or
    just before the root that emitted them; statics before or after the non-statics."""
    eff = set(roots)
    s_roots = [r for r in roots if table[r].is_static and not _injected(table[r])]
    n_roots = [r for r in roots if not table[r].is_static and not _injected(table[r])]
    # which root emitted each function: the first root at or after it in ``order``
    pos = {n: i for i, n in enumerate(order)}
    root_pos = sorted(pos[r] for r in roots)
    emitted_by = {n: order[root_pos[bisect.bisect_left(root_pos, pos[n])]] for n in order}

    def group(rts: list[str], static: bool, near: bool) -> list[str]:
        rest = [n for n in order if table[n].is_static == static and n not in eff and not _injected(table[n])]
        rest.sort(key=lambda n: hint_rank.get(n, len(hint_rank)))
        if not near:
            return rest + list(reversed(rts))
        out: list[str] = []
        for r in reversed(rts):
            out += [n for n in rest if emitted_by[n] == r]
            out.append(r)
        placed = set(out)
        return [n for n in rest if n not in placed] + out

    taker_set = set(takers_g)

    def x_of(user: list[str]) -> list[str]:
        # only the X the takers' G order gives matters, not their order: takers that use the
        # same addresses (twelve destructors storing the base vtable) may stand in any order
        # among themselves (tests/probes_rw6/rules/vtable_factory -c, every target)
        g = [n for n in user if not table[n].is_static] + [n for n in user if table[n].is_static]
        return _x_order((n for n in g if n in taker_set), table)

    want_x = _x_order(takers_g, table)
    for near in (False, True):
        st, ns = group(s_roots, True, near), group(n_roots, False, near)
        for user in (st + ns, ns + st):
            if x_of(user) == want_x:
                yield user
            else:
                # free takers may move; keep the roots and move the others
                fixed = [n for n in user if n not in taker_set or n in eff]
                free = [n for n in takers_g if n not in eff]
                trial = fixed + free
                if x_of(trial) == want_x:
                    yield trial

