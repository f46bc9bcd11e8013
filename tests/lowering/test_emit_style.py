"""The generated CUDA reads like hand-written CUDA: no redundant parentheses,
one spelling per cast, lines that fit, every statement under its Python source
(SPEC section 8).  Checked on the examples and on small kernels."""

import pytest

import kdsl
from examples_index import example_modules
from kdsl import Float32, Int32, Pointer, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin

LIMIT = 100


def code_lines(kernel, *dtypes, **constexprs):
    inst = kernel.dispatch(*(dtypes or kernel.combinations()[0]), **constexprs)
    return inst.source, inst


def stripped(kernel, *dtypes, **constexprs):
    src, _ = code_lines(kernel, *dtypes, **constexprs)
    code = src[src.index('extern "C"') :]
    return [line.strip() for line in code.splitlines()]


def example(module, name):
    return getattr(example_modules()[module], name)


def test_loads_are_operands_without_parentheses():
    lines = stripped(example("vector_add", "vector_add"), "f32")
    assert "out[i] = x[i] + y[i];" in lines
    lines = stripped(example("softmax", "softmax_rows"), "f32", CHUNKS=1)
    assert "s = s + vals[0][1];" in lines
    code = [s for s in lines if not s.startswith("//")]
    assert not any("= (vals[" in s or "((vals[" in s or "((x[" in s for s in code)


def test_statements_drop_the_outer_parentheses_of_their_value():
    src, _ = code_lines(example("gelu", "gelu_backward"), "f32")
    lines = [line.strip() for line in src.splitlines()]  # device functions too
    assert "float du = 0.7978846f * fmaf(0.134145f * v, v, 1.0f);" in lines
    lines = stripped(example("histogram", "histogram"), "f32")
    assert "float scale = 256.0f / (hi - lo);" in lines


def test_cuda_indices_use_the_functional_cast_or_none():
    lines = stripped(example("vector_add", "vector_add"), "f32")
    assert "int32_t i = blockIdx.x * 256 + threadIdx.x;" in lines
    lines = stripped(example("softmax", "softmax_rows"), "f32")
    # 0 + x is x (simplified before emission): an index as it is, like tx
    assert "int32_t j = threadIdx.x;" in lines
    assert not any("(int32_t)" in s for s in lines)


def test_a_compound_ternary_condition_keeps_its_parentheses():
    src, _ = code_lines(example("matmul", "matmul"), "f32")
    assert "(row < M && k0 + tx < K) ? a[" in src
    assert "? a[" in src and ": 0.0f;" in src


@pytest.mark.parametrize("module", sorted(example_modules()))
def test_example_lines_fit(module):
    for k in vars(example_modules()[module]).values():
        if not isinstance(k, kdsl.Kernel):
            continue
        for dtypes in k.combinations():
            src, inst = code_lines(k, *dtypes)
            body = src[src.index('extern "C"') :]
            for line in body.splitlines():
                if not line.lstrip().startswith("//"):
                    assert len(line) <= LIMIT, f"{inst.name}: {line}"


D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32])
def materialised(x: Pointer[D], out: Pointer[D], n: Int32):
    i = thread_idx.x
    acc = Float32(0)
    if i < n:
        acc = x[i]
    total = Float32(1)
    for k in range(n):
        total = total + x[k]
    if i == 0:
        v = x[0]
    else:
        v = Float32(2)
    out[i] = acc + total + v


def test_every_declaration_keeps_its_python_origin():
    lines = stripped(materialised)
    acc = lines.index("float acc = 0.0f;")
    assert lines[acc - 1] == "// acc = Float32(0)"
    total = lines.index("float total = 1.0f;")
    assert lines[total - 1] == "// total = Float32(1)"
    v = lines.index("float v;")
    assert lines[v - 1] == "// v = x[0]"
    # deterministic: a fresh transpilation gives the same text
    from kdsl.runtime.kernel import KernelInstance

    inst = materialised.dispatch("f32")
    again = KernelInstance(inst.kernel, inst.name, inst.dtypes, inst.constexprs)
    assert again.source == inst.source


def test_wrap_rules():
    from kdsl.transpile.cuda import doc
    from kdsl.transpile.cuda.cexpr import atom, call, conditional, index, infix
    from kdsl.transpile.cuda.cexpr import name, number, template
    from kdsl.transpile.core.cxx import lambda_
    from kdsl.transpile.cuda.emit import LIMIT, wrap

    def assign(target, value):
        return wrap(pad, doc.assign(target, value))

    def chain(op, terms, operands="reader"):
        out = terms[0]
        for t in terms[1:]:
            out = infix(op, out, t, operands)
        return out

    pad = "    "
    assert assign("x", name("y")) == [pad + "x = y;"]
    long_call = call("f", *(f"argument_{k}" for k in range(9)))
    lines = assign(index("out", "i"), long_call)
    assert len(lines) == 2 and all(len(line) <= LIMIT for line in lines)
    assert lines[1].index("argument") == lines[0].index("argument")  # aligned
    cond = atom(
        chain("&&", [atom(infix("<", f"a{k}", f"b{k}")) for k in range(5)], "atom")
    )
    value = conditional(cond, index("first_value", "i"), index("second_value", "i"))
    lines = assign("v", value)
    assert [line.strip()[0] for line in lines[1:]] == ["?", ":"]
    value = call("g", infix("+", call("h", "a" * 50), call("h", "b" * 22)))
    assert (
        assign(index("out", call("k", "i", "j")), value)[1].strip() == value.text + ";"
    )
    hopeless = name("a" * 120)
    assert assign("x", hopeless) == [pad + f"x = {hopeless};"]
    # a vector expression's lambda gets lines of its own
    params = ["const float w", "const float a"]
    body = chain("+", [infix("*", "w", "a")] * 9 + [name("a")])
    splat = call(template("kdsl::splat", "float", 4), index("x", number("0")))
    lines = assign(
        index("o", "i"), call("kdsl::vmap", lambda_([], params, body), "w", splat)
    )
    assert [line.strip() for line in lines] == [
        "o[i] = kdsl::vmap(",
        "[](const float w, const float a) {",
        "return " + "w * a + " * 9 + "a;",
        "},",
        "w, kdsl::splat<float, 4>(x[0]));",
    ]
    assert lines[2].index("return") == lines[1].index("[") + 4
    # the vectors after the lambda break only between arguments, even with a
    # comparison inside one
    inner = call("f", infix(">", "p", "q"), "r")
    args = ["w" * 60, call(template("kdsl::splat", "float", 4), inner), "v" * 40]
    vmap = call("kdsl::vmap", lambda_([], params, name("w")), *args)
    tail = assign(index("o", "i"), vmap)[4:]
    assert [x.strip() for x in tail] == [
        "w" * 60 + ",",
        "kdsl::splat<float, 4>(f(p > q, r)), " + "v" * 40 + ");",
    ]
    # a template argument list is never split (its commas are not arguments)
    eight = call(template("kdsl::splat", "float", 8), number("0.5f"))
    for line in assign(index("o", "i"), call("kdsl::vmap", "f", "w" * 50, eight)):
        assert line.count("<") == line.count(">")
    pick = call("pick", infix("<", "a" * 40, "b"), infix(">", "c", "d" * 40), "e")
    assert assign(index("out", "i"), pick)[0].endswith(" < b,")
    # a string literal is one piece: no break at its commas, brackets or "?"
    text = name('"' + "a, b) [c ? d : e], " * 4 + '%d\\" ("')
    lines = wrap(pad, doc.expr(call("printf", text, "x", "y")))
    assert [line.strip() for line in lines] == [f"printf({text}, x,", "y);"]
    alone = name('"' + "a, b, (c, d) ? e : f, " * 5 + '\\n"')
    assert wrap(pad, doc.expr(call("printf", alone))) == [pad + f"printf({alone});"]


@kdsl.kernel
def classify(x: Pointer[Float32], out: Pointer[Int32], n: Int32):
    i = thread_idx.x
    if i < n:
        v = x[i]
        if v < 0:
            out[i] = -1
        elif v == 0:
            out[i] = 0
        elif v < 1:
            out[i] = 1
        else:
            out[i] = 2


def test_elif_chains_read_as_else_if():
    from kdsl.runtime.nvrtc import compile_to_cubin

    src, inst = code_lines(classify)
    compile_to_cubin(src, inst.name)
    lines = [line.strip() for line in src[src.index('extern "C"') :].splitlines()]
    at = lines.index("} else if (v == 0.0f) {")
    assert lines[at - 1] == "// elif v == 0:"
    assert "} else if (v < 1.0f) {" in lines
    assert lines.count("}") == 3  # the chain, the outer if, the function
    out = __import__("numpy").zeros(4, "int32")
    x = __import__("numpy").array([-2.0, 0.0, 0.5, 3.0], "float32")
    classify.interpret[1, 4](x, out, 4)
    assert out.tolist() == [-1, 0, 1, 2]


D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel
def plainer(x: Pointer[D], n: Int32):
    tid = thread_idx.x
    g = kdsl.block_idx.x * 256 + tid
    acc = D(0.0)
    for k in kdsl.range_constexpr(2):
        acc = acc + x[(g + 16) - 8 + k]
    if D.width == 64:
        acc = acc * D(3.0)
    else:
        acc = acc * D(4.0)
    if D.width == 32:
        acc = acc - D(0.0)
    m = D(float("-inf"))
    if g < n:
        x[g] = kdsl.math.fmax(m, D(-0.0) + acc) + x[tid // 32] + x[tid % 32]


def test_constants_combine_and_indices_use_plain_operators():
    src, inst = code_lines(plainer, "f32")
    lines = stripped(plainer, "f32")
    assert "int32_t g = blockIdx.x * 256 + tid;" in lines  # unsigned, modulo 2**32
    assert "float acc = 0.0f + x[kdsl::add(g, 8)];" in lines  # (g + 16) - 8 + 0
    assert "acc = acc + x[kdsl::add(g, 9)];" in lines  # g may be 2**31 - 1: add
    assert "x[tid / 32]" in src and "x[tid % 32]" in src
    assert "x[g] = fmaxf(-INFINITY, acc) + x[tid / 32] + x[tid % 32];" in lines
    at = lines.index("// acc = acc - D(0.0)")  # -0.0 + acc and acc - 0.0 are acc,
    assert lines[at + 1] == "// if g < n:"  # so that assignment is no statement
    compile_to_cubin(src, inst.name)
    src64, inst64 = code_lines(plainer, "f64")
    assert "fmax(-double(INFINITY), acc)" in src64
    compile_to_cubin(src64, inst64.name)


def test_a_static_if_comment_says_what_was_decided():
    lines = stripped(plainer, "f32")
    at = lines.index("// if D.width == 64:  [False]; else:")
    assert lines[at + 1 : at + 3] == ["// acc = acc * D(4.0)", "acc = acc * 4.0f;"]
    assert "// if D.width == 32:  [True]" in lines
    lines = stripped(plainer, "f64")
    assert "// if D.width == 64:  [True]" in lines
    assert not any(line.startswith("// if D.width == 32") for line in lines)


@kdsl.kernel
def shadowed(x: Pointer[Float32]):
    t = thread_idx.x
    i = 7
    for i in kdsl.range_constexpr(2):
        x[t + i] = 1.0
    j = t + 1
    x[t] = 0.0


def test_a_declaration_never_read_is_not_emitted():
    src, inst = code_lines(shadowed)
    lines = stripped(shadowed)
    assert "// j = t + 1" in lines
    assert not any(line.startswith(("int32_t i", "int32_t j")) for line in lines)
    compile_to_cubin(src, inst.name)


@kdsl.kernel
def long_lines(
    a: kdsl.Array[Float32, 2], b: kdsl.Array[Float32, 2], out: Pointer[Float32]
):
    i = kdsl.block_idx.y * kdsl.block_dim.y + thread_idx.y
    j = kdsl.block_idx.x * kdsl.block_dim.x + thread_idx.x
    if (
        i < a.shape[0] - 1
        and j < a.shape[1] - 1
        and a[i, j] > b[i, j]
        and a[i + 1, j] > b[i, j + 1]
    ):
        out[i] = kdsl.math.fmax(
            a[i, j] * b[i, j] + a[i + 1, j] * b[i + 1, j],
            a[i, j + 1] * b[i, j + 1] + a[i + 1, j + 1] * b[i + 1, j + 1],
        )


def test_every_statement_kind_wraps():
    src, inst = code_lines(long_lines)
    code = src[src.index('extern "C"') :]
    lines = [line for line in code.splitlines() if not line.strip().startswith("//")]
    assert max(map(len, lines)) <= LIMIT
    head = next(k for k, line in enumerate(lines) if line.strip().startswith("if ("))
    assert lines[head].endswith("&&")  # a condition breaks after its operators
    assert lines[head + 1].startswith(" " * 8) and lines[head + 1].strip()[0] != "&"
    store = next(k for k, line in enumerate(lines) if line.strip().startswith("out["))
    assert lines[store].endswith("fmaxf(a[kdsl::offset(i, a_stride0, j, a_stride1)] *")
    compile_to_cubin(src, inst.name)


def test_expression_layout():
    from kdsl.transpile.cuda import doc
    from kdsl.transpile.cuda.cexpr import call, index, infix, name, number
    from kdsl.transpile.cuda.layout import expression, wrap

    def chain(op, terms):
        out = terms[0]
        for t in terms[1:]:
            out = infix(op, out, t)
        return out

    pad = " " * 8
    cond = chain("&&", [infix("<", f"value_{k}", f"limit_{k}") for k in range(6)])
    lines = wrap(pad, doc.head("if (", cond))
    assert len(lines) == 2 and lines[0].endswith("&&") and lines[1].endswith(") {")
    assert lines[1].index("value") == len(pad) + len("if (")  # inside the (
    value = chain("+", [infix("*", f"term_{k}", f"weight_{k}") for k in range(8)])
    lines = wrap(pad, doc.ret(value))
    assert all(len(line) <= LIMIT for line in lines) and len(lines) == 2
    assert lines[1].index("term") == len(pad) + len("return ")
    # a factor before a long group stays with the group's first line
    total = chain("+", [index("u", name(f"index_{k}")) for k in range(9)])
    group = infix("*", number("0.5f"), total)
    assert group.text.startswith("0.5f * (u[index_0] + ")
    lines = expression(group, 40)
    assert lines[0].startswith("0.5f * (u[index_0] +")
    assert all(line.index("u[") == 40 + len("0.5f * (") for line in lines[1:])
    # a long call breaks after its commas, aligned on its bracket
    f = call(
        "kdsl::combine", *[infix("*", f"alpha_{k}", f"beta_{k}") for k in range(7)]
    )
    lines = wrap(pad, doc.expr(f))
    assert len(lines) > 1 and lines[0].startswith(
        pad + "kdsl::combine(alpha_0 * beta_0,"
    )
    assert all(
        line.index("alpha") == len(pad) + len("kdsl::combine(") for line in lines[1:]
    )


@kdsl.kernel
def shifted(x: Pointer[Float32], out: Pointer[Float32]):
    s = kdsl.shared_array(Float32, (2, 1040))
    s[thread_idx.y, (thread_idx.x + 16) - 8] = x[thread_idx.x]
    kdsl.syncthreads()
    out[kdsl.block_idx.x] = s[thread_idx.y, thread_idx.x] + x[thread_idx.x - 1]


def test_an_index_that_never_wraps_reads_cuda_indices_unsigned():
    src, inst = code_lines(shifted)
    lines = stripped(shifted)
    assert "s[threadIdx.y][threadIdx.x + 8] = x[threadIdx.x];" in lines
    # thread 0 reads x[-1]: an unsigned threadIdx.x - 1 would be 4294967295
    assert (
        "out[blockIdx.x] = s[threadIdx.y][threadIdx.x] + x[int32_t(threadIdx.x) - 1];"
        in lines
    )
    compile_to_cubin(src, inst.name)
