"""Random vector expressions (lane-wise + - *, negation, min, max, select,
broadcast constants and scalars, vector variables), each in a kernel of its
own, written to a file (kdsl reads a kernel's source) and imported."""

from __future__ import annotations

import importlib.util
import random


def _expr(rng: random.Random, depth: int) -> str:
    leaves = ["a", "b", "s", "kdsl.Float32x4(0.5)", "2", "1.5", "kdsl.Float32x4(s)"]
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(leaves)
    x, y = _expr(rng, depth - 1), _expr(rng, depth - 1)
    return rng.choice(
        [
            f"({x} + {y})",
            f"({x} * {y})",
            f"({x} - {y})",
            f"(-({x}))",
            f"min({x}, {y})",
            f"max({x}, {y})",
            f"((a < {y}).select({x}, {y}))",
        ]
    )


def make_kernels(folder, count: int, seed: int) -> list:
    """``count`` kernels ``k(x, y, out, s)``: ``out.vec(4)[i]`` = an expression
    of ``a = x.vec(4)[i]``, ``b = y.vec(4)[i]`` and the scalar ``s``."""
    rng = random.Random(seed)
    lines = ["import kdsl", "from kdsl import Float32, Pointer, thread_idx", ""]
    for j in range(count):
        lines += [
            "@kdsl.kernel",
            f"def k{j}(x: Pointer[Float32], y: Pointer[Float32], "
            "out: Pointer[Float32], s: Float32):",
            "    i = thread_idx.x",
            "    a = x.vec(4)[i]",
            "    b = y.vec(4)[i]",
            "    o = out.vec(4)",
            f"    o[i] = kdsl.Float32x4(0.0) + {_expr(rng, 4)}",
            "",
        ]
    path = folder / f"vector_fuzz_{seed}.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [getattr(module, f"k{j}") for j in range(count)]
