"""The committed probes are exactly what their specs render, and generic helpers."""

from __future__ import annotations

import pytest

import alloc_probes
from cubinemit.alloc import Mode, align_up, list_sort
from cubinemit.errors import ModelError


def test_committed_probes_match_their_specs() -> None:
    rendered = alloc_probes.all_probes()
    on_disk = {p.stem for p in alloc_probes.PROBES.glob("*.ptx")}
    assert on_disk == set(rendered), "run: python tests/alloc/alloc_probes.py"
    for name, text in rendered.items():
        assert alloc_probes.probe_path(name).read_text() == text, f"{name}.ptx is stale; run: python tests/alloc/alloc_probes.py"


# Positions ptxas gives n equal-keyed list elements (measured on .nv.global, 1-20 variables).
MEASURED_SHUFFLES = {
    1: [0],
    2: [0, 1],
    3: [2, 0, 1],
    4: [2, 0, 3, 1],
    5: [0, 4, 2, 3, 1],
    6: [0, 4, 2, 1, 5, 3],
    7: [2, 6, 0, 4, 1, 5, 3],
    8: [2, 6, 0, 4, 3, 7, 1, 5],
    9: [8, 0, 4, 2, 6, 3, 7, 1, 5],
    10: [8, 0, 4, 2, 6, 9, 1, 5, 3, 7],
    16: [10, 2, 14, 6, 8, 0, 12, 4, 11, 3, 15, 7, 9, 1, 13, 5],
    20: [2, 18, 10, 14, 6, 0, 16, 8, 12, 4, 3, 19, 11, 15, 7, 1, 17, 9, 13, 5],
}


@pytest.mark.parametrize("n", sorted(MEASURED_SHUFFLES))
def test_list_sort_shuffles_equal_keys_like_ptxas(n: int) -> None:
    assert list_sort(list(range(n)), lambda a, b: False) == MEASURED_SHUFFLES[n]


def test_list_sort_takes_second_half_on_ties_with_non_strict_comparison() -> None:
    # the -g colouring compares sizes with >=: 3 equal objects come out 1, 0, 2 (measured)
    assert list_sort([0, 1, 2], lambda a, b: True) == [1, 0, 2]


def test_mode_names() -> None:
    assert Mode.from_flags("def") is Mode.from_flags("lineinfo") is Mode.from_flags("O0") is Mode.WHOLE_PROGRAM
    assert Mode.from_flags("g") is Mode.DEBUG and Mode.from_flags("c") is Mode.RELOCATABLE
    with pytest.raises(ModelError, match="'x'"):
        Mode.from_flags("x")


def test_align_up() -> None:
    assert [align_up(v, 16) for v in (0, 1, 16, 17)] == [0, 16, 16, 32]
