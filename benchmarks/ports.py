"""The ports of tests/ports/ against their CUDA C++ originals, in one process
on one GPU (issue 26): each original in ``benchmarks/originals/`` compiled
by NVRTC for sm_90, run on the port's inputs, its outputs checked against
the port's, then both timed.

    python benchmarks/ports.py [--only black_scholes ...] [--reps 100] [--json PATH]

A port takes part by declaring ``BENCH`` in its module (tests/ports/README.md
describes the fields): the original's file, whether the port is built with
``contract=True``, the size, the (port instance, original kernel) pairs
whose SASS tests/sass/test_sass_ports.py counts (``kernels``), and three
functions: ``setup(cp)`` allocates the inputs and outputs (a dict of arrays), ``port(a)`` launches
the kdsl port on them, ``original(o, a)`` launches the original (``o(name)``
is its kernel, a CuPy ``Function`` called as a ``RawKernel``), and
``globals`` the values of the original's ``__constant__``/``__device__``
variables, set once after loading it (the originals' ``cudaMemcpyToSymbol``).

Flags like for like: a port without ``contract=True`` is kdsl's exact
arithmetic (NVRTC ``--fmad=false``), so its original is compiled with
``--fmad=false`` too; a port with ``contract=True`` meets its original
compiled with NVRTC's default (contraction on).  Nothing else differs:
``-arch=sm_90 -std=c++17`` and the CUDA headers kdsl itself compiles with.

The check: the arrays named in ``outputs`` equal bit for bit, or, where the
original's arithmetic differs (approximate intrinsics, another reduction
order, atomics' order), within the ``tolerance`` the port states with its
reason.  Each side then runs as :class:`kdsl.runtime.benchmark.Bench` times
autotuning candidates: every array put back and the L2 flushed before each
timed run, CUDA events around it, the median of ``--reps`` runs after 10
untimed ones.  Prints a table (port, size, kdsl µs, original µs, ratio) and
writes ``ports.json`` to ``--json``, or ``$OUT``, or the current directory.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORIGINALS = ROOT / "benchmarks" / "originals"
PORTS = ROOT / "tests" / "ports"
ARCH = "sm_90"


# -- the declarations (no GPU needed) ----------------------------------------------------
def port_modules() -> dict:
    """module name -> module, for every port that declares ``BENCH``."""
    if str(PORTS) not in sys.path:
        sys.path.insert(0, str(PORTS))
    found = {}
    for path in sorted(PORTS.glob("*.py")):
        if path.stem.startswith("test_"):
            continue
        module = importlib.import_module(path.stem)
        if hasattr(module, "BENCH"):
            found[path.stem] = module
    return found


def original_options(contract: bool, arch: str = ARCH) -> list[str]:
    """NVRTC's options for an original: kdsl's (``--fmad=false``) for a port
    without contraction, NVRTC's default contraction for one with it."""
    from kdsl.runtime.nvrtc import include_options

    fmad = [] if contract else ["--fmad=false"]
    return [f"-arch={arch}", "-std=c++17", *fmad, *include_options()]


def compile_original(filename: str, contract: bool, arch: str = ARCH) -> bytes:
    """The cubin of ``benchmarks/originals/<filename>``; raises RuntimeError
    with NVRTC's log if it does not compile."""
    from cupy.cuda import nvrtc

    source = (ORIGINALS / filename).read_text()
    prog = nvrtc.createProgram(source, filename, [], [])
    try:
        try:
            nvrtc.compileProgram(prog, original_options(contract, arch))
        except nvrtc.NVRTCError:
            raise RuntimeError(
                f"{filename} does not compile:\n{nvrtc.getProgramLog(prog)}"
            ) from None
        return nvrtc.getCUBIN(prog)
    finally:
        nvrtc.destroyProgram(prog)


def precompile(modules: dict, workers: int = 16) -> dict:
    """Compile every original and every port instance of ``modules`` at once
    (NVRTC runs threads in parallel): source file -> the original's cubin;
    the ports' cubins go to kdsl's disk cache, where their launches find
    them."""
    from concurrent.futures import ThreadPoolExecutor

    from kdsl.runtime import nvrtc
    from kdsl.runtime.compile import cubin_for

    nvrtc._builtins_held()  # so that NVRTC's threads do not race to open it
    instances = [make() for m in modules.values() for make, _ in m.BENCH["kernels"]]
    sources = {
        m.BENCH["source"]: m.BENCH.get("contract", False) for m in modules.values()
    }
    with ThreadPoolExecutor(workers) as pool:
        ports = [pool.submit(cubin_for, inst, ARCH) for inst in instances]
        originals = {
            source: pool.submit(compile_original, source, contract)
            for source, contract in sources.items()
        }
        for future in ports:
            if future.exception() is not None:  # its launch will say what
                print(f"a port did not compile: {future.exception()}"[:300])
        return {
            source: future.result() if future.exception() is None else None
            for source, future in originals.items()
        }


# -- on the GPU -------------------------------------------------------------------------
class Original:
    """The original's module loaded from its cubin: ``o(name)`` a kernel (a
    CuPy ``Function``: ``o(name)(grid, block, args, shared_mem=...)``),
    ``o.set(name, value)`` the bytes of a device global."""

    def __init__(self, cubin: bytes):
        import cupy

        self.module = cupy.cuda.function.Module()
        self.module.load(cubin)

    def __call__(self, name: str):
        return self.module.get_function(name)

    def set(self, name: str, value) -> None:
        import cupy
        import numpy as np

        data = np.ascontiguousarray(value)
        runtime = cupy.cuda.runtime
        ptr = self.module.get_global_var(name)
        runtime.memcpy(ptr, data.ctypes.data, data.nbytes, runtime.memcpyHostToDevice)


def _arrays(a: dict) -> dict:
    import cupy

    return {k: v for k, v in a.items() if isinstance(v, cupy.ndarray)}


def _copy(dst, src):
    """Bytes copied device to device (any dtype: CuPy has no bfloat16
    kernels); returns ``dst``."""
    assert (
        dst.flags.c_contiguous and src.flags.c_contiguous and dst.nbytes == src.nbytes
    )
    dst.data.copy_from_device(src.data, src.nbytes)
    return dst


def _check(name: str, bench: dict, got_port: dict, got_orig: dict) -> str:
    """Raise if the outputs disagree; returns how they were compared."""
    import numpy as np

    if bench.get("compare") is not None:
        return bench["compare"](got_port, got_orig)
    tol = bench.get("tolerance")
    for out in bench["outputs"]:
        p, o = got_port[out], got_orig[out]
        if tol is None:
            if p.tobytes() != o.tobytes():
                bad = np.flatnonzero(p.view(np.uint8) != o.view(np.uint8))
                raise AssertionError(
                    f"{name}: {out} differs from the original's in "
                    f"{bad.size} bytes (first at byte {bad[0]})"
                )
        else:
            rtol, atol = tol
            np.testing.assert_allclose(
                p.astype(np.float64),
                o.astype(np.float64),
                rtol=rtol,
                atol=atol,
                err_msg=f"{name}: {out} against the original's",
            )
    return "exact" if tol is None else f"rtol {tol[0]:g}, atol {tol[1]:g}"


def time_runs(timer, run, reps: int, warmup: int = 10) -> float:
    """Median milliseconds of ``run``; the untimed warm-up runs start from
    the inputs too (a filter's counter would run past its output else)."""
    for _ in range(warmup):
        timer.restore()
        run()
    return timer.time(run, warmup=0, reps=reps)


class Prepared:
    """A port and its original, loaded, on inputs allocated on the GPU."""

    def __init__(self, name: str, module, cubin: bytes | None = None):
        import cupy

        self.name, self.bench = name, module.BENCH
        self.contract = self.bench.get("contract", False)
        if cubin is None:
            cubin = compile_original(self.bench["source"], self.contract)
        self.original = Original(cubin)
        for global_name, value in self.bench.get("globals", {}).items():
            self.original.set(global_name, value)  # its cudaMemcpyToSymbol
        self.a = self.bench["setup"](cupy)
        self.arrays = _arrays(self.a)
        self.saved = {k: _copy(cupy.empty_like(v), v) for k, v in self.arrays.items()}

    def restore(self) -> None:
        for k, v in self.saved.items():
            _copy(self.arrays[k], v)

    def run_kdsl(self) -> None:
        self.bench["port"](self.a)

    def run_original(self) -> None:
        self.bench["original"](self.original, self.a)

    def check(self) -> str:
        """Run both from the inputs and compare (raises AssertionError)."""
        outputs = self.bench["outputs"]
        self.run_kdsl()
        got_port = {k: self.arrays[k].get() for k in outputs}
        self.restore()
        self.run_original()
        got_orig = {k: self.arrays[k].get() for k in outputs}
        self.restore()
        return _check(self.name, self.bench, got_port, got_orig)


def run_port(name: str, module, reps: int, cubin: bytes | None = None) -> dict:
    from kdsl.runtime.benchmark import Bench

    p = Prepared(name, module, cubin)
    try:
        checked = p.check()
    except AssertionError as exc:  # still timed: the row says it disagrees
        checked = f"MISMATCH: {exc}".replace("\n", " ")[:300]
    timer = Bench(name, p.arrays, None)
    try:
        kdsl_ms = time_runs(timer, p.run_kdsl, reps)
        orig_ms = time_runs(timer, p.run_original, reps)
    finally:
        timer.close()
    return {
        "port": name,
        "source": p.bench["source"],
        "size": p.bench["size"],
        "contract": p.contract,
        "checked": checked,
        "kdsl_us": kdsl_ms * 1e3,
        "original_us": orig_ms * 1e3,
        "ratio": kdsl_ms / orig_ms,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="port modules to run")
    parser.add_argument("--reps", type=int, default=100, help="timed runs (median)")
    parser.add_argument("--json", help="where ports.json goes (default $OUT or .)")
    args = parser.parse_args(argv)
    modules = port_modules()
    names = args.only or list(modules)
    unknown = sorted(set(names) - set(modules))
    if unknown:
        parser.error(f"no BENCH in {', '.join(unknown)}; ports: {', '.join(modules)}")
    rows, failed = [], []
    start = time.perf_counter()
    cubins = precompile({name: modules[name] for name in names})
    print(f"compiled in {time.perf_counter() - start:.0f} s", flush=True)
    print(
        f"{'port':<24} {'size':<26} {'kdsl µs':>9} {'orig µs':>9} {'ratio':>6}  check"
    )
    for name in names:
        try:
            module = modules[name]
            row = run_port(name, module, args.reps, cubins[module.BENCH["source"]])
        except Exception as exc:  # noqa: BLE001 - report it and go on
            failed.append({"port": name, "error": f"{type(exc).__name__}: {exc}"})
            print(f"{name:<24} FAILED: {type(exc).__name__}: {exc}"[:400])
            continue
        rows.append(row)
        if row["checked"].startswith("MISMATCH"):
            failed.append({"port": name, "error": row["checked"]})
        print(
            f"{name:<24} {row['size']:<26} {row['kdsl_us']:>9.1f} "
            f"{row['original_us']:>9.1f} {row['ratio']:>6.3f}  {row['checked']}"
            + ("  contract" if row["contract"] else ""),
            flush=True,
        )
    elapsed = time.perf_counter() - start
    print(f"{len(rows)} ports timed in {elapsed:.0f} s; {len(failed)} failed")
    out = Path(args.json or os.environ.get("OUT") or ".")
    if out.suffix != ".json":
        out = out / "ports.json"
    out.write_text(json.dumps({"ports": rows, "failed": failed}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
