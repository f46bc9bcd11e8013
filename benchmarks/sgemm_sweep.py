"""Every SGEMM candidate of examples/matmul.py against cuBLAS, in one run on a
GPU (one device call picks the configurations worth keeping):

    . benchmarks/device_env.sh && python3 -P benchmarks/sgemm_sweep.py
    bash benchmarks/gpu_session.sh sgemm        # the same, log in $OUT

For each candidate (a kernel and its constexprs, launched directly, not
through the autotuner), then for ``launch_sgemm`` as users call it (its
autotuner's pick): the registers ptxas gave it and its local-memory
spills (from the cubin, as tests/sass/test_sass.py reads them), a check against a
float64 ``torch`` product on a small shape, then the median time of
``triton.testing.do_bench`` (L2 flushed between repetitions) at 4096^3 and
8192^3, printed as TFLOP/s and as a ratio to ``torch.matmul`` with TF32 off
(cuBLAS's exact Float32 SGEMM) on the same inputs. A candidate that fails to
compile, launch or check prints why, and the sweep goes on. About a minute.
"""

from __future__ import annotations

import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "tests"))  # sass.py: registers and spills

SIZES = [4096, 8192]
CHECK = (512, 256, 64)  # whole tiles of every candidate (BM = 256 included)


@dataclass
class Candidate:
    label: str
    kernel: object  # a kdsl Kernel
    constexprs: dict = field(default_factory=dict)
    grid: object = None  # (M, N) -> grid
    block: int = 256

    def launch(self, a, b, c):
        M, K = a.shape
        N = b.shape[1]
        # every kernel takes split-K's partial sums (None: c, no split)
        split = (None,)
        launch = self.kernel[self.grid(M, N), self.block]
        launch(a, b, c, *split, M, N, K, **self.constexprs)


def candidates():
    import matmul as ex

    def tiles_2d(M, N):  # sgemm, sgemm_vec: 128 x 128 tiles, a 2-D grid
        return ((N + 127) // 128, (M + 127) // 128)

    def tiles_1d(bm):  # sgemm_warp: one block a tile, a 1-D grid
        return lambda M, N: ex.sgemm_warp_grid(M, N)(dict(BM=bm, BN=128))

    out = [
        Candidate("sgemm        BK=8  256 thr, scalar loads", ex.sgemm, grid=tiles_2d),
        Candidate(
            "sgemm_vec    BK=16 256 thr, 1 block/SM", ex.sgemm_vec, grid=tiles_2d
        ),
    ]
    # (BM, BK, GROUP, UNROLL): the autotuned ones, other block orders, the
    # other tile shapes without unrolling
    shapes = list(ex.WARP_CONFIGS)
    shapes += [(128, 16, 16, 2), (128, 16, 1, 2), (256, 8, 8, 1)]
    shapes += [(256, 16, 8, 1), (128, 8, 8, 1)]
    for bm, bk, group, unroll in shapes:
        blocks = "2 blocks/SM" if bm == 128 else "1 block/SM"
        out.append(
            Candidate(
                f"sgemm_warp {bm} BK={bk:<2d} G={group:<2d} U={unroll} {blocks}",
                ex.sgemm_warp,
                dict(BM=bm, BK=bk, GROUP=group, UNROLL=unroll),
                tiles_1d(bm),
                bm * 2,
            )
        )
    # the ragged shapes' kernel on whole tiles: what its edge code costs
    for vec in (True, False):
        out.append(
            Candidate(
                f"sgemm_warp 128 EDGE {'16-byte' if vec else '4-byte'} accesses",
                ex.sgemm_warp,
                dict(BM=128, BK=16, GROUP=8, UNROLL=2, EDGE=True, VEC=vec),
                tiles_1d(128),
                256,
            )
        )
    return out


def resources(cand) -> str:
    """Registers, spills and resident blocks an SM (the occupancy the
    driver computes for the block; "?" where a tool is missing)."""
    from sass import registers_of, sass_of

    inst = cand.kernel.dispatch("f32", part=None, **cand.constexprs)
    out = f"{registers_of(inst)} regs"
    try:
        out += f", {sass_of(inst).spills} LDL/STL"
    except Exception as exc:  # nvdisasm missing
        out += f", spills ? ({type(exc).__name__})"
    try:
        from cupy_backends.cuda.api import driver

        from kdsl.runtime.compile import load_function

        fn = load_function(inst, 0)
        blocks = driver.occupancyMaxActiveBlocksPerMultiprocessor(fn.ptr, cand.block, 0)
        out += f", {blocks}x{cand.block} thr/SM"
    except Exception as exc:
        out += f", occupancy ? ({type(exc).__name__})"
    return out


def check(launch, torch):
    """``launch(a, b, c)`` against a float64 product on CHECK's shape."""
    M, N, K = CHECK
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(M, K, device="cuda", generator=g)
    b = torch.randn(K, N, device="cuda", generator=g)
    c = torch.full((M, N), float("nan"), device="cuda")
    launch(a, b, c)
    torch.cuda.synchronize()
    want = a.double() @ b.double()
    err = float(((c.double() - want).abs() / (want.abs() + 1)).max())
    if not err <= 1e-5:  # NaN too: an element never written
        raise AssertionError(f"max relative error {err:.3g} on {M}x{N}x{K}")


def main() -> int:
    import torch
    import triton.testing

    import matmul as ex

    torch.backends.cuda.matmul.allow_tf32 = False  # cuBLAS's exact SGEMM
    torch.backends.cudnn.allow_tf32 = False
    start = time.time()
    print(torch.cuda.get_device_name(), "| torch", torch.__version__)
    inputs = {}
    for s in SIZES:
        g = torch.Generator(device="cuda").manual_seed(s)
        a = torch.randn(s, s, device="cuda", generator=g)
        b = torch.randn(s, s, device="cuda", generator=g)
        inputs[s] = (a, b, torch.empty(s, s, device="cuda"))

    def bench(fn, s) -> float:
        rep = 200 if s >= 8192 else 100
        return float(
            triton.testing.do_bench(fn, warmup=25, rep=rep, return_mode="median")
        )

    torch_ms = {}
    for s, (a, b, c) in inputs.items():
        torch_ms[s] = bench(lambda: torch.matmul(a, b, out=c), s)
    tflops = {s: 2.0 * s**3 / (ms * 1e-3) / 1e12 for s, ms in torch_ms.items()}
    print("torch.matmul (cuBLAS, TF32 off): " + ", ".join(
        f"{s}^3 {tflops[s]:.1f} TFLOP/s" for s in SIZES))  # fmt: skip
    print()
    print(f"{'candidate':44s} {'resources':36s}" + "".join(
        f"{f'{s}^3 TFLOP/s':>16s}{'ratio':>7s}" for s in SIZES))  # fmt: skip

    rows = [(c.label, c.launch, c) for c in candidates()]
    rows.append(("launch_sgemm (autotuned pick)", ex.launch_sgemm, None))
    for label, launch, cand in rows:
        line = f"{label:44s} "
        try:
            line += f"{resources(cand) if cand else '':36s}"
            check(launch, torch)
            for s, (a, b, c) in inputs.items():
                for _ in range(3):  # compile, autotune: untimed
                    launch(a, b, c)
                torch.cuda.synchronize()
                ms = bench(lambda: launch(a, b, c), s)
                rate = 2.0 * s**3 / (ms * 1e-3) / 1e12
                line += f"{rate:16.1f}{torch_ms[s] / ms:7.2f}"
            print(line, flush=True)
        except Exception as exc:  # print and go on with the next candidate
            print(line + f"FAILED: {type(exc).__name__}: {exc}"[:400], flush=True)
            traceback.print_exc(limit=3, file=sys.stdout)
            try:
                torch.cuda.synchronize()
            except Exception as sticky:  # a fault ends the CUDA context
                print(f"CUDA context lost ({sticky}); stopping")
                break
    try:
        print("\nlaunch_sgemm's autotune searches:")
        print(ex.sgemm_warp_tuned.table())
    except Exception as exc:
        print(f"no autotune table: {type(exc).__name__}: {exc}")
    print(f"\n{time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
