"""print(...) and kdsl.print_once(...) in kernels: one printf per print, the
right conversion per type, compile-time parts folded into the format string;
NVRTC compiles it, and the interpreter prints what printf would (checked
against the host C library's own snprintf)."""

import ctypes
import ctypes.util
import math

import numpy as np
import pytest

import kdsl
from kdsl import (
    BFloat16,
    Boolean,
    Constexpr,
    Float16,
    Float32,
    Float64,
    Int8,
    Int16,
    Int32,
    Int64,
    Pointer,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    block_idx,
    thread_idx,
)
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile.core import printf
from kdsl.transpile.cuda.cexpr import string_literal
from kdsl.transpile.ir.printer import format_instance


def printf_line(source: str) -> list[str]:
    """The printf statements of a generated file (wrapped ones joined)."""
    body = source[source.index('extern "C"') :]
    lines, current = [], None
    for line in body.splitlines():
        text = line.strip()
        if text.startswith("printf("):
            current = text
        elif current is not None:
            current += " " + text
        if current is not None and current.endswith(";"):
            lines.append(current)
            current = None
    return lines


# -- one conversion per type ------------------------------------------------------------
@kdsl.kernel
def every_type(
    i8: Pointer[Int8],
    i16: Pointer[Int16],
    i32: Pointer[Int32],
    i64: Pointer[Int64],
    u8: Pointer[Uint8],
    u16: Pointer[Uint16],
    u32: Pointer[Uint32],
    u64: Pointer[Uint64],
    f16: Pointer[Float16],
    bf16: Pointer[BFloat16],
    f32: Pointer[Float32],
    f64: Pointer[Float64],
    f8: Pointer[kdsl.Float8E4M3FN],
    b: Pointer[Boolean],
):
    i = thread_idx.x
    print(i8[i], i16[i], i32[i], i64[i], u8[i], u16[i], u32[i], u64[i])
    print(f16[i], bf16[i], f32[i], f64[i], f8[i], b[i], b[i] == False)


def test_each_type_gets_its_conversion_and_nvrtc_compiles_it():
    inst = every_type.dispatch()
    assert printf_line(inst.source) == [
        'printf("%d %d %d %lld %d %d %u %llu\\n", i8[i], i16[i], i32[i], i64[i], '
        "u8[i], u16[i], u32[i], u64[i]);",
        'printf("%g %g %g %g %g %s %s\\n", __half2float(f16[i]), '
        "__bfloat162float(bf16[i]), f32[i], f64[i], float(f8[i]), "
        'b[i] ? "True" : "False", (b[i] == false) ? "True" : "False");',
    ]
    compile_to_cubin(inst.source, inst.name)


def _every_type_arrays():
    return [
        np.array([-128, 127], np.int8),
        np.array([-32768, 7], np.int16),
        np.array([-(2**31), 2**31 - 1], np.int32),
        np.array([-(2**63), 2**63 - 1], np.int64),
        np.array([0, 255], np.uint8),
        np.array([1, 65535], np.uint16),
        np.array([0, 2**32 - 1], np.uint32),
        np.array([5, 2**64 - 1], np.uint64),
        np.array([0.1, -65504], np.float16),
        np.array([1.5, -3.0e38], kdsl.BFloat16.np_dtype),
        np.array([0.1, 1e-45], np.float32),
        np.array([0.1, -1e300], np.float64),
        np.array([448, -0.001953125], kdsl.Float8E4M3FN.np_dtype),
        np.array([True, False]),
    ]


def test_the_interpreter_prints_each_thread_in_thread_order(capsys):
    every_type.interpret[1, 2](*_every_type_arrays())
    assert capsys.readouterr().out == (
        "-128 -32768 -2147483648 -9223372036854775808 0 1 0 5\n"
        "127 7 2147483647 9223372036854775807 255 65535 4294967295 "
        "18446744073709551615\n"
        "0.0999756 1.5 0.1 0.1 448 True False\n"
        "-65504 -3.00406e+38 1.4013e-45 -1e+300 -0.00195312 False True\n"
    )


# -- format specs, static parts, text ------------------------------------------------------
@kdsl.kernel
def formatted(x: Pointer[Float32], n: Int32, SCALE: Constexpr[float] = 0.5):
    i = thread_idx.x
    v = x[i]
    print(f"[{i:>3}|{i:<4}|{i:+d}|{-i:08x}|{i:o}] {v:8.3f} {v:+.2e} {i:.1f}")
    print("scale", SCALE, 7, True, f"{n=}", f"{3:04d}", sep=", ", end=";\n")
    print(f'100% "quoted" \\ tab\there é', end="")
    print()


def test_format_specs_map_to_printf_conversions():
    inst = formatted.dispatch()
    assert printf_line(inst.source) == [
        'printf("[%3d|%-4d|%+d|%08x|%o] %8.3f %+.2e %.1f\\n", i, i, i, -i, i, v, v, '
        "double(i));",
        'printf("scale, 0.5, 7, True, n=%d, 0003;\\n", n);',
        'printf("100%% \\"quoted\\" \\\\ tab\\there \\303\\251");',
        'printf("\\n");',
    ]
    compile_to_cubin(inst.source, inst.name)


def test_the_interpreter_formats_as_printf_does(capsys):
    formatted.interpret[1, 2](np.array([3.14159, -2.5], np.float32), 9)
    assert capsys.readouterr().out == (
        "[  0|0   |+0|00000000|0]    3.142 +3.14e+00 0.0\n"
        "[  1|1   |+1|ffffffff|1]   -2.500 -2.50e+00 1.0\n"
        "scale, 0.5, 7, True, n=9, 0003;\n"
        "scale, 0.5, 7, True, n=9, 0003;\n"
        '100% "quoted" \\ tab\there é100% "quoted" \\ tab\there é\n\n'
    )


@kdsl.kernel
def once(out: Pointer[Int32]):
    kdsl.print_once("blocks:", block_idx.x + 1, "of the first")
    if thread_idx.x == 0: print("block", block_idx.x)  # fmt: skip
    out[0] = 1


def test_print_once_prints_from_the_first_thread_only(capsys):
    src = once.dispatch().source
    assert "if (kdsl::first_thread()) {" in src
    assert "__device__ __forceinline__ bool first_thread()" in src  # debug.h
    compile_to_cubin(src, "once")
    once.interpret[3, 4](np.zeros(1, np.int32))
    assert capsys.readouterr().out == (
        "blocks: 1 of the first\nblock 0\nblock 1\nblock 2\n"
    )


def test_a_kernel_without_print_once_has_no_debug_prelude():
    src = formatted.dispatch().source
    assert "first_thread" not in src and "assert_failed" not in src


def test_the_ir_shows_a_print():
    lowered = once.dispatch().lowered
    text = format_instance(lowered.kernel, lowered.functions)
    assert "print_once 'blocks: %d of the first\\n'(" in text


@kdsl.func
def show(v):
    print("in a device function:", v)
    return v


@kdsl.kernel
def through_a_function(out: Pointer[Float64]):
    out[0] = show(out[0] * 2)


def test_print_in_a_device_function(capsys):
    src = through_a_function.dispatch().source
    assert 'printf("in a device function: %g\\n", v);' in src
    through_a_function.interpret[1, 1](np.array([1.25]))
    assert capsys.readouterr().out == "in a device function: 2.5\n"


# -- printf itself -----------------------------------------------------------------------
_LIBC = ctypes.CDLL(ctypes.util.find_library("c"))


def c_printf(conversion: str, t, value) -> str:
    """What the host C library's snprintf writes (CUDA's device printf is
    formatted on the host)."""
    length = "ll" if t.kind == "int" and t.width == 64 else ""
    fmt = f"%{conversion[:-1]}{length}{conversion[-1]}".encode()
    if conversion[-1] in "eEfFgG":
        arg = ctypes.c_double(float(value))
    elif length:
        arg = (ctypes.c_ulonglong if not t.signed else ctypes.c_longlong)(int(value))
    else:  # int, or a type that promotes to it
        arg = (ctypes.c_uint if t in (Uint32,) else ctypes.c_int)(int(value))
    buf = ctypes.create_string_buffer(512)
    _LIBC.snprintf(buf, 512, fmt, arg)
    return buf.value.decode()


CASES = [
    (Int32, ["", "5", "<5", "+", " ", "05", "x", "X", "o", "08x", "+x", "e", ".3f"]),
    (Int8, ["", "x", "o", "+4"]),
    (Uint16, ["", "x", "06X"]),
    (Uint32, ["", "d", "x", "+d", "12"]),
    (Int64, ["", "x", "<25", "+022"]),
    (Uint64, ["", "d", "X", "o"]),
    (Float32, ["", ".9g", "e", "E", ".3f", "+.2e", "012.4f", "<12g", " g", "G"]),
    (Float64, ["", ".17g", "f", ".0e", "-10.3F", "+g"]),
]
VALUES = {
    "int": [0, 1, -1, 7, -128, 127, 255, 65535, 2**31 - 1, -(2**31)],
    "int64": [2**63 - 1, -(2**63), 2**40, -5],
    "float": [0.0, -0.0, 1.0, 0.1, -2.5, 1e-45, 3.4e38, 123456789.0, 1e-5, 0.5],
    "nonfinite": [math.inf, -math.inf, math.nan, -math.nan],
}


def _values(t):
    if t.kind == "float":
        return VALUES["float"] + VALUES["nonfinite"]
    out = VALUES["int"] + (VALUES["int64"] if t.width == 64 else [])
    lo, hi = (t.min(), t.max()) if hasattr(t, "min") else (None, None)
    return [v for v in out if lo <= v <= hi]


@pytest.mark.parametrize("t,specs", CASES, ids=[t.__name__ for t, _ in CASES])
def test_format_value_is_what_the_c_library_writes(t, specs):
    for spec in specs:
        target, conversion = printf.plan(spec, t)
        for v in _values(t):
            value = float(t.np_dtype.type(v)) if t.kind == "float" else v
            if target is Float64 and t.kind == "int":
                value = float(value)
            want = c_printf(conversion, target, value)
            assert printf.format_value(value, target, conversion) == want, (spec, v)


def test_booleans_print_like_python():
    assert printf.plan("", Boolean) == (Boolean, "s")
    assert printf.format_value(True, Boolean, "s") == "True"
    assert printf.plan("d", Boolean) == (Int32, "d")  # f"{True:d}" == "1"
    assert printf.plan(">3", Boolean) == (Int32, "3d")


def test_a_c_string_literal_escapes_what_c_would_read_otherwise():
    assert string_literal('a "b" \\ %\n\té\x01') == r'"a \"b\" \\ %\n\t\303\251\001"'
