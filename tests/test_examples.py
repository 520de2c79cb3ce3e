"""Every example runs, and the bundled goldens (made by ptxas) still round-trip."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cubinemit.cli import main
from cubinemit.reader import read_cubin

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_bundled_cubins_roundtrip(capsys):
    assert main(["roundtrip", str(EXAMPLES / "cubins")]) == 0
    assert capsys.readouterr().out.strip() == "roundtrip: 12/12 byte-exact"


def test_bundled_cubins_are_ptxas_output():
    """The goldens say who made them: ptxas 13.0.88, with the flags make_cubins.sh passes."""
    for path in sorted((EXAMPLES / "cubins").glob("*.cubin")):
        obj = read_cubin(path.read_bytes())
        tkinfo = next(s for s in obj.sections if s.name == ".note.nv.tkinfo").data
        assert b"V13.0.88" in tkinfo
        arch = path.name.split(".")[1]
        assert f"-arch {arch} ".encode() in tkinfo


def test_inspect_and_edit_example(tmp_path):
    out = tmp_path / "edited.cubin"
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "inspect_and_edit.py"), str(EXAMPLES / "cubins" / "vadd.sm_90a.cubin"), str(out)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    names = [s.name for s in read_cubin(out.read_bytes()).symbols]
    assert "vadd_call_counter" in names and "calls" not in names


def test_build_from_scratch_example_matches_ptxas(tmp_path):
    for target in ("sm_90",):
        golden = EXAMPLES / "cubins" / f"vadd_plain.{target}.cubin"
        out = tmp_path / f"vadd.{target}.cubin"
        proc = subprocess.run([sys.executable, str(EXAMPLES / "build_from_scratch.py"), str(golden), str(out)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert out.read_bytes() == golden.read_bytes()


def test_edit_and_rebuild_example(tmp_path):
    out = tmp_path / "renamed.cubin"
    src = EXAMPLES / "cubins" / "vadd_plain.sm_100a.cubin"
    proc = subprocess.run([sys.executable, str(EXAMPLES / "edit_and_rebuild.py"), str(src), "vadd", "vector_add", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    names = [s.name for s in read_cubin(out.read_bytes()).symbols]
    assert "vector_add" in names and "vadd" not in names


def test_synthetic_kernels_match_ptxas_on_the_equivalent_ptx(ptxas_ok, tmp_path):
    import oracle

    out = tmp_path / "synthetic.cubin"
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "synthetic_kernels.py"), str(EXAMPLES / "cubins" / "vadd_plain.sm_90.cubin"), "16", str(out)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    # the same kernels written as PTX: 16 renamed copies of vadd_plain with their .maxntid
    src = (EXAMPLES / "vadd" / "vadd_plain.ptx").read_text()
    head, body = src.split(".visible .entry", 1)
    text = head + "".join(
        (".visible .entry" + body).replace("vadd", f"synthetic_{i:03d}").replace(")\n{", f")\n.maxntid {32 * (1 + i % 8)}, 1, 1\n{{", 1) + "\n"
        for i in range(16)
    )
    ptx = tmp_path / "synthetic.ptx"
    ptx.write_text(text)
    assert out.read_bytes() == oracle.compile_ptx(ptx, "sm_90", "def").read_bytes()
