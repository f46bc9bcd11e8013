"""NaN payloads (issue 16, item 9; issue 23, item 11): records the bits of
each NaN-producing operation on the GPU (``pytest -s`` prints the table) and
checks that the interpreter and folding give a NaN wherever the GPU does,
with the GPU's bits for Float32 (its canonical NaN, 0x7FFFFFFF); Float64
arithmetic's payload is left open (docs/types.md, "NaN payloads").

The conversions: every NaN pattern of tests/fuzz/test_nan_conversions.py's
table, converted to every float and narrow type, must have the same bits on
the GPU as in the interpreter, and as that test's model of CUDA's
conversions says; Float16/BFloat16/Float32 arithmetic's NaNs likewise."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
import gen  # noqa: E402
import test_nan_conversions as conv  # noqa: E402

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

# a = 0, b = 0, c = inf, d = a quiet NaN with a payload
OPS = [
    "a / b",  # 0 / 0
    "c - c",  # inf - inf
    "b * c",  # 0 * inf
    "kdsl.math.sqrt(-(a + 1))",  # sqrt(-1)
    "d + 1",  # a NaN input, propagated
    "-d",  # negation flips the sign bit only
    "d * a",
    "kdsl.math.fmin(d, a / b)",
    "b % b",  # fmod(0, 0)
    "c // c",
]


def make(tmp_path, t: str, u: str, payload: int, static: bool):
    """A kernel computing every operation of OPS into ``out[k]`` from run-time
    inputs ``x`` or, ``static``, from compile-time constants (folded)."""
    if static:
        leaves = [
            f"a = {t}(0.0)",
            f"b = {t}(0.0)",
            f'c = {t}(float("inf"))',
            f"d = {u}({payload}).bitcast({t})",
        ]
    else:
        leaves = ["a, b, c, d = x[0], x[1], x[2], x[3]"]
    body = leaves + [f"out[{k}] = ({op}).bitcast({u})" for k, op in enumerate(OPS)]
    head = ["import kdsl", f"from kdsl import {t}, {u}, Pointer", "", "@kdsl.kernel"]
    head.append(f"def k(x: Pointer[{t}], out: Pointer[{u}]):")
    text = "\n".join(head + ["    " + line for line in body]) + "\n"
    return gen.load(tmp_path, text, "nan")[0].k


CASES = [
    ("Float32", "Uint32", np.float32, np.uint32, 0x7FC00123),
    ("Float64", "Uint64", np.float64, np.uint64, 0x7FF8000000000123),
]


def run_cpu(tmp_path, t, u, npt, ut, payload):
    """(x, the kernel, interpreter bits, folded bits)."""
    x = np.array([0.0, 0.0, np.inf, 0.0], npt)
    x.view(ut)[3] = payload
    kernel = make(tmp_path, t, u, payload, static=False)
    host, folded = np.zeros(len(OPS), ut), np.zeros(len(OPS), ut)
    kernel.interpret[1, 1](x, host)
    make(tmp_path, t, u, payload, static=True).interpret[1, 1](x, folded)
    return x, kernel, host, folded


@pytest.mark.parametrize("t, u, npt, ut, payload", CASES)
def test_nan_bits_of_the_gpu_and_the_interpreter(tmp_path, t, u, npt, ut, payload):
    x, kernel, host, folded = run_cpu(tmp_path, t, u, npt, ut, payload)
    dev = cp.zeros(len(OPS), ut)
    kernel[1, 1](cp.asarray(x), dev)
    gpu = cp.asnumpy(dev)
    width = 2 + 2 * np.dtype(ut).itemsize
    print(f"\n{t}: operation, GPU, interpreter, folded")
    for k, op in enumerate(OPS):
        note = "" if folded[k] == gpu[k] else "  (folding differs)"
        print(
            f"  {op:28} {int(gpu[k]):#0{width}x} {int(host[k]):#0{width}x}"
            f" {int(folded[k]):#0{width}x}{note}"
        )
    assert (np.isnan(gpu.view(npt)) == np.isnan(host.view(npt))).all()
    nan = [k for k, op in enumerate(OPS) if op != "-d"]
    assert np.isnan(gpu.view(npt)[nan]).all()
    assert np.isnan(folded.view(npt)[nan]).all()  # a NaN, perhaps another payload
    if t == "Float32":  # the canonical NaN (-d: PTX leaves its NaN open)
        assert (gpu[nan] == host[nan]).all() and (gpu[nan] == folded[nan]).all()


@pytest.mark.parametrize("src", list(conv.SOURCES))
def test_converted_nans_have_the_same_bits_on_the_gpu(tmp_path, src):
    inputs = conv.SOURCES[src]
    n = len(inputs)
    x = np.array(inputs, f"u{conv._width(src) // 8}")
    kernel = conv._kernel(tmp_path, src, None)
    host = np.zeros(n * len(conv.TARGETS), np.uint64)
    kernel.interpret[1, 1](x, host, n)
    dev = cp.zeros(host.size, np.uint64)
    kernel[1, 1](cp.asarray(x), dev, n)
    gpu = cp.asnumpy(dev)
    rows = []
    for k, (g, h) in enumerate(zip(gpu.tolist(), host.tolist())):
        src_bits, dst = inputs[k % n], conv.TARGETS[k // n]
        model = conv.gpu_nan(src, src_bits, dst)
        if g != h or g != model:
            rows.append(
                f"{src} {src_bits:#x} -> {dst}: GPU {g:#x}, "
                f"interpreter {h:#x}, model {model:#x}"
            )
    print(f"\n{src}: {len(rows)} of {gpu.size} conversions differ")
    assert not rows, "\n".join(rows)


@pytest.mark.parametrize("t", ["Float16", "BFloat16", "Float32", "Float64"])
def test_arithmetic_nans_have_the_same_bits_on_the_gpu(tmp_path, t):
    """Float16/BFloat16/Float32: every arithmetic operation's NaN bit for
    bit; Float64 arithmetic and the sign-bit operations (negation, abs,
    fabs: PTX leaves their NaN unspecified) printed, every NaN a NaN."""
    w = conv.WIDTH[t]
    ut = np.dtype(f"u{w // 8}")
    inf = {16: 0x7C00, 32: 0x7F800000, 64: 0x7FF0000000000000}[w]
    inf = 0x7F80 if t == "BFloat16" else inf
    x = np.array([0, 0, inf, conv.PAYLOAD[t]], ut)
    kernel = conv._arith_kernel(tmp_path, t, static=False)
    ops = conv.ARITHMETIC + conv.SIGN_BIT
    host = np.zeros(len(ops), ut)
    kernel.interpret[1, 1](x, host)
    dev = cp.zeros(len(ops), ut)
    kernel[1, 1](cp.asarray(x), dev)
    gpu = cp.asnumpy(dev)
    print(f"\n{t}: operation, GPU, interpreter")
    for k, op in enumerate(ops):
        print(f"  {op:28} {int(gpu[k]):#x} {int(host[k]):#x}")
    npt = {16: np.float16, 32: np.float32, 64: np.float64}[w]
    if t != "BFloat16":
        assert np.isnan(gpu.view(npt)).all() and np.isnan(host.view(npt)).all()
    if t != "Float64":
        k = len(conv.ARITHMETIC)
        assert gpu[:k].tolist() == host[:k].tolist()
