"""kdsl.math's fast intrinsics against their documented maximum error
(docs/types.md, "Fast intrinsics"), shared by the CPU test
(tests/lowering/test_fast_math.py: the interpreter) and the GPU test
(tests/gpu/test_fast_math_gpu.py: the GPU, and the GPU against the
interpreter): the kernel that computes all nine, the inputs (edge cases,
every binade, the ranges the bounds name) and the checker."""

from __future__ import annotations

import math

import numpy as np

import kdsl
from kdsl import Float32, Int32, Pointer, block_idx, thread_idx

FUNCTIONS = (
    "fast_exp",
    "fast_exp2",
    "fast_log",
    "fast_log2",
    "fast_sin",
    "fast_cos",
    "fast_div",
    "fast_rsqrt",
    "fast_exp2_ftz",
)


@kdsl.kernel
def fast_all(x: Pointer[Float32], y: Pointer[Float32], out: Pointer[Float32], n: Int32):
    """``out[9 i + k]``: the k-th function of FUNCTIONS at ``x[i]``
    (``fast_div``: ``x[i] / y[i]``)."""
    i = block_idx.x * 256 + thread_idx.x
    if i < n:
        out[9 * i] = kdsl.math.fast_exp(x[i])
        out[9 * i + 1] = kdsl.math.fast_exp2(x[i])
        out[9 * i + 2] = kdsl.math.fast_log(x[i])
        out[9 * i + 3] = kdsl.math.fast_log2(x[i])
        out[9 * i + 4] = kdsl.math.fast_sin(x[i])
        out[9 * i + 5] = kdsl.math.fast_cos(x[i])
        out[9 * i + 6] = kdsl.math.fast_div(x[i], y[i])
        out[9 * i + 7] = kdsl.math.fast_rsqrt(x[i])
        out[9 * i + 8] = kdsl.math.fast_exp2_ftz(x[i])


SPECIAL = [
    0.0,
    -0.0,
    math.inf,
    -math.inf,
    math.nan,
    1.0,
    -1.0,
    0.5,
    2.0,
    0.75,
    1.5,
    2.0**-149,
    -(2.0**-149),
    2.0**-126,
    2.0**-127,
    1.1754942e-38,
    3.4028235e38,
    -3.4028235e38,
    math.pi,
    -math.pi,
    2 * math.pi,
    100 * math.pi,
    88.72,
    88.73,
    -87.3,
    -103.9,
    -104.0,
    127.99,
    128.0,
    -149.0,
    -150.0,
    2.0**126,
    2.0**127,
    -(2.0**127),
    1e-45,
    1e30,
    0.9999999,
    1.0000001,
]


def inputs(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` float32 pairs: the special values (each paired with each of a
    few divisors), then equal shares of every binade (both signs), of
    [-pi, pi], [-100 pi, 100 pi], [0.5, 2], [-110, 90] (exp's range) and
    divisors beyond 2**126."""
    rng = np.random.default_rng(seed)
    special = np.array(SPECIAL, np.float64)
    divisors = np.array([1.0, -3.0, 0.0, math.inf, 2.0**127, 1e-40, 7.5], np.float64)
    sx = np.repeat(special, len(divisors))
    sy = np.tile(divisors, len(special))
    m = max(0, n - len(sx))
    k = m // 6
    binades = np.ldexp(1 + rng.random(k), rng.integers(-149, 128, k)) * rng.choice(
        [-1.0, 1.0], k
    )
    parts = [
        binades,
        rng.uniform(-math.pi, math.pi, k),
        rng.uniform(-100 * math.pi, 100 * math.pi, k),
        rng.uniform(0.5, 2.0, k),
        rng.uniform(-110.0, 90.0, k),
    ]
    rest = m - 5 * k
    parts.append(np.ldexp(1 + rng.random(rest), rng.integers(-30, 30, rest)))
    x = np.concatenate([sx, *parts])[:n]
    y = np.concatenate(
        [
            sy,
            np.ldexp(1 + rng.random(m), rng.integers(-126, 127, m))
            * rng.choice([-1.0, 1.0], m),
        ]
    )[:n]
    beyond = rng.random(len(y)) < 0.02  # 2**126 < |y| < 2**128
    y = np.where(
        beyond, np.ldexp(1 + rng.random(len(y)), 126 + rng.integers(0, 2, len(y))), y
    )
    with np.errstate(over="ignore"):
        return x.astype(np.float32), y.astype(np.float32)


def run_interpreter(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The interpreter's results, ``(n, 9)``."""
    n = len(x)
    out = np.zeros(9 * n, np.float32)
    with np.errstate(all="ignore"):
        fast_all.interpret[(n + 255) // 256, 256](x, y, out, n)
    return out.reshape(n, 9)


def reference(name: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The exact function in float64 (``fast_div`` beyond 2**126: the
    documented zero, NaN for an infinite dividend)."""
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):
        if name == "fast_div":
            beyond = (np.abs(y64) > 2.0**126) & np.isfinite(y64)
            zero = np.where(np.isinf(x64), np.nan, x64 * 0.0 * np.copysign(1.0, y64))
            return np.where(beyond, zero, x64 / y64)
        if name == "fast_exp2_ftz":  # subnormals in and out are zeros
            r = np.exp2(np.where(np.abs(x64) < 2.0**-126, 0.0, x64))
            return np.where(r < 2.0**-126, 0.0, r)
        return {
            "fast_exp": np.exp,
            "fast_exp2": np.exp2,
            "fast_log": np.log,
            "fast_log2": np.log2,
            "fast_sin": np.sin,
            "fast_cos": np.cos,
            "fast_rsqrt": lambda v: 1.0 / np.sqrt(v),
        }[name](x64)


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The distance between float32 values in units in the last place
    (consecutive floats are 1 apart, subnormals included, +0 == -0)."""

    def ordered(v):
        u = np.asarray(v, np.float32).view(np.uint32).astype(np.int64)
        mag = u & 0x7FFFFFFF
        return np.where(u >> 31, -mag, mag)

    return np.abs(ordered(a) - ordered(b))


def domains(name: str, x: np.ndarray, y: np.ndarray):
    """``[(label, mask, kind, bound)]``: where each documented bound holds
    (``kind``: "ulp" against the correctly rounded result, "abs", "rel",
    "exact": the same value (NaN for NaN, the sign of a zero included),
    "range": only ``abs(result) <= 1``)."""
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    ax = np.abs(x64)
    finite = np.isfinite(x64)
    pi = math.pi
    if name == "fast_exp":
        return [
            ("finite x", finite, "ulp", 2 + np.floor(np.abs(1.173 * x64[finite]))),
            ("inf, nan", ~finite, "exact", 0),
        ]
    if name == "fast_exp2":
        return [("every x", finite, "ulp", 2), ("inf, nan", ~finite, "exact", 0)]
    if name == "fast_exp2_ftz":
        normal = finite & (x64 >= -126)
        return [
            ("2**x >= 2**-126", normal, "ulp", 2),
            ("2**x < 2**-126: +0", finite & ~normal, "exact", 0),
            ("inf, nan", ~finite, "exact", 0),
        ]
    if name in ("fast_log", "fast_log2"):
        near = (x64 >= 0.5) & (x64 <= 2.0)
        other = (x64 > 0) & finite & ~near
        return [
            (
                "x in [0.5, 2]",
                near,
                "abs",
                2.0**-21.41 if name == "fast_log" else 2.0**-22,
            ),
            ("other positive x", other, "ulp", 3 if name == "fast_log" else 2),
            ("x <= 0, inf, nan", ~(near | other), "exact", 0),
        ]
    if name in ("fast_sin", "fast_cos"):
        first = 2.0**-21.41 if name == "fast_sin" else 2.0**-21.19
        a = ax <= pi
        b = (ax <= 2 * pi) & ~a
        c = (ax <= 100 * pi) & ~a & ~b
        return [
            ("x in [-pi, pi]", a, "abs", first),
            ("x in [-2 pi, 2 pi]", b, "abs", 2.0**-20.4),
            ("x in [-100 pi, 100 pi]", c, "abs", 2.0**-14.7),
            ("beyond 100 pi", finite & ~(a | b | c), "range", 1),
            ("inf, nan", ~finite, "exact", 0),
        ]
    if name == "fast_div":
        ay = np.abs(y64)
        ordinary = (ay >= 2.0**-126) & (ay <= 2.0**126) & np.isfinite(x64)
        beyond = (ay > 2.0**126) & np.isfinite(y64)
        special = ((ay == 0) | np.isinf(y64) | ~np.isfinite(x64)) & ~beyond
        return [
            ("|y| in [2^-126, 2^126]", ordinary, "ulp", 2),
            ("2^126 < |y| < 2^128", beyond, "exact", 0),
            ("y 0 or inf, x inf or nan", special, "exact", 0),
            ("y subnormal (no bound)", ~(ordinary | beyond | special), "none", 0),
        ]
    if name == "fast_rsqrt":
        positive = (x64 > 0) & finite
        return [
            ("positive finite x", positive, "rel", 2.0**-22.9),
            ("x <= 0, inf, nan", ~positive, "exact", 0),
        ]
    raise KeyError(name)


def measure(name, x, y, got) -> list[dict]:
    """Per domain: the bound, the largest error measured (ulps, or absolute
    / relative), the number of inputs and how many break the bound."""
    ref = reference(name, x, y)
    got = np.asarray(got, np.float32)
    rows = []
    for label, mask, kind, bound in domains(name, x, y):
        g, r = got[mask], ref[mask]
        if not mask.any():
            rows.append(dict(label=label, kind=kind, bound="-", worst=0.0, n=0, bad=0))
            continue
        with np.errstate(all="ignore"):
            if kind == "ulp":
                err = ulps(g, r.astype(np.float32)).astype(np.float64)
            elif kind == "abs":
                err = np.abs(g.astype(np.float64) - r)
            elif kind == "rel":
                err = np.abs(g.astype(np.float64) - r) / np.abs(r)
            elif kind == "range":
                err = np.where(np.abs(g) <= 1, 0.0, np.inf)
            elif kind == "none":
                err = np.zeros(len(g))
            else:  # exact: the same float32 value, a NaN for a NaN
                r32 = r.astype(np.float32)
                same = (np.isnan(g) & np.isnan(r32)) | (
                    (g == r32) & (np.signbit(g) == np.signbit(r32))
                )
                err = np.where(same, 0.0, np.inf)
        err = np.where(np.isnan(err), np.inf, err)
        limit = np.broadcast_to(np.asarray(bound, np.float64), err.shape)
        limit = np.asarray(bound, np.float64)
        rows.append(
            dict(
                label=label,
                kind=kind,
                bound="per x" if limit.ndim else f"{float(limit):.4g}",
                worst=float(np.max(err)),
                n=int(mask.sum()),
                bad=int(np.sum(err > limit)),
                where=float(x[mask][np.argmax(err)]),
            )
        )
    return rows


def table(results: dict) -> str:
    """The measured errors, one line a (function, domain)."""
    lines = [
        f"{'function':11} {'domain':26} {'kind':5} {'bound':>11} {'measured':>11} {'n':>7} {'bad':>5}  worst at"
    ]
    for name, rows in results.items():
        for r in rows:
            lines.append(
                f"{name:11} {r['label']:26} {r['kind']:5} {r['bound']:>11} "
                f"{r['worst']:11.4g} {r['n']:7d} {r['bad']:5d}  {r.get('where', '')!r}"
            )
    return "\n".join(lines)
