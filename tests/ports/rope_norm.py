"""Port of ggerganov/llama.cpp, ``ggml/src/ggml-cuda/rope.cu``, ``rope_norm``
(with ``rope_yarn`` and ``rope_yarn_ramp``, and the ``rope_corr_dims``
struct): rotary position embedding of adjacent pairs ``(x[i0], x[i0 + 1])``
of each row by the angle ``pos * theta_scale ** (i0 / 2)``, with YaRN's
extrapolation mix between the correction dimensions ``corr_dims.v[0]`` and
``v[1]`` (a struct passed by value, as the original passes it) and the
optional per-dimension ``freq_factors``.  The launch is the original's:
blocks of ``(1, 256)`` threads, a row per ``block_idx.x``, a pair per
thread in ``y``.

Differences from the original: ``rope_yarn`` returns ``(cos, sin)`` instead
of writing through two pointers; the template's ``has_ff`` is whether the
optional pointer ``freq_factors`` is None (an instance of its own, as the
template's ``false``); Float32 only (the original also has half rows).
"""

import numpy as np

import kdsl
from kdsl import Float32, Int32, Pointer, block_dim, block_idx, thread_idx


@kdsl.struct
class rope_corr_dims:
    v: Float32[2]


@kdsl.func
def rope_yarn_ramp(low, high, i0):
    y = ((i0 // 2).to(Float32) - low) / max(Float32(0.001), high - low)
    return 1.0 - min(Float32(1.0), max(Float32(0.0), y))


@kdsl.func
def rope_yarn(
    theta_extrap, freq_scale, corr_dims: rope_corr_dims, i0, ext_factor, mscale
):
    theta_interp = freq_scale * theta_extrap
    theta = theta_interp
    if ext_factor != 0.0:
        ramp_mix = rope_yarn_ramp(corr_dims.v[0], corr_dims.v[1], i0) * ext_factor
        theta = theta_interp * (1.0 - ramp_mix) + theta_extrap * ramp_mix
        mscale *= 1.0 + 0.1 * kdsl.math.log(1.0 / freq_scale)
    return kdsl.math.cos(theta) * mscale, kdsl.math.sin(theta) * mscale


@kdsl.kernel
def rope_norm(
    x: Pointer[Float32],
    dst: Pointer[Float32],
    ne0: Int32,
    n_dims: Int32,
    pos: Pointer[Int32],
    freq_scale: Float32,
    p_delta_rows: Int32,
    ext_factor: Float32,
    attn_factor: Float32,
    corr_dims: rope_corr_dims,
    theta_scale: Float32,
    freq_factors: Pointer[Float32] | None,
):
    i0 = 2 * (block_dim.y * block_idx.y + thread_idx.y)
    if i0 >= ne0:
        return
    row = block_dim.x * block_idx.x + thread_idx.x
    if i0 >= n_dims:
        i = row * ne0 + i0
        dst[i + 0] = x[i + 0]
        dst[i + 1] = x[i + 1]
        return
    i = row * ne0 + i0
    i2 = row // p_delta_rows
    theta_base = pos[i2].to(Float32) * kdsl.math.pow(theta_scale, i0.to(Float32) / 2.0)
    freq_factor = Float32(1.0)
    if freq_factors is not None:
        freq_factor = freq_factors[i0 // 2]
    cos_theta, sin_theta = rope_yarn(
        theta_base / freq_factor, freq_scale, corr_dims, i0, ext_factor, attn_factor
    )
    x0 = x[i + 0]
    x1 = x[i + 1]
    dst[i + 0] = x0 * cos_theta - x1 * sin_theta
    dst[i + 1] = x0 * sin_theta + x1 * cos_theta


# -- benchmark: benchmarks/ports.py against benchmarks/originals/rope_norm.cu --
HEADS, TOKENS, NE0 = 32, 4096, 128  # LLaMA-7B's heads, 4096 positions


def _bench_setup(cp):
    r = np.random.default_rng(26)
    rows = HEADS * TOKENS
    return dict(
        x=cp.asarray(r.standard_normal((rows, NE0), dtype=np.float32)),
        dst=cp.zeros((rows, NE0), np.float32),
        pos=cp.asarray(np.arange(TOKENS, dtype=np.int32)),
    )


THETA_SCALE = np.float32(np.power(np.float32(10000), np.float32(-2.0) / NE0))
YARN = (0.25, 0.75, 1.0)  # freq_scale, ext_factor, attn_factor: the YaRN branch runs


def _grid():
    return (HEADS * TOKENS, -(-NE0 // 512))


def _bench_port(a):
    freq_scale, ext_factor, attn_factor = YARN
    rope_norm[_grid(), (1, 256)](
        a["x"],
        a["dst"],
        NE0,
        NE0,
        a["pos"],
        freq_scale,
        HEADS,
        ext_factor,
        attn_factor,
        rope_corr_dims(v=(3, 17)),
        THETA_SCALE,
        None,
    )


def _bench_original(o, a):
    freq_scale, ext_factor, attn_factor = map(np.float32, YARN)
    corr = np.frombuffer(np.float32([3, 17]).tobytes(), np.uint8).view("V8")
    args = (a["x"], a["dst"], np.int32(NE0), np.int32(NE0), a["pos"], freq_scale)
    args += (np.int32(HEADS), ext_factor, attn_factor, corr, THETA_SCALE, np.uint64(0))
    o("rope_norm_noff")(_grid(), (1, 256), args)


BENCH = dict(
    source="rope_norm.cu",
    contract=False,
    size="131072 rows x 128",
    kernels=[
        (lambda: rope_norm.dispatch(freq_factors=None), "rope_norm_noff"),
        (lambda: rope_norm.dispatch(), "rope_norm_ff"),
    ],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("dst",),
    tolerance=None,  # powf, logf, cosf and sinf both, in the same order
)
