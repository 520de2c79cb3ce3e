"""ptxas cubin -> leaf facts -> builder -> the same records and bytes, for every ``.nv.info`` and
``.nv.info.<f>`` of the probe corpus.

* tests/probes (MANIFEST.toml): every probe on every manifest target and mode;
* tests/nvinfo/probes: on the brief's targets, the probe's own modes plus -lineinfo and -O0
  when it compiles in default mode;
* tests/nvinfo/probes/builder: probes written for the builder (record order, -g propagation,
  MAXREG_COUNT, global patterns), on the brief's targets and their ``// modes:``.

Cubins are compiled once and cached on disk next to the main oracle's (tests/oracle.py).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import oracle as main_oracle
import probes_manifest
import pytest

from cubinemit import toolchain
from cubinemit.elf.constants import SHT_CUDA_INFO
from cubinemit.elf.layout import layout
from cubinemit.errors import ToolchainError
from cubinemit.nvinfo import decode_nvinfo, encode_nvinfo
from cubinemit.nvinfo.builder import build_module_info
from cubinemit.nvinfo.decompose import facts_from_cubin
from cubinemit.nvinfo.facts import from_json, to_json
from cubinemit.nvinfo.facts import FunctionFacts, ModuleFacts
from cubinemit.reader import read_cubin

NV_PROBES = Path(__file__).resolve().parent / "probes"
BUILDER_PROBES = NV_PROBES / "builder"

#: The targets the builder is checked on for the nvinfo probes (the brief's list).
TARGETS = (
    "sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a",
    "sm_100", "sm_100a", "sm_103", "sm_110a", "sm_120", "sm_121",
)  # fmt: skip

#: ptxas flags per mode name (``default`` in a probe header is ``def``).
FLAGS: dict[str, tuple[str, ...]] = {
    "def": (),
    "c": ("-c",),
    "g": ("-g",),
    "lineinfo": ("-lineinfo",),
    "O0": ("-O0",),
    "ewp": ("-ewp",),
    "memcheck": ("-sanitize=memcheck",),
    "cmemcheck": ("-c", "-sanitize=memcheck"),
    "gmemcheck": ("-g", "-sanitize=memcheck"),
    "toolspatch": ("-astoolspatch",),
    "maxrreg40": ("-maxrregcount=40",),
    "maxrreg17": ("-maxrregcount=17",),
}


def _header(text: str, key: str, default: str) -> str:
    for line in text.splitlines():
        if line.startswith(f"// {key}:"):
            return line.split(":", 1)[1].strip()
    return default


def _sm(arch: str) -> int:
    return int(re.match(r"sm_(\d+)", arch).group(1))  # type: ignore[union-attr]


def _supports(text: str, arch: str) -> bool:
    spec = _header(text, "archs", "all")
    if spec == "all":
        return True
    if spec.endswith("+"):
        return _sm(arch) >= _sm(spec[:-1])
    return arch in spec.split()


def probe_modes(probe: Path) -> tuple[str, ...]:
    text = probe.read_text()
    if probe.parent == BUILDER_PROBES:
        return tuple(_header(text, "modes", "def c g").split())
    modes = ["def" if m == "default" else m for m in _header(text, "modes", "default c g").split()]
    if "def" in modes:  # the brief's modes, where the probe compiles in whole-program mode
        modes += [m for m in ("lineinfo", "O0") if m not in modes]
    return tuple(modes)


def nv_jobs(probe: Path) -> list[tuple[Path, str, str]]:
    text = probe.read_text()
    return [(probe, t, m) for t in TARGETS if _supports(text, t) for m in probe_modes(probe)]


def compile_text(text: str, name: str, target: str, flags: tuple[str, ...]) -> Path:
    """ptxas ``text`` (a PTX module) for ``target``; cached by content, target and flags."""
    key = hashlib.sha256(b"nvinfo-builder\0" + text.encode() + target.encode() + " ".join(flags).encode()).hexdigest()
    out = main_oracle.CACHE / key[:16] / f"{name}.cubin"
    if out.exists():
        return out
    work = out.parent / "tmp"
    work.mkdir(parents=True, exist_ok=True)
    (work / f"{name}.ptx").write_text(text)
    args = [str(toolchain.ptxas()), "-arch", target, *flags, f"{name}.ptx", "-o", f"{name}.cubin"]
    proc = subprocess.run(args, cwd=work, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise ToolchainError(f"ptxas {' '.join(args[1:])} failed: {proc.stderr.strip()}")
    shutil.move(str(work / f"{name}.cubin"), out)
    return out


def compile_probe(probe: Path, target: str, mode: str) -> Path:
    return compile_text(probe.read_text().replace("@TARGET@", target), probe.stem, target, FLAGS[mode])


def compile_jobs(jobs: list[tuple[Path, str, str]]) -> dict[tuple[str, str, str], Path]:
    with ThreadPoolExecutor(max(1, os.cpu_count() or 1)) as pool:
        futures = {(p.stem, t, m): pool.submit(compile_probe, p, t, m) for p, t, m in jobs}
        return {k: f.result() for k, f in futures.items()}


# ---------------------------------------------------------------------------------------------


def rebuild_problems(data: bytes) -> tuple[int, list[str]]:
    """(sections compared, problems): decompose a ptxas cubin, rebuild every .nv.info* section
    from the facts and compare records and bytes with ptxas's."""
    obj = read_cubin(data)
    lay = layout(obj)
    names = [""] + [s.name for s in lay.symbols]
    index = {n: i for i, n in enumerate(names) if n}
    module, functions = facts_from_cubin(obj)
    assert from_json(ModuleFacts, to_json(module)) == module
    assert all(from_json(FunctionFacts, to_json(f)) == f for f in functions)
    built = build_module_info(module, functions)
    problems = []
    sections = [s for s in lay.order if s.sh_type == SHT_CUDA_INFO]
    if {s.name for s in sections} != set(built):
        problems.append(f"sections differ: ptxas {sorted(s.name for s in sections)}, built {sorted(built)}")
    for s in sections:
        want = decode_nvinfo(s.data, section=s.name, symbol_name=names.__getitem__)
        got = built.get(s.name)
        if got != want:
            problems.append(f"{s.name}:\n  ptxas {want}\n  built {got}")
            continue
        if encode_nvinfo(got, symbol_index=index.__getitem__) != s.data:
            problems.append(f"{s.name}: records equal, bytes differ")
    return len(sections), problems


def _check(cubins: dict[tuple[str, str, str], Path]) -> int:
    failures = []
    compared = 0
    for key, path in sorted(cubins.items()):
        n, problems = rebuild_problems(path.read_bytes())
        compared += n
        failures += [f"{key}: {p}" for p in problems]
    assert not failures, f"{len(failures)} section(s) not rebuilt exactly:\n" + "\n".join(failures[:20])
    return compared


MAIN_PROBES = sorted({p["name"] for p in probes_manifest.probes()})


@pytest.mark.parametrize("probe", MAIN_PROBES)
def test_rebuild_main_corpus(probe: str, corpus: dict[tuple[str, str, str], Path]) -> None:
    cubins = {k: v for k, v in corpus.items() if k[0] == probe}
    assert cubins
    assert _check(cubins) > 0


@pytest.fixture(scope="session")
def nv_cubins(ptxas_ok: None) -> dict[tuple[str, str, str], Path]:
    jobs = [j for p in sorted(NV_PROBES.glob("*.ptx")) + sorted(BUILDER_PROBES.glob("*.ptx")) for j in nv_jobs(p)]
    return compile_jobs(jobs)


NV_PROBE_NAMES = [p.stem for p in sorted(NV_PROBES.glob("*.ptx"))]
BUILDER_PROBE_NAMES = [p.stem for p in sorted(BUILDER_PROBES.glob("*.ptx"))]


@pytest.mark.parametrize("probe", NV_PROBE_NAMES + BUILDER_PROBE_NAMES)
def test_rebuild_nvinfo_probes(probe: str, nv_cubins: dict[tuple[str, str, str], Path]) -> None:
    cubins = {k: v for k, v in nv_cubins.items() if k[0] == probe}
    assert cubins
    assert _check(cubins) > 0


def test_corpus_covers_targets_and_modes(corpus: dict, nv_cubins: dict) -> None:
    """The corpus spans the brief's targets and modes, and both layers of probes."""
    main_targets = {t for _, t, _ in corpus}
    main_modes = {m for _, _, m in corpus}
    assert set(TARGETS) <= main_targets
    assert {"def", "c", "g", "lineinfo", "O0"} <= main_modes
    nv_targets = {t for _, t, _ in nv_cubins}
    nv_modes = {m for _, _, m in nv_cubins}
    assert nv_targets == set(TARGETS)
    assert {"def", "c", "g", "lineinfo", "O0", "ewp", "memcheck", "toolspatch"} <= nv_modes
    assert len(nv_cubins) > 1000 and len(corpus) > 3000
