"""The ptxas oracle for the tests: compile PTX probes into cubins, cached on disk.

Goldens come from ptxas 13.0.88 only, never from cubinemit. The cache key is the probe's text,
the target and the flags, so a changed probe is recompiled. ptxas runs with the probe's folder
as cwd and relative file names: under -g it writes the input and output basenames into
.note.nv.tkinfo, so every compile of a probe uses the same names.
"""

from __future__ import annotations

import collections
import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cubinemit import toolchain
from cubinemit.arch import parse_target
from cubinemit.errors import ToolchainError

ROOT = Path(__file__).resolve().parent.parent
PROBES = Path(__file__).resolve().parent / "probes"
CACHE = Path(os.environ.get("CUBINEMIT_TEST_CACHE", ROOT / ".cache" / "oracle"))
OPT_OUT = "CUBINEMIT_NO_ORACLE"

MODES: dict[str, list[str]] = {
    "def": [],
    "c": ["-c"],
    "lineinfo": ["-lineinfo"],
    "g": ["-g"],
    "O0": ["-O0"],
    # further modes some feature probes ask for (tests/nvinfo/probes)
    "ewp": ["-ewp"],
    "memcheck": ["-sanitize=memcheck"],
    "toolspatch": ["-astoolspatch"],
    "toolspatch_g": ["-astoolspatch", "-g"],
    "maxrreg32": ["-maxrregcount=32"],
    "lineinfo_c": ["-lineinfo", "-c"],
    "g_c": ["-g", "-c"],
    "O0_c": ["-O0", "-c"],
    # flags whose outputs tests/test_semantic_flags.py measures
    "annotate": ["-annotate"],
    "annotate_c": ["-annotate", "-c"],
    "annotate_g": ["-annotate", "-g"],
    "preserve": ["-preserve-relocs"],
    "preserve_c": ["-preserve-relocs", "-c"],
    "preserve_g_c": ["-preserve-relocs", "-g", "-c"],
    "sdi_g": ["-g", "-suppress-debug-info"],
    "ofc": ["-Ofc", "max"],
    "ofc_c": ["-Ofc", "min", "-c"],
    "ofc_g": ["-Ofc", "mid", "-g"],
    "pic_c": ["-c", "-pic", "true"],
    "pic_false": ["-pic", "false"],
    "pic_g": ["-g", "-pic", "true"],
    "pic_true": ["-pic", "true"],
    "pic_false_c": ["-c", "-pic", "false"],
    "pic_false_g": ["-g", "-pic", "false"],
    "split": ["-split-compile", "2"],
    "split_c": ["-split-compile", "2", "-c"],
    "mev": ["-make-errors-visible-at-exit"],
    "mev_c": ["-make-errors-visible-at-exit", "-c"],
    "mev_lineinfo": ["-make-errors-visible-at-exit", "-lineinfo"],
}


def oracle_missing() -> str | None:
    """None when ptxas 13.0.88 is usable, else why not (with the install hint)."""
    try:
        toolchain.ptxas()
    except ToolchainError as exc:
        return str(exc)
    return None


def require(why: str | None) -> None:
    """Fail the calling test when an oracle is missing (``why``), unless CUBINEMIT_NO_ORACLE=1
    opts out explicitly: then it is reported as skipped, with the reason."""
    import pytest

    if why is None:
        return
    if os.environ.get(OPT_OUT) == "1":
        pytest.skip(f"oracle test skipped on request ({OPT_OUT}=1): {why}")
    pytest.fail(
        f"the oracles are required for this test: {why}. "
        f"Run the README's setup command, or set {OPT_OUT}=1 to skip oracle tests explicitly.",
        pytrace=False,
    )


def decoders_missing() -> str | None:
    """None when cuobjdump and nvdisasm 13.2.51 are usable, else why not."""
    try:
        toolchain.cuobjdump()
        toolchain.nvdisasm()
    except ToolchainError as exc:
        return str(exc)
    return None


def builds_for(ptx: Path, target: str) -> bool:
    """Whether ptxas builds ``ptx`` for ``target``: its ``.target`` is no later (compute_100
    PTX builds from sm_100 on, an mma.sync probe for sm_80 not for sm_75)."""
    asked = re.search(r"^\.target (sm_\w+)", ptx.read_text(), re.M)
    return asked is None or parse_target(asked.group(1))[0] <= parse_target(target)[0]


def compile_ptx(ptx: Path, target: str, mode: str, out_dir: Path | None = None) -> Path:
    """The cubin ptxas writes for ``ptx`` with ``-arch target`` and the flags of ``mode``."""
    text = ptx.read_bytes()
    key = hashlib.sha256(text + target.encode() + " ".join(MODES[mode]).encode()).hexdigest()[:16]
    out = (out_dir or CACHE) / key / f"{ptx.stem}.cubin"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / "tmp" / out.name
    tmp.parent.mkdir(exist_ok=True)
    args = [str(toolchain.ptxas()), "-arch", target, *MODES[mode], ptx.name, "-o", str(tmp)]
    proc = subprocess.run(args, cwd=ptx.parent, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise ToolchainError(f"ptxas {' '.join(args[1:])} failed: {proc.stderr.strip()}")
    shutil.move(str(tmp), out)
    return out


def compile_many(jobs: list[tuple[Path, str, str]], workers: int | None = None) -> dict[tuple[str, str, str], Path]:
    """Compile (ptx, target, mode) jobs in parallel; keys are (probe stem, target, mode)."""
    workers = workers or max(1, os.cpu_count() or 1)
    with ThreadPoolExecutor(workers) as pool:
        futures = {(p.stem, t, m): pool.submit(compile_ptx, p, t, m) for p, t, m in jobs}
        return {k: f.result() for k, f in futures.items()}


def semantic_outcome(data: bytes) -> tuple[str, str]:
    """("exact" | "declined" | "error" | "mismatch", detail) of the semantic round trip of a
    ptxas cubin: the reason of a decline or an error, where a mismatch first differs."""
    from cubinemit.inspect import where_in
    from cubinemit.reader import read_cubin
    from cubinemit.roundtrip import first_difference, semantic_roundtrip

    try:
        rebuilt = semantic_roundtrip(data)
    except NotImplementedError as exc:
        return "declined", str(exc)
    except Exception as exc:  # noqa: BLE001 - reported with its type
        return "error", f"{type(exc).__name__}: {exc}"
    off = first_difference(rebuilt, data)
    if off is None:
        return "exact", ""
    return "mismatch", f"{hex(off)} {where_in(read_cubin(data), off)}"


def probe_outcomes(ptx: Path, targets: Sequence[str], modes: Sequence[str]) -> tuple[collections.Counter[str], list[tuple[tuple[str, str, str], str]], int]:
    """:func:`corpus_outcomes` of one probe built for every target in every mode (none may
    decline), and how many builds that is: the check of a rule probe."""
    jobs = [(ptx, t, m) for t in targets for m in modes]
    counts, bad = corpus_outcomes(compile_many(jobs))
    return counts, bad, len(jobs)


def corpus_outcomes(
    corpus: dict[tuple[str, str, str], Path], declined: Callable[[tuple[str, str, str]], str | None] = lambda key: None
) -> tuple[collections.Counter[str], list[tuple[tuple[str, str, str], str]]]:
    """The semantic round trip of every (stem, target, mode) -> cubin of ``corpus``: the count of
    each outcome, and the cases that went wrong: a mismatch, an error, or a decline whose
    message does not hold the reason ``declined(key)`` expects (None: none may decline)."""
    counts: collections.Counter[str] = collections.Counter()
    bad = []
    for key, path in sorted(corpus.items()):
        kind, detail = semantic_outcome(path.read_bytes())
        counts[kind] += 1
        if kind == "exact":
            continue
        why = declined(key) if kind == "declined" else None
        if why is None or why not in detail:
            bad.append((key, f"{kind}: {detail}"))
    return counts, bad
