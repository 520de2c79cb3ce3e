"""The catalogue's names are cuobjdump's: re-derive them by patching real cubins."""

from __future__ import annotations

from pathlib import Path

import cuobjdump_names
from conftest import needs_oracles

from cubinemit.nvinfo.catalogue import (
    COMPAT_SPECS,
    EIATTR_SPECS,
    UNKNOWN_ATTRIBUTE,
    EIAttr,
    EICompatAttr,
    EIFormat,
    attr_name,
    compat_attr_name,
    format_name,
)


def test_catalogue_covers_every_named_code() -> None:
    assert sorted(EIATTR_SPECS) == sorted(a.value for a in EIAttr)
    assert set(range(0x67)) - set(EIATTR_SPECS) == {0x56, 0x60, 0x63}
    assert attr_name(0x3A) == "EIATTR_COROUTINE_RESUME_ID_OFFSETS"
    assert attr_name(0x4F) == "EIATTR_AT_ENTRY_FRAGMENTS"
    assert attr_name(0x66) == "EIATTR_LANGUAGE"
    assert attr_name(0x60) == UNKNOWN_ATTRIBUTE
    assert compat_attr_name(0xB) == "EICOMPAT_ATTR_CAN_FASTPATH_FINALIZE"
    assert sorted(COMPAT_SPECS) == list(range(0xD))
    assert format_name(4) == "EIFMT_SVAL" and format_name(9) == "EIFMT_0x9"


def test_formats_ptxas_writes() -> None:
    # The four EIFMT values, and a few codes whose format the seeds got wrong.
    assert [f.cuobjdump_name for f in EIFormat] == ["EIFMT_NVAL", "EIFMT_BVAL", "EIFMT_HVAL", "EIFMT_SVAL"]
    assert EIATTR_SPECS[EIAttr.CTAIDZ_USED].fmt is EIFormat.NVAL
    assert EIATTR_SPECS[EIAttr.NUM_BARRIERS].fmt is EIFormat.BVAL
    assert EIATTR_SPECS[EIAttr.MERCURY_ISA_VERSION].fmt is EIFormat.HVAL
    assert EIATTR_SPECS[EIAttr.EXIT_INSTR_OFFSETS].fmt is EIFormat.SVAL
    assert COMPAT_SPECS[EICompatAttr.MERCURY_ISA_MAJOR_MINOR_VERSION].fmt is EIFormat.HVAL
    assert all(s.evidence in ("ptxas", "cuobjdump", "") for s in EIATTR_SPECS.values())
    assert all((s.fmt is None) == (s.evidence == "") for s in EIATTR_SPECS.values())


@needs_oracles
def test_names_rederived_from_cuobjdump(tmp_path: Path) -> None:
    got = cuobjdump_names.eiattr_names(range(0x70), tmp_path)
    assert got == {code: attr_name(code) for code in range(0x70)}
    got_compat = cuobjdump_names.compat_names(range(0x10), tmp_path)
    assert got_compat == {code: compat_attr_name(code) for code in range(0x10)}
