"""The semantic model's JSON spec: exact inverse, versioned, bad input named by key path."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cubinemit.errors import ModelError
from cubinemit.semantic import DataObject, DebugSection, Function, Module, Relocation
from cubinemit.semantic.spec import from_spec, to_spec

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_$.0123456789", min_size=1, max_size=12)
relocs = st.builds(Relocation, st.integers(0, 2**32), st.integers(0, 120), st.none() | names, st.none() | st.integers(-(2**40), 2**40))
placements = st.lists(st.tuples(names, st.integers(0, 4096), st.integers(0, 4096)), max_size=2)
functions = st.builds(
    Function,
    name=names,
    is_kernel=st.booleans(),
    linkage=st.sampled_from(["visible", "weak", "static", "extern"]),
    sass=st.binary(max_size=64),
    relocations=st.lists(relocs, max_size=3),
    inlined=placements,
    constants=st.binary(max_size=16),
    constant_relocations=st.lists(relocs, max_size=2),
    capsule=st.binary(max_size=16),
    capsule_symbols=placements,
    facts=st.dictionaries(st.sampled_from(["fastpath", "isa_class"]), st.integers(0, 4096), max_size=2),
)
data = st.builds(DataObject, names, st.sampled_from(["global", "const", "shared", "local"]), st.integers(0, 1 << 20), st.sampled_from([1, 2, 4, 8, 16]), st.none() | st.binary(max_size=16))


@given(
    st.lists(functions, max_size=4, unique_by=lambda f: f.name),
    st.lists(data, max_size=3),
    st.lists(st.builds(DebugSection, names, st.binary(max_size=32), st.lists(relocs, max_size=2)), max_size=2),
)
def test_spec_is_an_exact_inverse_through_json_text(fns, objs, dbg):
    module = Module("sm_90a", options={"arch": "sm_90a"}, ptx_target=90, functions=fns, data=objs, debug=dbg)
    assert from_spec(json.loads(json.dumps(to_spec(module)))) == module


def test_spec_is_versioned():
    spec = to_spec(Module("sm_75"))
    assert spec["$schema"] == "cubinemit-module/1"
    spec["$schema"] = "cubinemit-module/99"
    with pytest.raises(ModelError, match=r"\$schema"):
        from_spec(spec)


@pytest.mark.parametrize(
    "patch,message",
    [
        ({"functions": [{"name": "k", "sass": "zz"}]}, r"\$\.functions\[0\]\.sass: not a hex string"),
        ({"functions": [{"name": "k", "colour": 1}]}, r"\$\.functions\[0\]: unknown key 'colour'"),
        ({"functions": [{"name": "k", "linkage": "public"}]}, "linkage 'public'"),
        ({"target": "sm_99"}, "unknown target 'sm_99'"),
        ({"functions": [{"name": "k"}, {"name": "k"}]}, "defined twice"),
        ({"functions": [{"name": "k", "returns": 1.5}]}, r"\$\.functions\[0\]\.returns: expected a list, got float"),
        ({"functions": [{"name": "k", "inlined": [["f", "0x10", 4]]}]}, r"\$\.functions\[0\]\.inlined\[0\]\[1\]: expected an integer, got str"),
        ({"data": [{"name": "g", "space": "global", "size": True}]}, r"\$\.data\[0\]\.size: expected an integer, got bool"),
        ({"options": {"arch": "sm_90", "maxrregcount": [1]}}, r"\$\.options: option value must be int, str or None"),
        ({"functions": [{"name": "k", "facts": {"nvinfo": {"name": "k", "register_count": "many"}}}]}, r"\$\.functions\[0\]\.facts\.nvinfo: TypeError: .*register_count"),
        ({"facts": {"mercury": {"$map": [[1, 2, 3]]}}}, r"\$\.facts\.mercury: \$map holds no list of \[key, value\] pairs"),
    ],
)
def test_bad_specs_name_the_offending_key(patch, message):
    spec = to_spec(Module("sm_90"))
    spec.update(patch)
    with pytest.raises(ModelError, match=message):
        from_spec(spec)


def test_rename_function_follows_references():
    m = Module(
        "sm_90",
        functions=[Function("f", linkage="static"), Function("k", True, relocations=[Relocation(16, 56, "f", 0)], inlined=[("f", 0x80, 0x40)])],
        data=[DataObject("s", "shared", 16, users=["f", "k"])],
    )
    m.rename_function("f", "g")
    assert [f.name for f in m.functions] == ["g", "k"]
    assert m.function("k").relocations[0].symbol == "g" and m.function("k").inlined == [("g", 0x80, 0x40)]
    assert m.data[0].users == ["g", "k"]
    with pytest.raises(ModelError, match="exists"):
        m.rename_function("g", "k")


def test_fixed_api_names(cubin):
    data = cubin("kernels_three", "sm_90a", "def")
    module = Module.from_cubin(data)
    again = Module.from_spec(json.loads(json.dumps(module.to_spec())))
    assert again.to_cubin() == data


def test_values_the_rules_cannot_read_give_a_model_error(cubin):
    """Values of the right type the rules still cannot use: a launch bound of 0 threads, a
    data alignment of 2**40 (ptxas pads the file to a section's alignment: a terabyte). Each is
    a ModelError saying what failed (they were a ZeroDivisionError and a MemoryError)."""
    spec = Module.from_cubin(cubin("func_calls", "sm_90", "def")).to_spec()
    kernel = next(f for f in spec["functions"] if f["is_kernel"])
    kernel["facts"]["nvinfo"]["maxntid"] = [0, 1, 1]
    with pytest.raises(ModelError, match=r"the module does not build: ZeroDivisionError"):
        from_spec(json.loads(json.dumps(spec))).to_cubin()
    spec = Module.from_cubin(cubin("func_calls", "sm_90", "def")).to_spec()
    spec["data"].append(to_spec(Module("sm_90", data=[DataObject("g", "global", 4, align=1 << 40)]))["data"][0])
    with pytest.raises(ModelError, match=r"the file would be 0x1[0-9a-f]{10} bytes, more than 0x100000000 \(section \.nv\.global: alignment 0x10000000000\)"):
        from_spec(spec).to_cubin()
