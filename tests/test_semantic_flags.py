"""ptxas flags that change more than the options note (tests/probes_flags).

* -annotate: every function's .nv.info ANNOTATIONS gains a FunctionInfo sub-record
  (``instr/R-regs: N instructions, R R-regs``, R its own register count, N a compiler fact)
  and ptxas's InstructionInfo remarks (loops it does not unroll); spills keep their SpillRefill
  entries, merged with the remarks by .text offset, a remark first at a tie.
* -preserve-relocs -c below sm_90: after the first relocation section asked for a section X,
  ptxas makes ``.nv.resolvedrela<X>`` and drops it; its name stays in both string tables.
* -make-errors-visible-at-exit adds GEN_ERRBAR_AT_EXIT after each function's block of the
  module .nv.info, as -g does.
* -g -suppress-debug-info drops the debug sections but not the debugger's shared window, which
  the Mercury clone of a shared variable's symbol leaves out.
* -Ofc whole program (and -c without kernels), -pic true -c, -pic false whole program,
  -pic true -g, -split-compile (-c, or whole program with several kernels), -preserve-relocs
  whole program below sm_90, -astoolspatch without -g: declined, naming the flag.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

import oracle
from cubinemit.nvinfo import AnnotationNote, Annotations, EIAttr, decode_nvinfo, encode_nvinfo
from cubinemit.nvinfo.records import RawRecord
from cubinemit.reader import read_cubin
from cubinemit.semantic import Module

PROBES = Path(__file__).resolve().parent / "probes_flags"

#: probe -> (targets, modes) each rebuilds byte for byte in
ROUNDTRIP = {
    "annotate_notes": (("sm_75", "sm_86", "sm_90", "sm_100a", "sm_120"), ("annotate", "annotate_c", "annotate_g")),
    "preserve_relocs_c": (("sm_75", "sm_86", "sm_90", "sm_100a"), ("preserve_c", "preserve_g_c")),
    "suppress_debug_shared": (("sm_90", "sm_100a", "sm_120"), ("sdi_g",)),
    "errbar_at_exit": (("sm_75", "sm_86", "sm_90", "sm_100a", "sm_120"), ("mev", "mev_c", "mev_lineinfo")),
    # ptxas ignores -Ofc under -g; -Ofc -c with kernels writes what -c does; -pic given as the
    # mode's default (true whole program, false under -c or -g) changes only the note
    "declined_flags": (("sm_75", "sm_90", "sm_100a"), ("ofc_g", "ofc_c", "pic_true", "pic_false_c", "pic_false_g")),
    # -astoolspatch -g: the debug rules give every device function its symbol and .nv.info
    "tools_patch": (("sm_75", "sm_90", "sm_100a", "sm_120"), ("toolspatch_g",)),
}

#: (probe, targets, mode, the reason its decline gives)
DECLINED = [
    ("declined_flags", ("sm_75", "sm_90", "sm_100a"), "ofc", "-Ofc max whole-program output"),
    ("declined_flags", ("sm_75", "sm_90", "sm_100a"), "pic_c", "-pic true -c output"),
    ("declined_flags", ("sm_75", "sm_90", "sm_100a"), "pic_false", "-pic false whole-program output"),
    ("declined_flags", ("sm_75", "sm_90", "sm_100a"), "pic_g", "-pic true -g output"),
    ("declined_flags", ("sm_75", "sm_90", "sm_100a"), "split", "-split-compile whole-program output with several kernels"),
    ("declined_flags", ("sm_75", "sm_90", "sm_100a"), "split_c", "-split-compile -c output"),
    ("declined_flags", ("sm_75", "sm_86"), "preserve", ".nv.resolvedrela"),
    ("tools_patch", ("sm_75", "sm_90", "sm_100a", "sm_120"), "toolspatch", "-astoolspatch output without -g"),
]


def test_every_probe_is_used():
    assert {p.stem for p in PROBES.glob("*.ptx")} == set(ROUNDTRIP)


@pytest.mark.parametrize("stem", sorted(ROUNDTRIP))
def test_flag_probes_roundtrip(ptxas_ok, stem):
    targets, modes = ROUNDTRIP[stem]
    counts, bad, n = oracle.probe_outcomes(PROBES / f"{stem}.ptx", targets, modes)
    assert counts["exact"] == n, bad


def _no_symbol(index: int) -> str:
    raise AssertionError(f"no symbol record expected, got index {index}")


def _codec_round(body: bytes) -> list:
    return decode_nvinfo(body, section=".nv.info.k", symbol_name=_no_symbol)


def _annotations(data: bytes) -> dict[str, Annotations]:
    obj = read_cubin(data)
    out = {}
    for s in obj.sections:
        if s.name.startswith(".nv.info.") and not s.mercury:
            for r in decode_nvinfo(s.data, section=s.name, symbol_name=str):
                if r.attr is EIAttr.ANNOTATIONS:
                    assert isinstance(r, Annotations), r
                    out[s.name[len(".nv.info.") :]] = r
    return out


@pytest.mark.parametrize("target", ["sm_75", "sm_90", "sm_100a"])
def test_annotations_as_ptxas_writes_them(ptxas_ok, target):
    data = oracle.compile_ptx(PROBES / "annotate_notes.ptx", target, "annotate").read_bytes()
    ann = _annotations(data)
    assert set(ann) == {"k_annotated", "k_notes"}  # scale is inlined
    spill, notes = ann["k_annotated"], ann["k_notes"]
    assert len(spill.spill_refill_offsets) > 10 and not spill.notes
    assert [n.text for n in notes.notes] == ["0x80000010 - Not unrolled: Unsupported loop index variable"]
    module = Module.from_cubin(data)
    for f in (f for f in module.functions if f.name in ann):
        info = f.facts["nvinfo"]
        assert ann[f.name].function_info == f"instr/R-regs: {info['annotated_instructions']} instructions, {info['register_count']} R-regs"
    # without -annotate the spills stay, the rest goes
    plain = _annotations(oracle.compile_ptx(PROBES / "annotate_notes.ptx", target, "def").read_bytes())
    assert set(plain) == {"k_annotated"} and plain["k_annotated"] == Annotations(spill.spill_refill_offsets)


def test_annotations_codec():
    rec = Annotations((0x30, 0x90), (AnnotationNote(0x40, "0x80000005 - Not unrolled: x"), AnnotationNote(0x90, "y")), "instr/R-regs: 7 instructions, 8 R-regs")
    body = encode_nvinfo([rec], symbol_index=lambda name: 0)
    # spills and remarks merged by offset, the remark first at a tie (as ptxas writes llm.c's
    # layernorm_backward kernel8), FunctionInfo last
    kinds = []
    pos = 4
    while pos < len(body):
        kind = struct.unpack_from("<I", body, pos)[0]
        kinds.append(kind)
        if kind == 1:
            pos += 8
        elif kind == 2:
            pos += 12 + (struct.unpack_from("<I", body, pos + 8)[0] + 3 & ~3)
        else:
            pos += 8 + (struct.unpack_from("<I", body, pos + 4)[0] + 3 & ~3)
    assert kinds == [1, 2, 2, 1, 3]
    assert _codec_round(body) == [rec]
    # an unknown sub-record, or a FunctionInfo before the end, decodes raw
    for bad in (body[:4] + struct.pack("<II", 9, 0) + body[4:], body + struct.pack("<II", 1, 0x100)):
        bad = bad[:2] + struct.pack("<H", len(bad) - 4) + bad[4:]
        (got,) = _codec_round(bad)
        assert isinstance(got, RawRecord)


def test_raw_annotations_are_declined(ptxas_ok):
    """An ANNOTATIONS record the codec cannot read would be dropped by the rebuild: declined."""
    data = bytearray(oracle.compile_ptx(PROBES / "annotate_notes.ptx", "sm_90", "annotate").read_bytes())
    sec = read_cubin(bytes(data)).find_section(".nv.info.k_notes")
    at = data.index(sec.data) + sec.data.index(bytes((4, 0x55)))
    struct.pack_into("<I", data, at + 4, 9)  # the first sub-record's type
    with pytest.raises(NotImplementedError, match="ANNOTATIONS record whose sub-records are not modelled"):
        Module.from_cubin(bytes(data))


def test_resolvedrela_names_as_ptxas_leaves_them(ptxas_ok):
    def names(target: str, mode: str) -> list[bytes]:
        obj = read_cubin(oracle.compile_ptx(PROBES / "preserve_relocs_c.ptx", target, mode).read_bytes())
        return obj.find_section(".shstrtab").data.split(b"\0")

    got = names("sm_86", "preserve_c")
    assert b".nv.resolvedrela.text.k_call" in got and b".nv.resolvedrela.nv.global.init" in got
    # right after the first ask for a section, before the second
    for i, n in enumerate(got):
        if n.startswith(b".nv.resolvedrela"):
            target = n[len(b".nv.resolvedrela") :]
            assert got[i - 1] in (b".rel" + target, b".rela" + target), (n, got[i - 1])
    assert not any(n.startswith(b".nv.resolvedrela") for n in names("sm_90", "preserve_c"))
    plain = names("sm_86", "c")
    assert [n for n in got if not n.startswith(b".nv.resolvedrela")] == plain


@pytest.mark.parametrize(("stem", "targets", "mode", "reason"), DECLINED)
def test_declined_with_reason(ptxas_ok, stem, targets, mode, reason):
    for target in targets:
        kind, detail = oracle.semantic_outcome(oracle.compile_ptx(PROBES / f"{stem}.ptx", target, mode).read_bytes())
        assert (kind, reason in detail) == ("declined", True), (target, kind, detail)


@pytest.mark.parametrize(("stem", "targets", "mode", "reason"), DECLINED)
def test_declined_flags_change_the_layout(ptxas_ok, stem, targets, mode, reason):
    """Each declined flag changes the sections or symbols, not only the options note: a build
    that ignored it (the layout without the flag) would not be what ptxas writes."""
    without = {"ofc": "def", "pic_c": "c", "pic_false": "def", "pic_g": "g", "split": "def", "split_c": "c", "preserve": "def", "toolspatch": "def"}[mode]

    def layout(m: str, target: str) -> tuple[list[str], list[str]]:
        obj = read_cubin(oracle.compile_ptx(PROBES / f"{stem}.ptx", target, m).read_bytes())
        return [s.name for s in obj.sections], [y.name for y in obj.symbols]

    for target in targets:
        assert layout(mode, target) != layout(without, target), target


def test_builder_refuses_declined_flags(ptxas_ok):
    """Options the rules do not model are refused by to_cubin too, not written as if absent."""
    module = Module.from_cubin(oracle.compile_ptx(PROBES / "declined_flags.ptx", "sm_90", "c").read_bytes())
    module.options["pic"] = "true"
    with pytest.raises(NotImplementedError, match="-pic true -c"):
        module.to_cubin()
    module = Module.from_cubin(oracle.compile_ptx(PROBES / "declined_flags.ptx", "sm_90", "def").read_bytes())
    module.options["split_compile"] = 2
    with pytest.raises(NotImplementedError, match="-split-compile"):
        module.to_cubin()
    module = Module.from_cubin(oracle.compile_ptx(PROBES / "declined_flags.ptx", "sm_90", "def").read_bytes())
    module.options["pic"] = "false"
    with pytest.raises(NotImplementedError, match="-pic false whole-program"):
        module.to_cubin()


def test_annotate_needs_the_instruction_count(ptxas_ok):
    from cubinemit.errors import ModelError

    module = Module.from_cubin(oracle.compile_ptx(PROBES / "annotate_notes.ptx", "sm_90", "annotate").read_bytes())
    kernel = next(f for f in module.functions if f.name == "k_notes")
    del kernel.facts["nvinfo"]["annotated_instructions"]
    with pytest.raises(ModelError, match="'k_notes': -annotate needs the instruction count"):
        module.to_cubin()


def test_removal_under_suppressed_debug_info_is_refused(ptxas_ok, tmp_path, monkeypatch):
    """-g -suppress-debug-info drops the line tables, not -g's code generation: removing
    k_annotated, whose .maxnreg capped the registers of its callee scale, is refused as under
    -g. Let through, the rebuild keeps scale's old .debug_frame, not what ptxas writes for the
    PTX without k_annotated."""
    from cubinemit.errors import ModelError
    from cubinemit.semantic import model as semantic_model

    src = PROBES / "annotate_notes.ptx"
    data = oracle.compile_ptx(src, "sm_90", "sdi_g").read_bytes()
    with pytest.raises(ModelError, match="launch bounds cap the registers of 'scale'"):
        Module.from_cubin(data).remove_function("k_annotated")
    text = src.read_text()
    start = text.index(".visible .entry k_annotated")
    end = text.index("\n ret;\n}\n", start) + len("\n ret;\n}\n")
    edited = tmp_path / "annotate_notes.ptx"
    edited.write_text(text[:start] + text[end:])
    want = oracle.compile_ptx(edited, "sm_90", "sdi_g").read_bytes()
    monkeypatch.setattr(semantic_model.Module, "_refuse_loosened_register_budget", lambda self, edit, gone: None)
    module = Module.from_cubin(data)
    module.remove_function("k_annotated")
    assert module.to_cubin() != want


@pytest.mark.parametrize("mode", ["mev", "mev_c"])
def test_errbar_at_exit_as_ptxas_writes_it(ptxas_ok, mode):
    """One GEN_ERRBAR_AT_EXIT per function block, right after its FRAME_SIZE (ptxas output);
    none without the flag."""

    def module_records(m: str) -> list:
        obj = read_cubin(oracle.compile_ptx(PROBES / "errbar_at_exit.ptx", "sm_90", m).read_bytes())
        return decode_nvinfo(obj.find_section(".nv.info").data, section=".nv.info", symbol_name=str)

    recs = module_records(mode)
    errbars = [i for i, r in enumerate(recs) if r.attr is EIAttr.GEN_ERRBAR_AT_EXIT]
    functions = [r for r in recs if r.attr is EIAttr.REGCOUNT]
    assert len(errbars) == len(functions) == (3 if mode == "mev_c" else 2)
    assert all(recs[i - 1].attr is EIAttr.FRAME_SIZE for i in errbars)
    assert not any(r.attr is EIAttr.GEN_ERRBAR_AT_EXIT for r in module_records(mode.replace("mev", "def").replace("def_c", "c")))
