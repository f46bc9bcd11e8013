"""The GPU checks of examples/gemm_fp8.py, each run by
tests/gpu/test_gemm_fp8_gpu.py (and example_checks.gemm_fp8) in a
subprocess of its own with a timeout (a wrong mbarrier phase or byte count
hangs a kernel rather than failing it).  Each raises AssertionError with
what it saw.

Tolerance.  The kernel's per-tensor sum runs through the tensor cores'
8-bit accumulation across the whole of K (no promotion, as
``torch._scaled_mm(..., use_fast_accum=True)``), whose internal precision
is undocumented (docs/tensor-cores.md, "fp8"): against the float64 product
of the fp8 values, ``|c - exact| <= 2^-9 (|a| @ |b|) sa sb`` plus c's
rounding (bf16: 2^-8 |exact|; f32: 2^-22 |exact|); against
``torch._scaled_mm``, twice that.  Block-scaled: the same with each block's
scales inside the absolute product."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for path in (HERE.parent, HERE.parent.parent / "examples"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import torch  # noqa: E402

from examples_index import example_modules  # noqa: E402

F = example_modules()["gemm_fp8"]
OUT = {"bf16": torch.bfloat16, "f32": torch.float32}
ROUNDING = {"bf16": 2.0**-8, "f32": 2.0**-22}


def operands(M, N, K, seed=0, block_scaled=False, device="cuda"):
    """e4m3 a (M, K) row-major, b (K, N) column-major, and their scales:
    per-tensor one-element tensors, block-scaled (M, K/128) and (N/128,
    K/128) of varied powers of two and fractions."""
    g = torch.Generator(device=device).manual_seed(seed)
    a = (torch.randn((M, K), device=device, generator=g) * 2).to(torch.float8_e4m3fn)
    bt = (torch.randn((N, K), device=device, generator=g) * 2).to(torch.float8_e4m3fn)
    b = bt.t()  # column-major, as torch._scaled_mm takes it
    if block_scaled:
        kb, nb = F.blocks(K), F.blocks(N)
        sa = torch.rand((M, kb), device=device, generator=g) * 2 + 0.25
        sb = torch.rand((nb, kb), device=device, generator=g) * 2 + 0.25
    else:
        sa = torch.tensor([0.75], device=device)
        sb = torch.tensor([1.5], device=device)
    return a, b, sa, sb


def bound(a, b, sa, sb, exact, out, block_scaled):
    """The tolerance above, elementwise."""
    a_abs, b_abs = a.to(torch.float32).abs(), b.to(torch.float32).abs()
    mag = F.reference(a_abs, b_abs, sa.abs(), sb.abs(), block_scaled)
    return 2.0**-9 * mag + ROUNDING[out] * exact.abs() + 1e-30


def _check(c, a, b, sa, sb, out, block_scaled, what, factor=1.0):
    exact = F.reference(a, b, sa, sb, block_scaled)
    got = c.double()
    assert not torch.isnan(got).any(), f"{what}: NaN (an element never stored)"
    err = (got - exact).abs()
    tol = factor * bound(a, b, sa, sb, exact, out, block_scaled)
    worst = (err / tol).max().item()
    assert worst <= 1, f"{what}: worst error {worst:.3g} x the bound"
    return worst


def config(out, bn, stages, block_scaled, M, N, K, edge, persistent, **constexprs):
    """One configuration, launched directly: a block a tile or a persistent
    grid of 7 blocks (each loops, the ring running on); c the first M rows
    of a NaN buffer 16 rows longer, so stores past its end show.
    ``constexprs``: the kernel's others (GROUP_M, PROMOTE)."""
    a, b, sa, sb = operands(M, N, K, seed=bn + stages + M, block_scaled=block_scaled)
    buf = torch.full((M + 16, N), float("nan"), device="cuda", dtype=OUT[out])
    c = buf[:M]
    tma_a, tma_b = F.tensor_maps(a, b.t())
    tiles = F.tiles(M, N, bn)
    grid = min(7, tiles) if persistent else tiles
    F.gemm_fp8[(grid,), F.THREADS](
        tma_a, tma_b, c, sa, sb, M, N, K, BN=bn, STAGES=stages, EDGE=edge,
        BLOCK_SCALED=block_scaled, shared_mem=F.shared_mem(bn, stages), **constexprs,
    )  # fmt: skip
    torch.cuda.synchronize()
    what = f"{out} BN={bn} STAGES={stages} block_scaled={block_scaled} M={M} N={N} K={K} EDGE={edge} grid={grid} {constexprs}"
    _check(c, a, b, sa, sb, out, block_scaled, what)
    assert torch.isnan(buf[M:]).all(), f"{what}: stores past c's last row"


def scaled_mm(out, M, N, K):
    """The autotuned scaled_mm against torch._scaled_mm and float64."""
    a, b, sa, sb = operands(M, N, K, seed=1)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=OUT[out])
    F.scaled_mm(a, b, sa, sb, c)
    what = f"scaled_mm {out} M={M} N={N} K={K}"
    _check(c, a, b, sa, sb, out, False, what)
    if N % 16 == 0 and K % 16 == 0:  # what torch._scaled_mm takes
        want = torch._scaled_mm(a, b, sa, sb, out_dtype=OUT[out])
        _check(want, a, b, sa, sb, out, False, f"torch._scaled_mm {what}")
        exact = F.reference(a, b, sa, sb, False)
        tol = 2 * bound(a, b, sa, sb, exact, out, False)
        worst = ((c.double() - want.double()).abs() / tol).max().item()
        assert worst <= 1, f"{what}: vs torch._scaled_mm {worst:.3g} x the bound"


def block_scaled(out, M, N, K):
    """The autotuned block_scaled_mm against the float64 reference."""
    a, b, sa, sb = operands(M, N, K, seed=2, block_scaled=True)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=OUT[out])
    F.block_scaled_mm(a, b, sa, sb, c)
    _check(c, a, b, sa, sb, out, True, f"block_scaled_mm {out} M={M} N={N} K={K}")


def configuration(bn, stages, block_scaled):
    """One configuration on one tile, on whole tiles with a persistent grid
    (the ring wraps, tiles loop), and ragged (EDGE) both ways."""
    config("bf16", bn, stages, block_scaled, 128, bn, 128, False, False)
    config("f32", bn, stages, block_scaled, 1024, 3 * bn, 2048, False, True)
    config("bf16", bn, stages, block_scaled, 333, 2 * bn - 6, 784, True, False)
    config("f32", bn, stages, block_scaled, 1000, 5 * bn + 2, 1040, True, True)


def host_functions(out):
    """scaled_mm and block_scaled_mm, autotuned, at 4096^3 and odd sizes."""
    # torch._scaled_mm takes N and K multiples of 16: (72, 520, 208) is
    # checked against float64 only
    for shape in ((4096, 4096, 4096), (200, 528, 4112), (72, 520, 208), (1, 64, 16)):
        scaled_mm(out, *shape)
        block_scaled(out, *shape)


def example(out):
    """example_checks.gemm_fp8: both host functions at a small ragged size
    (the Int32 instance: int_mm, against the exact product)."""
    if out == "i32":
        a, bt = int8_operands(300, 392, 272, seed=3)
        c = torch.full((300, 392), -7, device="cuda", dtype=torch.int32)
        F.int_mm(a, bt, c)
        assert torch.equal(c, int8_exact(a, bt)), "int_mm 300x392x272"
        return
    scaled_mm(out, 300, 392, 272)
    block_scaled(out, 300, 392, 272)


def op(M, N, K):
    """The kdsl.torch operator (examples/pytorch/ops.py), eager and under
    torch.compile, against the host function."""
    sys.path.insert(0, str(HERE.parent.parent))
    from examples.pytorch.ops import scaled_mm_fp8

    a, b, sa, sb = operands(M, N, K, seed=4)
    c = torch.empty((M, N), device="cuda", dtype=torch.bfloat16)
    F.scaled_mm(a, b, sa, sb, c)
    got = scaled_mm_fp8(a, b, sa, sb, torch.bfloat16)
    assert torch.equal(got, c), "the operator differs from scaled_mm"
    compiled = torch.compile(scaled_mm_fp8, fullgraph=True)
    assert torch.equal(compiled(a, b, sa, sb, torch.bfloat16), c)


# -- the int8 instance (int_mm: Int8 tiles, Int32 c, no scales) ---------------------------
def int8_operands(M, N, K, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8, generator=g)
    bt = torch.randint(-128, 128, (N, K), device="cuda", dtype=torch.int8, generator=g)
    return a, bt


def int8_exact(a, bt):
    """a @ bt.T exactly (|sums| < 2^31 and 2^53 here)."""
    return (a.double() @ bt.double().T).to(torch.int32)


def int8_config(bn, stages, M, N, K, edge, persistent):
    """One int8 configuration launched directly, as ``config``: c the first
    M rows of a buffer of -7 16 rows longer (stores past its end show), the
    result equal to the exact product."""
    a, bt = int8_operands(M, N, K, seed=bn + stages + M)
    buf = torch.full((M + 16, N), -7, device="cuda", dtype=torch.int32)
    c = buf[:M]
    tma_a, tma_b = F.tensor_maps(a, bt)
    tiles = F.tiles(M, N, bn)
    grid = min(7, tiles) if persistent else tiles
    F.gemm_fp8[(grid,), F.THREADS](
        tma_a, tma_b, c, None, None, M, N, K, BN=bn, STAGES=stages, EDGE=edge,
        shared_mem=F.shared_mem(bn, stages),
    )  # fmt: skip
    torch.cuda.synchronize()
    what = f"int8 BN={bn} STAGES={stages} M={M} N={N} K={K} EDGE={edge} grid={grid}"
    want = int8_exact(a, bt)
    bad = (c != want).sum().item()
    assert bad == 0, f"{what}: {bad} elements differ from the exact product"
    assert (buf[M:] == -7).all(), f"{what}: stores past c's last row"


def int8_configuration(bn, stages):
    """One int8 configuration on one tile, whole tiles with a persistent
    grid, and ragged (EDGE) both ways."""
    int8_config(bn, stages, 128, bn, 128, False, False)
    int8_config(bn, stages, 1024, 3 * bn, 2048, False, True)
    int8_config(bn, stages, 333, 2 * bn - 6, 784, True, False)
    int8_config(bn, stages, 1000, 5 * bn + 2, 1040, True, True)


def int_mm():
    """The autotuned int_mm, and gemm_int8.gemm (which launches it on
    Hopper), equal to torch._int_mm and to the exact product, whole and
    ragged; and the sums wrap, as the interpreter's model has it (K = 2^17
    products -128 * -128: 2^31, one past Int32's largest)."""
    G = example_modules()["gemm_int8"]
    for M, N, K in ((4096, 4096, 4096), (1009, 4104, 4112), (200, 528, 4112)):
        a, bt = int8_operands(M, N, K, seed=M + N)
        c = torch.full((M, N), -7, device="cuda", dtype=torch.int32)
        F.int_mm(a, bt, c)
        assert torch.equal(c, int8_exact(a, bt)), f"int_mm {M}x{N}x{K}"
        assert torch.equal(c, torch._int_mm(a, bt.T)), f"vs torch._int_mm {M}x{N}x{K}"
        c.fill_(-7)
        G.gemm(a, bt, c)
        assert torch.equal(c, torch._int_mm(a, bt.T)), f"gemm_int8.gemm {M}x{N}x{K}"
    for M, N, K in ((72, 520, 208), (1, 64, 16)):  # below torch._int_mm's sizes
        a, bt = int8_operands(M, N, K, seed=K)
        c = torch.full((M, N), -7, device="cuda", dtype=torch.int32)
        F.int_mm(a, bt, c)
        assert torch.equal(c, int8_exact(a, bt)), f"int_mm {M}x{N}x{K}"
    K = 2**17
    a = torch.full((128, K), -128, device="cuda", dtype=torch.int8)
    bt = torch.full((256, K), -128, device="cuda", dtype=torch.int8)
    c = torch.zeros((128, 256), device="cuda", dtype=torch.int32)
    F.int_mm(a, bt, c)
    assert (c == -(2**31)).all(), f"the wrapped sum: {c[0, 0].item()}"
