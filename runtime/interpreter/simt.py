"""The lock-step interpreter: a batch of whole blocks runs the IR as numpy
arrays, one element per thread, the way the hardware runs SIMT code.

Every statement runs for the *active* lanes (a boolean mask).  ``if`` runs
both arms under complementary masks; loops run while any lane is still
iterating; ``break``, ``continue`` and ``return`` switch lanes off until the
end of their loop or function.  An assignment under a partial mask merges the
new value into the inactive lanes' old one.  Loads, stores, short-circuit
operands and the arms of a conditional expression only touch active lanes,
so an index that only a switched-off thread computes is never used.

Because the lanes of a batch advance together, ``syncthreads`` needs no
waiting: it checks that every running thread of each block reached it
(a barrier in divergent code is an error), and warp collectives read the
other lanes' values directly, after the same check over the lanes of their
mask (the whole warp by default).  Blocks share nothing
but global memory and atomics, so running several in one batch changes no
result a race-free kernel can observe.  A kernel that calls ``grid_sync``
runs its whole grid as one batch, so that the grid barrier is one more
check that every running thread is there.
"""

from __future__ import annotations

import operator
from dataclasses import replace

import numpy as np
import tqdm

from kdsl.transpile import builtins, ir
from kdsl.transpile.ir.backend import Backend
from kdsl.transpile.core.structs import StructMeta
from kdsl.transpile.core.types import VectorMeta

from kdsl.transpile.core import lanes, limits
from kdsl.transpile.errors import error
from kdsl.runtime.interpreter.debug import Debug
from kdsl.runtime.interpreter.memory import (
    BatchMemory,
    DynamicBuffer,
    DynamicView,
    Memory,
    RaceLog,
    fault,
)
from kdsl.runtime.interpreter.together import Geometry, RaceReport, Slot, Threads
from kdsl.runtime.interpreter.structs import StructOps

_COMPARE = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}
BATCH_THREADS = 1 << 16  # lanes per batch (whole blocks; at least one block)
GRID_THREADS = 1 << 20  # most lanes of a grid that grid-syncs (one batch)


def run(
    kernel_ir,
    functions,
    grid,
    block,
    env,
    cooperative=False,
    shared_mem=0,
    constants=None,
):
    """Run every block of the launch, a batch of blocks at a time (all of
    them in one batch when the kernel is ``cooperative``: it grid-syncs),
    with ``shared_mem`` bytes of dynamic shared memory a block and the
    constant tables ``constants`` (C++ name -> Memory)."""
    per_block = int(np.prod(block))
    blocks = int(np.prod(grid))
    per_batch = max(1, BATCH_THREADS // per_block)
    if cooperative:
        if blocks * per_block > GRID_THREADS:
            raise error(
                "interpret-grid-too-large",
                instance=kernel_ir.name,
                grid=tuple(grid),
                block=tuple(block),
                threads=blocks * per_block,
                limit=GRID_THREADS,
            )
        per_batch = blocks
    # a progress bar on a terminal (tqdm: disable=None is off elsewhere) for a
    # launch of several batches that runs for more than two seconds
    progress = tqdm.tqdm(
        total=blocks,
        unit="block",
        desc=f"interpreting {kernel_ir.name}",
        disable=None if blocks > per_batch else True,
        delay=2.0,
        leave=False,
    )
    steps = _Steps(limits.INTERPRETED_STEPS.value())  # the launch's loop budget
    with np.errstate(all="ignore"), progress:
        for first in range(0, blocks, per_batch):
            count = min(per_batch, blocks - first)
            geometry = Geometry.of(grid, block, first, count)
            threads = Threads(geometry, BatchMemory(shared_mem), RaceReport(geometry))
            batch = Batch(kernel_ir, functions, threads, constants or {})
            batch.steps = steps
            batch.run(env)
            progress.update(count)


class _Frame:
    """One function activation: its variables and which lanes have left it."""

    __slots__ = ("env", "off", "returned", "result", "loops", "entered")

    def __init__(self, env, n, entered=None, returned=None):
        self.env = env
        self.entered = entered  # the lanes that called it (None: all)
        self.off = None  # lanes switched off by return/break/continue
        self.returned = np.zeros(n, np.bool_) if returned is None else returned
        self.result = None
        self.loops = []  # the `broken` mask of each enclosing loop

    def switch_off(self, mask):
        self.off = mask.copy() if self.off is None else self.off | mask


class Batch(Debug, StructOps, Backend):
    """``count`` consecutive blocks of one launch, run in lock-step: the
    interpreter backend, one ``s_<Node>``/``e_<Node>`` per IR node class
    (checked when the class is defined); built-in calls run through their
    registry entry, given the batch's thread state (``threads``, a
    ``together.Threads``), and read the constant tables ``constants``
    (C++ name -> Memory)."""

    backend_name = "interpreter"

    def __init__(self, kernel_ir, functions, threads: Threads, constants: dict):
        self.kernel, self.functions = kernel_ir, functions
        self.threads, self.constants = threads, constants
        self.memory = threads.memory
        g = threads.geometry  # its arrays by name, as the handlers read them
        self.n, self.count, self.per_block = g.n, g.count, g.per_block
        self.pos, self.local, self.block_pos = g.pos, g.local, g.block_pos
        self.specials = g.specials
        self.who, self.where = g.who, threads.where
        self.consts: dict = {}
        self.kernel_frame = None
        self.no_overflow = False  # the running function's no_overflow=True
        self.steps = _Steps(limits.INTERPRETED_STEPS.value())  # (run(): the launch's)

    # the thread state's, by the names the handlers use
    span = property(
        lambda self: self.threads.span,
        lambda self, span: setattr(self.threads, "span", span),
    )
    writes = property(
        lambda self: self.memory.writes,
        lambda self, n: setattr(self.memory, "writes", n),
    )
    dynamic = property(lambda self: self.memory.dynamic)
    shared = property(lambda self: self.memory.shared)

    def run(self, arguments: dict):
        env = {}
        for p in self.kernel.params:
            value = arguments[p.name]
            if isinstance(value, Memory):
                env[p.name] = value
            elif isinstance(p.type, StructMeta):  # a record passed by value
                env[p.name] = np.full(self.n, value, p.type.dtype)
            else:
                env[p.name] = lanes.full(self.n, value, p.type)
        returned = self.threads.returned  # the kernel's lanes that returned
        self.kernel_frame = frame = _Frame(env, self.n, returned=returned)
        self.no_overflow = self.kernel.no_overflow  # (the running function's)
        self.block(self.kernel.body, np.ones(self.n, np.bool_), frame)

    def _race(self, clash, mem, node, verb):
        self.threads.race(clash, mem, node, verb)

    def _oob(self, node, what: str):
        def fail(lane, text):
            raise fault(
                "interpret-out-of-bounds",
                self.where(node),
                access=f"{what} {text}",
                thread=self.who(lane),
            )

        return fail

    # -- statements -------------------------------------------------------------------
    def block(self, stmts, mask, frame):
        for s in stmts:
            m = mask if frame.off is None else mask & ~frame.off
            if not m.any():
                return
            self.STMT[type(s)](self, s, m, frame)

    def s_Comment(self, s, m, frame):
        self.span = s.span  # statements carry no span: their comment does

    def s_Declare(self, s, m, frame):
        # a new C++ variable (its name may have served another type before):
        # only the lanes that declare it can see it, so nothing is merged
        frame.env[s.name] = None if s.init is None else self.eval(s.init, m, frame)

    def s_ArrayDecl(self, s, m, frame):
        if isinstance(frame.env.get(s.name), Memory):
            return  # one copy per block (shared) or thread (local) for the launch
        vector = isinstance(s.elem, VectorMeta)  # an array of vectors: N lanes each
        lanes_per = s.elem.lanes if vector else 1
        scalar = s.elem.dtype if vector else s.elem
        shape = s.shape or (1,)  # a shared scalar: one element, read as s[()]
        size = int(np.prod(shape)) * lanes_per
        dtype = scalar.np_dtype if scalar.np_dtype is not None else object
        if s.space == "shared":  # one per declaration (functions may reuse a name)
            mem = self.shared.get(id(s))
            if mem is None:
                total = self.count * size
                mem = Memory(
                    np.zeros(total, dtype),
                    s.elem,
                    s.name,
                    shape,
                    self.block_pos * size,
                    lanes_per,
                    races=RaceLog(total, size, self.per_block),
                )
                self.shared[id(s)] = mem
        else:
            mem = Memory(
                np.zeros(self.n * size, dtype),
                s.elem,
                s.name,
                shape,
                self.pos * size,
                lanes_per,
            )
        frame.env[s.name] = mem

    def s_DynamicSharedDecl(self, s, m, frame):
        memory = self.memory
        if memory.dynamic is None:  # one copy per block for the launch
            memory.dynamic = DynamicBuffer(
                memory.shared_mem, self.count, self.per_block
            )
            memory.shared[id(s)] = memory.dynamic  # barriers end its race intervals

    def s_Assign(self, s, m, frame):
        self.set(frame, s.name, self.eval(s.value, m, frame), m)

    def s_AssignLane(self, s, m, frame):
        value = self.eval(s.value, m, frame)
        old = frame.env.get(s.name)
        vector = list(self._zeros(s.type) if old is None else old)
        vector[s.lane] = value if m.all() else _merge(m, value, vector[s.lane])
        frame.env[s.name] = tuple(vector)

    def s_Store(self, s, m, frame):
        value = self.eval(s.value, m, frame)  # first, as in C++17 and Python
        mem, addr = self._element(s, m, frame, "store to")
        parts = list(value) if mem.lanes > 1 else [value]
        if mem.races is not None:
            slots, span = mem.race_slots(addr)
            same = lambda: mem.same_values(addr, parts, m)  # noqa: E731
            clash = mem.races.write(slots, self.pos[m], span, same)
            self._race(clash, mem, s, "writes")
        mem.store(addr, parts, m)
        self.writes += 1

    def s_StoreLane(self, s, m, frame):
        value = self.eval(s.value, m, frame)
        mem, addr = self._element(s, m, frame, "store to")
        addr = addr + s.lane  # one lane of the element, as C++'s .v[lane]
        if mem.races is not None:
            same = lambda: mem.same_values(addr, [value], m)  # noqa: E731
            slots, span = mem.lane_race_slots(addr)
            clash = mem.races.write(slots, self.pos[m], span, same)
            self._race(clash, mem, s, "writes")
        mem.store(addr, [value], m)
        self.writes += 1

    def _element(self, node, m, frame, what):
        """``(memory, address of each active lane's element)`` of a load,
        store or address node (``base[indices]``), bounds checked."""
        mem = self.eval(node.base, m, frame)
        indices = [self.eval(i, m, frame) for i in node.indices]
        return mem, mem.addresses(indices, m, self._oob(node, what))

    def s_ExprStmt(self, s, m, frame):
        e = s.expr
        if isinstance(e, ir.BuiltinCall):  # its result unused
            self.builtin_call(e, m, frame, used=False)
        else:
            self.eval(e, m, frame)

    def s_If(self, s, m, frame):
        cond = self.eval(s.cond, m, frame)
        then = m & cond
        if then.any():
            self.block(s.then, then, frame)
        if s.orelse:
            orelse = m & ~cond
            if orelse.any():
                self.block(s.orelse, orelse, frame)

    def s_For(self, s, m, frame):
        i = self.eval(s.start, m, frame)
        fixed = isinstance(s.step, int)
        if fixed:  # i += step, or i -= -step (an unsigned counter can count down)
            op = "+" if s.step > 0 else "-"
            step = lanes.full(self.n, abs(s.step), s.type)
        else:
            op, step = "+", frame.env[s.step.name]

        def within(i, stop):
            if fixed:
                return lanes.binary("<" if s.step > 0 else ">", i, stop, s.type)
            return ((step > 0) & (i < stop)) | ((step < 0) & (i > stop))

        frame.env[s.var] = None  # a new C++ variable, perhaps of another type

        def advance(running):
            self.set(frame, s.var, i, running)
            self.block(s.body, running, frame)
            return frame.env[s.var]

        for running in self._loop(
            m, frame, lambda r: within(i, self.eval(s.stop, r, frame))
        ):
            i = np.where(running, lanes.binary(op, advance(running), step, s.type), i)

    def s_While(self, s, m, frame):
        for running in self._loop(m, frame, lambda r: self.eval(s.cond, r, frame)):
            self.block(s.body, running, frame)

    def _loop(self, m, frame, condition):
        """Yield the lanes running each iteration until none is."""
        outer_off = frame.off
        broken = np.zeros(self.n, np.bool_)
        frame.loops.append(broken)
        running = m.copy()
        watch = _Watch(self.span, self.who)
        while True:
            frame.off = outer_off  # `continue` ends with the iteration
            running &= ~broken & ~frame.returned
            if not running.any():
                break
            running &= condition(running)
            if not running.any():
                break
            watch.check(running, frame.env, self.writes)
            self.steps.take(watch.span)
            yield running
        frame.loops.pop()
        frame.off = outer_off
        if frame.returned.any():
            frame.switch_off(frame.returned)

    def s_Break(self, s, m, frame):
        frame.loops[-1] |= m
        frame.switch_off(m)

    def s_Continue(self, s, m, frame):
        frame.switch_off(m)

    def s_Return(self, s, m, frame):
        if s.value is not None:
            value = self.eval(s.value, m, frame)
            frame.result = (
                value if frame.result is None else _merge(m, value, frame.result)
            )
        frame.returned |= m
        frame.switch_off(m)

    def set(self, frame, name, value, m):
        old = frame.env.get(name)
        if isinstance(value, Memory) and isinstance(old, Memory):
            self._one_memory(frame, name, old, value, m)
            if not m.all() and (value.shift is not None or old.shift is not None):
                value = _merge_pointers(m, value, old, self.n)
        if old is None or isinstance(value, Memory) or m.all():
            frame.env[name] = value
        else:
            frame.env[name] = _merge(m, value, old)

    def _one_memory(self, frame, name, old, new, m):
        """A pointer variable holds one array for the whole batch: assigning
        another array while threads that do not run the assignment may still
        use the variable (threads choosing different arrays) is refused."""
        same = old.data is new.data and old.name == new.name
        waiting = ~self.kernel_frame.returned & ~frame.returned & ~m
        if frame.entered is not None:
            waiting &= frame.entered
        if not same and waiting.any():
            lane = int(np.flatnonzero(waiting)[0])
            raise fault(
                "interpret-pointer-diverged",
                self.span,
                name=name,
                new=new.name,
                old=old.name,
                thread=self.who(lane),
            )

    # -- expressions -------------------------------------------------------------------
    def eval(self, e, m, frame):
        return self.EXPR[type(e)](self, e, m, frame)

    def e_Const(self, e, m, frame):
        cached = self.consts.get(id(e))
        if cached is None:
            if isinstance(e.type, VectorMeta):
                value = tuple(lanes.full(self.n, x, e.type.dtype) for x in e.value)
            else:
                value = lanes.full(self.n, e.value, e.type)
            cached = self.consts[id(e)] = (e, value)  # e kept alive: ids stay unique
        return cached[1]

    def e_Var(self, e, m, frame):
        value = frame.env[e.name]
        if value is None:  # declared, not yet assigned in any lane
            return self._zeros(e.type)
        return value

    def e_Special(self, e, m, frame):
        return builtins.get(e.name).interpret(self.threads, e, [], m)

    def e_BinOp(self, e, m, frame):
        a, b = self.eval(e.lhs, m, frame), self.eval(e.rhs, m, frame)
        t = e.lhs.type
        if isinstance(t, VectorMeta):
            out = tuple(lanes.binary(e.op, x, y, t.dtype) for x, y in zip(a, b))
            for x, y, r in zip(a, b, out) if self.no_overflow else ():
                self.check_overflow(e, m, (x, y), r, t.dtype)
            return out
        out = lanes.binary(e.op, a, b, t)
        if self.no_overflow:
            self.check_overflow(e, m, (a, b), out, t)
        return out

    def e_UnaryOp(self, e, m, frame):
        a = self.eval(e.operand, m, frame)
        if isinstance(e.type, VectorMeta):
            out = tuple(lanes.unary(e.op, x, e.type.dtype) for x in a)
            for x, r in zip(a, out) if self.no_overflow else ():
                self.check_overflow(e, m, (x,), r, e.type.dtype)
            return out
        out = lanes.unary(e.op, a, e.type)
        if self.no_overflow:
            self.check_overflow(e, m, (a,), out, e.type)
        return out

    def e_Convert(self, e, m, frame):
        a = self.eval(e.operand, m, frame)
        src, dst = e.operand.type, e.type
        if isinstance(dst, VectorMeta):
            return tuple(lanes.convert(x, src.dtype, dst.dtype) for x in a)
        return lanes.convert(a, src, dst)

    def e_Bitcast(self, e, m, frame):
        a = self.eval(e.operand, m, frame)
        src, dst = e.operand.type, e.type
        vec_in, vec_out = isinstance(src, VectorMeta), isinstance(dst, VectorMeta)
        out = lanes.bitcast(
            list(a) if vec_in else [a],
            src.dtype if vec_in else src,
            dst.dtype if vec_out else dst,
            dst.lanes if vec_out else 1,
        )
        return tuple(out) if vec_out else out[0]

    def e_Select(self, e, m, frame):
        cond = self.eval(e.cond, m, frame)
        if isinstance(cond, tuple):  # lane-wise select of two vectors
            a, b = self.eval(e.if_true, m, frame), self.eval(e.if_false, m, frame)
            return tuple(np.where(c, x, y) for c, x, y in zip(cond, a, b))
        a = self.eval(e.if_true, m & cond, frame)  # C++ evaluates one arm
        b = self.eval(e.if_false, m & ~cond, frame)
        return _merge(cond, a, b)

    def e_Logical(self, e, m, frame):
        a = self.eval(e.lhs, m, frame)
        rest = m & a if e.op == "&&" else m & ~a  # lanes that evaluate the rhs
        if not rest.any():
            return a
        b = self.eval(e.rhs, rest, frame)
        return (a & b) if e.op == "&&" else (a | b)

    def e_Broadcast(self, e, m, frame):
        return (self.eval(e.operand, m, frame),) * e.type.lanes

    def e_MakeVector(self, e, m, frame):
        return tuple(self.eval(x, m, frame) for x in e.lanes)

    def e_Extract(self, e, m, frame):
        if isinstance(e.vector, ir.Load):  # s[i].v[lane] reads that lane only
            mem, addr = self._element(e.vector, m, frame, "load from")
            addr = addr + e.lane
            if mem.races is not None:
                slots, span = mem.lane_race_slots(addr)
                clash = mem.races.read(slots, self.pos[m], span)
                self._race(clash, mem, e, "reads")
            return mem.load(addr, self.n, m, count=1)[0]
        return self.eval(e.vector, m, frame)[e.lane]

    def e_DynamicShared(self, e, m, frame):
        elem = e.type.elem
        scalar = elem.dtype if isinstance(elem, VectorMeta) else elem
        lanes_ = elem.lanes if isinstance(elem, VectorMeta) else 1
        buffer = self.dynamic
        size = None if e.size is None else self.eval(e.size, m, frame)
        return DynamicView(
            buffer.data.view(scalar.np_dtype),
            elem,
            e.view,
            lanes=lanes_,
            races=buffer.races,
            unit=scalar.np_dtype.itemsize,
            start=self.eval(e.offset, m, frame).astype(np.int64),
            base=self.block_pos * buffer.stride,
            count=None if size is None else size.astype(np.int64),
            limit=buffer.size,
        )

    def e_VecView(self, e, m, frame):
        vec = e.type.elem
        mem = self.eval(e.pointer, m, frame)
        self._aligned(e, m, mem, mem.misaligned(vec.lanes), f"vectors of {vec.lanes}")
        return mem.view(vec.lanes, vec)

    def _aligned(self, e, m, mem, off, elements: str):
        """A view of a moved pointer starts on a whole element (``off``:
        where it does not, or None)."""
        if off is not None and (off & m).any():
            lane = int(np.argmax(off & m))
            raise fault(
                "interpret-pointer-misaligned",
                self.where(e),
                pointer=f"{mem.name} + {int(mem.shift[lane]) // mem.lanes}",
                elements=elements,
                thread=self.who(lane),
            )

    def e_PointerOffset(self, e, m, frame):
        mem = self.eval(e.pointer, m, frame)
        k = self.eval(e.offset, m, frame).astype(np.int64)
        return mem.moved(-k if e.op == "-" else k)

    def e_PointerBinary(self, e, m, frame):
        a, b = self.eval(e.lhs, m, frame), self.eval(e.rhs, m, frame)
        same = a.data is b.data and a.name == b.name
        if not same and e.op in ("==", "!="):  # pointers into two allocations
            return np.full(self.n, e.op == "!=", np.bool_)
        if not same:
            lane = int(np.argmax(m))
            raise fault(
                "interpret-pointer-allocations",
                self.where(e),
                op=e.op,
                lhs=a.name,
                rhs=b.name,
                thread=self.who(lane),
            )
        pa, pb = a.position(self.n), b.position(self.n)
        if e.op == "-":
            return (pa - pb) // a.lanes
        return _COMPARE[e.op](pa, pb)

    def e_ConstantRef(self, e, m, frame):
        return self.constants[e.name]

    def e_PointerView(self, e, m, frame):
        mem, t = self.eval(e.pointer, m, frame), e.type.elem
        size = t.np_dtype.itemsize
        self._aligned(e, m, mem, mem.misaligned(1, size), f"{t.__name__} elements")
        return mem.reinterpret(t)

    def e_ArrayOffset(self, e, m, frame):
        indices = [self.eval(i, m, frame) for i in e.indices]
        extents = [self.eval(n, m, frame) for n in e.extents]
        outside = np.zeros(self.n, np.bool_)
        for i, n in zip(indices, extents):
            outside |= (i < 0) | (i >= n)
        outside &= m
        if outside.any():
            lane = int(np.argmax(outside))
            where = ", ".join(str(int(i[lane])) for i in indices)
            shape = ", ".join(str(int(n[lane])) for n in extents)
            raise fault(
                "interpret-out-of-bounds",
                self.where(e),
                access=f"index {e.array}[{where}] ({e.array} has shape ({shape}))",
                thread=self.who(lane),
            )
        return self.eval(e.flat, m, frame)

    def e_Load(self, e, m, frame):
        mem, addr = self._element(e, m, frame, "load from")
        if mem.races is not None:
            slots, span = mem.race_slots(addr)
            clash = mem.races.read(slots, self.pos[m], span)
            self._race(clash, mem, e, "reads")
        parts = mem.load(addr, self.n, m)
        return tuple(parts) if mem.lanes > 1 else parts[0]

    def e_FuncCall(self, e, m, frame):
        function = self.functions[e.func]
        args = [self.eval(a, m, frame) for a in e.args]
        result, callee = self.call(function, args, m)
        for p, a in zip(function.params, e.args):
            if isinstance(p.type, ir.RefType):  # a result, into the caller's variable
                self.set(frame, a.name, callee.env[p.name], m)
        return result

    def e_BuiltinCall(self, e, m, frame):
        return self.builtin_call(e, m, frame)

    def builtin_call(self, e, m, frame, used=True):
        """A call of a registered built-in: its arguments, then the group
        a collective one works across is checked, then its semantics run."""
        entry = builtins.get(e.builtin)
        args = [
            (
                self._address(a, m, frame, entry)
                if isinstance(a, ir.Address)
                else self.eval(a, m, frame)
            )
            for a in e.args
        ]
        threads = self.threads
        if entry.collective is not None:
            threads.check_collective(entry, e, m, args)
        if builtins.is_lanewise_call(e):  # kdsl.math on vectors: each lane alone
            one = builtins.scalar_call(e)
            return tuple(
                entry.interpret(threads, one, [a[k] for a in args], m)
                for k in range(e.type.lanes)
            )
        if not used and entry.interpret_unused is not None:
            if entry.interpret_unused(threads, e, args, m):
                return None
        return entry.interpret(threads, e, args, m)

    def e_Address(self, e, m, frame):
        return Slot(*self._element(e, m, frame, "atomic on"))

    def _address(self, e, m, frame, entry):
        """The element an address operand of ``entry`` names (bounds checked;
        an out-of-bounds message says which built-in)."""
        if entry.name.startswith("atomic"):
            return self.e_Address(e, m, frame)
        return Slot(*self._element(e, m, frame, f"{entry.spelled} of"))

    def call(self, function, args, m):
        """Run a device function for the lanes ``m``: (its result, its frame)."""
        callee = _Frame({p.name: a for p, a in zip(function.params, args)}, self.n, m)
        span = self.span  # the calling statement's, for errors after the call
        caller, self.no_overflow = self.no_overflow, function.no_overflow
        self.block(function.body, m, callee)
        self.span, self.no_overflow = span, caller
        if callee.result is None and function.ret is not None:
            return self._zeros(function.ret), callee  # no lane ran (an untaken arm)
        return callee.result, callee

    def _zeros(self, t):
        if isinstance(t, StructMeta):
            return np.zeros(self.n, t.dtype)
        if isinstance(t, VectorMeta):
            return tuple(lanes.full(self.n, 0, t.dtype) for _ in range(t.lanes))
        return lanes.full(self.n, 0, t)


class _Steps:
    """The loop iterations an interpreted launch may still run (its budget,
    ``KDSL_MAX_INTERPRETED_STEPS``; 0: none): past it, E477 at the loop."""

    def __init__(self, cap: int):
        self.cap, self.taken = cap, 0

    def take(self, span) -> None:
        self.taken += 1
        if self.cap and self.taken > self.cap:
            raise fault(
                "interpret-step-budget",
                span,
                cap=self.cap,
                line=span.line if span is not None else "?",
                env=limits.INTERPRETED_STEPS.env,
            )


class _Watch:
    """Finds a loop that cannot end (Brent's cycle detection): from
    iteration 1024 on, at every power of two, it notes the running lanes, the
    variables and the memory-change count, and compares each later iteration
    with that note; the loop is deterministic, so once it is back in a noted
    state it goes round for ever.  Back after one iteration: a thread spinning
    on a lock its holder would release later (in lock-step the holder never
    gets to), E451; after more: a counter that wrapped around, E464.  A loop
    that writes memory changes the count and is not judged."""

    def __init__(self, span, who=None):
        self.span, self.count, self.noted, self.who = span, 0, None, who

    def check(self, running, env, writes):
        self.count += 1
        if self.noted is not None:
            at, lanes_, values_, then = self.noted
            if (
                then == writes
                and np.array_equal(lanes_, running)
                and _same_env(values_, env)
            ):
                period = self.count - at
                if period == 1:
                    raise fault(
                        "interpret-no-progress",
                        self.span,
                        threads=int(np.count_nonzero(running)),
                    )
                lane = int(np.flatnonzero(running)[0])
                raise fault(
                    "interpret-loop-wrapped",
                    self.span,
                    thread=self.who(lane) if self.who else f"lane {lane}",
                    iterations=period,
                )
            if then != writes:
                self.noted = None  # it writes memory: not judged until the next note
        if self.count >= 1024 and self.count & (self.count - 1) == 0:
            self.noted = (self.count, running.copy(), dict(env), writes)


def _same_env(old: dict, new: dict) -> bool:
    if old.keys() != new.keys():
        return False
    for k, a in old.items():
        b = new[k]
        if a is b:
            continue
        if isinstance(a, tuple) and isinstance(b, tuple):
            if not all(np.array_equal(x, y) for x, y in zip(a, b)):
                return False
        elif not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        elif not np.array_equal(a, b):
            return False
    return True


def _merge_pointers(mask, new, old, n):
    """A pointer variable assigned a moved pointer in some lanes (``p += k``
    under a branch): each lane keeps its own offset into the one array."""
    zeros = np.zeros(n, np.int64)
    if old.shape and not new.shape:
        old = old.moved(zeros)
    if new.shape and not old.shape:
        new = new.moved(zeros)
    a = zeros if new.shift is None else new.shift
    b = zeros if old.shift is None else old.shift
    return replace(new, shift=np.where(mask, a, b))


def _merge(mask, value, old):
    if isinstance(value, tuple):
        return tuple(np.where(mask, v, o) for v, o in zip(value, old))
    return np.where(mask, value, old)
