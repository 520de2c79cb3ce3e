"""The probe matrix, read from tests/probes/MANIFEST.toml."""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from oracle import MODES, PROBES


@lru_cache(maxsize=None)
def manifest() -> dict:
    with open(PROBES / "MANIFEST.toml", "rb") as fh:
        data = tomllib.load(fh)
    assert all(MODES.get(k) == v for k, v in data["modes"].items()), "MANIFEST.toml modes disagree with tests/oracle.py"
    assert all(m in MODES for m in data["semantic"]["modes"]), "MANIFEST.toml [semantic] names a mode tests/oracle.py lacks"
    return data


def probes() -> list[dict]:
    return list(manifest()["probe"])


def targets() -> list[str]:
    return list(manifest()["targets"])


def matrix() -> list[tuple[str, str, str]]:
    """Every (probe, target, mode) that ptxas compiles."""
    return [(p["name"], t, m) for p in probes() for t in targets() for m in p["modes"]]


def matrix_jobs() -> list[tuple[Path, str, str]]:
    return [(PROBES / f"{name}.ptx", t, m) for name, t, m in matrix()]


def semantic_matrix() -> list[tuple[str, str, str]]:
    """:func:`matrix` plus every probe and target in the semantic-only modes (``[semantic]``)."""
    extra = [(p["name"], t, m) for p in probes() for t in targets() for m in manifest()["semantic"]["modes"]]
    return matrix() + extra


def semantic_jobs() -> list[tuple[Path, str, str]]:
    return [(PROBES / f"{name}.ptx", t, m) for name, t, m in semantic_matrix()]
