"""One-line compound statements (``if c: stmt``, ``for ...: stmt``, ``while
c: stmt``, ``else: stmt``, several statements after one colon) are valid
Python: libcst gives their body as a ``SimpleStatementSuite`` instead of an
``IndentedBlock``.  They lower exactly like the indented forms: the same IR
and the same generated code, line for line, and they run."""

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin

# fmt: off
@kdsl.kernel
def one_line(x: Pointer[Float32], out: Pointer[Float32], n: Int32):
    i = thread_idx.x
    if i < n: out[i] = 0
    acc = Float32(0)
    for k in range(4): acc += x[k]
    c = Int32(0)
    while c < n: c += 1; acc += 1
    if i == 0: out[0] = acc
    elif i == 1: out[1] = acc  # a comment after the statement
    else: acc = acc * 2; out[2] = acc
    for j in kdsl.range_constexpr(2): out[3 + 3 * j + i] = acc
    if True: out[9] = 1


@kdsl.func
def twice(v): return v * 2


@kdsl.kernel
def one_line_function(out: Pointer[Float32]): out[0] = twice(Float32(3))


@kdsl.kernel
def one_line_error(x: Pointer[Float32], n: Int32):
    if thread_idx.x < n: x[0] = 1; del n


@kdsl.kernel
def indented(x: Pointer[Float32], out: Pointer[Float32], n: Int32):
    i = thread_idx.x
    if i < n:
        out[i] = 0
    acc = Float32(0)
    for k in range(4):
        acc += x[k]
    c = Int32(0)
    while c < n:
        c += 1; acc += 1
    if i == 0:
        out[0] = acc
    elif i == 1:
        out[1] = acc  # a comment after the statement
    else:
        acc = acc * 2; out[2] = acc
    for j in kdsl.range_constexpr(2):
        out[3 + 3 * j + i] = acc
    if True:
        out[9] = 1
# fmt: on


@kdsl.func
def twice_indented(v):
    return v * 2


@kdsl.kernel
def indented_function(out: Pointer[Float32]):
    out[0] = twice_indented(Float32(3))


def _code(kernel, name):
    """The generated code from the kernel's signature on, its name made one."""
    inst = kernel.dispatch()
    src = inst.source
    return src[src.index('extern "C"') :].replace(inst.name, name)


@pytest.mark.parametrize(
    "one,indent",
    [(one_line, indented), (one_line_function, indented_function)],
    ids=["statements", "function-bodies"],
)
def test_one_line_forms_lower_like_the_indented_forms(one, indent):
    a, b = one.dispatch().lowered, indent.dispatch().lowered
    assert [f.body for f in a.functions] == [f.body for f in b.functions]
    if one is one_line:  # (the other kernel's comment names its function)
        assert a.kernel.body == b.kernel.body
    assert _code(one, "k") == _code(indent, "k").replace("twice_indented", "twice")


def test_one_line_forms_compile_and_run():
    inst = one_line.dispatch()
    compile_to_cubin(inst.source, inst.name)
    assert "// if i < n: out[i] = 0" not in inst.source  # comments as indented
    assert "// for k in range(4):" in inst.source
    assert "// c += 1; acc += 1" in inst.source
    x = np.arange(4, dtype=np.float32)
    out = np.full(11, -1, np.float32)
    one_line.interpret[1, 3](x, out, 3)
    # acc = 0+1+2+3 = 6, then the while adds n = 3; thread 2 doubles it
    assert out.tolist() == [9, 9, 18] * 3 + [1, -1]


def test_a_one_line_device_function_and_kernel():
    out = np.zeros(1, np.float32)
    one_line_function.interpret[1, 1](out)
    assert out[0] == 6


def test_an_error_in_a_one_line_body_points_at_its_statement():
    with pytest.raises(kdsl.DSLError) as info:
        one_line_error.dispatch().source
    assert info.value.code == "E202" and "del" in str(info.value)
    line = one_line_error.fn.__code__.co_firstlineno + 2
    assert (info.value.span.line, info.value.span.col) == (line, 36)
