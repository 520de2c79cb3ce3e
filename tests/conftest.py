"""Shared fixtures: the ptxas oracle and the compiled probe corpus.

Oracle tests never skip silently. Without ptxas 13.0.88 they fail and say how to install it,
unless CUBINEMIT_NO_ORACLE=1 opts out explicitly (then they are reported as skipped).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent / "nvinfo"))

import oracle  # noqa: E402
import probes_manifest  # noqa: E402


@pytest.fixture(scope="session")
def ptxas_ok() -> None:
    """ptxas 13.0.88 is there, or the test fails (skips only on explicit opt-out)."""
    oracle.require(oracle.oracle_missing())


@pytest.fixture(scope="session")
def oracles_ok() -> None:
    """ptxas 13.0.88 and NVIDIA's decoders 13.2.51 are there (same rule as ptxas_ok)."""
    oracle.require(oracle.oracle_missing() or oracle.decoders_missing())


@pytest.fixture(scope="session")
def corpus(ptxas_ok: None) -> dict[tuple[str, str, str], Path]:
    """Every (probe, target, mode) of the matrix compiled by ptxas, in parallel, once."""
    return oracle.compile_many(probes_manifest.matrix_jobs())


@pytest.fixture(scope="session")
def semantic_corpus(corpus: dict[tuple[str, str, str], Path]) -> dict[tuple[str, str, str], Path]:
    """The corpus plus the semantic-only modes (MANIFEST.toml ``[semantic]``), compiled once."""
    extra = [job for job in probes_manifest.semantic_jobs() if (job[0].stem, job[1], job[2]) not in corpus]
    return {**corpus, **oracle.compile_many(extra)}


@pytest.fixture(scope="session")
def cubin(ptxas_ok: None):  # type: ignore[no-untyped-def]
    """``cubin(probe, target, mode) -> bytes`` for one probe (compiled on demand, cached)."""

    def get(probe: str, target: str = "sm_90", mode: str = "def") -> bytes:
        return oracle.compile_ptx(oracle.PROBES / f"{probe}.ptx", target, mode).read_bytes()

    return get
