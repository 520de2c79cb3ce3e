"""The Mercury corpus: every probe of tests/probes and tests/nvinfo/probes compiled by ptxas
13.0.88 for the sm_100+ targets, cached on disk by tests/oracle.py."""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import oracle  # noqa: E402
import probes_manifest  # noqa: E402

TARGETS = ("sm_100", "sm_100a", "sm_103", "sm_110", "sm_120", "sm_121")
MODES = ("def", "c", "lineinfo", "g", "O0")
NVINFO_PROBES = HERE / "nvinfo" / "probes"
MERC_PROBES = HERE / "mercury_probes"
STAGE = oracle.CACHE / "mercury_ptx"


def _header(text: str, key: str, default: str) -> str:
    for line in text.splitlines():
        if line.startswith(f"// {key}:"):
            return line.split(":", 1)[1].strip()
    return default


def _supports(spec: str, target: str) -> bool:
    num = lambda t: int(re.match(r"sm_(\d+)", t).group(1))  # noqa: E731
    if spec == "all":
        return True
    if spec.endswith("+"):
        return num(target) >= num(spec[:-1])
    return target in spec.split()


_NVINFO_MODE = {"default": "def"}


def jobs() -> list[tuple[Path, str, str]]:
    out: list[tuple[Path, str, str]] = []
    for probe in probes_manifest.probes():
        for t in TARGETS:
            for m in probe["modes"]:
                if m in MODES:
                    out.append((oracle.PROBES / f"{probe['name']}.ptx", t, m))
    STAGE.mkdir(parents=True, exist_ok=True)
    for src in sorted([*NVINFO_PROBES.glob("*.ptx"), *MERC_PROBES.glob("*.ptx")]):
        text = src.read_text()
        spec = _header(text, "archs", "all")
        modes = [_NVINFO_MODE.get(m, m) for m in _header(text, "modes", "default c g").split()]
        for t in TARGETS:
            if not _supports(spec, t):
                # an a-variant stands in for a probe restricted to a/f targets
                alt = t + "a"
                if not _supports(spec, alt):
                    continue
                t = alt
            staged = STAGE / t / f"nv_{src.stem}.ptx"
            staged.parent.mkdir(parents=True, exist_ok=True)
            body = text.replace("@TARGET@", t)
            if not staged.exists() or staged.read_text() != body:
                staged.write_text(body)
            for m in modes:
                if m in oracle.MODES:
                    out.append((staged, t, m))
    return list(dict.fromkeys(out))


def corpus() -> dict[tuple[str, str, str], Path]:
    return oracle.compile_many(jobs())


if __name__ == "__main__":
    c = corpus()
    print(len(c), "cubins")
