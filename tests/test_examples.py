"""Every example runs, and the bundled goldens (made by ptxas) still round-trip."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from cubinemit.cli import main
from cubinemit.reader import read_cubin

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_bundled_cubins_roundtrip(capsys):
    assert main(["roundtrip", str(EXAMPLES / "cubins")]) == 0
    assert capsys.readouterr().out.strip() == "roundtrip: 13/13 byte-exact"


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


def test_launch_example_builds_what_ptxas_writes(ptxas_ok, tmp_path):
    """The cubins the GPU example launches: the from-scratch ones are ptxas's bytes, the renamed
    one is what ptxas writes for the renamed PTX."""
    import oracle

    proc = subprocess.run([sys.executable, str(EXAMPLES / "launch_on_gpu.py"), "--build-only", str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "vadd.cubin").read_bytes() == (EXAMPLES / "cubins" / "vadd_plain.sm_90.cubin").read_bytes()
    assert (tmp_path / "blocksum.cubin").read_bytes() == (EXAMPLES / "cubins" / "blocksum.sm_90.cubin").read_bytes()
    ptx = tmp_path / "renamed.ptx"
    ptx.write_text(re.sub(r"\bvadd\b", "vector_add", (EXAMPLES / "vadd" / "vadd.ptx").read_text()))
    assert (tmp_path / "renamed.cubin").read_bytes() == oracle.compile_ptx(ptx, "sm_90a", "def").read_bytes()
    linked = tmp_path / "linked.ptx"  # the kernel and the device function it calls, renamed
    text = (EXAMPLES / "vadd" / "vadd.ptx").read_text()
    linked.write_text(re.sub(r"\b_Z4axpyfff\b", "_Z11scaled_pairfff", re.sub(r"\bvadd\b", "vector_add", text)))
    assert (tmp_path / "linked.cubin").read_bytes() == oracle.compile_ptx(linked, "sm_90a", "c").read_bytes()
    names = {y.name for y in read_cubin((tmp_path / "synthetic.cubin").read_bytes()).symbols}
    assert {f"synthetic_{i:03d}" for i in range(16)} <= names  # bytes: test_synthetic_kernels_match_ptxas...


def _cuda_device() -> str | None:
    """Why the launch test cannot run here, or None when an sm_90 device answers."""
    try:
        from cuda.bindings import driver
    except ImportError:
        return "cuda-bindings is not installed"
    try:
        (err,) = driver.cuInit(0)
    except Exception as exc:  # cuda-bindings 13.5 raises when the driver library is missing
        return f"no CUDA driver ({type(exc).__name__}: {exc})"
    if err != driver.CUresult.CUDA_SUCCESS:
        return f"no CUDA driver/device ({err.name})"
    return None


def test_launch_on_gpu():
    """Loads and launches the five cubins and checks their results (examples/launch_on_gpu.py).
    CI has no GPU and skips this; it ran on an H100 through the device tool (CHANGELOG)."""
    reason = _cuda_device()
    if reason is not None:
        pytest.skip(reason)
    proc = subprocess.run([sys.executable, str(EXAMPLES / "launch_on_gpu.py")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "all launches checked" in proc.stdout
