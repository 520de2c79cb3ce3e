"""Finding the oracles, and the rule that oracle tests never skip silently."""

from __future__ import annotations

import pytest

import oracle
from cubinemit import toolchain
from cubinemit.errors import ToolchainError


def test_ptxas_is_13_0_88(ptxas_ok):
    assert toolchain.tool_version(toolchain.ptxas()) == "V13.0.88"


def test_decoders_are_13_2_51(oracles_ok):
    assert toolchain.tool_version(toolchain.cuobjdump()) == "V13.2.51"
    assert toolchain.tool_version(toolchain.nvdisasm()) == "V13.2.51"


def test_missing_tool_says_how_to_install(monkeypatch):
    monkeypatch.setattr(toolchain, "_candidates", lambda tool: [])
    toolchain.find_tool.cache_clear()
    try:
        with pytest.raises(ToolchainError, match=r"pip install --no-deps nvidia-cuda-nvcc==13\.0\.88"):
            toolchain.find_tool("ptxas", toolchain.PTXAS_VERSION)
    finally:
        toolchain.find_tool.cache_clear()


def test_wrong_version_is_refused(monkeypatch, tmp_path):
    fake = tmp_path / "ptxas"
    fake.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 12.8, V12.8.93'\n")
    fake.chmod(0o755)
    monkeypatch.setattr(toolchain, "_candidates", lambda tool: [fake])
    toolchain.find_tool.cache_clear()
    try:
        with pytest.raises(ToolchainError, match=r"found only .*V12\.8\.93"):
            toolchain.find_tool("ptxas", toolchain.PTXAS_VERSION)
    finally:
        toolchain.find_tool.cache_clear()


def test_without_oracle_tests_fail_unless_opted_out(monkeypatch):
    monkeypatch.delenv("CUBINEMIT_NO_ORACLE", raising=False)
    with pytest.raises(pytest.fail.Exception, match="CUBINEMIT_NO_ORACLE=1"):
        oracle.require("ptxas 13.0.88 not found")
    monkeypatch.setenv("CUBINEMIT_NO_ORACLE", "1")
    with pytest.raises(pytest.skip.Exception, match="skipped on request"):
        oracle.require("ptxas 13.0.88 not found")
