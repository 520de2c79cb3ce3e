"""``.note.nv.tkinfo`` / ``.note.nv.cuinfo`` descs: the model reproduces what ptxas writes for
a range of command lines (option order, flag rendering, -g file names, padding)."""

from __future__ import annotations

from pathlib import Path

import nvinfo_oracle as oracle
import pytest
from conftest import needs_oracles

from cubinemit import toolchain
from cubinemit.nvinfo import notes
from cubinemit.nvinfo.notes import CuInfo, PtxasOptions, TkInfo

BIG = [
    "-suppress-stack-size-warning", "-v", "-warn-lmem-usage", "-warn-spills", "-no-bb-merge", "-ret-end",
    "-disable-optimizer-consts", "-maxrregcount", "32", "-minnctapersm", "2", "-maxntid", "128",
    "-func-maxrregcount", "40", "-regUsageLevel", "5", "-suppress-debug-info", "-lineinfo", "-sp-bounds-check",
    "-device-stack-protector", "true", "-O2", "-dlcm", "cg", "-dscm", "cg", "-flcm", "cg", "-fscm", "cg", "-m", "64",
    "-Werror", "-w", "-c", "-opt-fp-atomics", "-preserve-relocs", "-split-compile", "2", "-fmad", "false",
    "-allow-expensive-optimizations", "true", "-pic", "true",
]  # fmt: skip
BIG_OPTIONS = PtxasOptions(
    suppress_stack_size_warning=True, verbose=True, warn_lmem_usage=True, warn_spills=True, no_bb_merge=True,
    ret_end=True, disable_optimizer_consts=True, maxrregcount=32, minnctapersm=2, maxntid=128, func_maxrregcount=40,
    reg_usage_level=5, suppress_debug_info=True, lineinfo=True, sp_bounds_check=True, device_stack_protector="true",
    opt_level=2, arch="sm_100a", dlcm="cg", dscm="cg", flcm="cg", fscm="cg", machine=64, werror=True,
    disable_warnings=True, compile_only=True, opt_fp_atomics=True, preserve_relocs=True, split_compile=2,
    fmad="false", allow_expensive_optimizations="true", pic="true",
)  # fmt: skip

# (probe, target, ptxas args after -arch, expected options); "{in}"/"{out}" are the file names.
CASES: list[tuple[str, str | None, list[str], PtxasOptions]] = [
    ("wmma", "sm_90", [], PtxasOptions(arch="sm_90")),
    ("wmma", "sm_90", ["-O3"], PtxasOptions(arch="sm_90", opt_level=3)),
    ("wmma", "sm_90", ["-O2", "-c", "-lineinfo"], PtxasOptions(lineinfo=True, opt_level=2, arch="sm_90", compile_only=True)),
    ("wmma", "sm_100a", ["--maxrregcount=32"], PtxasOptions(maxrregcount=32, arch="sm_100a")),
    ("wmma", "sm_90", ["-g"], PtxasOptions(input_name="{in}", debug=True, output_name="{out}", arch="sm_90")),
    ("wmma", "sm_80", ["-g", "-O0", "-lineinfo"],
     PtxasOptions(input_name="{in}", debug=True, lineinfo=True, opt_level=0, output_name="{out}", arch="sm_80")),
    ("wmma", None, [], PtxasOptions()),  # no -arch: nothing at all, default sm_75
    ("wmma", "sm_100a", BIG, BIG_OPTIONS),
    ("wmma", "sm_100a", ["-ewp", "-allow-expensive-optimizations", "true", "-pic", "true", "-fmad", "true"],
     PtxasOptions(arch="sm_100a", fmad="true", allow_expensive_optimizations="true", extensible_whole_program=True, pic="true")),
    ("wmma", "sm_100a",
     ["-e", "k_wmma", "-suppress-stack-size-warning", "-warn-double-usage", "-warn-spills", "-override-directive-values",
      "-maxntid", "64", "-Ofc", "max", "-suppress-double-demote-warning", "-make-errors-visible-at-exit",
      "-legacy-bar-warp-wide-behavior", "-suppress-async-bulk-multicast-advisory-warning",
      "-suppress-sparse-mma-advisory-info", "-sanitize", "memcheck", "-split-compile", "2", "-annotate",
      "-g-tmem-access-check", "-preserve-relocs"],
     PtxasOptions(suppress_stack_size_warning=True, entries="k_wmma", warn_spills=True, warn_double_usage=True,
                  maxntid=64, override_directive_values=True, fast_compile="max", arch="sm_100a",
                  suppress_double_demote_warning=True, preserve_relocs=True, make_errors_visible_at_exit=True,
                  legacy_bar_warp_wide_behavior=True, suppress_async_bulk_multicast_advisory_warning=True,
                  suppress_sparse_mma_advisory_info=True, sanitize="memcheck", split_compile=2,
                  tmem_access_check=True, annotate=True)),
    ("toolspatch", "sm_90", ["-astoolspatch", "-w", "-opt-fp-atomics"],
     PtxasOptions(arch="sm_90", disable_warnings=True, tools_patch=True, opt_fp_atomics=True)),
]  # fmt: skip


def _resolve(opts: PtxasOptions, ptx: Path, out: Path) -> PtxasOptions:
    import attrs

    return attrs.evolve(
        opts,
        input_name=ptx.name if opts.input_name == "{in}" else opts.input_name,
        output_name=out.name if opts.output_name == "{out}" else opts.output_name,
    )


@needs_oracles
@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_tkinfo_matches_ptxas(case: tuple, tmp_path: Path) -> None:
    probe, target, args, expected = case
    src = (oracle.PROBES / f"{probe}.ptx").read_text().replace("@TARGET@", target or "sm_75")
    ptx = tmp_path / f"in_{probe}.ptx"
    ptx.write_text(src)
    out = tmp_path / "sub" / "result.cubin"
    out.parent.mkdir()
    arch = ["-arch", target] if target else []
    toolchain.run_ptxas([*arch, *args, str(ptx), "-o", str(out)])
    cub = oracle.read_cubin(out)
    desc = cub.notes[".note.nv.tkinfo"]
    want = _resolve(expected, ptx, out)
    info = notes.decode_tkinfo(desc)
    assert info.options == want
    assert notes.encode_tkinfo(TkInfo.for_ptxas(want, output_basename=out.name)) == desc
    assert len(desc) % 4 == 0
    cuinfo = notes.decode_cuinfo(cub.notes[".note.nv.cuinfo"])
    assert cuinfo == CuInfo(oracle.arch_number(target or "sm_75"))
    assert notes.encode_cuinfo(cuinfo) == cub.notes[".note.nv.cuinfo"]


@needs_oracles
def test_debug_without_output_name(tmp_path: Path) -> None:
    # -g with no -o: the object name is ptxas's default output "elf.o", the options have no -o.
    ptx = tmp_path / "w.ptx"
    ptx.write_text((oracle.PROBES / "wmma.ptx").read_text().replace("@TARGET@", "sm_90"))
    toolchain.run_ptxas(["-arch", "sm_90", "-g", "w.ptx"], cwd=tmp_path)
    desc = oracle.read_cubin(tmp_path / "elf.o").notes[".note.nv.tkinfo"]
    opts = PtxasOptions(input_name="w.ptx", debug=True, arch="sm_90")
    assert notes.decode_tkinfo(desc) == TkInfo(opts, object_name="elf.o")
    assert notes.encode_tkinfo(TkInfo.for_ptxas(opts)) == desc


@needs_oracles
@pytest.mark.parametrize("arch", oracle.TEST_ARCHS)
def test_cuinfo_is_the_ptx_target(arch: str, test_cubins: dict) -> None:
    # The SM of the PTX .target (sm_100a -> 100), whatever -arch compiled it.
    cub = test_cubins[("params", arch, "default")]
    assert notes.decode_cuinfo(cub.notes[".note.nv.cuinfo"]) == CuInfo(oracle.arch_number(arch))


def test_render_examples() -> None:
    assert (
        PtxasOptions(lineinfo=True, opt_level=2, arch="sm_90", compile_only=True).render()
        == "-lineinfo  -O 2 -arch sm_90 -c  "
    )
    assert PtxasOptions().render() == ""
    assert PtxasOptions.parse("w.ptx -g  -o o.cubin -arch sm_90 ") == PtxasOptions(
        input_name="w.ptx", debug=True, output_name="o.cubin", arch="sm_90"
    )
    for bad in ("-arch sm_90 -O 2 ", "-bogus 1 ", "-c x ", "-arch sm_90"):
        with pytest.raises(ValueError):
            PtxasOptions.parse(bad)
    # An options string the model cannot express stays text and re-encodes verbatim.
    info = TkInfo("-knob Foo=1 -arch sm_90 ")
    assert notes.decode_tkinfo(notes.encode_tkinfo(info)) == info
