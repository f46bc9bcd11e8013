"""Port of NVIDIA/cuda-samples,
``Samples/5_Domain_Specific/BlackScholes/BlackScholes_kernel.cuh``,
``cndGPU``, ``BlackScholesBodyGPU`` and ``BlackScholesGPU``: European call
and put prices by the Black-Scholes formula, the cumulative normal
distribution by its fifth-order polynomial approximation.  Two options a
thread (``float2`` loads and stores, for instruction-level parallelism),
``__launch_bounds__(128)``, blocks of 128 threads over ``optN / 2`` pairs.

No differences from the original: the sample calls CUDA's approximate
intrinsics ``__expf``, ``__logf`` and ``__fdividef``, which are
``kdsl.math.fast_exp``, ``fast_log`` and ``fast_div`` (the three device
functions ``expf_``, ``logf_`` and ``fdividef`` below keep the sample's
names).  The reference
parameters ``CallResult``/``PutResult`` are the body's two results.
"""

import numpy as np

import kdsl
from kdsl import Float32, Float32x2, Int32, Pointer, block_dim, block_idx, thread_idx

A1 = np.float32(0.31938153)
A2 = np.float32(-0.356563782)
A3 = np.float32(1.781477937)
A4 = np.float32(-1.821255978)
A5 = np.float32(1.330274429)
RSQRT2PI = np.float32(0.39894228040143267793994605993438)


@kdsl.func
def expf_(x):
    return kdsl.math.fast_exp(x)  # the sample's __expf


@kdsl.func
def logf_(x):
    return kdsl.math.fast_log(x)  # the sample's __logf


@kdsl.func
def fdividef(a, b):
    return kdsl.math.fast_div(a, b)  # the sample's __fdividef


@kdsl.func
def cnd_gpu(d):
    """The cumulative normal distribution, polynomial approximation."""
    K = fdividef(Float32(1.0), 1.0 + 0.2316419 * kdsl.math.fabs(d))
    cnd = (
        RSQRT2PI
        * expf_(-0.5 * d * d)
        * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))))
    )
    if d > 0:
        cnd = 1.0 - cnd
    return cnd


@kdsl.func
def black_scholes_body_gpu(S, X, T, R, V):
    """The call and the put price of one option."""
    sqrt_t = fdividef(Float32(1.0), kdsl.math.rsqrt(T))
    d1 = fdividef(logf_(S / X) + (R + 0.5 * V * V) * T, V * sqrt_t)
    d2 = d1 - V * sqrt_t
    cndd1 = cnd_gpu(d1)
    cndd2 = cnd_gpu(d2)
    exp_rt = expf_(-R * T)
    call_result = S * cndd1 - X * exp_rt * cndd2
    put_result = X * exp_rt * (1.0 - cndd2) - S * (1.0 - cndd1)
    return call_result, put_result


@kdsl.kernel(launch_bounds=128)
def black_scholes_gpu(
    d_call_result: Pointer[Float32],
    d_put_result: Pointer[Float32],
    d_stock_price: Pointer[Float32],
    d_option_strike: Pointer[Float32],
    d_option_years: Pointer[Float32],
    riskfree: Float32,
    volatility: Float32,
    opt_n: Int32,
):
    opt = block_dim.x * block_idx.x + thread_idx.x
    if opt < opt_n // 2:
        s = d_stock_price.vec(2)[opt]
        x = d_option_strike.vec(2)[opt]
        t = d_option_years.vec(2)[opt]
        call1, put1 = black_scholes_body_gpu(s[0], x[0], t[0], riskfree, volatility)
        call2, put2 = black_scholes_body_gpu(s[1], x[1], t[1], riskfree, volatility)
        d_call_result.vec(2)[opt] = Float32x2(call1, call2)
        d_put_result.vec(2)[opt] = Float32x2(put1, put2)


# -- benchmark: benchmarks/ports.py against benchmarks/originals/black_scholes.cu --
def _bench_setup(cp):
    r = np.random.default_rng(26)
    n = 4_000_000  # the sample's OPT_N
    return dict(
        n=n,
        call=cp.zeros(n, np.float32),
        put=cp.zeros(n, np.float32),
        S=cp.asarray(r.uniform(5.0, 30.0, n).astype(np.float32)),
        X=cp.asarray(r.uniform(1.0, 100.0, n).astype(np.float32)),
        T=cp.asarray(r.uniform(0.25, 10.0, n).astype(np.float32)),
    )


def _bench_port(a):
    blocks = -(-(a["n"] // 2) // 128)
    black_scholes_gpu[blocks, 128](
        a["call"], a["put"], a["S"], a["X"], a["T"], 0.02, 0.30, a["n"]
    )


def _bench_original(o, a):
    blocks = -(-(a["n"] // 2) // 128)
    args = (a["call"], a["put"], a["S"], a["X"], a["T"])
    scalars = (np.float32(0.02), np.float32(0.30), np.int32(a["n"]))
    o("BlackScholesGPU")((blocks,), (128,), args + scalars)


BENCH = dict(
    source="black_scholes.cu",
    contract=False,
    size="4M options",
    kernels=[(lambda: black_scholes_gpu.dispatch(), "BlackScholesGPU")],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("call", "put"),
    # the same intrinsics on both sides; the interpreter's model of them is
    # within their documented error, not bit-exact (docs/types.md)
    tolerance=(1e-4, 1e-3),
)
