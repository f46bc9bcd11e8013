"""GEMM on the tensor cores: kdsl's examples/gemm_mma.py (mma.sync m16n8k16,
ldmatrix, a cp.async pipeline; autotuned), examples/gemm_wgmma.py
(Hopper's wgmma, sm_90a; B passed transposed, (N, K), made once outside the
timing) and examples/gemm_tma.py (wgmma fed by TMA from a producer
warpgroup; its tensor maps built once outside the timing) against
torch.matmul (cuBLAS) and
a Triton tutorial-style `tl.dot` kernel autotuned over a few configurations,
bf16 and f16, square sizes (4096^3 and 8192^3; --quick: 2048^3); and
examples/gemm_int8.py's ``gemm`` (on Hopper gemm_fp8.int_mm: TMA + wgmma
with Int8 tiles) against torch._int_mm, square and (not --quick) the LLM up
projection 4096 x 14336 x 4096 and a ragged 1009 x 4104 x 4112.  torch and
triton are imported when the cases are built, on the GPU machine."""

from __future__ import annotations

FAMILY = "gemm"


def _triton_matmul():
    """The Triton tutorial's matmul (grouped launch order), autotuned."""
    import triton
    import triton.language as tl

    configs = [
        triton.Config(
            {"BM": bm, "BN": bn, "BK": bk, "GROUP": 8}, num_stages=s, num_warps=w
        )
        for bm, bn, bk, s, w in [
            (128, 256, 64, 3, 8),
            (256, 128, 64, 3, 8),
            (128, 128, 64, 4, 4),
            (128, 128, 32, 4, 4),
            (64, 256, 32, 4, 4),
        ]
    ]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def kernel(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr, GROUP: tl.constexpr):  # fmt: skip
        pid = tl.program_id(0)
        blocks_m, blocks_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
        per_group = GROUP * blocks_n
        first_m = pid // per_group * GROUP
        size_m = min(blocks_m - first_m, GROUP)
        pid_m = first_m + pid % per_group % size_m
        pid_n = pid % per_group // size_m
        rm = (pid_m * BM + tl.arange(0, BM)) % M
        rn = (pid_n * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        pa = a + rm[:, None] * K + rk[None, :]
        pb = b + rk[:, None] * N + rn[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            x = tl.load(pa, mask=rk[None, :] < K - k * BK, other=0.0)
            y = tl.load(pb, mask=rk[:, None] < K - k * BK, other=0.0)
            acc = tl.dot(x, y, acc)
            pa += BK
            pb += BK * N
        cm = pid_m * BM + tl.arange(0, BM)
        cn = pid_n * BN + tl.arange(0, BN)
        mask = (cm[:, None] < M) & (cn[None, :] < N)
        tl.store(c + cm[:, None] * N + cn[None, :], acc.to(c.dtype.element_ty), mask)

    def run(a, b, c):
        M, K = a.shape
        N = b.shape[1]
        grid = lambda m: (triton.cdiv(M, m["BM"]) * triton.cdiv(N, m["BN"]),)  # noqa
        kernel[grid](a, b, c, M, N, K)

    return run


def cases(quick: bool):
    import torch

    import gemm_int8  # examples/, on the path (suite.family_modules)
    import gemm_mma
    import gemm_tma
    import gemm_wgmma
    from suite import Case

    triton_matmul = _triton_matmul()
    sizes = [2048] if quick else [4096, 8192]
    out = []
    for name, dtype in (("bf16", torch.bfloat16), ("f16", torch.float16)):
        for n in sizes:
            a = torch.randn(n, n, device="cuda", dtype=dtype)
            b = torch.randn(n, n, device="cuda", dtype=dtype)
            bt = b.t().contiguous()  # wgmma reads B K-major: the user passes b.T
            c_torch = torch.empty_like(a)
            c_triton = torch.empty_like(a)
            peers = {
                "torch": lambda a=a, b=b, c=c_torch: torch.matmul(a, b, out=c),
                "triton": lambda a=a, b=b, c=c_triton: triton_matmul(a, b, c),
            }

            def case(kind, kdsl_run, note, a=a, b=b, n=n, name=name, peers=peers):
                """One row: ``kdsl_run(c)`` against the peers, checked
                against a @ b."""
                c = torch.empty_like(a)

                def check():
                    kdsl_run(c)
                    want = a @ b
                    torch.testing.assert_close(c, want, rtol=2e-2, atol=2e-2 * n**0.5)

                return Case(
                    family=FAMILY,
                    label=f"{name}{kind} {n}^3",
                    series=f"{name}{kind}",
                    x=n,
                    unit="TFLOP/s",
                    work=2.0 * n**3,
                    runners={"kdsl": lambda: kdsl_run(c), **peers},
                    check=check,
                    note=note,
                )

            # the tensor maps built once, as a caller keeps them
            maps_bt = gemm_tma.tensor_maps(a, bt)
            maps_b = gemm_tma.tensor_maps(a, b)
            out += [
                case(
                    "",
                    lambda c, a=a, b=b: gemm_mma.gemm(a, b, c),
                    "kdsl: mma.sync path",
                ),
                case(
                    " wgmma",
                    lambda c, a=a, bt=bt: gemm_wgmma.gemm(a, bt, c),
                    "kdsl: wgmma path (cp.async pipeline, no TMA); bt = b.T given",
                ),
                case(
                    " tma",
                    lambda c, a=a, bt=bt, m=maps_bt: gemm_tma.gemm(a, bt, c, m),
                    "kdsl: warp-specialised wgmma fed by TMA; bt = b.T given",
                ),
                # the same kernel reading b row-major (MN-major wgmma B): the
                # inputs torch.matmul takes, no transposed copy
                case(
                    " tma row-major b",
                    lambda c, a=a, b=b, m=maps_b: gemm_tma.matmul(a, b, c, m),
                    "kdsl: gemm_tma.matmul, b (K, N) row-major as given",
                ),
            ]
    for n in sizes:  # int8 in, int32 out: c = a @ bt.T (bt is B transposed)
        out.append(_int8_case(n, n, n))
    if not quick:  # an LLM MLP shape, and edges (TMA's zero fill)
        out += [_int8_case(4096, 14336, 4096), _int8_case(1009, 4104, 4112)]
    return out


def _int8_case(M: int, N: int, K: int):
    import torch

    import gemm_fp8
    import gemm_int8
    from suite import Case

    a = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8)
    bt = torch.randint(-128, 128, (N, K), device="cuda", dtype=torch.int8)
    c = torch.empty(M, N, device="cuda", dtype=torch.int32)
    c_torch = torch.empty_like(c)
    # on Hopper gemm launches gemm_fp8.int_mm (TMA + wgmma): its tensor maps
    # built once, as a caller keeps them (as the bf16 tma rows do)
    hopper = gemm_int8.hopper_operands(a, bt, c)
    maps = gemm_fp8.tensor_maps(a, bt) if hopper else None

    def check():
        c.fill_(-7)
        gemm_int8.gemm(a, bt, c, maps=maps)
        assert torch.equal(c, torch._int_mm(a, bt.T))

    return Case(
        family=FAMILY,
        label=f"int8 {_shape(M, N, K)}",
        series="int8",
        x=M * N * K,
        unit="TOP/s",
        work=2.0 * M * N * K,
        runners={
            "kdsl": lambda: gemm_int8.gemm(a, bt, c, maps=maps),
            "torch": lambda: c_torch.copy_(torch._int_mm(a, bt.T)),
        },
        check=check,
        note="kdsl: "
        + ("gemm_fp8.int_mm (TMA + wgmma), maps kept" if hopper else "mma.sync")
        + "; torch: torch._int_mm (plus a copy into c)",
    )


def _shape(M: int, N: int, K: int) -> str:
    return f"{M}^3" if M == N == K else f"{M}x{N}x{K}"


def _bf16_case(M: int, N: int, K: int):
    """bf16 ``gemm_tma.matmul`` (b row-major, as torch.matmul takes it; its
    tensor maps built once) against torch.matmul and the Triton tutorial
    matmul, autotuned."""
    import torch

    import gemm_tma
    from suite import Case

    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    c, c_torch, c_triton = (
        torch.empty(M, N, device="cuda", dtype=a.dtype) for _ in range(3)
    )
    maps = gemm_tma.tensor_maps(a, b)
    triton_matmul = _triton_matmul()

    def check():
        gemm_tma.matmul(a, b, c, maps)
        want = a @ b
        torch.testing.assert_close(c, want, rtol=2e-2, atol=2e-2 * K**0.5)

    kind = "decode" if M <= 128 else "square" if M == N == K else "ragged/model"
    return Case(
        family=FAMILY,
        label=f"bf16 {kind} {_shape(M, N, K)}",
        series=f"bf16 {kind}",
        x=M * N * K,
        unit="TFLOP/s",
        work=2.0 * M * N * K,
        runners={
            "kdsl": lambda: gemm_tma.matmul(a, b, c, maps),
            "torch": lambda: torch.matmul(a, b, out=c_torch),
            "triton": lambda: triton_matmul(a, b, c_triton),
        },
        check=check,
        note="kdsl: gemm_tma.matmul (TMA + wgmma, b row-major; split-K where the autotuner picks it)",
    )


SWEEP_WEIGHT = 4.5  # seconds a sweep case (Triton's autotune search per shape)
# (M, N, K), N and K multiples of 8 (gemm_tma's TMA rows): squares; model
# shapes (an LLM MLP's up and down projections, a vocabulary projection);
# ragged ones (M prime, N and K multiples of 8 but not of 128); decoding
# (M 1 .. 128, N and K large)
SWEEP_BF16 = [
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (4096, 14336, 4096),
    (4096, 4096, 14336),
    (1009, 4104, 4104),
    (3000, 5000, 2056),
    (1, 4096, 4096),
    (16, 4096, 4096),
    (64, 14336, 4096),
    (128, 4096, 14336),
    (128, 128256, 4096),
]
SWEEP_INT8 = [(4096, 4096, 4096), (1000, 4104, 4096)]


def sweep():
    grid = [(f"bf16 {_shape(*s)}", lambda s=s: _bf16_case(*s)) for s in SWEEP_BF16]
    grid += [(f"int8 {_shape(*s)}", lambda s=s: _int8_case(*s)) for s in SWEEP_INT8]
    return grid
