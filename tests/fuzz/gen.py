"""Seeded random kernels for the fuzz tests (issue 16).

``random_kernel(seed)`` makes one kernel: a few *units*, each writing its own
slots of ``out``.  A unit computes random expressions (a *case*: an
expression over four leaves ``v0``..``v3`` of random scalar types with random,
often edge, values; a leaf is loaded at run time or is a compile-time
literal, a static/run-time mix) inside random control flow:

- ``plain``: the expression stored;
- ``if``: a run-time (or compile-time) condition, often with an ``else`` that
  stores another case;
- ``loop``: an accumulator updated in a ``for`` over ``range(n)``,
  ``range(1, n)``, ``range(m)``, a ``while`` with a run-time bound or an
  unrolled ``range_constexpr``; the body may use the loop counter as a leaf
  and may sit under an ``if``;
- ``local``: a local array filled by an unrolled loop, updated at run-time
  indices, read at a run-time or static index;
- ``func``: a device function whose body has a run-time ``if`` or loop;
- ``vector``: the expression over ``Vector[T, N]`` leaves (``.vec(N)`` loads
  for run-time leaves, lane lists for literals), every lane stored.

The oracle is folding: the same program, run as plain Python on kdsl's
static values (the arithmetic the compiler folds with), with lists for the
pointers and local arrays, gives every slot's value; the interpreter must
give the same bits, NaNs included, and in tests/gpu the GPU too, except
that there a NaN may carry another payload (docs/types.md, "NaN payloads").  ``invalid_kernel`` makes
kernels with one bad construct, whose rejection must be a located DSLError.
"""

from __future__ import annotations

import builtins
import importlib.util
import itertools
import math
import random
import re
from dataclasses import dataclass, field

import kdsl

INTS = ["Int8", "Int16", "Int32", "Int64", "Uint8", "Uint16", "Uint32", "Uint64"]
FLOATS = ["Float16", "BFloat16", "Float32", "Float64"]
TYPES = INTS + FLOATS
WIDTH = {t: getattr(kdsl, t).width for t in TYPES}
ARITH = ["+", "-", "*"]
DIVISION = ["//", "%", "/"]
BITWISE = ["&", "|", "^", "<<", ">>"]
COMPARE = ["<", "<=", "==", "!=", ">", ">="]
UNITS = ["plain", "if", "loop", "local", "func", "vector"]
_count = itertools.count()


def _int_value(rng, t):
    k = getattr(kdsl, t)
    lo, hi = k.min(), k.max()
    return rng.choice([0, 1, -1 if lo < 0 else 2, lo, hi, lo + 1, hi - 1, 3, 7, 100])


def _float_value(rng, t):
    k = getattr(kdsl, t)
    special = [0.0, -0.0, 1.0, -1.5, 0.1, 3.0, 1e-3, 65504.0, 1e-7, 2.0**-140]
    special += [math.inf, -math.inf, math.nan, 1e30, -7.25, 1e300]
    v = rng.choice(special) if rng.random() < 0.7 else rng.uniform(-1000, 1000)
    return float(k(v))  # exactly representable in t (rounded, perhaps to inf)


def _value(rng, t):
    return _float_value(rng, t) if t in FLOATS else _int_value(rng, t)


@dataclass
class Case:
    types: list  # the leaves' types (names)
    values: list  # the leaves' values (Python numbers, exact in their type)
    static: list  # which leaves are compile-time literals in the kernel
    expr: str  # over v0..v3
    result: str = ""  # the result's type name (from folding)
    bits: int | None = None  # the expected bits (from folding)
    nan: bool = False  # the expected value is a NaN (payload not compared)


def _expr(rng, depth, types) -> str:
    if depth == 0 or rng.random() < 0.2:
        if rng.random() < 0.15:
            return rng.choice(["1", "2", "0", "3", "1.5", "(-1)"])
        return f"v{rng.randrange(4)}"
    r = rng.random()
    a = _expr(rng, depth - 1, types)
    if r < 0.1:
        return f"(-{a})"
    if r < 0.15:
        return f"abs({a})"
    if r < 0.25:
        if not re.search(r"v\d", a):  # (a Python number has no .to)
            a = f"(v{rng.randrange(4)} + {a})"
        return f"{a}.to(kdsl.{rng.choice(TYPES)})"
    b = _expr(rng, depth - 1, types)
    if r < 0.33:
        return f"({a} {rng.choice(COMPARE)} {b}).to(kdsl.Int32)"
    pool = ARITH * 4 + DIVISION + BITWISE
    return f"({a} {rng.choice(pool)} {b})"


def typed(value):
    """``(type name, bits, is NaN)`` of a static kdsl value, or None when it
    is not a scalar of the fuzzed types (a Python number, a vector …)."""
    try:
        r = kdsl.as_numeric(value)
    except (kdsl.DSLError, TypeError, ValueError):
        return None
    name = type(r).__name__
    if isinstance(r, kdsl.Vector) or (name not in TYPES and name != "Boolean"):
        return None
    if name == "Boolean":
        return name, int(bool(r.value)), False
    w = WIDTH[name]
    nan = name in FLOATS and math.isnan(r.value)
    return name, r.bitcast(getattr(kdsl, f"Uint{w}")).to(kdsl.Uint64).value, nan


def fold(case: Case):
    """Fill in the case's expected result by folding it in Python with
    kdsl's static values; False when folding refuses it (a DSLError:
    division by a zero, bitwise of floats …, which the kernel would refuse
    too or which is undefined at run time)."""
    env = {"kdsl": kdsl, "min": min, "max": max, "abs": abs}
    for j, (t, v) in enumerate(zip(case.types, case.values)):
        env[f"v{j}"] = getattr(kdsl, t)(v)
    try:
        got = typed(eval(case.expr, env))  # noqa: S307 - our own generated text
    except (kdsl.DSLError, ArithmeticError, ValueError, TypeError, AttributeError):
        return False
    if got is None:
        return False
    case.result, case.bits, case.nan = got
    return True


def random_case(rng) -> Case:
    types = [rng.choice(TYPES) for _ in range(4)]
    values = [_value(rng, t) for t in types]
    static = [rng.random() < 0.25 for _ in range(4)]
    expr = "1"
    while not re.search(r"v\d", expr):  # a kdsl value, not a Python number
        expr = _expr(rng, rng.randint(1, 4), types)
    return Case(types, values, static, expr)


def foldable_case(rng) -> Case:
    while True:
        c = random_case(rng)
        if fold(c):
            return c


def _literal(t, v) -> str:
    if t in FLOATS:
        if math.isnan(v):
            return f'kdsl.{t}(float("nan"))'
        if math.isinf(v):
            return f'kdsl.{t}(float("{"-" if v < 0 else ""}inf"))'
        return f"kdsl.{t}({v!r})"
    return f"kdsl.{t}({v})"


def _bits(expr: str, result: str) -> str:
    if result == "Boolean":
        return f"({expr}).to(kdsl.Uint64)"
    return f"({expr}).bitcast(kdsl.Uint{WIDTH[result]}).to(kdsl.Uint64)"


def _rename(expr: str, prefix: str) -> str:
    return re.sub(r"\bv([0-3])\b", rf"{prefix}\1", expr)


# -- the reference: the same program on static values -----------------------------------
class _Static:
    """``kdsl`` as the reference program sees it: kdsl itself, except that a
    device function is a Python function, an unrolled loop a Python loop and
    a local array a list."""

    def __getattr__(self, name):
        return getattr(kdsl, name)

    @staticmethod
    def func(fn):
        return fn

    @staticmethod
    def range_constexpr(*bounds):
        return builtins.range(*bounds)

    @staticmethod
    def local_array(t, n):
        return [None] * n


def _range(*bounds):
    """``range`` over Int32 bounds gives Int32 counters, as in a kernel."""
    return (kdsl.Int32(i) for i in builtins.range(*(int(b) for b in bounds)))


_STATIC = _Static()


@dataclass
class RandomKernel:
    """One random kernel ``k(xi, xf, out, n, m)`` and what folding says it
    stores: ``expected[s]`` the bits of slot ``s``, ``types[s]`` their type
    (None: the slot is not written, it stays 0)."""

    seed: int
    source: str
    reference: str  # the same program as plain Python on static values
    xi: list
    xf: list
    n: int
    m: int
    expected: list = field(default_factory=list)
    types: list = field(default_factory=list)
    units: list = field(default_factory=list)  # the units' kinds, in order

    def inputs(self):
        """``xi``, ``xf`` and a zeroed ``out``, as fresh numpy arrays (the
        interpreter takes a fresh array as aligned like a GPU allocation, as
        ``.vec(N)`` loads need)."""
        import numpy as np

        xi = np.array([v - (1 << 64) if v >= 1 << 63 else v for v in self.xi], np.int64)
        xf = np.array(self.xf, np.float64)
        return xi, xf, np.zeros(len(self.expected), np.uint64)

    def mismatches(self, out, expected=None, any_nan=False) -> list:
        """``(slot, got, expected, type)`` for every slot of ``out`` whose
        bits differ from ``expected`` (default: folding's).  Folding and the
        interpreter agree on NaN bits too; ``any_nan`` lets a NaN match a NaN
        of any payload, for the GPU, whose NaN these kernels' negations and
        Float64 arithmetic leave open (docs/types.md, "NaN payloads")."""
        bad = []
        expected = self.expected if expected is None else [int(e) for e in expected]
        for s, (want, t) in enumerate(zip(expected, self.types)):
            got = int(out[s])
            if got == want:
                continue
            if any_nan and t in FLOATS and nan_bits(want, t) and nan_bits(got, t):
                continue
            bad.append((s, got, want, t))
        return bad

    def describe(self, bad, got="got", want="folding") -> str:
        lines = [f"kernel seed {self.seed} (n={self.n}, m={self.m}):"]
        lines += [
            f"  out[{s}] ({t}): {got} {g:#x}, {want} {w:#x}" for s, g, w, t in bad[:20]
        ]
        return "\n".join(lines) + "\n--- source:\n" + self.source


class _Builder:
    def __init__(self, rng):
        self.rng = rng
        self.xi: list = []
        self.xf: list = []
        self.n = rng.randint(0, 4)
        self.m = rng.randint(0, 3)
        self.helpers: list = []  # kernel lines before the kernel (device functions)
        self.body: list = []  # the kernel's body
        self.ref_helpers: list = []
        self.ref_body: list = []
        self.slots = 0
        self.units: list = []

    # -- inputs -------------------------------------------------------------------------
    def _slot(self, t, v) -> str:
        if t in FLOATS:
            self.xf.append(v)
            return f"xf[{len(self.xf) - 1}].to(kdsl.{t})"
        self.xi.append(v)
        return f"xi[{len(self.xi) - 1}].to(kdsl.{t})"

    def _group(self, t, lanes, values) -> str:
        """A ``.vec(lanes)`` load of ``values`` (lanes of the same type)."""
        store = self.xf if t in FLOATS else self.xi
        while len(store) % lanes:
            store.append(0.0 if t in FLOATS else 0)
        g = len(store) // lanes
        store.extend(values)
        name = "xf" if t in FLOATS else "xi"
        return f"{name}.vec({lanes})[{g}].to(kdsl.{t})"

    def leaves(self, case: Case, prefix: str) -> list:
        """The lines defining a case's leaves as ``{prefix}0``..``{prefix}3``."""
        out = []
        for j, (t, v, s) in enumerate(zip(case.types, case.values, case.static)):
            rhs = _literal(t, v) if s else self._slot(t, v)
            out.append(f"{prefix}{j} = {rhs}")
        return out

    # -- conditions ---------------------------------------------------------------------
    def condition(self, prefix: str | None, counter: str | None = None) -> str:
        rng = self.rng
        forms = (
            ["n", "m"] + (["leaf"] * 2 if prefix else []) + (["t"] if counter else [])
        )
        form = rng.choice(forms)
        if form in ("n", "m"):
            cond = f"{form} {rng.choice(COMPARE)} {rng.randint(0, 3)}"
        elif form == "t":
            cond = rng.choice(
                [f"{counter} % 2 == 0", f"{counter} < m", f"{counter} > 1"]
            )
        else:
            a, b = rng.sample(range(4), 2)
            cond = f"{prefix}{a} {rng.choice(COMPARE)} {prefix}{b}"
        if rng.random() < 0.15:
            cond = f"{cond} {rng.choice(['and', 'or'])} n {rng.choice(COMPARE)} 2"
        return cond

    # -- units ---------------------------------------------------------------------------
    def unit(self, u: int):
        """One random unit (its kernel and reference lines), or None when
        folding refuses what was drawn (another is drawn)."""
        kind = self.rng.choice(UNITS)
        case = foldable_case(self.rng)
        s = self.slots
        if case.result == "Boolean" and kind in ("loop", "local"):
            kind = "plain"
        made = getattr(self, f"_{kind}")(case, u, s)
        return kind, *made

    def _plain(self, case, u, s):
        p = f"v{u}_"
        lines = self.leaves(case, p)
        e = _rename(case.expr, p)
        return (
            lines + [f"out[{s}] = {_bits(e, case.result)}"],
            lines + [f"out[{s}] = {e}"],
            1,
            [],
            [],
        )

    def _if(self, case, u, s):
        p, q = f"v{u}_", f"w{u}_"
        other = foldable_case(self.rng)
        lines = self.leaves(case, p) + self.leaves(other, q)
        cond = self.condition(p)
        e, f = _rename(case.expr, p), _rename(other.expr, q)
        kern = lines + [f"if {cond}:", f"    out[{s}] = {_bits(e, case.result)}"]
        ref = lines + [f"if {cond}:", f"    out[{s}] = {e}"]
        if self.rng.random() < 0.7:
            kern += ["else:", f"    out[{s}] = {_bits(f, other.result)}"]
            ref += ["else:", f"    out[{s}] = {f}"]
        return kern, ref, 1, [], []

    def _update(self, case, p, acc, counter):
        """``acc = (acc OP expr).to(R)``, the expression perhaps reading the
        loop counter in place of a leaf (not under a division: a counter of
        0 would divide by zero at run time)."""
        rng, t = self.rng, case.result
        e = _rename(case.expr, p)
        if counter and not re.search(r"/|%|<<|>>", e) and rng.random() < 0.6:
            j = rng.randrange(4)
            if re.search(rf"\b{p}{j}\b", e):
                e = re.sub(rf"\b{p}{j}\b", f"{counter}.to(kdsl.{case.types[j]})", e)
        ops = ["+", "-", "*"] + (["^", "|", "&"] if t in INTS else [])
        return f"{acc} = ({acc} {rng.choice(ops)} {e}).to(kdsl.{t})"

    def _loop_lines(self, case, p, acc, u):
        """A random loop updating ``acc``, as lines (kernel and reference
        alike)."""
        rng = self.rng
        t = f"t{u}"
        form = rng.choice(["range_n", "range_1n", "range_m", "while", "unrolled"])
        if form == "while":
            head = [f"{t} = kdsl.Int32(0)", f"while {t} < n:"]
            tail = [f"    {t} += 1"]
        elif form == "unrolled":
            head = [f"for {t}s in kdsl.range_constexpr({rng.randint(1, 3)}):"]
            head += [f"    {t} = kdsl.Int32({t}s)"]
            tail = []
        else:
            bounds = {"range_n": "n", "range_1n": "1, n", "range_m": "m"}[form]
            head, tail = [f"for {t} in range({bounds}):"], []
        update = self._update(case, p, acc, t)
        if rng.random() < 0.35:
            body = [f"    if {self.condition(p, t)}:", f"        {update}"]
        else:
            body = [f"    {update}"]
        return head + body + tail

    def _loop(self, case, u, s):
        p, acc = f"v{u}_", f"r{u}"
        lines = self.leaves(case, p)
        lines.append(f"{acc} = {_rename(case.expr, p)}")
        lines += self._loop_lines(case, p, acc, u)
        kern = lines + [f"out[{s}] = {_bits(acc, case.result)}"]
        return kern, lines + [f"out[{s}] = {acc}"], 1, [], []

    def _local(self, case, u, s):
        rng, p, a = self.rng, f"v{u}_", f"a{u}"
        size = rng.randint(2, 5)
        e = _rename(case.expr, p)
        lines = self.leaves(case, p)
        lines += [
            f"{a} = kdsl.local_array(kdsl.{case.result}, {size})",
            f"for i{u} in kdsl.range_constexpr({size}):",
            f"    {a}[i{u}] = {e}",
            f"for t{u} in range(n):",
            "    " + self._update(case, p, f"{a}[t{u} % {size}]", f"t{u}"),
        ]
        index = rng.choice(
            [str(rng.randrange(size)), f"(n + {rng.randrange(4)}) % {size}"]
        )
        index = rng.choice([index, f"m % {size}"])
        read = f"{a}[{index}]"
        kern = lines + [f"out[{s}] = {_bits(read, case.result)}"]
        return kern, lines + [f"out[{s}] = {read}"], 1, [], []

    def _func(self, case, u, s):
        rng, p = self.rng, f"v{u}_"
        lines = self.leaves(case, p)
        body = [f"r = {case.expr}"]
        if case.result != "Boolean":
            if rng.random() < 0.5:
                body += self._loop_lines(case, "v", "r", u)
            else:
                other = rng.choice(["v0", "v1", "v2", "v3", case.expr])
                body += [
                    f"if {self.condition('v')}:",
                    f"    r = ({other}).to(kdsl.{case.result})",
                ]
        fn = f"f{u}"
        helper = [f"def {fn}(v0, v1, v2, v3, n, m):"] + ["    " + b for b in body]
        helper += ["    return r", ""]
        call = f"{fn}({', '.join(f'{p}{j}' for j in range(4))}, n, m)"
        kern = lines + [f"out[{s}] = {_bits(call, case.result)}"]
        ref = lines + [f"out[{s}] = {call}"]
        return kern, ref, 1, ["@kdsl.func"] + helper, ["@kdsl.func"] + helper

    def _vector(self, case, u, s):
        rng, p = self.rng, f"v{u}_"
        lanes = rng.choice([2, 2, 4])
        # lane 0 is the case's values; the others are random values of the
        # same types that fold (else lane 0's again)
        values = [list(case.values)]
        for _ in range(lanes - 1):
            for _ in range(4):
                trial = Case(
                    case.types, [_value(rng, t) for t in case.types], [], case.expr
                )
                if fold(trial) and trial.result == case.result:
                    values.append(trial.values)
                    break
            else:
                values.append(list(case.values))
        kern, ref = [], []
        for j, (t, static) in enumerate(zip(case.types, case.static)):
            column = [values[lane][j] for lane in range(lanes)]
            if static:
                lits = ", ".join(_literal(t, v) for v in column)
                kern.append(f"{p}{j} = kdsl.Vector[kdsl.{t}, {lanes}]({lits})")
            else:
                kern.append(f"{p}{j} = {self._group(t, lanes, column)}")
        kern.append(f"r{u} = {_rename(case.expr, p)}")
        for lane in range(lanes):
            q = f"v{u}_{lane}_"
            ref += [
                f"{q}{j} = {_literal(t, values[lane][j])}"
                for j, t in enumerate(case.types)
            ]
            ref.append(f"out[{s + lane}] = {_rename(case.expr, q)}")
            kern.append(f"out[{s + lane}] = {_bits(f'r{u}[{lane}]', case.result)}")
        return kern, ref, lanes, [], []

    # -- the reference ---------------------------------------------------------------------
    def run_reference(self, helpers, body, slots):
        """Run reference lines; the slots' values (static kdsl values or
        None), or None when folding refuses them."""
        out = [None] * slots
        env = {
            "kdsl": _STATIC,
            "range": _range,
            "abs": abs,
            "min": min,
            "max": max,
            "xi": [kdsl.Int64(v - (1 << 64) if v >= 1 << 63 else v) for v in self.xi],
            "xf": [kdsl.Float64(v) for v in self.xf],
            "out": out,
            "n": kdsl.Int32(self.n),
            "m": kdsl.Int32(self.m),
        }
        text = "\n".join(helpers + ["def _body():"] + ["    " + b for b in body])
        text += "\n    return None\n"
        try:
            exec(compile(text, "<reference>", "exec"), env)  # noqa: S102
            env["_body"]()
        except (kdsl.DSLError, ArithmeticError, ValueError, TypeError, AttributeError):
            return None
        return out


def random_kernel(seed: int, units: int | None = None) -> RandomKernel:
    """The random kernel of ``seed`` (``units`` units, else 2 to 5)."""
    rng = random.Random(seed)
    b = _Builder(rng)
    count = units if units is not None else rng.randint(2, 5)
    expected, types = [], []
    u = 0
    while len(b.units) < count:
        u += 1
        xi, xf = len(b.xi), len(b.xf)
        kind, kern, ref, slots, helper, ref_helper = b.unit(u)
        # the unit alone: its slots start at b.slots, so pad the front
        values = b.run_reference(ref_helper, ref, b.slots + slots)
        got = values and [
            typed(v) if v is not None else None for v in values[b.slots :]
        ]
        if not got or any(
            g is None and v is not None for g, v in zip(got, values[b.slots :])
        ):
            del b.xi[xi:], b.xf[xf:]  # refused: draw another unit
            continue
        for g in got:
            types.append(g[0] if g else None)
            expected.append(g[1] if g else 0)
        b.helpers += helper
        b.ref_helpers += ref_helper
        b.body += kern
        b.ref_body += ref
        b.slots += slots
        b.units.append(kind)
    header = [
        "import kdsl",
        "from kdsl import Float64, Int32, Int64, Pointer, Uint64",
        "",
    ]
    source = (
        header
        + b.helpers
        + [
            "",
            "@kdsl.kernel",
            "def k(xi: Pointer[Int64], xf: Pointer[Float64], out: Pointer[Uint64], "
            "n: Int32, m: Int32):",
        ]
    )
    source += ["    " + line for line in b.body]
    reference = b.ref_helpers + ["def _body():"] + ["    " + x for x in b.ref_body]
    return RandomKernel(
        seed,
        "\n".join(source) + "\n",
        "\n".join(reference) + "\n",
        b.xi or [0],
        b.xf or [0.0],
        b.n,
        b.m,
        expected,
        types,
        b.units,
    )


# -- the GPU fuzzer's seeds and its preparation in worker processes ------------------------
GPU_SEEDS = range(700_000, 702_000)  # tests/gpu/test_fuzz_gpu.py: 2,000 kernels


def prepare(job):
    """``job`` = (seed, path, arch): write the seed's kernel to ``path``,
    transpile it and compile it for ``arch`` (both land in the disk cache,
    ``KDSL_CACHE_DIR``, where a launch of the same file finds them) and run
    it in the interpreter.  Returns ``(seed, interpreted out, None)`` or
    ``(seed, None, the traceback)``; for a process pool (no GPU needed)."""
    import traceback
    from pathlib import Path

    from kdsl.runtime import compile as kcompile

    seed, path, arch = job
    rk = random_kernel(seed)
    try:
        path = Path(path)
        path.write_text(rk.source)
        module = load_file(path)
        kcompile.cubin_for(module.k.dispatch(), arch)
        xi, xf, out = rk.inputs()
        module.k.interpret[1, 1](xi, xf, out, rk.n, rk.m)
        return seed, out, None
    except Exception:  # reported by the test of this seed
        return seed, None, traceback.format_exc()


def load(folder, source: str, stem: str = "fuzz"):
    """Write ``source`` to a new file in ``folder`` and import it (kdsl
    reads a kernel's source from its file)."""
    path = folder / f"{stem}_{next(_count)}.py"
    path.write_text(source)
    return load_file(path), path


def load_file(path):
    """Import the module of ``path``."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def nan_bits(bits, t: str) -> bool:
    """Whether ``bits`` of a ``t`` result are a NaN (any payload)."""
    return _is_nan_bits(int(bits), t, WIDTH[t])


def _is_nan_bits(bits: int, t: str, w: int) -> bool:
    import numpy as np
    import ml_dtypes

    dtype = {
        "Float16": np.float16,
        "BFloat16": ml_dtypes.bfloat16,
        "Float32": np.float32,
        "Float64": np.float64,
    }[t]
    raw = np.array([bits], np.uint64).astype(f"u{w // 8}")
    return bool(np.isnan(raw.view(dtype)[0]))


# -- invalid kernels ---------------------------------------------------------------------
BAD_STATEMENTS = [
    "out[0] = undefined_name",
    "out[0] = (xf[0] & xf[1]).to(kdsl.Uint64)",
    "out[0] = xi[0.5].to(kdsl.Uint64)",
    "out[0] = None",
    "out[0] = 'text'",
    "out[0] = [q for q in range(3)]",
    "out[0] = (lambda q: q)(1)",
    "out[0] = xf[0]",
    "n = kdsl.Float32(1.5)",
    "out = xf",
    "a = kdsl.local_array(kdsl.Float32, 4)\na[9] = kdsl.Float32(1)",
    "a = kdsl.local_array(kdsl.Float32, 2.5)",
    "a = kdsl.local_array(kdsl.Float32, 10**12)",
    "a = kdsl.local_array(int, 4)",
    "out[0] = xi[0] // 0",
    "out[0] = (*xi[0], 1)[0]",
    "q = kdsl.Int32(1)\nq += 0.5",
    "out[0] = kdsl.shfl_idx(xi[0], kdsl.Float32(1.0)).to(kdsl.Uint64)",
    "for q in kdsl.range_constexpr(300000):\n    out[0] = kdsl.Uint64(1)",
    "out[0] = " + " + ".join(["xi[0]"] * 300),
    "out[0] = kdsl.Uint64(10**5000)",
    "out[0] = 1 << 10**12",
    "for q in range(kdsl.Float32(3)):\n    out[0] = kdsl.Uint64(1)",
    "while xf:\n    out[0] = kdsl.Uint64(1)",
    "out[0] = xi[0, 1].to(kdsl.Uint64)",
    "out[0] = xi.vec(3)[0][0].to(kdsl.Uint64)",
    "out[0] = xi.nothing",
    "out[0] = kdsl.syncthreads()",
    "out[0] = k(xi, xf, out, n)",
    "return 1",
    "global q",
    "del n",
    "import os",
    "out[0] = kdsl.Uint64(xi)",
    "out[0] = xi[0].bitcast(kdsl.Uint32)",
    "out[0] = xf[0].to(kdsl.Uint64) if xf else kdsl.Uint64(0)",
    "out[0] = thread_idx + 1",
    "out[0] = kdsl.math.sqrt(xi[0]).to(kdsl.Uint64).nope",
    "assert False",
    "out[0] = kdsl.Float8E4M3(1.0) + kdsl.Float8E4M3(1.0)",
    "out[0] = (xi[0] if n else xf[0]).to(kdsl.Uint64) + 'a'",
]
BAD_PARAMS = [
    "xi: Pointer[int]",
    "xi: kdsl.Array[Int64]",
    "xi: Pointer[Int64, 2]",
    "xi: kdsl.Array[Int64, 1.5]",
    "xi: kdsl.Array[Int64, 0]",
    "xi: int",
    "xi: kdsl.Constexpr[str]",
    "xi",
]


def invalid_kernel(rng) -> str:
    """The source of a kernel with one bad construct (perhaps two), or one
    randomly mutated; Python syntax errors are the caller's to skip."""
    source = random_kernel(rng.randrange(1 << 30), units=rng.randint(1, 3)).source
    lines = source.splitlines()
    body_at = [i for i, line in enumerate(lines) if line.startswith("    ")]
    r = rng.random()
    if r < 0.6:
        for _ in range(1 if rng.random() < 0.8 else 2):
            bad = rng.choice(BAD_STATEMENTS).splitlines()
            at = rng.choice(body_at)
            indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
            lines[at:at] = [indent + b for b in bad]
    elif r < 0.7:
        sig = next(i for i, line in enumerate(lines) if line.startswith("def k("))
        lines[sig] = lines[sig].replace("xi: Pointer[Int64]", rng.choice(BAD_PARAMS))
    else:  # a mutation of one line of the body
        at = rng.choice(body_at)
        line = lines[at]
        swaps = [("+", "-"), ("*", "@"), ("kdsl.", ""), ("xi", "xf"), ("v", "w")]
        swaps += [(".to(", ".bitcast("), ("out", "xi"), ("Int", "Float"), ("(", "((")]
        old, new = rng.choice(swaps)
        if old in line:
            k = rng.randrange(line.count(old))
            parts = line.split(old)
            line = old.join(parts[: k + 1]) + new + old.join(parts[k + 1 :])
        lines[at] = line
    return "\n".join(lines) + "\n"
