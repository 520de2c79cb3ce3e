"""``.nv.callgraph`` / ``.nv.prototype`` layout on ptxas output, and exact round trips of them and
of the note descs on every probe cubin."""

from __future__ import annotations

import pytest
from conftest import needs_oracles

from cubinemit.nvinfo import callgraph, notes
from cubinemit.nvinfo.callgraph import CallEdge, CallGraph, FunctionMark, Prototype

pytestmark = needs_oracles

SENTINELS_ONLY = bytes.fromhex("00000000ffffffff00000000feffffff00000000fdffffff00000000fcffffff")
EXTERN_CALLS = {("k_printf", "vprintf"), ("k_malloc", "malloc"), ("k_malloc", "free")}


def test_every_probe_roundtrips(test_cubins: dict) -> None:
    for key, cub in test_cubins.items():
        graph_bytes = cub.sections.get(".nv.callgraph")
        if graph_bytes is not None:
            g = callgraph.decode_callgraph(graph_bytes, symbol_name=cub.symbol_name)
            assert callgraph.encode_callgraph(g, symbol_index=cub.symbol_index) == graph_bytes, key
            if key[2] == "default":
                # Whole program: device callees are cloned into their callers, so the only edges
                # left are calls of undefined externs (the vprintf/malloc/free syscalls).
                assert g == CallGraph(g.calls), key
                assert all(cub.symbol_shndx[cub.symbol_index(e.callee)] == 0 for e in g.calls), key
                if key[0] == "calls":
                    assert {(e.caller, e.callee) for e in g.calls} == EXTERN_CALLS, key
                elif not g.calls:
                    assert graph_bytes == SENTINELS_ONLY, key
        proto = cub.sections.get(".nv.prototype")
        if proto is not None:
            assert key[2] == "c", key
            entries = callgraph.decode_prototype(proto, symbol_name=cub.symbol_name, string_at=cub.strtab_string)
            back = callgraph.encode_prototype(
                entries,
                symbol_index=cub.symbol_index,
                string_offset=lambda s, strtab=cub.strtab: strtab.index(s.encode() + b"\0"),
            )
            assert back == proto, key
        for name, decode, encode in (
            (".note.nv.tkinfo", notes.decode_tkinfo, notes.encode_tkinfo),
            (".note.nv.cuinfo", notes.decode_cuinfo, notes.encode_cuinfo),
        ):
            desc = cub.notes[name]
            info = decode(desc)
            assert encode(info) == desc, (key, name)  # type: ignore[operator]
        tk = notes.decode_tkinfo(cub.notes[".note.nv.tkinfo"])
        assert isinstance(tk.options, notes.PtxasOptions), key
        assert tk.options.arch == key[1]
        assert tk.options.compile_only == (key[2] == "c") and tk.options.debug == (key[2] == "g")


@pytest.mark.parametrize("arch", ["sm_75", "sm_90", "sm_100a", "sm_120"])
@pytest.mark.parametrize("mode", ["c", "g"])
def test_calls_probe_graph(arch: str, mode: str, test_cubins: dict) -> None:
    cub = test_cubins[("calls", arch, mode)]
    g = callgraph.decode_callgraph(cub.sections[".nv.callgraph"], symbol_name=cub.symbol_name)
    assert set(g.calls) == {
        CallEdge("k_calls", "fact"),
        CallEdge("k_calls", "with_local"),
        CallEdge("fact", "fact"),  # recursion is an edge too
        CallEdge("k_printf", "vprintf"),
        CallEdge("k_malloc", "malloc"),
        CallEdge("k_malloc", "free"),
    }
    # Grouped by ascending caller symbol index, callees in call order.
    callers = [cub.symbol_index(e.caller) for e in g.calls]
    assert callers == sorted(callers)
    assert [e.callee for e in g.calls if e.caller == "k_malloc"] == ["malloc", "free"]
    assert g.address_taken == tuple(
        sorted((FunctionMark("twice"), FunctionMark("thrice")), key=lambda m: cub.symbol_index(m.function))
    )
    assert g.indirect_callers == (FunctionMark("k_fptr"),)
    assert g.indirect_targets == (CallEdge("k_fptr", "twice"), CallEdge("k_fptr", "thrice"))  # order taken in the PTX


@pytest.mark.parametrize("arch", ["sm_75", "sm_90", "sm_120"])
def test_extern_call_order(arch: str, test_cubins: dict) -> None:
    # k_malloc calls malloc then free: -c keeps first-call order, whole program reverses it.
    for mode, order in (("c", ["malloc", "free"]), ("default", ["free", "malloc"])):
        cub = test_cubins[("calls", arch, mode)]
        g = callgraph.decode_callgraph(cub.sections[".nv.callgraph"], symbol_name=cub.symbol_name)
        assert [e.callee for e in g.calls if e.caller == "k_malloc"] == order, mode


@pytest.mark.parametrize("arch", ["sm_75", "sm_90", "sm_120"])
def test_prototypes(arch: str, test_cubins: dict) -> None:
    cub = test_cubins[("calls", arch, "c")]
    protos = callgraph.decode_prototype(
        cub.sections[".nv.prototype"], symbol_name=cub.symbol_name, string_at=cub.strtab_string
    )
    by_name = {p.symbol: p.signature for p in protos}
    assert by_name["fact"] == "#ii"  # int fact(int); the static callees get none
    assert set(by_name) == {"fact", "vprintf", "malloc", "free"}
    assert by_name["vprintf"].startswith("#ill")
    assert by_name["malloc"].startswith("#ll") and by_name["free"].startswith("#vl")
    ext = test_cubins[("extern", arch, "c")]
    eprotos = callgraph.decode_prototype(
        ext.sections[".nv.prototype"], symbol_name=ext.symbol_name, string_at=ext.strtab_string
    )
    assert Prototype("ext_func", "#ii") in eprotos and Prototype("weak_func", "#ii") in eprotos
    g = callgraph.decode_callgraph(ext.sections[".nv.callgraph"], symbol_name=ext.symbol_name)
    assert set(g.calls) == {CallEdge("k_ext", "ext_func"), CallEdge("k_ext", "weak_func")}
    assert g == CallGraph(g.calls)
