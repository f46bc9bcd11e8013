"""The CPU interpreter: run a kernel instance's IR on numpy arrays.

``kernel.interpret[grid, block](*args, **constexprs)`` — or any launch when
``KDSL_INTERPRET=1`` was set before the kernel was defined — executes the
same verified IR the CUDA code is generated from, with the exact value
semantics of ``kdsl.transpile.values`` (the semantics the GPU tests prove the
generated code has). Arrays are numpy arrays (CuPy arrays and PyTorch tensors
are copied to the host and back).

Threads of a block run one after another when the kernel has no barrier or
warp shuffle; otherwise each thread of a block runs in its own Python thread
and ``syncthreads``/shuffles wait for the others (a barrier counts the
threads still running, as on current GPUs). Atomics are atomic. An index out
of bounds is an error naming the access and the thread, where the GPU would
have undefined behaviour. ``kdsl.math`` transcendental functions use numpy's
(correctly rounded or nearly), not CUDA's: they can differ in the last bit.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np

from kdsl.transpile import ir, mathfns, values
from kdsl.transpile.errors import LaunchError
from kdsl.transpile.types import Float32, Float64, NumericMeta, VectorMeta


class InterpretError(LaunchError):
    """A run-time fault found by the interpreter (e.g. out of bounds)."""


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Return(Exception):
    def __init__(self, value=None):
        self.value = value


@dataclass
class Memory:
    """A flat view of an array: a pointer parameter or a fixed array."""

    data: np.ndarray  # one-dimensional
    elem: object
    name: str
    shape: tuple = ()  # fixed (shared/local) arrays: their static shape
    lanes: int = 1  # a .vec(N) view reads N consecutive elements


# -- barriers ----------------------------------------------------------------------
class Barrier:
    """``syncthreads`` for the threads still running in a group."""

    def __init__(self, parties: int):
        self.live = parties
        self.waiting = 0
        self.generation = 0
        self.cond = threading.Condition()

    def wait(self):
        with self.cond:
            generation = self.generation
            self.waiting += 1
            if self.waiting >= self.live:
                self._release()
            else:
                while generation == self.generation:
                    self.cond.wait()

    def leave(self):
        with self.cond:
            self.live -= 1
            if self.waiting and self.waiting >= self.live:
                self._release()

    def _release(self):
        self.waiting = 0
        self.generation += 1
        self.cond.notify_all()


class Warp:
    """A warp's shuffle exchange: every lane publishes, then reads."""

    def __init__(self, size: int):
        self.slots = [None] * size
        self.barrier = Barrier(size)

    def exchange(self, lane: int, value, source: int):
        self.slots[lane] = value
        self.barrier.wait()
        result = self.slots[source]
        self.barrier.wait()
        return result


# -- the machine -------------------------------------------------------------------
class Machine:
    """One launch: the grid, the functions and the shared state."""

    def __init__(self, kernel_ir, functions, grid, block):
        self.kernel = kernel_ir
        self.functions = functions
        self.grid = grid
        self.block = block
        self.atomic = threading.Lock()
        self.concurrent = _needs_concurrency([kernel_ir, *functions.values()])

    def run(self, arguments: dict):
        gx, gy, gz = self.grid
        for bz in range(gz):
            for by in range(gy):
                for bx in range(gx):
                    self._run_block((bx, by, bz), arguments)

    def _run_block(self, block_idx, arguments):
        bx, by, bz = self.block
        n = bx * by * bz
        shared: dict = {}
        threads = [(x, y, z) for z in range(bz) for y in range(by) for x in range(bx)]
        if not self.concurrent:
            for t in threads:
                Thread(self, block_idx, t, shared, None, None).run(arguments)
            return
        barrier = Barrier(n)
        warps = [Warp(min(32, n - w * 32)) for w in range((n + 31) // 32)]
        errors = []

        def body(t):
            linear = t[0] + t[1] * bx + t[2] * bx * by
            warp = warps[linear // 32]
            try:
                Thread(self, block_idx, t, shared, barrier, warp).run(arguments)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)
            finally:
                barrier.leave()
                warp.barrier.leave()

        workers = [threading.Thread(target=body, args=(t,)) for t in threads]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        if errors:
            raise errors[0]


def _needs_concurrency(functions) -> bool:
    """Whether any function waits for other threads (a barrier or a shuffle)."""
    return any(
        isinstance(e, ir.Call)
        and (e.func == "syncthreads" or e.func.startswith("shfl_"))
        for f in functions
        for e in ir.expressions(f.body)
    )


class Thread:
    """One GPU thread executing the IR."""

    def __init__(self, machine, block_idx, thread_idx, shared, barrier, warp):
        self.m = machine
        self.block_idx = block_idx
        self.thread_idx = thread_idx
        self.shared = shared
        self.barrier = barrier
        self.warp = warp
        bx, by, _ = machine.block
        self.linear = thread_idx[0] + thread_idx[1] * bx + thread_idx[2] * bx * by
        self.lane = self.linear % 32

    def run(self, arguments):
        try:
            self.block_of(self.m.kernel.body, dict(arguments))
        except _Return:
            pass

    # -- statements ---------------------------------------------------------------
    def block_of(self, stmts, env):
        for s in stmts:
            getattr(self, f"s_{type(s).__name__}")(s, env)

    def s_Comment(self, s, env):
        pass

    def s_Declare(self, s, env):
        env[s.name] = None if s.init is None else self.eval(s.init, env)

    def s_ArrayDecl(self, s, env):
        size = int(np.prod(s.shape))
        if s.space == "shared":
            with self.m.atomic:
                if s.name not in self.shared:
                    self.shared[s.name] = _zeros(s.elem, size)
            data = self.shared[s.name]
        else:
            data = _zeros(s.elem, size)
        env[s.name] = Memory(data, s.elem, s.name, s.shape)

    def s_Assign(self, s, env):
        env[s.name] = self.eval(s.value, env)

    def s_Store(self, s, env):
        mem = self.eval(s.base, env)
        index = self.index(mem, [self.eval(i, env) for i in s.indices])
        self.write(mem, index, self.eval(s.value, env))

    def s_ExprStmt(self, s, env):
        self.eval(s.expr, env)

    def s_If(self, s, env):
        self.block_of(s.then if self.eval(s.cond, env) else s.orelse, env)

    def s_For(self, s, env):
        i = self.eval(s.start, env)
        stop = self.eval(s.stop, env)
        step = s.step if isinstance(s.step, int) else env[s.step.name]
        while (step > 0 and i < stop) or (step < 0 and i > stop):
            env[s.var] = i
            if not self.iteration(s.body, env):
                break
            i = values.wrap(i + step, s.type)

    def s_While(self, s, env):
        while self.eval(s.cond, env):
            if not self.iteration(s.body, env):
                break

    def iteration(self, body, env) -> bool:
        """One pass of a loop body; False when it ends with ``break``."""
        try:
            self.block_of(body, env)
        except _Break:
            return False
        except _Continue:
            pass
        return True

    def s_Break(self, s, env):
        raise _Break()

    def s_Continue(self, s, env):
        raise _Continue()

    def s_Return(self, s, env):
        raise _Return(None if s.value is None else self.eval(s.value, env))

    # -- expressions ------------------------------------------------------------------
    def eval(self, e, env):
        return getattr(self, f"e_{type(e).__name__}")(e, env)

    def e_Const(self, e, env):
        return e.value

    def e_Var(self, e, env):
        return env[e.name]

    def e_Special(self, e, env):
        what, axis = e.name.split(".")
        source = {
            "threadIdx": self.thread_idx,
            "blockIdx": self.block_idx,
            "blockDim": self.m.block,
            "gridDim": self.m.grid,
        }[what]
        return source["xyz".index(axis)]

    def e_BinOp(self, e, env):
        a, b = self.eval(e.lhs, env), self.eval(e.rhs, env)
        if isinstance(e.type, VectorMeta):
            t = e.lhs.type.dtype
            return tuple(_binary(e.op, x, y, t) for x, y in zip(a, b))
        return _binary(e.op, a, b, e.lhs.type)

    def e_UnaryOp(self, e, env):
        a = self.eval(e.operand, env)
        if isinstance(e.type, VectorMeta):
            return tuple(values.unary(e.op, x, e.type.dtype) for x in a)
        return values.unary(e.op, a, e.type)

    def e_Convert(self, e, env):
        a = self.eval(e.operand, env)
        if isinstance(e.type, VectorMeta):
            src, dst = e.operand.type.dtype, e.type.dtype
            return tuple(values.convert(x, src, dst) for x in a)
        return values.convert(a, e.operand.type, e.type)

    def e_Bitcast(self, e, env):
        a = self.eval(e.operand, env)
        src, dst = e.operand.type, e.type
        lanes_in = a if isinstance(src, VectorMeta) else (a,)
        t_in = src.dtype if isinstance(src, VectorMeta) else src
        t_out = dst.dtype if isinstance(dst, VectorMeta) else dst
        bits = 0
        for k, lane in enumerate(lanes_in):
            bits |= values.to_bits(lane, t_in) << (k * t_in.width)
        n_out = dst.lanes if isinstance(dst, VectorMeta) else 1
        mask = (1 << t_out.width) - 1
        out = tuple(
            values.from_bits((bits >> (k * t_out.width)) & mask, t_out)
            for k in range(n_out)
        )
        return out if isinstance(dst, VectorMeta) else out[0]

    def e_Select(self, e, env):
        cond = self.eval(e.cond, env)
        if isinstance(cond, tuple):
            a, b = self.eval(e.if_true, env), self.eval(e.if_false, env)
            return tuple(x if c else y for c, x, y in zip(cond, a, b))
        return self.eval(e.if_true if cond else e.if_false, env)

    def e_Logical(self, e, env):
        a = self.eval(e.lhs, env)
        if e.op == "&&":
            return bool(a) and bool(self.eval(e.rhs, env))
        return bool(a) or bool(self.eval(e.rhs, env))

    def e_Broadcast(self, e, env):
        return (self.eval(e.operand, env),) * e.type.lanes

    def e_MakeVector(self, e, env):
        return tuple(self.eval(x, env) for x in e.lanes)

    def e_Extract(self, e, env):
        return self.eval(e.vector, env)[e.lane]

    def e_VecView(self, e, env):
        mem = self.eval(e.pointer, env)
        lanes = e.type.elem.lanes
        return Memory(mem.data, e.type.elem, f"{mem.name}.vec({lanes})", lanes=lanes)

    def e_Load(self, e, env):
        mem = self.eval(e.base, env)
        return self.read(mem, self.index(mem, [self.eval(i, env) for i in e.indices]))

    def e_Call(self, e, env):
        f = e.func
        if f in self.m.functions:
            return self.call_function(
                self.m.functions[f], [self.eval(a, env) for a in e.args]
            )
        if f.startswith("atomic_"):
            return self.atomic(e, env)
        args = [self.eval(a, env) for a in e.args]
        if f == "syncthreads":
            if self.barrier is not None:
                self.barrier.wait()
            return None
        if f == "lane_id":
            return self.lane
        if f in ("min", "max"):
            a, b = args
            better = values.binary("<" if f == "min" else ">", b, a, e.type)
            return b if better else a
        if f.startswith("shfl_"):
            return self.shuffle(f, *args)
        if f.startswith("math."):
            return _math(f[5:], args, e.type)
        raise InterpretError(f"the interpreter has no '{f}'")

    # -- memory -----------------------------------------------------------------------
    def index(self, mem, idx):
        if mem.shape:
            flat = 0
            for i, n in zip(idx, mem.shape):
                if not 0 <= i < n:
                    self._out_of_bounds(mem, idx)
                flat = flat * n + i
            return flat
        (i,) = idx
        if i < 0 or (i + 1) * mem.lanes > len(mem.data):
            self._out_of_bounds(mem, idx)
        return i

    def _out_of_bounds(self, mem, idx):
        where = ", ".join(str(i) for i in idx)
        raise InterpretError(
            f"out-of-bounds access {mem.name}[{where}] (size {len(mem.data)}) in thread "
            f"{self.thread_idx} of block {self.block_idx}"
        )

    def read(self, mem, i):
        if mem.lanes > 1:
            t = mem.elem.dtype
            return tuple(
                _scalar(mem.data[i * mem.lanes + k], t) for k in range(mem.lanes)
            )
        return _scalar(mem.data[i], mem.elem)

    def write(self, mem, i, value):
        if mem.lanes > 1:
            for k, v in enumerate(value):
                mem.data[i * mem.lanes + k] = v
        else:
            mem.data[i] = value

    def atomic(self, e, env):
        slot = e.args[0]
        mem = self.eval(slot.base, env)
        index = self.index(mem, [self.eval(i, env) for i in slot.indices])
        operands = [self.eval(a, env) for a in e.args[1:]]
        t = e.type
        with self.m.atomic:
            old = self.read(mem, index)
            new = _atomic_update(e.func, old, operands, t)
            self.write(mem, index, new)
        return old

    def shuffle(self, kind, value, arg, width):
        lane = self.lane
        base = lane - lane % width
        if kind == "shfl_idx":
            source = base + arg % width
        elif kind == "shfl_xor":
            source = lane ^ arg
            source = source if base <= source < base + width else lane
        else:  # shfl_down
            source = lane + arg if lane % width + arg < width else lane
        if self.warp is None:
            raise InterpretError("a warp shuffle ran without its warp")
        return self.warp.exchange(lane, value, source)

    def call_function(self, f, args):
        env = {p.name: a for p, a in zip(f.params, args)}
        try:
            self.block_of(f.body, env)
        except _Return as ret:
            return ret.value
        return None


# -- helpers ---------------------------------------------------------------------------
def _binary(op, a, b, t):
    try:
        return values.binary(op, a, b, t)
    except ZeroDivisionError:  # integer // or % by a run-time zero (prelude's rule)
        return 0 if op == "//" else a


def _atomic_update(func, old, operands, t):
    if func == "atomic_cas":
        compare, value = operands
        return value if old == compare else old
    (value,) = operands
    if func == "atomic_exch":
        return value
    if func == "atomic_add":
        return values.binary("+", old, value, t)
    if func == "atomic_max":
        return max(old, value)
    if func == "atomic_min":
        return min(old, value)
    op = {"atomic_and_": "&", "atomic_or_": "|", "atomic_xor": "^"}[func]
    return values.binary(op, old, value, t)


def _scalar(x, t):
    """A numpy element as kdsl's Python value for type ``t``."""
    if t.kind == "bool":
        return bool(x)
    if t.kind == "int":
        return int(x)
    return float(x)


def _zeros(elem, size):
    dtype = elem.np_dtype if elem.np_dtype is not None else object
    return np.zeros(size, dtype=dtype)


_NUMPY_MATH = {
    "exp": np.exp,
    "exp2": np.exp2,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "tanh": np.tanh,
    "erf": lambda x: type(x)(math.erf(float(x))),
    "pow": np.power,
    "atan2": np.arctan2,
}


def _math(name, args, t):
    fold = mathfns.host_fold(name)
    if fold is not None:
        result = fold(*args)
        if name == "fma" and t.width <= 32:
            result = values.round_float(result, Float32)
        return values.round_float(result, t)
    compute = np.float64 if t.width == 64 else np.float32
    with np.errstate(all="ignore"):
        result = float(_NUMPY_MATH[name](*(compute(a) for a in args)))
    return values.round_float(result, t if t.width < 64 else Float64)


# -- binding arguments ---------------------------------------------------------------------
def bind_arguments(kernel, inst, kernel_ir, args):
    """IR parameter name -> value for the interpreter, from the user's
    arguments (numpy arrays; CuPy/PyTorch ones are copied to the host).
    Returns (env, write_backs) where write_backs copy results back."""
    params = kernel.signature.runtime
    if len(args) != len(params):
        kernel._bad_count(args)
    ir_params = iter(kernel_ir.params)
    env, write_backs = {}, []
    dtype_map = dict(zip((tv.name for tv in kernel.signature.typevars), inst.dtypes))
    for info, value in zip(params, args):
        elem = getattr(info.spec, "elem", info.spec)
        t = elem if isinstance(elem, NumericMeta) else dtype_map[elem.name]
        p = next(ir_params)
        if info.kind == "scalar":
            from kdsl.runtime.launch import check_scalar

            check_scalar(info.name, t, value)
            env[p.name] = values.from_python(_python(value), t)
            continue
        host, back = _host_array(info.name, value, t)
        if back is not None:
            write_backs.append(back)
        if info.kind == "pointer":
            if not host.flags.c_contiguous:
                raise LaunchError(
                    f"parameter '{info.name}' is a Pointer and needs a contiguous array"
                )
            env[p.name] = Memory(host.reshape(-1), t, info.name)
            continue
        if host.ndim != info.spec.ndim:
            raise LaunchError(
                f"parameter '{info.name}' is Array[{t.__name__}, {info.spec.ndim}], "
                f"got {host.ndim} dimensions"
            )
        if any(s < 0 for s in host.strides):
            raise LaunchError(
                f"parameter '{info.name}': negative strides are not supported"
            )
        item = host.itemsize
        strides = [s // item for s in host.strides]
        span = (
            1 + sum((n - 1) * s for n, s in zip(host.shape, strides))
            if host.size
            else 0
        )
        flat = np.lib.stride_tricks.as_strided(host, shape=(span,), strides=(item,))
        env[p.name] = Memory(flat, t, info.name)
        for n in host.shape:
            env[next(ir_params).name] = int(n)
        for s in strides:
            env[next(ir_params).name] = int(s)
    return env, write_backs


def _python(value):
    from kdsl.transpile.types import Numeric

    if isinstance(value, Numeric):
        return value.value
    if isinstance(value, np.generic):
        return value.item()
    return value


def _host_array(name, value, t):
    if isinstance(value, np.ndarray):
        host, back = value, None
    elif type(value).__module__.split(".")[0] == "cupy":
        host = value.get()
        back = lambda: value.set(host)  # noqa: E731
    elif type(value).__module__.split(".")[0] == "torch":
        import torch

        host = value.detach().cpu().numpy() if t.__name__ != "BFloat16" else None
        if host is None:
            raise LaunchError(
                f"parameter '{name}': the interpreter takes bfloat16 as numpy arrays"
            )
        back = lambda: value.copy_(torch.from_numpy(host))  # noqa: E731
    else:
        raise LaunchError(
            f"parameter '{name}' needs an array (numpy, CuPy or PyTorch), got {type(value).__name__}"
        )
    if t.np_dtype is None or host.dtype != t.np_dtype:
        raise LaunchError(
            f"parameter '{name}' must hold {t.__name__}, got {host.dtype}"
        )
    return host, back


def interpret(kernel, inst, grid, block, args):
    """Run ``inst`` of ``kernel`` on the CPU."""
    from kdsl.transpile.pipeline import lower_instance

    kernel_ir, functions = lower_instance(
        kernel, inst.name, inst.dtypes, inst.constexprs
    )
    env, write_backs = bind_arguments(kernel, inst, kernel_ir, args)
    Machine(kernel_ir, functions, _dim3(grid), _dim3(block)).run(env)
    for back in write_backs:
        back()


def _dim3(v):
    v = (v,) if isinstance(v, int) else tuple(v)
    return v + (1,) * (3 - len(v))
