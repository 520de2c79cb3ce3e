"""Edits of modules with line tables (tests/probes_lines): removing or reordering functions
gives the bytes ptxas gives for the PTX with the definitions cut out or moved as blocks (the
header line to the line of the closing brace).

lines.ptx is nvcc -lineinfo output with a called device function (square_plus), an inlined
one (twice: k_sub's inlined-at rows, the only ones, bring .debug_str into the line program)
and four kernels. ptxas writes line tables for it in every whole-program mode, not only under
-lineinfo: the ``.loc`` directives ask for them."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

import oracle
from cubinemit.errors import ModelError
from cubinemit.reader import read_cubin
from cubinemit.semantic import lines
from cubinemit.semantic.build import build
from cubinemit.semantic.decompose import decompose

HERE = Path(__file__).resolve().parent / "probes_lines"
TARGETS = ("sm_75", "sm_86", "sm_90", "sm_100a", "sm_120")
KERNELS = ("_Z7k_scalePff", "_Z5k_addPff", "_Z5k_subPff", "_Z6k_loopPfi")


def _compile(tmp_path: Path, text: str, target: str, mode: str) -> bytes:
    # one file name for every variant: the line tables name the PTX file
    ptx = tmp_path / target / mode / hashlib.sha256(text.encode()).hexdigest()[:12] / "lines.ptx"
    ptx.parent.mkdir(parents=True, exist_ok=True)
    ptx.write_text(text)
    return oracle.compile_ptx(ptx, target, mode).read_bytes()


def _block(text: str, name: str) -> re.Match[str]:
    m = re.search(r"^(?:\.visible )?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?" + re.escape(name) + r"\(.*?\n}\n", text, re.S | re.M)
    assert m is not None, name
    return m


def _swapped(text: str, a: str, b: str) -> str:
    first, second = sorted((_block(text, a), _block(text, b)), key=lambda m: m.start())
    return text[: first.start()] + second.group(0) + text[first.end() : second.start()] + first.group(0) + text[second.end() :]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["lineinfo", "def", "O0", "g"])
@pytest.mark.parametrize("kernel", ["_Z7k_scalePff", "_Z5k_subPff", "_Z6k_loopPfi"])
def test_remove_kernel_with_line_tables_matches_ptxas(ptxas_ok, tmp_path, target, mode, kernel):
    """The kernel's lines leave the embedded PTX text (the last kernel's: with the blank lines
    before it, as ptxas ends the text at the last line left), the rows of the kernels after it
    move up, its sequences go; without k_sub the .debug_line header loses its .debug_str offset
    and .debug_str is made after the PTX text; the relocations are listed as ptxas lists them
    (REL below sm_90: last sequence first). -g (ptxas's own debug information for PTX without
    DWARF): the register tables lose the kernel's records too, and the sequences keep their
    order (not .text order from sm_90 on)."""
    text = (HERE / "lines.ptx").read_text()
    data = _compile(tmp_path, text, target, mode)
    module = decompose(read_cubin(data))
    assert {d.name for d in module.debug} >= {".debug_line", ".nv_debug_line_sass", ".nv_debug_ptx_txt"}
    module.remove_function(kernel)
    cut = _block(text, kernel)
    want = _compile(tmp_path, text[: cut.start()] + text[cut.end() :], target, mode)
    assert want != data
    assert build(module) == want


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["lineinfo", "def", "O0"])
def test_remove_the_last_kernel_with_line_tables_matches_ptxas(ptxas_ok, tmp_path, target, mode):
    """lines.ptx cut down to each kernel in turn, that kernel removed: ptxas's cubin of the
    PTX without kernels. No sequence is left, and .nv_debug_line_sass, which has no file
    table while it maps code, holds the same unit as .debug_line, its directory and file
    tables included (for k_sub without its .debug_str offset as well)."""
    text = (HERE / "lines.ptx").read_text()
    none = text
    for kernel in KERNELS:
        cut = _block(none, kernel)
        none = none[: cut.start()] + none[cut.end() :]
    want = _compile(tmp_path, none, target, mode)
    misses = []
    for kernel in KERNELS:
        alone = text
        for other in KERNELS:
            if other != kernel:
                cut = _block(alone, other)
                alone = alone[: cut.start()] + alone[cut.end() :]
        module = decompose(read_cubin(_compile(tmp_path, alone, target, mode)))
        module.remove_function(kernel)
        if build(module) != want:
            misses.append(kernel)
    assert not misses


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["lineinfo", "O0", "g"])
@pytest.mark.parametrize("pair", [("_Z5k_addPff", "_Z5k_subPff"), ("_Z5k_subPff", "_Z6k_loopPfi"), ("_Z7k_scalePff", "_Z6k_loopPfi")])
def test_reorder_with_line_tables_matches_ptxas(ptxas_ok, tmp_path, target, mode, pair):
    """Swapping two definitions (blocks of different lengths, the lines between them staying)
    maps every row to the line its PTX line moved to; the sequences follow the new .text
    order, and under -g so do the register tables' records. From sm_90 on -g lists the
    static device function's (square_plus) sequence first, out of .text order: the functions
    that are not .visible come first (refused before)."""
    text = (HERE / "lines.ptx").read_text()
    module = decompose(read_cubin(_compile(tmp_path, text, target, mode)))
    a, b = pair
    module.reorder_functions([b, a])
    want = _compile(tmp_path, _swapped(text, a, b), target, mode)
    assert build(module) == want


@pytest.mark.parametrize("target", ("sm_75", "sm_100a"))
def test_line_edits_refused_where_the_text_is_not_followed(ptxas_ok, tmp_path, target):
    """-c -lineinfo names the PTX text section after a checksum of the whole file: the edits
    are refused, the module left as it was."""
    text = (HERE / "lines.ptx").read_text()
    module = decompose(read_cubin(_compile(tmp_path, text, target, "lineinfo_c")))
    before = build(module)
    with pytest.raises(ModelError, match=r"nv_debug_ptx_txt\.\d+ is named after a checksum"):
        module.reorder_functions(["_Z5k_subPff", "_Z5k_addPff"])
    with pytest.raises(ModelError, match=r"nv_debug_ptx_txt\.\d+ is named after a checksum"):
        module.remove_function("_Z5k_addPff")
    assert build(module) == before


def test_definitions_skip_declarations_and_match_inner_braces():
    text = b"\0".join(
        [
            b".version 8.0",
            b".func (.param .b32 r) f(.param .b32 x);",  # a declaration
            b".visible .entry k(",
            b".param .u64 p",
            b")",
            b"{",
            b"{",
            b".reg .b32 t;",
            b"}",
            b"ret;",
            b"}",
            b"",
            b".func (.param .b32 r) f(.param .b32 x)",
            b"{",
            b"ret;",
            b"}",
            b"",
        ]
    )
    assert lines.definitions(text) == {"k": (3, 11), "f": (13, 16)}


def test_rearranged_maps_lines_and_trims_the_tail():
    text = b"".join(x + b"\0" for x in [b"head", b"a1", b"a2", b"", b"b1", b"", b"c1", b"c2", b"c3"])
    blocks = [(2, 3), (5, 5), (7, 9)]
    swapped, where = lines.rearranged(text, blocks, [2, 1, 0])
    assert swapped.split(b"\0")[:-1] == [b"head", b"c1", b"c2", b"c3", b"", b"b1", b"", b"a1", b"a2"]
    assert [where(n) for n in (1, 2, 3, 5, 7, 9)] == [1, 8, 9, 6, 2, 4]
    # the last block goes, and with it the blank line before it
    cut, where = lines.rearranged(text, blocks, [0, 1, None])
    assert cut.split(b"\0")[:-1] == [b"head", b"a1", b"a2", b"", b"b1"]
    assert where(7) is None and where(5) == 5


SEQ = HERE / "seq_hidden_first.ptx"
SEQ_KERNELS = ("k_calls_static", "k_static", "k_static_calls", "k_weak", "k_calls_weak", "k_vis")


def _definitions(text: str) -> dict[str, re.Match[str]]:
    return {m.group(1): m for m in re.finditer(r"^(?:\.visible |\.weak )?\.(?:entry|func) (\w+)\(.*?\n}\n", text, re.S | re.M)}


def _placed(text: str, order: list[str]) -> str:
    """``text`` with the named definitions put in this order in the places they held."""
    defs = _definitions(text)
    slots = sorted((defs[n] for n in order), key=lambda m: m.start())
    out, pos = [], 0
    for slot, name in zip(slots, order):
        out += [text[pos : slot.start()], defs[name].group(0)]
        pos = slot.end()
    return "".join(out) + text[pos:]


@pytest.mark.parametrize("target", TARGETS)
# -g reorders of this probe are refused: -g compiles every function in declaration order, and
# the cubin does not keep where the visible f_vis was declared (test_reorder_with_line_tables_
# matches_ptxas covers -g reorders beside a static device function)
@pytest.mark.parametrize("mode, edit", [(m, e) for m in ("lineinfo", "O0", "g") for e in ("reverse", "swap", "remove") if m != "g" or e == "remove"])
def test_hidden_functions_sequences_first(ptxas_ok, tmp_path, target, mode, edit):
    """From sm_90 on the sequences of the functions that are not .visible (static and weak
    kernels and device functions) come first, then the visible ones, each in .text order;
    edits keep that (CUTLASS basic_gemm -lineinfo sm_100a/sm_120: the reversed module put the
    static cutlass::Kernel<Gemm> after the visible kernels, and -g reorders beside a static
    device function were refused)."""
    text = SEQ.read_text()
    module = decompose(read_cubin(_compile(tmp_path, text, target, mode)))
    if edit == "remove":
        module.remove_function("k_vis")
        cut = _definitions(text)["k_vis"]
        edited = text[: cut.start()] + text[cut.end() :]
    else:
        order = list(reversed(SEQ_KERNELS)) if edit == "reverse" else ["k_vis", "k_static"]
        module.reorder_functions(order)
        edited = _placed(text, order)
    assert build(module) == _compile(tmp_path, edited, target, mode)


@pytest.mark.parametrize("target", ("sm_90", "sm_100a", "sm_120"))
def test_g_reorder_walks_the_static_device_functions(ptxas_ok, tmp_path, target):
    """-g from sm_90 on lists the line sequences in a walk of .text order, each function
    placing itself and then its callees (Module._walked_sequences), so the static device
    functions come in the order their callers reach them: with k_blend defined before k_poly,
    blend comes before square and poly though their .text places stay (tests/probes_debug
    dbg_calls_L). Refused before; now ptxas's bytes."""
    src = HERE.parent / "probes_debug" / "dbg_calls_L.ptx"
    text = src.read_text()
    order = ["_Z7k_blendPKfS0_Pff", "_Z6k_polyPKiPii"]
    data = _compile(tmp_path, text, target, "g")
    module = decompose(read_cubin(data))
    module.reorder_functions(order)
    assert build(module) == _compile(tmp_path, _placed(text, order), target, "g")


@pytest.mark.parametrize("target", TARGETS)
def test_g_register_records_keep_text_order(ptxas_ok, tmp_path, target):
    """-g: the register records (.nv_debug_info_reg_sass/_type) keep .text order where the
    line tables put the functions that are not .visible first: with the visible kv defined
    before the weak kw2, kv's record comes before kw2's (tests/probes_lines/
    g_records_text_order; a random nvcc -rdc module, weak template kernels beside an
    extern "C" one, gave wrong bytes from sm_90 on)."""
    text = (HERE / "g_records_text_order.ptx").read_text()
    order = ["kv", "kw2"]
    module = decompose(read_cubin(_compile(tmp_path, text, target, "g")))
    module.reorder_functions(order)
    want = _compile(tmp_path, _placed(text, order), target, "g")
    records = [s for s in read_cubin(want).sections if s.name == ".nv_debug_info_reg_sass"]
    assert len(records) == 1 and records[0].data.index(b"kv\0") < records[0].data.index(b"kw2\0")
    assert build(module) == want
