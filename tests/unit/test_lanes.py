"""The interpreter's array semantics equal static folding: every operator,
every type, every ``.to()`` and ``.bitcast()`` pair, on the edge-value table
the GPU differential test (tests/gpu/semantics_cases.py) proves the generated
code against — so interpreter, folding and GPU agree bit for bit."""

import sys
from pathlib import Path

import numpy as np
import pytest

from kdsl.transpile import builtins
from kdsl.transpile.core import lanes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gpu"))
import semantics_cases as sc  # noqa: E402

CASES = [c for c in sc.all_cases() if c.kind != "literal"]
M64 = 2**64 - 1


def _apply(case, arrays):
    if case.kind == "builtin":  # the interpreter's semantics of the entry
        call = sc.builtin_call(case)
        return builtins.get(case.op).interpret(None, call, arrays, None)
    if case.kind == "binary":
        return lanes.binary(case.op, *arrays, case.src)
    if case.kind == "chain":
        a, b = arrays
        return lanes.binary("+", lanes.binary("*", a, b, case.src), a, case.src)
    if case.kind == "unary":
        return lanes.unary(case.op, arrays[0], case.src)
    if case.kind == "convert":
        return lanes.convert(arrays[0], case.src, case.dst)
    return lanes.bitcast(arrays, case.src, case.dst, 1)[0]


def _words(result, t):
    """(low, high) 64-bit words of each lane's bits, as the GPU test reads them."""
    if t.kind in ("int", "bool"):
        high = M64 if t.width == 128 else 0
        return [(int(v) & M64, (int(v) >> 64) & high) for v in result.tolist()]
    unsigned = np.dtype(f"u{result.dtype.itemsize}")
    return [(int(v), 0) for v in result.view(unsigned).tolist()]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_lanes_equal_static_folding(case):
    tuples = sc.operands(case)
    columns = zip(zip(*tuples), case.operand_types)
    arrays = [lanes.from_values(column, t) for column, t in columns]
    with np.errstate(all="ignore"):  # as the interpreter runs
        result = _apply(case, arrays)
    assert result.dtype == lanes.lane_dtype(case.dst) and len(result) == len(tuples)
    bad = [
        (args, want, words)
        for args, words in zip(tuples, _words(result, case.dst))
        if not sc.matches(case, want := sc.expected(case, args), *words)
    ]
    assert not bad, f"{len(bad)} of {len(tuples)} differ, e.g. {bad[:5]}"


EXACT_MATH = ["sqrt", "floor", "ceil", "trunc", "round", "rint", "fabs", "fma", "fdim"]


@pytest.mark.parametrize("name", EXACT_MATH)
@pytest.mark.parametrize("t", sc.FLOAT_TYPES, ids=str)
def test_exactly_folded_math_equals_the_fold(name, t):
    """kdsl.math functions with an exact fold give the folded bits (the
    transcendental ones are numpy's and may differ from CUDA's last bit)."""
    from kdsl.transpile.core import mathfns

    edges = sc.edge_values(t)
    arity = mathfns.arity(name)
    columns = [edges, edges[::-1], edges[1:] + edges[:1]][:arity]
    with np.errstate(all="ignore"):
        got = lanes.math_call(name, [lanes.from_values(c, t) for c in columns], t)
    for args, g in zip(zip(*columns), lanes.to_values(got, t)):
        want = mathfns.fold(name, list(args), t)
        same = (want != want and g != g) or (want == g and str(want) == str(g))
        assert same, (name, t.__name__, args, want, g)
