"""Every kdsl built-in rejects what it does not take: an unknown keyword is a
located E207 error and a wrong number of arguments a located E203, never
ignored."""

import re

import pytest

import kdsl
from snippets import make_kernel

CALLS = [
    "kdsl.syncthreads(foo=1)",
    "v = kdsl.lane_id(foo=1)",
    "s = kdsl.shared_array(Float32, 4, foo=1)",
    "s = kdsl.local_array(Float32, 4, align=16)",
    "v = kdsl.math.exp(x[i], fast=True)",
    "v = kdsl.math.fma(x[i], x[i], x[i], rn=1)",
    "v = kdsl.shfl_down(x[i], 1, lanes=3)",
    "v = kdsl.shfl_xor(x[i], 1, width=32, foo=1)",
    "v = kdsl.atomic_add(out, 0, x[i], sem=1)",
    "v = kdsl.atomic_cas(out, 0, x[i], x[i], foo=1)",
    "v = min(x[i], x[0], key=1)",
    "v = max(x[i], x[0], default=1)",
    "v = abs(x[i], foo=1)",
    "v = abs(x[i], x[0])",
    "v = int(3, base=10)",
    "v = float()",
    "v = Float32(1, foo=2)",
    "v = x[i].to(Float64, rounding=1)",
    "v = x[i].to()",
    "v = x.vec(4, aligned=True)",
]


@pytest.mark.parametrize("call", CALLS)
def test_unexpected_arguments_are_located_errors(tmp_path, call):
    k, line = make_kernel(tmp_path, f"i = thread_idx.x\n{call}  # <-\nout[i] = x[i]")
    with pytest.raises(kdsl.DSLError) as info:
        k.dispatch("f32").source
    exc = info.value
    keyword = re.search(r"\w=", call.split("(", 1)[1])
    assert exc.code == ("E207" if keyword else "E203"), str(exc)
    assert exc.span is not None and exc.span.line == line, str(exc)
    assert "Error:" not in exc.message, str(exc)  # no Python exception names


@pytest.mark.parametrize(
    "call, word",
    [
        ("kdsl.syncthreads(foo=1)", "'foo'"),
        ("v = kdsl.shfl_down(x[i], 1, lanes=3)", "'lanes'"),
        ("v = kdsl.math.exp(x[i], fast=True)", "'fast'"),
    ],
)
def test_the_message_names_the_keyword(tmp_path, call, word):
    k, _ = make_kernel(tmp_path, f"i = thread_idx.x\n{call}\nout[i] = x[i]")
    with pytest.raises(kdsl.DSLError, match=word):
        k.dispatch("f32").source
