"""Session fixtures: the PTX probes compiled once by ptxas 13.0.88 for every target and mode."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import nvinfo_oracle as oracle



# Oracle tests fail without ptxas 13.0.88 / cuobjdump 13.2.51 (the top-level `oracles_ok`
# fixture), unless CUBINEMIT_NO_ORACLE=1 opts out explicitly.
needs_oracles = pytest.mark.usefixtures("oracles_ok")

ALL_ARCHS = tuple(dict.fromkeys(oracle.TEST_ARCHS + oracle.GATING_ARCHS))


@pytest.fixture(scope="session")
def probe_cubins(tmp_path_factory: pytest.TempPathFactory, oracles_ok: None) -> dict[tuple[str, str, str], oracle.Cubin]:
    """(probe, arch, mode) -> Cubin for every probe on TEST_ARCHS + GATING_ARCHS."""
    out = tmp_path_factory.mktemp("probes")
    paths = oracle.compile_many(oracle.probe_jobs(ALL_ARCHS), out)
    return {k: oracle.read_cubin(p) for k, p in paths.items()}


@pytest.fixture(scope="session")
def test_cubins(probe_cubins: dict[tuple[str, str, str], oracle.Cubin]) -> dict[tuple[str, str, str], oracle.Cubin]:
    """The subset on the round-trip targets (TEST_ARCHS)."""
    return {k: c for k, c in probe_cubins.items() if k[1] in oracle.TEST_ARCHS}


@pytest.fixture(scope="session")
def ptx_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tmp_path_factory.mktemp("ptx")
