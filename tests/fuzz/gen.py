"""Seeded random kernels for the fuzz tests (issue 16).

A *case* is an expression over four leaves ``v0``..``v3`` of random scalar
types with random (often edge) values.  Its expected bits are the value
Python computes with kdsl's own static values — the same folding the
compiler does — and the kernel computes it from leaves loaded at run time
(some leaves stay compile-time literals: a static/run-time mix), wrapped in a
random context: plain, a run-time ``if``, a run-time loop, a local array, a
device function, an unrolled loop.  Many cases share one kernel, so one
transpile (one NVRTC compile, one interpreter run, one GPU launch) checks a
batch.  ``invalid_kernel`` makes kernels with one bad construct, whose
rejection must be a located DSLError.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import random
import re
from dataclasses import dataclass

import kdsl

INTS = ["Int8", "Int16", "Int32", "Int64", "Uint8", "Uint16", "Uint32", "Uint64"]
FLOATS = ["Float16", "BFloat16", "Float32", "Float64"]
TYPES = INTS + FLOATS
WIDTH = {t: getattr(kdsl, t).width for t in TYPES}
ARITH = ["+", "-", "*"]
DIVISION = ["//", "%", "/"]
BITWISE = ["&", "|", "^", "<<", ">>"]
COMPARE = ["<", "<=", "==", "!=", ">", ">="]
CONTEXTS = ["plain", "if", "loop", "local", "func", "unrolled", "vector"]
_count = itertools.count()


def _int_value(rng, t):
    k = getattr(kdsl, t)
    lo, hi = k.min(), k.max()
    return rng.choice([0, 1, -1 if lo < 0 else 2, lo, hi, lo + 1, hi - 1, 3, 7, 100])


def _float_value(rng, t):
    k = getattr(kdsl, t)
    special = [0.0, -0.0, 1.0, -1.5, 0.1, 3.0, 1e-3, 65504.0, 1e-7, 2.0**-140]
    special += [math.inf, -math.inf, math.nan, 1e30, -7.25, 1e300]
    v = rng.choice(special) if rng.random() < 0.7 else rng.uniform(-1000, 1000)
    return float(k(v))  # exactly representable in t (rounded, perhaps to inf)


@dataclass
class Case:
    types: list  # the leaves' types (names)
    values: list  # the leaves' values (Python numbers, exact in their type)
    static: list  # which leaves are compile-time literals in the kernel
    expr: str  # over v0..v3
    context: str
    result: str = ""  # the result's type name (from folding)
    bits: int | None = None  # the expected bits (from folding)
    nan: bool = False  # the expected value is a NaN (payload not compared)


def _expr(rng, depth, types) -> str:
    if depth == 0 or rng.random() < 0.2:
        if rng.random() < 0.15:
            return rng.choice(["1", "2", "0", "3", "1.5", "(-1)"])
        return f"v{rng.randrange(4)}"
    r = rng.random()
    a = _expr(rng, depth - 1, types)
    if r < 0.1:
        return f"(-{a})"
    if r < 0.15:
        return f"abs({a})"
    if r < 0.25:
        if not re.search(r"v\d", a):  # (a Python number has no .to)
            a = f"(v{rng.randrange(4)} + {a})"
        return f"{a}.to(kdsl.{rng.choice(TYPES)})"
    b = _expr(rng, depth - 1, types)
    if r < 0.33:
        return f"({a} {rng.choice(COMPARE)} {b}).to(kdsl.Int32)"
    pool = ARITH * 4 + DIVISION + BITWISE
    return f"({a} {rng.choice(pool)} {b})"


def fold(case: Case):
    """Fill in the case's expected result by folding it in Python with
    kdsl's static values; False when folding refuses it (a DSLError:
    division by a zero, bitwise of floats …, which the kernel would refuse
    too or which is undefined at run time)."""
    env = {"kdsl": kdsl, "min": min, "max": max, "abs": abs}
    for j, (t, v) in enumerate(zip(case.types, case.values)):
        env[f"v{j}"] = getattr(kdsl, t)(v)
    try:
        r = eval(case.expr, env)  # noqa: S307 - our own generated text
        r = kdsl.as_numeric(r)
        if isinstance(r, kdsl.Vector):
            return False
        name = type(r).__name__
        if name not in TYPES and name != "Boolean":
            return False
        case.result = name
        if name == "Boolean":
            case.bits = int(bool(r.value))
        else:
            w = r.width if hasattr(r, "width") else type(r).width
            case.nan = name in FLOATS and math.isnan(r.value)
            case.bits = r.bitcast(getattr(kdsl, f"Uint{w}")).to(kdsl.Uint64).value
    except (kdsl.DSLError, ArithmeticError, ValueError, TypeError, AttributeError):
        return False
    return True


def random_case(rng) -> Case:
    types = [rng.choice(TYPES) for _ in range(4)]
    values = [
        _float_value(rng, t) if t in FLOATS else _int_value(rng, t) for t in types
    ]
    static = [rng.random() < 0.25 for _ in range(4)]
    expr = "1"
    while not re.search(r"v\d", expr):  # a kdsl value, not a Python number
        expr = _expr(rng, rng.randint(1, 4), types)
    return Case(types, values, static, expr, rng.choice(CONTEXTS))


def cases(seed: int, count: int) -> list:
    """``count`` foldable cases from ``seed``."""
    rng, out = random.Random(seed), []
    while len(out) < count:
        c = random_case(rng)
        if fold(c):
            out.append(c)
    return out


def _literal(t, v) -> str:
    if t in FLOATS:
        if math.isnan(v):
            return f'kdsl.{t}(float("nan"))'
        if math.isinf(v):
            return f'kdsl.{t}(float("{"-" if v < 0 else ""}inf"))'
        return f"kdsl.{t}({v!r})"
    return f"kdsl.{t}({v})"


def _bits(expr: str, result: str) -> str:
    if result == "Boolean":
        return f"({expr}).to(kdsl.Uint64)"
    return f"({expr}).bitcast(kdsl.Uint{WIDTH[result]}).to(kdsl.Uint64)"


def kernel_source(batch: list, name: str = "k") -> str:
    """One kernel computing every case of ``batch`` into ``out[k]``."""
    helpers, body = [], []
    for k, c in enumerate(batch):
        leaves = []
        for j, (t, v, s) in enumerate(zip(c.types, c.values, c.static)):
            if s:
                leaves.append(f"v{k}_{j} = {_literal(t, v)}")
            elif t in FLOATS:
                leaves.append(f"v{k}_{j} = xf[{4 * k + j}].to(kdsl.{t})")
            else:
                leaves.append(f"v{k}_{j} = xi[{4 * k + j}].to(kdsl.{t})")
        body += leaves
        e, res = re.sub(r"\bv([0-3])\b", rf"v{k}_\1", c.expr), c.result
        if c.context == "plain":
            body.append(f"out[{k}] = {_bits(e, res)}")
        elif c.context == "if":
            body += [f"if n > 0:", f"    out[{k}] = {_bits(e, res)}"]
        elif c.context == "loop":
            body += [
                f"r{k} = {e}",
                "for t in range(n):",
                f"    r{k} = {e}",
                f"out[{k}] = {_bits(f'r{k}', res)}",
            ]
        elif c.context == "unrolled":
            body += [
                "for t in kdsl.range_constexpr(2):",
                f"    out[{k}] = {_bits(e, res)}",
            ]
        elif c.context == "local":
            body += [
                f"a{k} = kdsl.local_array(kdsl.{res}, 2)",
                f"a{k}[1] = {e}",
                f"out[{k}] = {_bits(f'a{k}[1]', res)}",
            ]
        elif c.context == "vector":  # lane by lane on 2-lane vectors, lane 1 read
            for j, t in enumerate(c.types):
                body.append(f"w{k}_{j} = kdsl.Vector[kdsl.{t}, 2](v{k}_{j})")
            ev = re.sub(r"\bv([0-3])\b", rf"w{k}_\1", c.expr)
            body.append(f"out[{k}] = {_bits(f'({ev})[1]', res)}")
        else:  # a device function
            helpers += [
                "@kdsl.func",
                f"def f{k}(v0, v1, v2, v3):",
                f"    return {c.expr}",
                "",
            ]
            args = ", ".join(f"v{k}_{j}" for j in range(4))
            body.append(f"out[{k}] = {_bits(f'f{k}({args})', res)}")
    lines = [
        "import kdsl",
        "from kdsl import Float64, Int32, Int64, Pointer, Uint64",
        "",
    ]
    lines += helpers + [
        "",
        "@kdsl.kernel",
        f"def {name}(xi: Pointer[Int64], xf: Pointer[Float64], out: Pointer[Uint64], "
        "n: Int32):",
    ]
    lines += ["    " + line for line in body]
    return "\n".join(lines) + "\n"


def inputs(batch: list):
    """The arrays ``xi``, ``xf`` and a zeroed ``out`` for a batch."""
    import numpy as np

    xi = np.zeros(4 * len(batch) + 1, np.int64)
    xf = np.zeros(4 * len(batch) + 1, np.float64)
    for k, c in enumerate(batch):
        for j, (t, v) in enumerate(zip(c.types, c.values)):
            if t in FLOATS:
                xf[4 * k + j] = v
            else:
                xi[4 * k + j] = v - (1 << 64) if v >= 1 << 63 else v
    return xi, xf, np.zeros(len(batch), np.uint64)


def load(folder, source: str, stem: str = "fuzz"):
    """Write ``source`` to a file in ``folder`` and import it (kdsl reads a
    kernel's source from its file)."""
    path = folder / f"{stem}_{next(_count)}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def mismatches(batch: list, out) -> list:
    """``(k, case, got)`` for every case whose bits differ (a NaN matches a
    NaN of any payload: see docs/types.md)."""
    bad = []
    for k, c in enumerate(batch):
        got = int(out[k])
        if c.nan:
            w = WIDTH[c.result]
            if _is_nan_bits(got, c.result, w):
                continue
        if got != c.bits:
            bad.append((k, c, got))
    return bad


def nan_bits(bits, t: str) -> bool:
    """Whether ``bits`` of a ``t`` result are a NaN (any payload)."""
    return _is_nan_bits(int(bits), t, WIDTH[t])


def _is_nan_bits(bits: int, t: str, w: int) -> bool:
    import numpy as np
    import ml_dtypes

    dtype = {
        "Float16": np.float16,
        "BFloat16": ml_dtypes.bfloat16,
        "Float32": np.float32,
        "Float64": np.float64,
    }[t]
    raw = np.array([bits], np.uint64).astype(f"u{w // 8}")
    return bool(np.isnan(raw.view(dtype)[0]))


# -- invalid kernels ---------------------------------------------------------------------
BAD_STATEMENTS = [
    "out[0] = undefined_name",
    "out[0] = (xf[0] & xf[1]).to(kdsl.Uint64)",
    "out[0] = xi[0.5].to(kdsl.Uint64)",
    "out[0] = None",
    "out[0] = 'text'",
    "out[0] = [q for q in range(3)]",
    "out[0] = (lambda q: q)(1)",
    "out[0] = xf[0]",
    "n = kdsl.Float32(1.5)",
    "out = xf",
    "a = kdsl.local_array(kdsl.Float32, 4)\na[9] = kdsl.Float32(1)",
    "a = kdsl.local_array(kdsl.Float32, 2.5)",
    "a = kdsl.local_array(kdsl.Float32, 10**12)",
    "a = kdsl.local_array(int, 4)",
    "out[0] = xi[0] // 0",
    "out[0] = (*xi[0], 1)[0]",
    "q = kdsl.Int32(1)\nq += 0.5",
    "out[0] = kdsl.shfl_idx(xi[0], kdsl.Float32(1.0)).to(kdsl.Uint64)",
    "for q in kdsl.range_constexpr(300000):\n    out[0] = kdsl.Uint64(1)",
    "out[0] = " + " + ".join(["xi[0]"] * 300),
    "out[0] = kdsl.Uint64(10**5000)",
    "out[0] = 1 << 10**12",
    "for q in range(kdsl.Float32(3)):\n    out[0] = kdsl.Uint64(1)",
    "while xf:\n    out[0] = kdsl.Uint64(1)",
    "out[0] = xi[0, 1].to(kdsl.Uint64)",
    "out[0] = xi.vec(3)[0][0].to(kdsl.Uint64)",
    "out[0] = xi.nothing",
    "out[0] = kdsl.syncthreads()",
    "out[0] = k(xi, xf, out, n)",
    "return 1",
    "global q",
    "del n",
    "import os",
    "out[0] = kdsl.Uint64(xi)",
    "out[0] = xi[0].bitcast(kdsl.Uint32)",
    "out[0] = xf[0].to(kdsl.Uint64) if xf else kdsl.Uint64(0)",
    "out[0] = thread_idx + 1",
    "out[0] = kdsl.math.sqrt(xi[0]).to(kdsl.Uint64).nope",
    "assert False",
    "out[0] = kdsl.Float8E4M3(1.0) + kdsl.Float8E4M3(1.0)",
    "out[0] = (xi[0] if n else xf[0]).to(kdsl.Uint64) + 'a'",
]
BAD_PARAMS = [
    "xi: Pointer[int]",
    "xi: kdsl.Array[Int64]",
    "xi: Pointer[Int64, 2]",
    "xi: kdsl.Array[Int64, 1.5]",
    "xi: kdsl.Array[Int64, 0]",
    "xi: int",
    "xi: kdsl.Constexpr[str]",
    "xi",
]


def invalid_kernel(rng) -> str:
    """The source of a kernel with one bad construct (perhaps two), or one
    randomly mutated; Python syntax errors are the caller's to skip."""
    batch = [c for c in (random_case(rng) for _ in range(6)) if fold(c)][:3]
    source = kernel_source(batch or cases(rng.randrange(1 << 30), 1))
    lines = source.splitlines()
    body_at = [i for i, line in enumerate(lines) if line.startswith("    ")]
    r = rng.random()
    if r < 0.6:
        for _ in range(1 if rng.random() < 0.8 else 2):
            bad = rng.choice(BAD_STATEMENTS).splitlines()
            at = rng.choice(body_at)
            indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
            lines[at:at] = [indent + b for b in bad]
    elif r < 0.7:
        sig = next(i for i, line in enumerate(lines) if line.startswith("def k("))
        lines[sig] = lines[sig].replace("xi: Pointer[Int64]", rng.choice(BAD_PARAMS))
    else:  # a mutation of one line of the body
        at = rng.choice(body_at)
        line = lines[at]
        swaps = [("+", "-"), ("*", "@"), ("kdsl.", ""), ("xi", "xf"), ("v", "w")]
        swaps += [(".to(", ".bitcast("), ("out", "xi"), ("Int", "Float"), ("(", "((")]
        old, new = rng.choice(swaps)
        if old in line:
            k = rng.randrange(line.count(old))
            parts = line.split(old)
            line = old.join(parts[: k + 1]) + new + old.join(parts[k + 1 :])
        lines[at] = line
    return "\n".join(lines) + "\n"
