"""The interpreter and the GPU agree on every example (random inputs): the
same bits, except where CUDA's transcendental functions (gelu, softmax, the
norms' square roots) or the order of float additions (reduce_sum) make the
GPU's own result inexact."""

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import kdsl

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import example_checks  # noqa: E402

EX = example_checks.EX
RNG = np.random.default_rng(11)
INEXACT = {
    "gelu",
    "gelu_backward",
    "softmax_rows",  # expf; the norms and the sum: Float32 order, a tolerance
    "softmax_online",
    "softmax_split",  # and its (max, sum) pairs
    "layer_norm",
    "layer_norm_wide",
    "rms_norm",
    "rms_norm_wide",
    "reduce_sum",
    "gemm_mma",  # the tensor cores' f32 sums are not rounded once, as the interpreter's
    "gemm_wgmma",
    "attention_fwd",  # exp2f and the tensor cores' sums: P's 16-bit rounding may differ
    "layer_norm_backward",  # the weight and bias gradients: atomic adds, in any order
    "attention_bwd_dkdv",  # as attention_fwd: exp2f, the tensor cores' sums, P and
    "attention_bwd_dq",  # dS rounded to 16 bits (attention_bwd_delta agrees exactly)
}

# o = P V with P rounded to 16 bits: where the interpreter and the GPU round
# a probability differently, o moves by a unit or two of its last bit
LOOSER = {
    "attention_fwd": 2.0**-5,
    "attention_bwd_dkdv": 2.0**-5,
    "attention_bwd_dq": 2.0**-5,
}


@dataclass
class Pair:
    """One argument on both sides: a host copy for the interpreter, a device one."""

    host: np.ndarray
    device: object


def _both(kernel, grid, block=None):
    # block None: the kernel's own block (a launch written kernel[grid])
    where = grid if block is None else (grid, block)

    def launch(*args, **kwargs):  # kwargs: constexprs, shared_mem=
        kernel.interpret[where](
            *(a.host if isinstance(a, Pair) else a for a in args), **kwargs
        )
        kernel[where](*(a.device if isinstance(a, Pair) else a for a in args), **kwargs)
        for a in args:
            if isinstance(a, Pair):
                _agree(kernel.name, a.host, a.device.get())

    return launch


def _agree(name, host, dev):
    assert host.dtype == dev.dtype
    if name not in INEXACT:
        assert host.tobytes() == dev.tobytes(), f"{name}: interpreter != GPU"
        return
    h, d = host.astype(np.float64), dev.astype(np.float64)
    scale = max(np.abs(d).max(), 1e-30)
    tol = 2e-3 if host.itemsize == 2 else 1e-5  # the math is Float32 inside
    tol = LOOSER.get(name, tol)
    assert np.abs(h - d).max() / scale <= tol, f"{name}: interpreter != GPU"


BOTH = example_checks.Backend(
    "interpreter and gpu",
    to_device=lambda a: Pair(np.array(a), cp.asarray(a)),
    to_host=lambda p: p.host,
    launcher=_both,
    small=True,
)


# An all-reduce's peer table holds the addresses of one memory, the host's or
# the device's: no one table serves both sides (tests/examples/test_allreduce.py
# runs it in the interpreter, test_examples_gpu.py on the GPU).
ONE_MEMORY = {"all_reduce_one_shot", "all_reduce_two_shot"}
CASES = [c for c in example_checks.cases() if c[0].__name__ not in ONE_MEMORY]


@pytest.mark.parametrize("case", CASES, ids=example_checks.case_id)
def test_example_interpreted_equals_gpu(case):
    check, t = case
    check(BOTH, t, np.random.default_rng(99))


def _random(shape, t):
    if t.kind == "int":  # every bit pattern, extremes included
        size = int(np.prod(shape)) * t.np_dtype.itemsize
        raw = RNG.integers(0, 256, size, dtype=np.uint8)
        return raw.view(t.np_dtype).reshape(shape)
    return (RNG.standard_normal(shape) * 100).astype(t.np_dtype)


@pytest.mark.parametrize("t", EX["vector_add"].vector_add.supported_dtypes, ids=str)
def test_vector_add_wrapping_on_every_bit_pattern(t):
    n = 2000
    x, y = _random(n, t), _random(n, t)
    out = BOTH.poison(n, t)
    _both(EX["vector_add"].vector_add, 8, 256)(
        BOTH.to_device(x), BOTH.to_device(y), out, n
    )


@pytest.mark.parametrize("t", EX["matmul"].matmul.supported_dtypes, ids=str)
def test_matmul_wrapping_on_every_bit_pattern(t):
    M, N, K = 20, 24, 40
    a, b = BOTH.to_device(_random((M, K), t)), BOTH.to_device(_random((K, N), t))
    c = BOTH.poison((M, N), t)
    grid = ((N + 15) // 16, (M + 15) // 16)
    _both(EX["matmul"].matmul, grid, (16, 16))(a, b, c, M, N, K)


def test_cupy_arrays_are_copied_to_the_host_and_back():
    n = 1000
    x = cp.arange(n, dtype=cp.float32)
    out = cp.zeros(n, dtype=cp.float32)
    EX["vector_add"].vector_add.interpret[4, 256](x, x, out, n)
    assert isinstance(out, cp.ndarray)
    np.testing.assert_array_equal(out.get(), 2 * np.arange(n, dtype=np.float32))


def _interpreter_tests():
    tests = Path(__file__).resolve().parents[1]
    for folder in ("interpreter", "examples"):  # test_interpret*, test_vector_codegen
        if str(tests / folder) not in sys.path:
            sys.path.insert(0, str(tests / folder))
    import test_interpret

    return test_interpret


def test_control_flow_kernels_interpreted_equal_gpu():
    """The interpreter's own test kernels (divergent loops, early returns,
    device functions, short circuits, shuffles, shared and local arrays, tuple
    assignment, a range bound assigned in its loop, vector expressions) give
    the GPU's bits."""
    t = _interpreter_tests()
    import test_interpret_types as types
    import test_vector_codegen as vectors

    halves = RNG.standard_normal(32).astype(np.float16)
    picks = RNG.integers(-3, 4, (2, 8)).astype(np.int32)
    i32 = np.int32
    x300 = np.arange(1, 301, dtype=i32)
    signs = np.array([-3, 0, 1, 2, 5], i32)
    shuffled = RNG.integers(-1000, 1000, 64).astype(i32)
    tile = RNG.standard_normal(32).astype(np.float32)
    runs = [
        (t.collatz, 3, 128, [x300, np.full(320, -5, i32), 300]),
        (t.flow, 1, 12, [np.arange(12, dtype=i32), np.zeros(12, i32)]),
        (t.signs, 1, 5, [signs, np.zeros(5, i32)]),
        (t.short_circuit, 1, 6, [np.array([3, -1, 4], i32), np.full(6, 9, i32), 3]),
        (t.warp_ops, 1, 64, [shuffled, np.zeros(192, i32)]),
        (t.tile_rows, 1, (8, 4), [tile, np.zeros(32, np.float32)]),
        (t.swaps, 1, 4, [np.array([10, 20, 30, 40], i32), np.zeros(8, i32)]),
        (t.shrinking, 1, 4, [np.zeros(4, i32), 6]),
        (
            types.vectors,
            1,
            4,
            [halves, np.zeros(32, np.float32), np.zeros(64, np.uint8)],
        ),
        (vectors.mixed, 1, 4, [halves[:16], tile[:16], np.zeros(16, np.float32)]),
        (vectors.pick, 1, 2, [picks[0], picks[1], np.zeros(8, i32), np.zeros(8, i32)]),
        (vectors.constant_lanes, 1, 2, [np.zeros(16, np.float32)]),
        (vectors.select_of_select, 1, 2, [picks[0], np.zeros(8, i32)]),
        (
            vectors.vector_function,
            1,
            2,
            [tile[:8], tile[8:16], np.zeros(8, np.float32), 2.0],
        ),
        (
            vectors.many_loads,
            1,
            2,
            [halves[:8], tile[:8], np.zeros(8, np.float32), 0.5],
        ),
        (t.nested_swaps, 1, 1, [np.zeros(6, i32)]),
        (types.nan_payload, 1, 2, [np.zeros(2, i32)]),
        (t.countdown, 1, 2, [np.zeros(2, i32), 5]),
        (t.value_first, 1, 1, [np.full(16, -1, i32), np.zeros(1, i32)]),
        (t.untaken_arm, 1, 4, [np.arange(4, dtype=i32), np.zeros(4, i32)]),
        (t.reused_name, 1, 4, [np.zeros(8, i32), 2]),
        (
            t.view_in_branch,
            1,
            4,
            [np.arange(8, dtype=np.float32), np.zeros(8, np.float32)],
        ),
    ]
    for d in (1, -1, 33, 5, -7):  # shuffles: the PTX rule for every offset
        x = np.arange(100, 164, dtype=i32)
        runs.append((t.shuffle_edges, 1, 64, [x, np.zeros(192, i32), d]))
    for kernel, grid, block, args in runs:
        pairs = [
            Pair(a.copy(), cp.asarray(a)) if isinstance(a, np.ndarray) else a
            for a in args
        ]
        _both(kernel, grid, block)(*pairs)


F = kdsl.TypeVar("F", bound=kdsl.Float)


@kdsl.kernel
def exact_math(
    x: kdsl.Pointer[F], y: kdsl.Pointer[F], z: kdsl.Pointer[F], out: kdsl.Pointer[F]
):
    i = kdsl.block_idx.x * kdsl.block_dim.x + kdsl.thread_idx.x
    a, b, c = x[i], y[i], z[i]
    out[7 * i] = kdsl.math.sqrt(a)
    out[7 * i + 1] = kdsl.math.floor(a)
    out[7 * i + 2] = kdsl.math.ceil(a)
    out[7 * i + 3] = kdsl.math.trunc(a)
    out[7 * i + 4] = kdsl.math.round(a)
    out[7 * i + 5] = kdsl.math.fabs(a)
    out[7 * i + 6] = kdsl.math.fma(a, b, c)


@pytest.mark.parametrize("t", exact_math.supported_dtypes, ids=str)
def test_exact_math_functions_fold_as_the_gpu_computes(t):
    """The interpreter computes these with the compile-time fold
    (tests/unit/test_lanes.py), so folding equals the GPU (any NaN is a NaN)."""
    import semantics_cases as sc

    from kdsl.transpile.core import lanes

    edges = sc.edge_values(t)
    n = len(edges)
    x = lanes.from_values(edges, t)
    y, z = np.roll(x, 7), np.roll(x, 13)
    host = np.zeros(7 * n, t.np_dtype)
    exact_math.interpret[n, 1](x, y, z, host)
    dev = cp.zeros(7 * n, t.np_dtype)
    exact_math[n, 1](cp.asarray(x), cp.asarray(y), cp.asarray(z), dev)
    dev = dev.get()
    h, d = host.astype(np.float64), dev.astype(np.float64)
    unsigned = f"u{host.itemsize}"
    same = (host.view(unsigned) == dev.view(unsigned)) | (np.isnan(h) & np.isnan(d))
    bad = np.flatnonzero(~same)
    assert not len(bad), [(edges[k // 7], k % 7, h[k], d[k]) for k in bad[:10]]


def test_random_vector_expressions_interpreted_equal_gpu(tmp_path):
    """Each lane of a vector expression has the scalar semantics, on both sides."""
    from vector_fuzz import make_kernels

    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((2, 64)).astype(np.float32)
    for k in make_kernels(tmp_path, 40, seed=2):
        out = np.zeros(64, np.float32)
        _both(k, 1, 16)(BOTH.to_device(x), BOTH.to_device(y), BOTH.to_device(out), 0.25)


def test_pytorch_tensors_bfloat16_included_go_through_the_interpreter():
    torch = pytest.importorskip("torch")
    va = EX["vector_add"].vector_add
    for device in ("cuda", "cpu"):
        x = torch.randn(300, device=device, dtype=torch.bfloat16)
        out = torch.zeros_like(x)
        va.interpret[2, 256](x, x, out, 300)
        assert torch.equal(out, x + x), device
