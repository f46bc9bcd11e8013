"""The ports of real kernels (tests/ports/) on the GPU: each gives the numpy
reference of tests/ports/test_ports.py, and the interpreter's bytes where the
result is exact (all but the softmax, whose expf is the GPU's, and the
filter, whose order is the atomics')."""

import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ports"))
import attention_permute  # noqa: E402
import black_scholes  # noqa: E402
import convolution_separable  # noqa: E402
import gelu_forward  # noqa: E402
import histogram256  # noqa: E402
import laplace  # noqa: E402
import layer_norm_backward  # noqa: E402
import layernorm_forward  # noqa: E402
import matmul_forward  # noqa: E402
import matrix_mul  # noqa: E402
import mul_mat_vec_q8_0  # noqa: E402
import ml_dtypes  # noqa: E402
import nbody  # noqa: E402
import numba_matmul  # noqa: E402
import numba_vecadd  # noqa: E402
import online_softmax  # noqa: E402
import philox_dropout  # noqa: E402
import quantize_q8_1  # noqa: E402
import reduce7  # noqa: E402
import rope_norm  # noqa: E402
import shfl_scan  # noqa: E402
import simple_assert  # noqa: E402
import softmax_forward  # noqa: E402
import test_ports as P  # noqa: E402
import threadfence_reduction  # noqa: E402
import warp_aggregated_filter  # noqa: E402


@pytest.mark.parametrize("n", [37, 1000, 4099, 256 * 256])
def test_shfl_scan(n):
    x = P.rng(n).integers(-(2**31), 2**31, n, dtype=np.int32)
    blocks = -(-n // 256)
    data, partial = cp.asarray(x), cp.zeros(256, np.int32)
    unused = cp.zeros(1, np.int32)
    shfl_scan.shfl_scan_test[blocks, 256](data, n, partial, BLOCK=256)
    shfl_scan.shfl_scan_test[1, 256](partial, blocks, unused, BLOCK=256)
    if blocks > 1:
        shfl_scan.uniform_add[blocks - 1, 256](data, partial, n)
    got = data.get().tobytes()
    assert got == np.cumsum(x, dtype=np.int32).tobytes() == P.scan(x).tobytes()


@pytest.mark.parametrize("integer", [True, False], ids=["int32", "float32"])
@pytest.mark.parametrize(
    "n, block, blocks",
    [(1000, 256, 3), (4096, 128, 4), (77, 64, 2), (1 << 18, 256, 32)],
)
def test_reduce7(integer, n, block, blocks):
    t = np.int32 if integer else np.float32
    r = P.rng(n)
    x = r.integers(-(2**31), 2**31, n, np.int32) if integer else r.standard_normal(n)
    x = x.astype(t)
    want = np.zeros(blocks, t)
    args = dict(BLOCK=block, N_IS_POW2=n & (n - 1) == 0, INTEGER=integer)
    reduce7.reduce7.interpret[blocks, block](x, want, n, **args)
    out = cp.zeros(blocks, t)
    reduce7.reduce7[blocks, block](cp.asarray(x), out, n, **args)
    assert out.get().tobytes() == want.tobytes()
    if integer:
        assert want.sum(dtype=np.int32) == x.sum(dtype=np.int32)


@pytest.mark.parametrize("n", [37, 1000, 1 << 20])
@pytest.mark.parametrize("p, seed", [(0.5, 123456789012), (0.1, 7)])
def test_philox_dropout(n, p, seed):
    x = P.rng(n).standard_normal(n).astype(np.float32)
    out = cp.full(n, np.nan, np.float32)
    philox_dropout.seeded_dropout[-(-n // 256), 256](cp.asarray(x), out, n, p, seed)
    assert out.get().tobytes() == P.dropout_reference(x, p, seed).tobytes()


@pytest.mark.parametrize("size", [1001, 700])
def test_laplace(size):
    buf_0, buf_1 = P.rod(size)
    want = P.heat_reference(buf_0, buf_1, 1000, 0.25)
    d_0, d_1 = cp.asarray(buf_0), cp.asarray(buf_1)
    laplace.solve_heat_equation[-(-size // 256), 256](d_0, d_1, size, 1000, 0.25)
    assert d_0.get().tobytes() == want[0].tobytes()
    assert d_1.get().tobytes() == want[1].tobytes()


@pytest.mark.parametrize("n", [37, 1000, 1 << 20])
def test_warp_aggregated_filter(n):
    src = P.rng(n).integers(-5, 5, n, dtype=np.int32)
    dst = cp.zeros(n, np.int32)
    nres = cp.zeros(1, np.int32)
    warp_aggregated_filter.filter_k[-(-n // 128), 128](dst, nres, cp.asarray(src), n)
    kept = src[src > 0]
    count = int(nres.get()[0])
    assert count == kept.size
    assert np.sort(dst.get()[:count]).tolist() == np.sort(kept).tolist()


@pytest.mark.parametrize("rows, C", [(7, 100), (13, 257), (1000, 1024)])
def test_online_softmax(rows, C):
    x = (3 * P.rng(C).standard_normal((rows, C))).astype(np.float32)
    out = cp.zeros_like(cp.asarray(x))
    kernel = online_softmax.softmax_forward_online_kernel2
    kernel[-(-rows // 4), 128](out, cp.asarray(x), rows, C)
    np.testing.assert_allclose(out.get(), P.softmax_reference(x), rtol=1e-5, atol=1e-9)


def test_simple_assert():
    simple_assert.test_kernel[2, 32](64)  # every index below N
    with pytest.raises(kdsl.DeviceAssertionError) as info:
        simple_assert.test_kernel[2, 32](60)
    err = info.value
    assert err.code == "E460" and err.block == (1, 0, 0)
    assert err.thread[0] in (28, 29, 30, 31)  # the GPU names one failing thread
    assert "gtid < N" in str(err)
    simple_assert.test_kernel[2, 32](64)  # the context is still usable
    cp.cuda.Device().synchronize()


@pytest.mark.parametrize("words", [37, 4099, 1 << 20])
def test_histogram256(words):
    data = P.rng(words).integers(0, 256, 4 * words, dtype=np.uint8)
    blocks = 240  # the sample's PARTIAL_HISTOGRAM256_COUNT
    partial = cp.zeros(blocks * 256, np.uint32)
    h = histogram256
    h.histogram256_kernel[blocks, h.THREADBLOCK_SIZE](partial, cp.asarray(data), words)
    hist = cp.zeros(256, np.uint32)
    h.merge_histogram256_kernel[256, h.MERGE_THREADBLOCK_SIZE](hist, partial, blocks)
    assert hist.get().tolist() == np.bincount(data, minlength=256).tolist()


@pytest.mark.parametrize("w, h", [(128, 64), (384, 192), (3072, 3072)])
def test_convolution_separable(w, h):
    src = P.rng(w + h).standard_normal((h, w)).astype(np.float32)
    d_src, rows = cp.asarray(src), cp.zeros((h, w), np.float32)
    cs = convolution_separable
    cs.convolution_rows_kernel[(w // 128, h // 4), (16, 4)](rows, d_src, w, h, w)
    cols = cp.zeros((h, w), np.float32)
    cs.convolution_columns_kernel[(w // 16, h // 64), (16, 8)](cols, d_src, w, h, w)
    # no FMA contraction: the sample's CPU order, bit for bit
    assert rows.get().tobytes() == P.convolution_reference(src, 1).tobytes()
    assert cols.get().tobytes() == P.convolution_reference(src, 0).tobytes()


@pytest.mark.parametrize("n, block", [(37, 32), (1000, 256), (8192, 256)])
def test_nbody(n, block):
    pos, vel = P.bodies(n)
    new_pos, d_vel = cp.zeros((n, 4), np.float32), cp.asarray(vel)
    tiles = -(-n // block)
    args = (n, *P.NBODY.values(), tiles)
    nbody.integrate_bodies[tiles, block](
        new_pos, cp.asarray(pos), d_vel, *args, shared_mem=16 * block
    )
    want_pos, want_vel = P.nbody_reference(pos, vel)
    np.testing.assert_allclose(new_pos.get(), want_pos, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(d_vel.get(), want_vel, rtol=1e-4, atol=1e-5)
    if n <= 1000:  # rsqrtf is the GPU's: close to the interpreter's, not equal
        i_pos, i_vel = P.nbody_step(pos, vel, block)
        np.testing.assert_allclose(new_pos.get(), i_pos, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "n, block, blocks", [(37, 32, 2), (4099, 256, 8), (1 << 20, 256, 64)]
)
def test_threadfence_reduction(n, block, blocks):
    x = P.rng(n).standard_normal(n).astype(np.float32)
    pow2 = n & (n - 1) == 0 and n % (2 * block) == 0
    args = dict(BLOCK_SIZE=block, N_IS_POW2=pow2, shared_mem=4 * block)
    want, count = np.zeros(blocks, np.float32), np.zeros(1, np.uint32)
    if n < 1 << 20:
        threadfence_reduction.reduce_single_pass.interpret[blocks, block](
            x, want, n, count, **args
        )
    out, d_count = cp.zeros(blocks, np.float32), cp.zeros(1, np.uint32)
    for _ in range(3):  # the last block resets the counter for the next launch
        threadfence_reduction.reduce_single_pass[blocks, block](
            cp.asarray(x), out, n, d_count, **args
        )
        assert int(d_count.get()[0]) == 0
        got = out.get()
        assert got[0] == pytest.approx(x.astype(np.float64).sum(), abs=1e-2)
        if n < 1 << 20:  # the partial sums' order is fixed: the same bytes
            assert got[0].tobytes() == want[0].tobytes()


@pytest.mark.parametrize(
    "N, C, block", [(7, 100, 64), (64, 768, 256), (16, 4096, 1024)]
)
def test_layernorm_forward(N, C, block):
    r = P.rng(C)
    x = r.standard_normal((N, C)).astype(np.float32)
    w, b = r.standard_normal(C).astype(np.float32), r.standard_normal(C).astype(
        np.float32
    )
    out, mean, rstd = (
        cp.zeros((N, C), np.float32),
        cp.zeros(N, np.float32),
        cp.zeros(N, np.float32),
    )
    d_x, d_w, d_b = cp.asarray(x), cp.asarray(w), cp.asarray(b)
    kernel = layernorm_forward.layernorm_forward_kernel5
    kernel[N, block](out, mean, rstd, d_x, d_w, d_b, N, C)
    want, m, s = P.layernorm_reference(x, w, b)
    np.testing.assert_allclose(mean.get(), m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd.get(), s, rtol=1e-4)
    np.testing.assert_allclose(out.get(), want, rtol=1e-4, atol=1e-4)
    i_mean = np.zeros(N, np.float32)
    kernel.interpret[N, block](np.zeros_like(x), i_mean, None, x, w, b, N, C)
    assert mean.get().tobytes() == i_mean.tobytes()  # the same shuffle sums
    without = cp.zeros((N, C), np.float32)
    kernel[N, block](without, None, None, d_x, d_w, d_b, N, C)
    assert without.get().tobytes() == out.get().tobytes()


@pytest.mark.parametrize("N", [8, 8200, 1 << 22])
def test_gelu_forward(N):
    x = (2 * P.rng(N).standard_normal(N)).astype(ml_dtypes.bfloat16)
    out = cp.asarray(
        np.zeros(N, ml_dtypes.bfloat16)
    )  # as tests/gpu/test_vectors_gpu.py
    gelu_forward.gelu_forward_kernel2[-(-N // 1024), 128](out, cp.asarray(x), N)
    got = out.get().astype(np.float64)
    np.testing.assert_allclose(got, P.gelu_reference(x), rtol=2**-7, atol=1e-6)


@pytest.mark.parametrize("rows, kx", [(3, 37), (4, 4099), (64, 4096)])
def test_quantize_q8_1(rows, kx):
    padded = -(-kx // 512) * 512
    x = (3 * P.rng(kx).standard_normal((rows, kx))).astype(np.float32)
    x[0, :64] = 0
    size = rows * padded // 32 * 36
    want = np.zeros(size, np.uint8)
    grid = (padded // 256, rows)
    quantize_q8_1.quantize_q8_1.interpret[grid, 256](x, want, kx, padded)
    vy = cp.zeros(size, np.uint8)
    quantize_q8_1.quantize_q8_1[grid, 256](cp.asarray(x), vy, kx, padded)
    assert vy.get().tobytes() == want.tobytes()  # exact: division, round, shuffles
    ds, qs = P.q8_1_blocks(vy.get())
    d, _, q = P.q8_1_reference(x, padded)
    assert qs.tobytes() == q.tobytes()
    assert ds[:, 0].tobytes() == d.astype(np.float16).tobytes()


@pytest.mark.parametrize("rows, cols", [(3, 256), (64, 4096)])
def test_mul_mat_vec_q8_0(rows, cols):
    x, y = P.q8_0_matrix(rows, cols, P.rng(rows * cols))
    want = np.zeros(rows, np.float32)
    kernel = mul_mat_vec_q8_0.mul_mat_vec_q8_0
    kernel.interpret[rows, (32, 4)](x, y, want, cols, rows)
    dst = cp.zeros(rows, np.float32)
    kernel[rows, (32, 4)](cp.asarray(x), cp.asarray(y.view(np.uint8)), dst, cols, rows)
    assert dst.get().tobytes() == want.tobytes()  # exact: dp4a, the same order


def test_rope_norm():
    rows, ne0, n_dims = 6, 64, 48
    r = P.rng(rows)
    x = r.standard_normal((rows, ne0)).astype(np.float32)
    pos = r.integers(0, 4096, rows // 2).astype(np.int32)
    theta_scale = np.float32(np.power(np.float32(10000), np.float32(-2.0) / n_dims))
    args = (ne0, n_dims, pos, 0.25, 2, 0.75, 1.0, rope_norm.rope_corr_dims(v=(3, 17)))
    dst = cp.zeros((rows, ne0), np.float32)
    grid = (rows, 1)
    rope_norm.rope_norm[grid, (1, 256)](
        cp.asarray(x), dst, *args[:2], cp.asarray(pos), *args[3:], theta_scale, None
    )
    want = P.rope_norm_reference(
        x, pos, n_dims, 2, 10000.0, 0.25, 0.75, 1.0, (3, 17), None
    )
    # theta = pos * theta_scale**(i0/2) in Float32 with pos up to 4095: CUDA's
    # powf (2 ulp) moves theta by up to ~1e-4 rad there, which sin and cos
    # pass on (the H200 differed from the reference by 6.2e-5 at most)
    np.testing.assert_allclose(dst.get(), want, rtol=1e-5, atol=5e-4)


@pytest.mark.parametrize(
    "BT, C, OC, bias",
    [(128, 32, 128, True), (256, 64, 384, False), (1024, 768, 768, True)],
)
def test_matmul_forward(BT, C, OC, bias):
    r = P.rng(C)
    inp = r.standard_normal((BT, C)).astype(np.float32)
    weight = r.standard_normal((OC, C)).astype(np.float32)
    b = r.standard_normal(OC).astype(np.float32) if bias else None
    out = cp.zeros((BT, OC), np.float32)
    kernel = matmul_forward.matmul_forward_kernel4
    grid = (BT // 128, OC // 128)
    kernel[grid, (16, 16)](
        out,
        cp.asarray(inp),
        cp.asarray(weight),
        None if b is None else cp.asarray(b),
        C,
        OC,
    )
    want = inp.astype(np.float64) @ weight.astype(np.float64).T + (b if bias else 0)
    np.testing.assert_allclose(out.get(), want, rtol=1e-4, atol=1e-3)
    if BT * OC <= 256 * 384:  # no FMA contraction: the interpreter's bytes
        i_out = np.zeros((BT, OC), np.float32)
        kernel.interpret[grid, (16, 16)](i_out, inp, weight, b, C, OC)
        assert out.get().tobytes() == i_out.tobytes()


@pytest.mark.parametrize(
    "rows, N, block, group",
    [(200, 100, 128, 64), (1151, 8192, 1024, 96), (4096, 1000, 256, 256)],
)
def test_layer_norm_backward(rows, N, block, group):
    # on the GPU the blocks of a group really wait for each other's lock
    dy, args, (want_dx, want_dw, want_db) = P.layer_norm_backward_case(rows, N)
    device = [cp.asarray(a) for a in (dy, *args)]
    dx, dw, db, locks = P.run_layer_norm_backward(
        *device, group, block, lib=cp, run=lambda kernel: kernel
    )
    np.testing.assert_allclose(dx.get(), want_dx, rtol=1e-4, atol=1e-5)
    # the groups add in the order the blocks take the lock: close, not exact
    np.testing.assert_allclose(dw.get(), want_dw, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(db.get(), want_db, rtol=1e-4, atol=1e-3)
    got = locks.get()
    assert got[:group].tolist() == [0] * group
    assert got[group:].tolist() == [int(g < rows) for g in range(group)]
    if rows <= 200:  # dx has no lock in its way: the interpreter's bytes (a
        # group a row, so that no row waits in the interpreter, E451)
        i_dx = P.run_layer_norm_backward(dy, *args, rows, block)[0]
        assert dx.get().tobytes() == i_dx.tobytes()


@pytest.mark.parametrize("rows, C, block", [(7, 100, 64), (64, 1024, 256)])
def test_softmax_forward_kernel4(rows, C, block):
    x = (3 * P.rng(C).standard_normal((rows, C))).astype(np.float32)
    out = cp.zeros((rows, C), np.float32)
    softmax_forward.softmax_forward_kernel4[rows, block](
        out, cp.asarray(x), rows, C, shared_mem=2 * block // 32 * 4
    )
    np.testing.assert_allclose(out.get(), P.softmax_reference(x), rtol=2e-6, atol=1e-9)


@pytest.mark.parametrize("m, k, n", [(20, 33, 17), (64, 48, 40)])
def test_numba_matmul(m, k, n):
    a = P.rng(m * k).standard_normal((m, k)).astype(np.float32)
    b = P.rng(k * n).standard_normal((k, n)).astype(np.float32)
    want, tpb = P.matmul_reference(a, b), numba_matmul.TPB
    c = cp.zeros((m, n), np.float32)
    grid = (-(-m // tpb), -(-n // tpb))
    numba_matmul.matmul[grid, (tpb, tpb)](cp.asarray(a), cp.asarray(b), c)
    assert c.get().tobytes() == want.tobytes()
    c = cp.zeros((m, n), np.float32)
    grid = (-(-max(k, n) // tpb), -(-max(m, k) // tpb))
    numba_matmul.fast_matmul[grid, (tpb, tpb)](cp.asarray(a), cp.asarray(b), c)
    assert c.get().tobytes() == want.tobytes()


@pytest.mark.parametrize("n", [37, 100000])
def test_numba_vecadd(n):
    a, b = P.rng(n).standard_normal((2, n)).astype(np.float32)
    c = cp.zeros(n, np.float32)
    numba_vecadd.f[n // 256 + 1, 256](cp.asarray(a), cp.asarray(b), c)
    assert c.get().tobytes() == (a + b).tobytes()


# -- the ports against their CUDA C++ originals (benchmarks/ports.py, untimed) -----------
def load_benchmark():
    """benchmarks/ports.py, under a name no folder of tests/ shadows."""
    import importlib.util

    name = "benchmarks_ports"
    if name not in sys.modules:
        path = Path(__file__).resolve().parents[2] / "benchmarks" / "ports.py"
        spec = importlib.util.spec_from_file_location(name, path)
        sys.modules[name] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules[name]


bench_ports = load_benchmark()

BENCHED = bench_ports.port_modules()


@pytest.mark.parametrize("name", list(BENCHED))
def test_the_port_gives_its_originals_results(name):
    prepared = bench_ports.Prepared(name, BENCHED[name])
    assert prepared.check()  # exact, or within the tolerance BENCH states
    prepared.run_kdsl()  # from the inputs again: the same
    again = {k: prepared.arrays[k].get() for k in prepared.bench["outputs"]}
    prepared.restore()
    prepared.run_kdsl()
    for k, v in again.items():
        if prepared.bench.get("compare") is None:
            assert prepared.arrays[k].get().tobytes() == v.tobytes()


def test_black_scholes_on_the_gpu():
    n = 4099
    S, X, T = P.black_scholes_inputs(n, P.rng(n))
    call, put = cp.zeros(n, np.float32), cp.zeros(n, np.float32)
    d = [cp.asarray(v) for v in (S, X, T)]
    black_scholes.black_scholes_gpu[-(-(n // 2) // 128), 128](
        call, put, *d, 0.02, 0.30, n
    )
    want_call, want_put = P.black_scholes_reference(S, X, T, 0.02, 0.30)
    pairs = n // 2 * 2
    np.testing.assert_allclose(
        call.get()[:pairs], want_call[:pairs], rtol=1e-4, atol=1e-4
    )
    np.testing.assert_allclose(
        put.get()[:pairs], want_put[:pairs], rtol=1e-4, atol=1e-4
    )


def test_attention_permute_on_the_gpu():
    B, N, NH, d = 3, 17, 4, 16
    x = P.rng(7).standard_normal((B, N, 3, NH, d)).astype(np.float32)
    total = B * NH * N * d
    q, k, v = (cp.zeros(total, np.float32) for _ in range(3))
    attention_permute.permute_kernel[-(-total // 256), 256](
        q, k, v, cp.asarray(x), B, N, NH, d
    )
    for out, which in ((q, 0), (k, 1), (v, 2)):
        want = x[:, :, which].transpose(0, 2, 1, 3).reshape(-1)
        assert out.get().tobytes() == want.tobytes()


@pytest.mark.parametrize("block", [16, 32])
def test_matrix_mul_on_the_gpu(block):
    hA, wA, wB = 64, 96, 128
    r = P.rng(hA + wA + wB)
    A = r.standard_normal((hA, wA)).astype(np.float32)
    B = r.standard_normal((wA, wB)).astype(np.float32)
    C = cp.zeros((hA, wB), np.float32)
    matrix_mul.matrix_mul_cuda[(wB // block, hA // block), (block, block)](
        C, cp.asarray(A), cp.asarray(B), wA, wB, BLOCK_SIZE=block
    )
    assert C.get().tobytes() == P.matrix_mul_reference(A, B).tobytes()  # no FMA
