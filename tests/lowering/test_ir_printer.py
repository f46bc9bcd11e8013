"""The IR printer (``kdsl.transpile.ir.printer``, ``kdsl-transpile --ir``): what
lowering made of a kernel, where it says more than the C++ would."""

import dataclasses
import gc

import kdsl
from kdsl import Constexpr, Float32, Int32, Pointer, block_idx, thread_idx
from kdsl.transpile import ir
from kdsl.transpile.ir.printer import format_expr, format_function, format_instance

D = kdsl.TypeVar("D", bound=kdsl.Float)
SCALE = 3


@kdsl.kernel(dtypes=[kdsl.Float32])
def clamp_copy(x: Pointer[D], out: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 64):
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        out[i] = x[i]
    else:
        out[i] = D(0)


@kdsl.kernel(dtypes=[kdsl.Float32])
def loops(out: Pointer[D], n: Int32):
    k = SCALE * 4 + 1
    out[0] = Float32(k) / 2
    for j in kdsl.range_constexpr(3):
        out[j + 1] = Float32(j)
    for m in range(n):
        out[m] = out[m] + 1


@kdsl.func
def twice(v):
    return v + v


@kdsl.kernel(dtypes=[kdsl.Float32])
def calls_twice(x: Pointer[D], n: Int32):
    i = thread_idx.x
    x[i] = twice(x[i])


@kdsl.kernel(dtypes=[kdsl.Float32])
def add_x4(x: Pointer[D], out: Pointer[D]):
    i = thread_idx.x
    ov = out.vec(4)
    ov[i] = x.vec(4)[i] + kdsl.Float32x4(1.5)


@kdsl.kernel(dtypes=[kdsl.Float32])
def block_sum(x: Pointer[D], out: Pointer[D]):
    partial = kdsl.shared_array(D, 64)
    tid = thread_idx.x
    partial[tid] = x[tid]
    kdsl.syncthreads()
    if tid == 0:
        out[0] = partial[0] + partial[1]


def ir_text(kernel) -> str:
    lowered = kernel.dispatch("f32").lowered
    return format_instance(lowered.kernel, lowered.functions)


def test_scalar_kernel_with_if_else():
    assert ir_text(clamp_copy) == (
        "kernel clamp_copy__f32__64(x: ptr<Float32>, out: ptr<Float32>, n: Int32):\n"
        "  # i = block_idx.x * BLOCK + thread_idx.x\n"
        "  declare i: Int32 = ((special block_idx.x:Int32 * 64:Int32):Int32"
        " + special thread_idx.x:Int32):Int32\n"
        "  # if i < n:\n"
        "  if (i:Int32 < n:Int32):Boolean:\n"
        "    # out[i] = x[i]\n"
        "    out:ptr<Float32>[i:Int32] = x:ptr<Float32>[i:Int32]:Float32\n"
        "  else:\n"
        "    # out[i] = D(0)\n"
        "    out:ptr<Float32>[i:Int32] = 0.0:Float32\n"
    )


def test_constants_fold_and_static_loops_unroll():
    text = ir_text(loops)
    lines = [line.strip() for line in text.splitlines()]
    # SCALE * 4 + 1 and the division are folded into one constant
    assert "out:ptr<Float32>[0:Int32] = 6.5:Float32" in lines
    # range_constexpr(3): three stores, no loop
    for j in range(3):
        assert f"out:ptr<Float32>[{j + 1}:Int32] = {float(j)!r}:Float32" in lines
    assert sum(line.startswith("for ") for line in lines) == 1
    assert "for m: Int32 in range(0:Int32, n:Int32, 1):" in lines


def test_device_functions_come_first():
    text = ir_text(calls_twice)
    device, kernel = text.split("\n\n")
    assert device.startswith("device twice__f32(v: Float32) -> Float32:\n")
    assert "  return (v:Float32 + v:Float32):Float32" in device.splitlines()
    assert kernel.startswith("kernel calls_twice__f32(")
    assert " twice__f32(x:ptr<Float32>[i:Int32]:Float32):Float32" in kernel


def test_vector_expression():
    text = ir_text(add_x4)
    assert "declare ov: ptr<Float32x4> = vec_view(out:ptr<Float32>):ptr<Float32x4>" in (
        text
    )
    assert "1.5:Float32" in text and "):Float32x4):Float32x4" in text


def test_shared_array_and_syncthreads():
    lines = [line.strip() for line in ir_text(block_sum).splitlines()]
    assert "declare shared partial: Float32[64]" in lines
    assert any("syncthreads()" in line for line in lines)
    assert (
        "partial:ptr<shared Float32>[tid:Int32] = x:ptr<Float32>[tid:Int32]:Float32"
        in lines
    )


# -- every node class -----------------------------------------------------------------
A = ir.Var(Int32, "a")


def _dummy(f: dataclasses.Field):
    """A value for field ``f`` of a node, from its annotation."""
    hint = str(f.type)
    if "Stmt" in hint:
        return (ir.Comment("c"),)
    if "tuple" in hint and "Expr" in hint:
        return (A, A)
    if "tuple[str" in hint:
        return ("text", "d", "text")
    if "tuple" in hint:
        return (2,)
    if "Expr" in hint or "Var" in hint:
        return A
    if hint == "str":
        return "name"
    if hint.startswith("int") or hint.startswith("bool"):
        return 1
    return Int32


def _instances(base):
    for cls in vars(ir.nodes).values():
        if isinstance(cls, type) and issubclass(cls, base) and cls is not base:
            shown = [f for f in dataclasses.fields(cls) if f.init and f.name != "span"]
            yield cls(**{f.name: _dummy(f) for f in shown})


def test_every_node_class_prints():
    exprs = list(_instances(ir.Expr))
    stmts = [*_instances(ir.Stmt), *(ir.ExprStmt(e) for e in exprs)]
    assert len(exprs) >= 15 and len(stmts) >= 12
    for e in exprs:
        assert format_expr(e).endswith(":Int32")
    text = format_function(ir.Function("f", (ir.Param("a", Int32),), tuple(stmts)))
    assert text.startswith("kernel f(a: Int32):\n")
    assert all(line.startswith("  ") for line in text.splitlines()[1:])


def test_unknown_nodes_print_generically():
    # node classes the printer has no rule for (local, so that they do not
    # outlive the test as subclasses of ir.Expr / ir.Stmt)
    @dataclasses.dataclass(frozen=True)
    class Shuffle(ir.Expr):
        mode: str
        args: tuple[ir.Expr, ...]

    @dataclasses.dataclass(frozen=True)
    class Repeat(ir.Stmt):
        count: ir.Expr
        body: tuple[ir.Stmt, ...]
        finally_: tuple[ir.Stmt, ...] = ()

    call = Shuffle(Float32, "xor", (A, ir.Const(Int32, 16)))
    assert format_expr(call) == "shuffle xor(a:Int32, 16:Int32):Float32"
    loop = Repeat(A, (ir.ExprStmt(call),))
    assert format_function(ir.Function("g", (), (loop,))) == (
        "kernel g():\n"
        "  repeat(a:Int32):\n"
        "    shuffle xor(a:Int32, 16:Int32):Float32\n"
        "  finally_:\n"
        "    pass\n"
    )
    del Shuffle, Repeat, call, loop
    gc.collect()
