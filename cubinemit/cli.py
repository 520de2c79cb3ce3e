"""The ``cubinemit`` command line: dump, roundtrip, diff.

Bad input exits 2 with one line on stderr naming what is wrong; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .errors import CubinemitError
from .inspect import describe
from .reader import read_cubin
from .roundtrip import LEVELS, check_file, expand


class _Usage(Exception):
    pass


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise _Usage(f"{path}: {exc.strerror or exc}") from None


def _hexint(v: int | None) -> str:
    return "-" if v is None else f"{v:#x}"


def cmd_dump(args: argparse.Namespace) -> int:
    data = _read(args.file)
    try:
        info = describe(read_cubin(data))
    except CubinemitError as exc:
        raise _Usage(f"{args.file}: {exc}") from None
    if args.json:
        json.dump(info, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    out = sys.stdout.write
    h = info["header"]
    out(f"ELF header: type={h['type']:#x} sm={h['sm']} flags={h['flags']:#010x} osabi={h['osabi']:#x} abiversion={h['abiversion']} "
        f"shnum={h['shnum']} shstrndx={h['shstrndx']} phnum={h['phnum']} phentsize={h['phentsize']}\n")
    out(f"\nSections ({len(info['sections'])}):\n")
    out(f"  {'idx':>4} {'name':40} {'type':22} {'flags':>10} {'offset':>8} {'size':>8} {'link':>4} {'info':>10} {'align':>5} {'ent':>3}\n")
    for s in info["sections"]:
        out(f"  {s['index']:>4} {s['name']:40} {s['type_name']:22} {s['flags']:>#10x} {s['offset']:>#8x} {s['size']:>#8x} "
            f"{s['link']:>4} {s['info']:>#10x} {s['addralign']:>5} {s['entsize']:>3}\n")
    for title, key in (("Symbols", "symbols"), ("Mercury symbols", "merc_symbols")):
        if not info[key]:
            continue
        out(f"\n{title} ({len(info[key])}):\n")
        for y in info[key]:
            out(f"  {y['index']:>4} bind={y['bind']} type={y['type']:>2} other={y['other']:#04x} shndx={y['shndx']:>5} "
                f"value={y['value']:#x} size={y['size']:#x} {y['name']}\n")
    for name, rels in info["relocations"].items():
        out(f"\nRelocations in {name} ({len(rels)}):\n")
        for r in rels:
            out(f"  {r['offset']:#010x} {r['type_name']:32} {r['symbol'] or '-'} {_hexint(r['addend'])}\n")
    for name, notes in info["notes"].items():
        out(f"\nNotes in {name}:\n")
        for n in notes:
            fields = {k: v for k, v in n.items() if k not in ("name", "type", "desc")}
            out(f"  {n['name']} type={n['type']} {fields if fields else n['desc']}\n")
    from .nvinfo import compat_record_from_json, compat_record_to_text, record_from_json, record_to_text

    for name, records in info["nvinfo"].items():
        out(f"\n{name} ({len(records)} records):\n")
        for r in records:
            text = compat_record_to_text(compat_record_from_json(r)) if name == ".nv.compat" else record_to_text(record_from_json(r))
            out(f"  {text}\n")
    if info["callgraph"]:
        g = info["callgraph"]
        out("\n.nv.callgraph:\n")
        for e in g["calls"]:
            out(f"  call {e['caller']} -> {e['callee']}\n")
        for key in ("address_taken", "indirect_callers"):
            for m in g[key]:
                out(f"  {key.replace('_', ' ')}: {m['function']}\n")
        for e in g["indirect_targets"]:
            out(f"  indirect target {e['caller']} -> {e['callee']}\n")
    if info["program_headers"]:
        out("\nProgram headers:\n")
        for p in info["program_headers"]:
            out(f"  type={p['type']} flags={p['flags']} offset={p['offset']:#x} filesz={p['filesz']:#x} memsz={p['memsz']:#x} align={p['align']}\n")
    return 0


def cmd_roundtrip(args: argparse.Namespace) -> int:
    files = list(expand(args.paths))
    missing = [str(f) for f in files if not f.exists()]
    if missing:
        raise _Usage(f"no such file or folder: {missing[0]}")
    show_progress = sys.stderr.isatty() and not args.json and len(files) > 1
    results = []
    for n, path in enumerate(files, start=1):
        results.append(check_file(path, args.level))
        if show_progress:
            sys.stderr.write(f"\r[{n}/{len(files)}] {path.name[:50]:50}")
            sys.stderr.flush()
    if show_progress:
        sys.stderr.write("\r" + " " * 64 + "\r")
    exact = sum(r.exact for r in results)
    if args.json:
        json.dump(
            {
                "level": args.level,
                "exact": exact,
                "total": len(results),
                "files": [
                    {"path": r.path, "exact": r.exact, "first_difference": r.first_diff, "where": r.where, "error": r.error}
                    for r in results
                ],
            },
            sys.stdout,
            indent=1,
        )
        sys.stdout.write("\n")
    else:
        for r in results:
            if not r.exact:
                print(r.line())
        print(f"roundtrip: {exact}/{len(results)} byte-exact")
    return 0 if exact == len(results) else 1


def cmd_decompose(args: argparse.Namespace) -> int:
    from .semantic.decompose import decompose
    from .semantic.spec import to_spec

    data = _read(args.file)
    try:
        spec = to_spec(decompose(read_cubin(data, quirks=False)))
    except NotImplementedError as exc:
        raise _Usage(f"{args.file}: {exc}") from None
    except CubinemitError as exc:
        raise _Usage(f"{args.file}: {exc}") from None
    text = json.dumps(spec, indent=1) + "\n"
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        tmp = Path(args.output + ".tmp")
        tmp.write_text(text)
        tmp.replace(args.output)  # never a half-written spec
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    from .semantic.build import build
    from .semantic.spec import from_spec

    try:
        spec = json.loads(_read(args.spec))
    except json.JSONDecodeError as exc:
        raise _Usage(f"{args.spec}: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    try:
        data = build(from_spec(spec))
    except NotImplementedError as exc:
        raise _Usage(f"{args.spec}: {exc}") from None
    except CubinemitError as exc:
        raise _Usage(f"{args.spec}: {exc}") from None
    tmp = Path(args.output + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(args.output)  # never a half-written cubin
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from .diff import diff_cubins

    a, b = _read(args.a), _read(args.b)
    try:
        lines = diff_cubins(a, b)
    except CubinemitError as exc:
        raise _Usage(str(exc)) from None
    for line in lines:
        print(line)
    return 1 if lines else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cubinemit", description="Read, rebuild and compare CUDA cubins as ptxas 13.0.88 writes them.")
    parser.add_argument("--version", action="version", version=f"cubinemit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("dump", help="header, sections, symbols, relocations and notes of a cubin")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("file")
    p.set_defaults(func=cmd_dump)
    p = sub.add_parser("roundtrip", help="rebuild cubins and compare them with the input byte for byte")
    p.add_argument("--level", choices=LEVELS, default="container")
    p.add_argument("--json", action="store_true")
    p.add_argument("paths", nargs="+", metavar="PATH", help="cubin files or folders (searched for *.cubin)")
    p.set_defaults(func=cmd_roundtrip)
    p = sub.add_parser("decompose", help="the leaf data of a cubin as a JSON spec (what a compiler knows)")
    p.add_argument("file")
    p.add_argument("-o", "--output", help="write the spec here (default: standard output)")
    p.set_defaults(func=cmd_decompose)
    p = sub.add_parser("build", help="build the cubin ptxas would write from a JSON spec")
    p.add_argument("spec")
    p.add_argument("-o", "--output", required=True)
    p.set_defaults(func=cmd_build)
    p = sub.add_parser("diff", help="structural diff of two cubins, then the first differing byte")
    p.add_argument("a")
    p.add_argument("b")
    p.set_defaults(func=cmd_diff)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except _Usage as exc:
        print(f"cubinemit {args.command}: {exc}", file=sys.stderr)
        return 2
    except CubinemitError as exc:
        print(f"cubinemit {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
