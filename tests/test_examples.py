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
    assert capsys.readouterr().out.strip() == "roundtrip: 10/10 byte-exact"


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
