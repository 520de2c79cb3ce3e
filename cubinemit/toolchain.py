"""Locate the oracles: ptxas 13.0.88 and NVIDIA's decoders (cuobjdump/nvdisasm 13.2.51).

Search order: an explicit environment variable (``CUBINEMIT_PTXAS`` and friends), the pinned
wheels' ``site-packages/nvidia/cu13/bin``, then ``PATH``. ptxas must report V13.0.88: cubinemit
reproduces that one version byte for byte and nothing else.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from .errors import ToolchainError

PTXAS_VERSION = "V13.0.88"
DECODER_VERSION = "V13.2.51"
INSTALL_HINT = (
    "install the pinned oracles: pip install --no-deps nvidia-cuda-nvcc==13.0.88 "
    "nvidia-cuda-cuobjdump==13.2.51 nvidia-cuda-nvdisasm==13.2.51"
)


def _wheel_bin_dirs() -> list[Path]:
    try:
        import nvidia  # namespace package installed by the NVIDIA wheels
    except ImportError:
        return []
    return [Path(p) / "cu13" / "bin" for p in getattr(nvidia, "__path__", [])]


def _candidates(tool: str) -> list[Path]:
    found: list[Path] = []
    env = os.environ.get(f"CUBINEMIT_{tool.upper()}")
    if env:
        found.append(Path(env))
    found.extend(d / tool for d in _wheel_bin_dirs())
    on_path = shutil.which(tool)
    if on_path:
        found.append(Path(on_path))
    return [p for p in found if p.is_file() and os.access(p, os.X_OK)]


def tool_version(path: Path) -> str:
    """The ``V13.x.y`` token of ``TOOL --version``."""
    try:
        out = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolchainError(f"{path}: cannot run --version: {exc}") from None
    for token in out.stdout.split():
        if token.startswith("V13") or token.startswith("V12"):
            return token.rstrip(",")
    raise ToolchainError(f"{path}: no version in --version output")


@functools.lru_cache(maxsize=None)
def find_tool(tool: str, version: str) -> Path:
    """Path of ``tool`` whose --version reports ``version``; ToolchainError otherwise."""
    seen = []
    for path in _candidates(tool):
        got = tool_version(path)
        if got == version:
            return path
        seen.append(f"{path} ({got})")
    detail = f"; found only {', '.join(seen)}" if seen else ""
    raise ToolchainError(f"{tool} {version} not found{detail}; {INSTALL_HINT}")


def ptxas() -> Path:
    return find_tool("ptxas", PTXAS_VERSION)


def cuobjdump() -> Path:
    return find_tool("cuobjdump", DECODER_VERSION)


def nvdisasm() -> Path:
    return find_tool("nvdisasm", DECODER_VERSION)


def run_ptxas(args: list[str], cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run ptxas 13.0.88 with ``args``; ToolchainError with its stderr if it fails."""
    proc = subprocess.run(
        [str(ptxas()), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    if proc.returncode != 0:
        raise ToolchainError(f"ptxas {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc
