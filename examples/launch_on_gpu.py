"""Load and launch cubins that cubinemit wrote, through the CUDA driver API (cuda-bindings).

    python examples/launch_on_gpu.py                   # build, load, launch, check (an sm_90 GPU)
    python examples/launch_on_gpu.py --build-only DIR  # write the cubins to DIR, no GPU needed

Five cubins, none of them copied from ptxas (only SASS and DWARF bytes are):
  vadd       built from scratch (examples/build_from_scratch.py)
  synthetic  16 kernels with their own launch bounds (examples/synthetic_kernels.py)
  blocksum   built from scratch here: static shared memory, a __constant__ and a __device__
             counter declared through the builder methods, laid out by cubinemit
  renamed    vadd.sm_90a.cubin decomposed, stored as JSON, `vadd` renamed, rebuilt
  linked     vadd.sm_90a.rel.cubin (ptxas -c) decomposed, stored as JSON, the kernel and the
             device function it calls renamed, rebuilt, then linked by the driver's JIT linker
Each is loaded with cuModuleLoadData and launched; the driver reads what cubinemit derived
(.nv.info launch bounds and parameters, shared size, constant initialisers, symbol table),
and for `linked` its linker resolves the relocations cubinemit wrote by symbol name.
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from build_from_scratch import vadd_module  # noqa: E402
from synthetic_kernels import synthetic_module  # noqa: E402

from cubinemit.nvinfo.facts import FunctionFacts, ModuleFacts, Param, to_json  # noqa: E402
from cubinemit.reader import read_cubin  # noqa: E402
from cubinemit.semantic import DebugSection, Module, Relocation  # noqa: E402

CUBINS = HERE / "cubins"
SYNTHETIC = 16


def blocksum_module(golden: Path) -> Module:
    """examples/blocksum/blocksum.cu as a backend states it (SASS and CFA from ``golden``)."""
    ptxas = read_cubin(golden.read_bytes())
    module = Module(
        target="sm_90",
        options={"arch": "sm_90"},
        ptx_target=75,
        facts={"nvinfo": to_json(ModuleFacts(target="sm_90"))},
    )
    module.add_constant("weight", 4, align=4, init=struct.pack("<f", 1.0))
    module.add_global("blocks_done", 4, align=4)
    facts = FunctionFacts(
        name="blocksum",
        is_kernel=True,
        register_count=12,
        num_barriers=1,
        params=(Param(8, 8), Param(8, 8), Param(4, 4)),  # in, out, n
        maxntid=(256, 1, 1),
        exit_offsets=(0x230, 0x2E0),
    )
    module.add_kernel("blocksum", ptxas.section(".text.blocksum").data, facts={"nvinfo": to_json(facts)})
    module.add_shared("partial", 1024, align=4, users=["blocksum"], scope="blocksum")
    frame = ptxas.section(".debug_frame").data
    module.debug.append(DebugSection(".debug_frame", frame, [Relocation(0x44, 2, "blocksum", 0)]))
    return module


def renamed_module(src: Path, *renames: tuple[str, str]) -> Module:
    """Decompose, keep only the JSON spec, rename functions: what a tool storing specs does."""
    spec = json.dumps(Module.from_cubin(src.read_bytes()).to_spec())
    module = Module.from_spec(json.loads(spec))
    for old, new in renames:
        module.rename_function(old, new)
    return module


# The relocatable vadd with both of its functions renamed (the call goes through a relocation)
LINKED_RENAMES = (("vadd", "vector_add"), ("_Z4axpyfff", "_Z11scaled_pairfff"))


def cubins() -> dict[str, bytes]:
    return {
        "vadd": vadd_module(str(CUBINS / "vadd_plain.sm_90.cubin")).to_cubin(),
        "synthetic": synthetic_module(str(CUBINS / "vadd_plain.sm_90.cubin"), SYNTHETIC).to_cubin(),
        "blocksum": blocksum_module(CUBINS / "blocksum.sm_90.cubin").to_cubin(),
        "renamed": renamed_module(CUBINS / "vadd.sm_90a.cubin", ("vadd", "vector_add")).to_cubin(),
        "linked": renamed_module(CUBINS / "vadd.sm_90a.rel.cubin", *LINKED_RENAMES).to_cubin(),
    }


class Driver:
    """The few driver calls the checks need; every error names the call that failed."""

    def __init__(self) -> None:
        from cuda.bindings import driver

        self.cu = driver
        self.call("cuInit", 0)
        device = self.call("cuDeviceGet", 0)
        self.name = self.call("cuDeviceGetName", 64, device).split(b"\0")[0].decode()
        major = self.call("cuDeviceGetAttribute", driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)
        minor = self.call("cuDeviceGetAttribute", driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)
        self.sm = major * 10 + minor
        self.ctx = self.call("cuDevicePrimaryCtxRetain", device)
        self.call("cuCtxSetCurrent", self.ctx)

    def call(self, name: str, *args: object) -> object:
        err, *out = getattr(self.cu, name)(*args)
        if err != self.cu.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"{name}: {err.name}")
        return out[0] if len(out) == 1 else tuple(out) if out else None

    def attribute(self, function: object, name: str) -> int:
        return self.call("cuFuncGetAttribute", getattr(self.cu.CUfunction_attribute, name), function)

    def alloc(self, data: bytes) -> int:
        ptr = self.call("cuMemAlloc", max(len(data), 1))
        if data:
            self.call("cuMemcpyHtoD", ptr, data, len(data))
        return ptr

    def read(self, ptr: object, size: int) -> bytes:
        buf = bytearray(size)
        self.call("cuMemcpyDtoH", buf, ptr, size)
        return bytes(buf)

    def launch(self, function: object, grid: int, block: int, *args: tuple[str, int]) -> object:
        """``args``: (struct format, value) per parameter. Returns the CUresult of the launch
        and the synchronisation, so that a refused launch can be checked too."""
        import ctypes

        holders = [ctypes.create_string_buffer(struct.pack("<" + fmt, value)) for fmt, value in args]
        params = (ctypes.c_void_p * len(holders))(*[ctypes.addressof(h) for h in holders])
        (err,) = self.cu.cuLaunchKernel(function, grid, 1, 1, block, 1, 1, 0, 0, ctypes.addressof(params), 0)
        if err == self.cu.CUresult.CUDA_SUCCESS:
            (err,) = self.cu.cuCtxSynchronize()
        return err

    def link(self, image: bytes) -> bytes:
        """The driver's JIT linker run on one relocatable cubin (as `nvcc -rdc` objects are)."""
        import ctypes

        size = 1 << 14
        log = bytearray(size)
        opts = [self.cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER, self.cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES]
        state = self.call("cuLinkCreate", len(opts), opts, [log, size])
        try:
            cubin = self.cu.CUjitInputType.CU_JIT_INPUT_CUBIN
            (err,) = self.cu.cuLinkAddData(state, cubin, image, len(image), b"linked.cubin", 0, None, None)
            if err == self.cu.CUresult.CUDA_SUCCESS:
                err, out, out_size = self.cu.cuLinkComplete(state)
            if err != self.cu.CUresult.CUDA_SUCCESS:
                message = bytes(log).split(b"\0")[0].decode(errors="replace")
                raise RuntimeError(f"cuLink: {err.name}: {message}")
            return ctypes.string_at(int(out), out_size)
        finally:
            self.cu.cuLinkDestroy(state)


def _floats(values: list[float]) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def _unfloats(data: bytes) -> list[float]:
    return list(struct.unpack(f"<{len(data) // 4}f", data))


def check_vadd(drv: Driver, image: bytes, kernel: str, scale: float, counter: str | None = None) -> str:
    """c = scale * a + b over n elements that do not fill the last block; ``counter``, a
    __device__ variable that thread 0 increments, must read 1 afterwards."""
    module = drv.call("cuModuleLoadData", image)
    fn = drv.call("cuModuleGetFunction", module, kernel.encode())
    n = 100_003
    a = [float(i % 97) for i in range(n)]
    b = [float(i % 89) * 0.5 for i in range(n)]
    pa, pb, pc = drv.alloc(_floats(a)), drv.alloc(_floats(b)), drv.alloc(bytes(4 * n))
    err = drv.launch(fn, (n + 255) // 256, 256, ("Q", int(pa)), ("Q", int(pb)), ("Q", int(pc)), ("i", n))
    assert err == drv.cu.CUresult.CUDA_SUCCESS, f"{kernel}: launch {err.name}"
    c = _unfloats(drv.read(pc, 4 * n))
    bad = [i for i in range(n) if c[i] != scale * a[i] + b[i]]
    assert not bad, f"{kernel}: {len(bad)} wrong elements, first at {bad[0]}"
    regs = drv.attribute(fn, "CU_FUNC_ATTRIBUTE_NUM_REGS")
    if counter is None:
        return f"{n} elements right, {regs} registers"
    ptr, size = drv.call("cuModuleGetGlobal", module, counter.encode())
    got = struct.unpack("<I", drv.read(ptr, size))[0]
    assert size == 4 and got == 1, f"{counter}: {got} after one launch, not 1"
    return f"{n} elements right, {regs} registers, {counter} = 1"


def check_synthetic(drv: Driver, image: bytes) -> str:
    """Every kernel runs at its bound, and the driver refuses one thread more: it read the
    .maxntid record cubinemit wrote."""
    module = drv.call("cuModuleLoadData", image)
    n = 4096
    a, b = [float(i) for i in range(n)], [1.0] * n
    pa, pb = drv.alloc(_floats(a)), drv.alloc(_floats(b))
    for i in range(SYNTHETIC):
        fn = drv.call("cuModuleGetFunction", module, f"synthetic_{i:03d}".encode())
        bound = 32 * (1 + i % 8)
        got = drv.attribute(fn, "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK")
        assert got == bound, f"synthetic_{i:03d}: the driver reads a bound of {got}, not {bound}"
        pc = drv.alloc(bytes(4 * n))
        args = (("Q", int(pa)), ("Q", int(pb)), ("Q", int(pc)), ("i", n))
        err = drv.launch(fn, (n + bound - 1) // bound, bound, *args)
        assert err == drv.cu.CUresult.CUDA_SUCCESS, f"synthetic_{i:03d}: launch {err.name}"
        assert _unfloats(drv.read(pc, 4 * n)) == [x + 1.0 for x in a], f"synthetic_{i:03d}: wrong sums"
        err = drv.launch(fn, 1, bound + 32, *args)
        assert err == drv.cu.CUresult.CUDA_ERROR_INVALID_VALUE, f"synthetic_{i:03d}: {bound + 32} threads gave {err.name}"
        drv.call("cuMemFree", pc)
    return f"{SYNTHETIC} kernels at their bounds (32..256), one thread more refused"


def check_blocksum(drv: Driver, image: bytes) -> str:
    """Sums per block through shared memory; the __constant__ initialiser is read, then set
    through the symbol table, and the __device__ counter counts the blocks."""
    module = drv.call("cuModuleLoadData", image)
    fn = drv.call("cuModuleGetFunction", module, b"blocksum")
    weight, size = drv.call("cuModuleGetGlobal", module, b"weight")
    assert size == 4 and _unfloats(drv.read(weight, 4)) == [1.0], "weight: wrong initialiser"
    done, size = drv.call("cuModuleGetGlobal", module, b"blocks_done")
    assert size == 4 and drv.read(done, 4) == bytes(4), "blocks_done: not zero"
    shared = drv.attribute(fn, "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES")
    assert shared == 1024, f"blocksum: {shared} bytes of static shared memory, not 1024"
    n = 100_000
    values = [float(i % 16) for i in range(n)]  # small integers: every partial sum is exact
    blocks = (n + 255) // 256
    pin, pout = drv.alloc(_floats(values)), drv.alloc(bytes(4 * blocks))
    for scale, launches in ((1.0, 1), (0.5, 2)):
        if scale != 1.0:
            drv.call("cuMemcpyHtoD", weight, _floats([scale]), 4)
        err = drv.launch(fn, blocks, 256, ("Q", int(pin)), ("Q", int(pout)), ("i", n))
        assert err == drv.cu.CUresult.CUDA_SUCCESS, f"blocksum: launch {err.name}"
        want = [scale * sum(values[256 * k : 256 * k + 256]) for k in range(blocks)]
        assert _unfloats(drv.read(pout, 4 * blocks)) == want, f"blocksum: wrong sums with weight {scale}"
        counted = struct.unpack("<I", drv.read(done, 4))[0]
        assert counted == launches * blocks, f"blocks_done: {counted}, not {launches * blocks}"
    return f"{blocks} block sums right with weight 1.0 and 0.5, {shared} bytes shared, counter {counted}"


def run_on_gpu(images: dict[str, bytes]) -> int:
    drv = Driver()
    print(f"device: {drv.name} (sm_{drv.sm})")
    if drv.sm != 90:
        print("these cubins are built for sm_90; this device is not one")
        return 2
    checks = {
        "vadd": lambda im: check_vadd(drv, im, "vadd", 1.0),
        "synthetic": lambda im: check_synthetic(drv, im),
        "blocksum": lambda im: check_blocksum(drv, im),
        "renamed": lambda im: check_vadd(drv, im, "vector_add", 2.0),  # __constant__ scale = 2.0f
        "linked": lambda im: check_vadd(drv, drv.link(im), "vector_add", 2.0, counter="calls"),
    }
    for name, image in images.items():
        print(f"{name:10} {len(image):6} bytes: {checks[name](image)}")
    print("all launches checked")
    return 0


def main(argv: list[str]) -> int:
    images = cubins()
    if argv[:1] == ["--build-only"]:
        out = Path(argv[1])
        out.mkdir(parents=True, exist_ok=True)
        for name, image in images.items():
            (out / f"{name}.cubin").write_bytes(image)
        print(f"wrote {len(images)} cubins to {out}")
        return 0
    return run_on_gpu(images)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
