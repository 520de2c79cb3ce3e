"""The command line as users meet it: output formats, exit codes, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cubinemit.cli import main


@pytest.fixture(scope="module")
def files(cubin, tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("cli")
    out = {}
    for name, (probe, target, mode) in {
        "a": ("func_calls", "sm_90", "def"),
        "b": ("func_calls", "sm_90a", "def"),
        "c": ("texref_unified", "sm_75", "c"),
        "d": ("texref_unified", "sm_75", "memcheck"),  # -sanitize=memcheck: declined at the semantic level
    }.items():
        out[name] = d / f"{name}.cubin"
        out[name].write_bytes(cubin(probe, target, mode))
    bad = d / "sub" / "bad.cubin"
    bad.parent.mkdir()
    bad.write_bytes(out["a"].read_bytes()[:200])
    out["bad"] = bad
    flipped = bytearray(out["c"].read_bytes())
    flipped[0x32] = 0x7F  # e_flags bits 16-23: the reader keeps it, the rules never write it
    out["flipped"] = d / "flipped.bin"
    out["flipped"].write_bytes(bytes(flipped))
    return out


def test_dump_text(files, capsys):
    assert main(["dump", str(files["a"])]) == 0
    out = capsys.readouterr().out
    assert "Sections (" in out and ".nv.info" in out and "R_CUDA_" in out and "NVIDIA Corp type=2000" in out


def test_dump_json(files, capsys):
    assert main(["dump", "--json", str(files["c"])]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["header"]["sm"] == 75 and info["header"]["type"] == 1
    names = [s["name"] for s in info["sections"]]
    assert names[:3] == [".shstrtab", ".strtab", ".symtab"]
    assert any(r["type_name"] == "R_CUDA_BINDLESSOFF14_40" for rels in info["relocations"].values() for r in rels)
    tk = info["notes"][".note.nv.tkinfo"][0]
    assert tk["tool_options"] == "-arch sm_75 -c  "


def test_roundtrip_report(files, capsys):
    folder = files["a"].parent
    assert main(["roundtrip", str(folder)]) == 1  # the truncated file in sub/ is not exact
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "roundtrip: 4/5 byte-exact"
    assert lines[0].startswith(str(files["bad"])) and "unreadable" in lines[0]


def test_roundtrip_all_exact(files, capsys):
    assert main(["roundtrip", str(files["a"]), str(files["b"])]) == 0
    assert capsys.readouterr().out.splitlines() == ["roundtrip: 2/2 byte-exact"]


def test_roundtrip_names_first_difference(files, capsys):
    assert main(["roundtrip", str(files["flipped"])]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith("first difference at offset 0x32 (ELF header)")


def test_roundtrip_json(files, capsys):
    assert main(["roundtrip", "--json", str(files["a"]), str(files["bad"])]) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["exact"], report["total"]) == (1, 2)
    assert report["files"][1]["error"]


def test_semantic_level(files, capsys):
    assert main(["roundtrip", "--level", "semantic", str(files["a"]), str(files["d"])]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert "not implemented at the semantic level" in lines[0] and str(files["d"]) in lines[0]
    assert lines[-1] == "roundtrip: 1/2 byte-exact"


def test_decompose_then_build_gives_the_ptxas_bytes(files, tmp_path):
    spec, out = tmp_path / "spec.json", tmp_path / "out.cubin"
    assert main(["decompose", str(files["a"]), "-o", str(spec)]) == 0
    assert main(["build", str(spec), "-o", str(out)]) == 0
    assert out.read_bytes() == files["a"].read_bytes()


def test_build_rejects_bad_specs(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["build", str(bad), "-o", str(tmp_path / "x.cubin")]) == 2
    assert "not JSON" in capsys.readouterr().err
    bad.write_text('{"$schema": "cubinemit-module/1", "target": "sm_90", "functions": [{"name": 3}], "bogus": 1}')
    assert main(["build", str(bad), "-o", str(tmp_path / "x.cubin")]) == 2
    assert "unknown key 'bogus'" in capsys.readouterr().err
    assert not (tmp_path / "x.cubin").exists()


def test_diff(files, capsys):
    assert main(["diff", str(files["a"]), str(files["a"])]) == 0
    assert capsys.readouterr().out == ""
    assert main(["diff", str(files["a"]), str(files["b"])]) == 1
    out = capsys.readouterr().out
    assert "section .nv.compat: contents differ" in out  # sm_90a sets the a-variant byte
    assert out.splitlines()[-1].startswith("first differing byte: offset")


@pytest.mark.parametrize("argv", [["dump", "/nonexistent.cubin"], ["dump", "{bad}"], ["roundtrip", "/nonexistent"], ["diff", "{bad}", "{a}"]])
def test_bad_input_exits_2_with_one_line(files, capsys, argv):
    argv = [a.format(bad=files["bad"], a=files["a"]) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith(f"cubinemit {argv[0]}:")


def test_python_dash_m(files):
    proc = subprocess.run([sys.executable, "-m", "cubinemit", "roundtrip", str(files["a"])], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == "roundtrip: 1/1 byte-exact"


def test_decompose_writes_a_spec(files, tmp_path, capsys):
    from cubinemit.semantic.spec import from_spec

    out = tmp_path / "spec.json"
    assert main(["decompose", str(files["a"]), "-o", str(out)]) == 0
    module = from_spec(json.loads(out.read_text()))
    assert module.target == "sm_90"
    assert {f.name for f in module.functions} >= {"k_chain", "k_user1", "k_user2"}
    assert not (tmp_path / "spec.json.tmp").exists()


def test_decompose_declines_what_it_does_not_model(files, capsys):
    assert main(["decompose", str(files["d"])]) == 2  # -sanitize=memcheck
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "not implemented yet" in err
