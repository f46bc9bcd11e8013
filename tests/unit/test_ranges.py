"""The integer range analysis (``transpile/passes/ranges.py``) and the plain C++
operators the emitter writes on its word, checked on random expressions:

* every value an expression takes (kdsl's wrap-around semantics, on random
  and extreme special-register values) lies in the range claimed for it;
* where the emitter writes a plain operator (``tid / 32``, ``blockIdx.x *
  256 + tid``), C++'s semantics (truncating ``/`` and ``%``, unsigned
  arithmetic modulo 2**32 on CUDA indices, signed overflow undefined)
  computes kdsl's result on every value tried, the operands' range corners
  included, with no signed overflow."""

from __future__ import annotations

import itertools
import random

import pytest

from kdsl.transpile import ir
from kdsl.transpile.core import values
from kdsl.transpile.core.types import Boolean, Int32, Int64
from kdsl.transpile.cuda.emit import Emitter
from kdsl.transpile.passes import Facts, simplify
from kdsl.transpile.passes.ranges import SPECIAL, Ranges, exact, type_range, within

SPECIALS = sorted(SPECIAL)
# CUDA's limits, written out again here so that a wrong SPECIAL table fails
CUDA_LIMITS = {
    **{f"thread_idx.{a}": (0, n - 1) for a, n in zip("xyz", (1024, 1024, 64))},
    **{f"block_dim.{a}": (1, n) for a, n in zip("xyz", (1024, 1024, 64))},
    **{f"block_idx.{a}": (0, n - 1) for a, n in zip("xyz", (2**31 - 1, 65535, 65535))},
    **{f"grid_dim.{a}": (1, n) for a, n in zip("xyz", (2**31 - 1, 65535, 65535))},
}
OPS = ["+", "-", "*", "//", "%", ">>", "<<", "&"]


def random_expr(rng, depth, names):
    """A random Int32 expression over CUDA indices, constants and ``names``."""
    if depth == 0 or rng.random() < 0.25:
        kind = rng.random()
        if kind < 0.45:
            return ir.Special(Int32, rng.choice(SPECIALS))
        if kind < 0.75 or not names:
            value = rng.choice([0, 1, 2, 3, 8, 16, 31, 32, 256, 1024, -1, -8, 65536])
            return ir.Const(Int32, value)
        return ir.Var(Int32, rng.choice(names))
    op = rng.choice(OPS)
    lhs = random_expr(rng, depth - 1, names)
    if op in (">>", "<<"):
        rhs = ir.Const(Int32, rng.choice([0, 1, 5, 31]))
    else:
        rhs = random_expr(rng, depth - 1, names)
    if rng.random() < 0.15:  # through Int64 and back
        wide = ir.BinOp(Int64, op, ir.Convert(Int64, lhs), ir.Convert(Int64, rhs))
        return ir.Convert(Int32, wide)
    return ir.BinOp(Int32, op, lhs, rhs)


def random_function(rng):
    """Declarations of random expressions, a loop over a bounded range, an
    assignment that makes a variable grow, and a scalar parameter ``n``."""
    body, names = [], ["n"]
    for k in range(4):
        name = f"v{k}"
        body.append(ir.Declare(name, Int32, random_expr(rng, 3, names)))
        names.append(name)
    loop_body = (ir.Declare("w", Int32, random_expr(rng, 3, names + ["k"])),)
    stop = ir.Special(Int32, "block_dim.x")
    body.append(ir.For("k", Int32, ir.Const(Int32, 0), stop, 1, loop_body))
    body.append(
        ir.Assign("v0", ir.BinOp(Int32, "+", ir.Var(Int32, "v0"), ir.Const(Int32, 1)))
    )
    params = (ir.Param("n", Int32),)
    return ir.Function("f", params, tuple(body))


def kdsl_value(e, env):
    """``e``'s value under kdsl's semantics (run time: ``x // 0`` is 0, ``x %
    0`` is x)."""
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.Var):
        return env[e.name]
    if isinstance(e, ir.Special):
        return env[e.name]
    if isinstance(e, ir.Convert):
        return values.convert(kdsl_value(e.operand, env), e.operand.type, e.type)
    a, b = kdsl_value(e.lhs, env), kdsl_value(e.rhs, env)
    if e.op in ("//", "%") and b == 0:
        return 0 if e.op == "//" else a
    return values.binary(e.op, a, b, e.type)


def c_value(em, e, env, ctx=False):
    """``(value, unsigned)``: what the emitted C++ computes for ``e``, the
    emitter's choices replayed (``Emitter.expr``'s unsigned context, its
    ``_plain``), on simplified IR (what the emitter is given); a signed
    overflow or a division C++ leaves undefined fails."""
    ctx = ctx and em._stays_unsigned(e)
    em._unsigned_ok = ctx
    if isinstance(e, ir.Special):
        return env[e.name], ctx
    if not isinstance(e, ir.BinOp):
        return kdsl_value(e, env), False
    (a, ua), (b, ub) = c_value(em, e.lhs, env, ctx), c_value(em, e.rhs, env, ctx)
    em._unsigned_ok = ctx
    t = e.lhs.type
    if not em._plain(e):  # a kdsl:: helper: its arguments are int32_t/int64_t
        a, b = values.wrap(a, t), values.wrap(b, t)
        if e.op in ("//", "%") and b == 0:
            return (0 if e.op == "//" else a), False
        return values.binary(e.op, a, b, t), False
    if ua or ub:  # unsigned int arithmetic, modulo 2**32
        assert t is Int32 and e.op in ("+", "-", "*", "//", "%")
        m = 1 << 32
        a, b = a % m, b % m
        if e.op in ("//", "%"):
            assert b > 0
            return (a // b if e.op == "//" else a % b), True
        return {"+": a + b, "-": a - b, "*": a * b}[e.op] % m, True
    lo, hi = type_range(t)
    if e.op in ("//", "%"):
        assert b != 0 and not (a == lo and b == -1)
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # truncating
        r = q if e.op == "//" else a - q * b
    elif e.op in ("<<", ">>"):
        assert 0 <= b < t.width and (e.op == ">>" or a >= 0)
        r = a << b if e.op == "<<" else a >> b
    else:
        r = {"+": a + b, "-": a - b, "*": a * b, "&": a & b}[e.op]
    assert lo <= r <= hi, f"signed overflow in {e}"
    return r, False


def environments(rng, f, ranges, count):
    """Special-register values (their extremes and random ones) and ``n``."""
    for k in range(count):
        env = {}
        for name, (lo, hi) in CUDA_LIMITS.items():
            env[name] = rng.choice([lo, hi, rng.randint(lo, hi)])
        env["n"] = rng.choice([0, -1, 7, 2**31 - 1, -(2**31), rng.randint(-999, 999)])
        yield env


def run(f, env):
    """The values of ``f``'s variables, statement by statement (the loop's
    body for each ``k`` in a few of its iterations)."""
    seen = []
    env = dict(env)

    def stmt(s):
        if isinstance(s, ir.Declare):
            env[s.name] = kdsl_value(s.init, env)
            seen.append((s.name, s.init, dict(env)))
        elif isinstance(s, ir.Assign):
            env[s.name] = kdsl_value(s.value, env)
        elif isinstance(s, ir.For):
            stop = kdsl_value(s.stop, env)
            for k in sorted({0, stop - 1, stop // 2}):
                if 0 <= k < stop:
                    env[s.var] = k
                    for inner in s.body:
                        stmt(inner)

    for s in f.body:
        stmt(s)
    return seen


@pytest.mark.parametrize("seed", range(40))
def test_claimed_ranges_hold_and_plain_operators_compute_kdsl_results(seed):
    rng = random.Random(seed)
    f = simplify.function(random_function(rng))
    ranges = Ranges(f)
    em = Emitter(facts=Facts(ranges=ranges))
    for env in environments(rng, f, ranges, 25):
        for name, init, at in run(f, env):
            assert within(ranges.of(ir.Var(Int32, name)), Int32)
            lo, hi = ranges.of(ir.Var(Int32, name))
            assert lo <= at[name] <= hi, (name, init)
            for sub in ir.walk(init):
                if sub.type in (Int32, Int64) and not isinstance(sub, ir.Var):
                    lo, hi = ranges.of(sub)
                    assert lo <= kdsl_value(sub, at) <= hi, sub
            got, _ = c_value(em, init, at, ctx=True)  # a declaration's value
            assert values.wrap(got, Int32) == at[name], init
            if em._never_wraps(init):  # an index: unsigned, and no wrap at all
                assert got == at[name], init
            em._unsigned_ok = False


def test_plain_operators_at_the_corners_of_their_operands_ranges():
    """For each operator the emitter writes plain, on operands whose ranges
    the analysis gives: every corner of the two ranges computes kdsl's
    result in C++ (no overflow, truncation equals flooring)."""
    tid = ir.Special(Int32, "thread_idx.x")
    bid = ir.Special(Int32, "block_idx.y")
    dim = ir.Special(Int32, "block_dim.x")
    ranges = Ranges(ir.Function("f", (), ()))
    cases = [
        ir.BinOp(Int32, "//", tid, ir.Const(Int32, 32)),
        ir.BinOp(Int32, "%", tid, ir.Const(Int32, 32)),
        ir.BinOp(Int32, "//", tid, dim),
        ir.BinOp(Int32, "+", ir.BinOp(Int32, "*", bid, dim), tid),
        ir.BinOp(Int32, "-", tid, ir.Const(Int32, 1024)),
        ir.BinOp(Int32, ">>", tid, ir.Const(Int32, 5)),
        ir.BinOp(Int32, "<<", tid, ir.Const(Int32, 20)),
    ]
    em = Emitter()
    assert em._never_wraps(cases[3]) and not em._never_wraps(cases[4])  # tid - 1024
    for e in cases:
        assert em._plain(e), e
        a, b = ranges.of(e.lhs), ranges.of(e.rhs)
        claimed = ranges.of(e)
        for x, y in itertools.product(a, b):
            kdsl = values.binary(e.op, x, y, Int32)
            assert claimed[0] <= kdsl <= claimed[1]
            if e.op == "//":
                c = int(x / y)  # C++ truncates
            elif e.op == "%":
                c = x - int(x / y) * y
            else:
                c = {"+": x + y, "-": x - y, "*": x * y, ">>": x >> y, "<<": x << y}[
                    e.op
                ]
            assert c == kdsl and within((c, c), Int32)


def test_helpers_stay_where_overflow_or_negative_operands_are_possible():
    n = ir.Var(Int32, "n")
    tid = ir.Special(Int32, "thread_idx.x")
    bid = ir.Special(Int32, "block_idx.x")  # up to 2**31 - 2
    f = ir.Function("f", (ir.Param("n", Int32),), ())
    em = Emitter(facts=Facts(ranges=Ranges(f)))
    assert not em._plain(ir.BinOp(Int32, "+", n, ir.Const(Int32, 1)))
    assert not em._plain(ir.BinOp(Int32, "//", n, ir.Const(Int32, 32)))
    assert not em._plain(ir.BinOp(Int32, "%", tid, n))  # n may be 0 or negative
    assert not em._plain(ir.BinOp(Int32, "*", bid, ir.Const(Int32, 256)))
    assert not em._plain(ir.BinOp(Int32, ">>", tid, n))
    assert exact("//", (0, 10), (0, 3)) is None  # a zero divisor


def test_a_counter_that_grows_in_a_loop_has_its_types_range():
    i = ir.Var(Int32, "i")
    body = (
        ir.Declare("i", Int32, ir.Const(Int32, 0)),
        ir.While(
            ir.BinOp(Boolean, "<", i, ir.Var(Int32, "n")),
            (ir.Assign("i", ir.BinOp(Int32, "+", i, ir.Const(Int32, 1))),),
        ),
    )
    f = ir.Function("f", (ir.Param("n", Int32),), body)
    assert Ranges(f).of(i) == type_range(Int32)


def test_a_loop_counter_is_bounded_by_its_range():
    k = ir.Var(Int32, "k")
    stop = ir.Special(Int32, "block_dim.x")
    loop = ir.For("k", Int32, ir.Const(Int32, 0), stop, 1, ())
    f = ir.Function("f", (), (loop,))
    assert Ranges(f).of(k) == (0, 1023)
    down = ir.For("k", Int32, ir.Const(Int32, 10), ir.Const(Int32, -1), -1, ())
    assert Ranges(ir.Function("f", (), (down,))).of(k) == (0, 10)


def test_a_variable_a_device_function_may_write_has_its_types_range():
    v = ir.Var(Int32, "v")
    body = (
        ir.Declare("v", Int32, ir.Const(Int32, 3)),
        ir.ExprStmt(ir.FuncCall(None, "g", (v,))),
    )
    assert Ranges(ir.Function("f", (), body)).of(v) == type_range(Int32)
