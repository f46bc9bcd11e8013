"""Generated code a new user reads (issue 30, item 3): a grid-stride
``kdsl.range`` written inline keeps a short ``for`` line, ``x * 1`` and
``x + 0`` fold away (no ``blockIdx.x * 1``, no ``int32_t(threadIdx.x)`` on an
unrolled loop's first copy only), and a statement written over several
lines gets a readable comment."""

import numpy as np

import kdsl
from kdsl import (
    Constexpr,
    Int32,
    Pointer,
    block_dim,
    block_idx,
    grid_dim,
    thread_idx,
)
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile.frontend.lower import ECHO_ONE_LINE, echo

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32])
def grid_stride(x: Pointer[D], n: Int32):
    for i in kdsl.range(block_idx.x * block_dim.x + thread_idx.x, n, grid_dim.x * block_dim.x):  # fmt: skip
        x[i] = x[i] * 2


@kdsl.kernel(dtypes=[kdsl.Float32])
def strided(x: Pointer[D], n: Int32, W: Constexpr[int] = 1):
    i = block_idx.x * W + thread_idx.x
    if i < n:
        x[i] = x[i] + 1


@kdsl.kernel(dtypes=[kdsl.Float32])
def unrolled(x: Pointer[D], n: Int32):
    for c in kdsl.range_constexpr(3):
        j = c * 64 + thread_idx.x
        if j < n:
            x[j] = x[j] * 2


# fmt: off
@kdsl.kernel(dtypes=[kdsl.Float32])
def long_statement(x: Pointer[D], y: Pointer[D], n: Int32):
    i = block_idx.x * 256 + \
        thread_idx.x
    if i < n:
        x[i] = (x[i] * 2 + y[i] * 3
                + x[i] * y[i] - y[i] * y[i]
                + x[i] * x[i] * x[i] - y[i] * 7 + x[i] * 11 + y[i] * 13)
        y[i] = kdsl.math.fmax(
            x[i], y[i],
        )
# fmt: on


def _body(source):
    return source[source.index('extern "C" __global__') :].splitlines()


def test_an_inline_grid_stride_start_gets_a_line_of_its_own():
    body = _body(grid_stride.dispatch("f32").source)
    assert "    int32_t i_start = blockIdx.x * blockDim.x + threadIdx.x;" in body
    assert (
        "    for (int32_t i = i_start; kdsl::in_range(i, n, i_step); i += i_step) {"
        in body
    )
    code = [line for line in body if not line.strip().startswith("//")]
    assert max(map(len, code)) <= 100, code
    x = np.arange(1000, dtype=np.float32)
    grid_stride.interpret[3, 64](x, 1000)  # 192 threads stride over 1000
    np.testing.assert_array_equal(x, np.arange(1000, dtype=np.float32) * 2)


def test_times_one_is_folded():
    source = strided.dispatch("f32").source
    assert "int32_t i = blockIdx.x + threadIdx.x;" in source
    assert "* 1 " not in source and "* 1;" not in source
    assert "blockIdx.x * 4 + threadIdx.x" in strided.dispatch("f32", W=4).source


def test_the_first_unrolled_copy_has_no_stray_cast():
    body = _body(unrolled.dispatch("f32").source)
    assert "    int32_t j = threadIdx.x;" in body
    assert "    j = 64 + threadIdx.x;" in body and "    j = 128 + threadIdx.x;" in body
    assert not any("int32_t(" in line for line in body)
    x = np.arange(200, dtype=np.float32)
    unrolled.interpret[1, 64](x, 200)
    want = np.arange(200, dtype=np.float32)
    want[:192] *= 2
    np.testing.assert_array_equal(x, want)


def test_integer_identities_fold_exactly_and_others_do_not():
    from kdsl.transpile.core import arith

    v = Int32._dynamic(kdsl.transpile.ir.Var(Int32, "v"))
    assert arith.binary("*", v, 1) is not None
    assert arith.binary("*", v, 1).ir_value() == v.ir_value()
    assert arith.binary("+", 0, v).ir_value() == v.ir_value()
    assert arith.binary("-", v, 0).ir_value() == v.ir_value()
    assert arith.binary("-", 0, v).ir_value() != v.ir_value()  # 0 - v is -v
    f = kdsl.Float32._dynamic(kdsl.transpile.ir.Var(kdsl.Float32, "f"))
    assert arith.binary("*", f, 1.0).ir_value() != f.ir_value()  # floats: kept


def test_a_statement_over_several_lines_is_echoed_readably():
    source = long_statement.dispatch("f32").source
    body = _body(source)
    # short once joined: one line, no spaces inside the brackets
    assert "        // y[i] = kdsl.math.fmax(x[i], y[i])" in body
    # the backslash continuation is dropped (it would splice the next line)
    assert "    // i = block_idx.x * 256 + thread_idx.x" in body
    assert not any(line.rstrip().endswith("\\") for line in body)
    # long: kept on its lines, continuation indented as written
    at = body.index("        // x[i] = (x[i] * 2 + y[i] * 3")
    assert body[at + 1] == "        //         + x[i] * y[i] - y[i] * y[i]"
    assert body[at + 2].startswith("        //         + x[i] * x[i] * x[i]")
    assert max(len(line) for line in body if "//" in line) <= 100
    compile_to_cubin(source, "long_statement__f32")  # NVRTC takes it (no GPU)


def test_echo_joins_short_statements_and_keeps_long_ones():
    assert echo("f(\n    a, b,\n)") == "f(a, b)"
    assert echo("x = a + \\\n    b") == "x = a + b"
    long = "x = (" + " + ".join(["value"] * 12) + "\n     + tail)"
    assert len(echo(long.replace("\n", " "))) > ECHO_ONE_LINE
    assert echo(long).split("\n")[1] == "     + tail)"
