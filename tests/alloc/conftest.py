"""Fixtures of the memory-layout tests: compile tests/alloc/probes with the ptxas oracle."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import alloc_probes  # noqa: E402
import oracle  # noqa: E402

from cubinemit.elf.model import ElfObject  # noqa: E402
from cubinemit.reader import read_cubin  # noqa: E402

Job = tuple[str, str, str]  # (probe name, target, oracle mode)


@functools.lru_cache(maxsize=None)
def _read(path: Path) -> ElfObject:
    return read_cubin(path.read_bytes())


@pytest.fixture(scope="session")
def compile_probes(ptxas_ok: None) -> Callable[[Sequence[Job]], dict[Job, Path]]:
    """``compile_probes(jobs) -> {job: cubin path}``, compiled in parallel and cached."""
    done: dict[Job, Path] = {}

    def get(jobs: Sequence[Job]) -> dict[Job, Path]:
        todo = [(alloc_probes.probe_path(n), t, m) for n, t, m in jobs if (n, t, m) not in done]
        if todo:
            done.update(oracle.compile_many(todo))
        return {job: done[job] for job in jobs}

    return get


@pytest.fixture(scope="session")
def elf() -> Callable[[Path], ElfObject]:
    """``elf(path)``: the cubin read with cubinemit's reader (cached)."""
    return _read
