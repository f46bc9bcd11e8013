"""SGEMM, Float32 exactly (no TF32 anywhere): kdsl's ``launch_sgemm``
(examples/matmul.py: the autotuned ``sgemm_warp`` for whole tiles, else
``sgemm_vec`` or ``sgemm``) against torch.matmul (cuBLAS) with TF32 off and
Triton's matmul tutorial kernel with ``input_precision="ieee"``; square
1024 .. 8192 and one ragged shape."""

from __future__ import annotations

from functools import lru_cache

from elem_helpers import close
from suite import Case

FAMILY = "sgemm"


@lru_cache(maxsize=None)
def triton_matmul():
    """Triton's tutorial 03 (grouped program order), in IEEE Float32."""
    import triton
    import triton.language as tl

    configs = [
        triton.Config(
            {"BM": 128, "BN": 128, "BK": 32, "GROUP": 8}, num_stages=3, num_warps=8
        ),
        triton.Config(
            {"BM": 128, "BN": 256, "BK": 32, "GROUP": 8}, num_stages=3, num_warps=8
        ),
        triton.Config(
            {"BM": 64, "BN": 128, "BK": 32, "GROUP": 8}, num_stages=4, num_warps=4
        ),
    ]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def matmul_kernel(
        a_ptr, b_ptr, c_ptr, M, N, K,
        sam, sak, sbk, sbn, scm, scn,
        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr,
    ):  # fmt: skip
        pid = tl.program_id(0)
        num_m = tl.cdiv(M, BM)
        num_n = tl.cdiv(N, BN)
        in_group = GROUP * num_n
        first_m = (pid // in_group) * GROUP
        size_m = min(num_m - first_m, GROUP)
        pid_m = first_m + ((pid % in_group) % size_m)
        pid_n = (pid % in_group) // size_m
        offs_m = (pid_m * BM + tl.arange(0, BM)) % M
        offs_n = (pid_n * BN + tl.arange(0, BN)) % N
        offs_k = tl.arange(0, BK)
        a_ptrs = a_ptr + offs_m[:, None] * sam + offs_k[None, :] * sak
        b_ptrs = b_ptr + offs_k[:, None] * sbk + offs_n[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
            acc = tl.dot(a, b, acc, input_precision="ieee")
            a_ptrs += BK * sak
            b_ptrs += BK * sbk
        cm = pid_m * BM + tl.arange(0, BM)
        cn = pid_n * BN + tl.arange(0, BN)
        c_ptrs = c_ptr + scm * cm[:, None] + scn * cn[None, :]
        tl.store(c_ptrs, acc, mask=(cm[:, None] < M) & (cn[None, :] < N))

    def launch(a, b, c):
        M, K = a.shape
        N = b.shape[1]
        grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)
        matmul_kernel[grid](
            a, b, c, M, N, K,
            a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        )  # fmt: skip

    return launch


def _case(M: int, N: int, K: int) -> Case:
    import torch

    import matmul as ex

    torch.backends.cuda.matmul.allow_tf32 = False  # cuBLAS SGEMM, not TF32
    a = torch.randn(M, K, device="cuda")
    b = torch.randn(K, N, device="cuda")
    c, ct, cc = (torch.empty(M, N, device="cuda") for _ in range(3))
    tri = triton_matmul()

    def check():
        ex.launch_sgemm(a, b, c)
        want = (a.double() @ b.double()).float()
        close(c, want, 1e-5, f"sgemm {M}x{N}x{K}")

    return Case(
        family=FAMILY,
        label=f"{M}x{N}x{K}",
        series="f32",
        x=M,
        unit="TFLOP/s",
        work=2.0 * M * N * K,
        runners={
            "kdsl": lambda: ex.launch_sgemm(a, b, c),
            "triton": lambda: tri(a, b, ct),
            "torch": lambda: torch.matmul(a, b, out=cc),
        },
        check=check,
    )


def cases(quick: bool) -> list[Case]:
    sides = [1024, 4096] if quick else [1024, 2048, 4096, 8192]
    out = [_case(s, s, s) for s in sides]
    out.append(_case(3000, 2050, 1500))  # ragged: every edge guarded
    return out


SWEEP_WEIGHT = 4.0  # seconds a sweep case (Triton's autotune search per shape)
# squares below and at 4096, ragged and prime sides, a multiple of 8 but not
# of 128, and decode-like rows (M 16, 127)
SWEEP_SHAPES = [
    (1000, 1000, 1000),
    (2048, 2048, 2048),
    (3000, 2050, 1500),
    (4096, 4096, 4096),
    (4104, 4104, 4104),
    (1009, 3001, 2053),
    (16, 4096, 4096),
    (127, 4096, 4096),
]


def sweep():
    return [(f"{m}x{n}x{k}", lambda s=(m, n, k): _case(*s)) for m, n, k in SWEEP_SHAPES]
