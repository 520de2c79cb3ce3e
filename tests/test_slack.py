"""The zero slack ptxas leaves after .strtab on sm_100+ for banks it renames late.

Only the slack modulo the next section's alignment (8) shows in one file, so each probe is
compiled with function names of many lengths: one value per kind fits them all (a texture-index
bank: 70 + len(f); a jump-table bank .nv.constant2.<f>: 36 + len(f))."""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle
from cubinemit.reader import read_cubin
from cubinemit.roundtrip import container_roundtrip, first_difference

TEMPLATES = Path(__file__).resolve().parent / "probes_slack"
LENGTHS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 24)


@pytest.mark.parametrize("template", ["texbank", "jumptable"])
@pytest.mark.parametrize("mode", ["def", "g"])
def test_slack_fits_every_name_length(ptxas_ok, tmp_path, template, mode):
    text = (TEMPLATES / f"{template}.ptx.in").read_text()
    for n in LENGTHS:
        name = "k" * n
        ptx = tmp_path / f"{template}_{n}.ptx"
        ptx.write_text(text.replace("@NAME@", name))
        data = oracle.compile_ptx(ptx, "sm_100a", mode).read_bytes()
        obj = read_cubin(data)
        assert obj.quirks.strtab_slack is None, f"name length {n}: the slack rule does not fit"
        assert first_difference(container_roundtrip(data), data) is None, f"name length {n}"
