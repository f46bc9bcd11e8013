"""The registry of built-ins: one :class:`Builtin` per function a kernel can
call (or special register it can read), holding everything about it.

An entry says, in one place:

* ``name`` and ``doc``: its kdsl name (``syncthreads``, ``math.exp``,
  ``thread_idx.x``) and the one line docs/language.md lists;
* ``lower``: its typing rule and fold, ``lower(lw, entry, args, kwargs)``
  returning a kdsl value (or None for a statement), building an
  :class:`ir.BuiltinCall` (or :class:`ir.Special`) when it runs at run time;
  ``lw`` is the lowerer, used through :class:`Lowering` only;
* ``cuda``: its CUDA rendering, ``cuda(r, call, args)`` with the arguments
  already rendered as C++ expression trees (``core.cxx.CExpr``), returning
  one, built with ``cxx.call``/``infix``/``template``/``name`` … (``r`` is
  the emitter, used through :class:`CudaRenderer`; a built-in that is a
  statement returns its call, and the emitter writes the statement);
* ``interpret``: its semantics on the CPU, ``interpret(t, call, args, mask)``
  with the arguments evaluated as numpy lanes (``t`` is the interpreter's
  thread batch, used through :class:`Threads`), and optionally
  ``interpret_unused`` for a call whose result is discarded;
* ``collective``: ``"warp"``, ``"block"`` or ``"grid"`` when every running
  thread of the group must reach the call (the interpreter checks it before
  ``interpret``); a warp collective's first operand is its lane mask (a
  Uint32, bit k for lane k: the lanes that take part), which the check reads;
  a kernel that calls a ``"grid"`` one is launched cooperatively, every
  block resident at once;
* ``lanewise``: given vectors, the entry applies lane by lane with its scalar
  rules (``lanewise.py``: its ``lower``, ``cuda`` and ``interpret`` are only
  ever given scalars); by default the ``kdsl.math`` entries are;
* ``prelude`` and ``headers``: the prelude parts and CUDA headers its
  rendering needs (the file includes them only when the IR calls it);
* ``helper``: for a built-in whose CUDA helper depends on the call (one
  of many shapes and types, too many for a prelude part to hold them all),
  ``helper(call)`` returns ``(key, text)``: a helper function the file
  defines once, after the prelude parts, in ``namespace kdsl`` (or None);
* ``text``: its arguments may be strings and f-strings (``print``), which
  the front end passes as ``core.printf.Text``;
* ``arch``: the architecture an instance calling it must be compiled for
  (``"sm_90a"`` for Hopper's architecture-specific instructions, wgmma and
  setmaxnreg), or None when kdsl's default (sm_90, or the device's) will do;
* ``gpu_only``: the interpreter cannot run it; its ``interpret`` raises a
  located error saying so (the instance runs only on a GPU).

A ``kind="syntax"`` entry (``range``, ``shared_array``, Python's ``abs``,
``int``, ``float``, ``bool``) is lowered into other IR (a loop, an array
declaration, an operator) or folds, and never reaches a backend as a call.
Registering an entry that a backend cannot render or run fails at import
(:func:`check`).  The entry object is also what ``kdsl.<name>`` is, so
calling it outside a kernel says where it can be used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol

from kdsl.transpile import ir
from kdsl.transpile.core.cxx import CExpr
from kdsl.transpile.errors import error


@dataclass(frozen=True, eq=False)
class Builtin:
    name: str
    doc: str
    lower: Callable
    cuda: Callable | None = None
    interpret: Callable | None = None
    interpret_unused: Callable | None = None
    keywords: tuple[str, ...] = ()
    collective: str | None = None  # "warp", "block" or "grid"
    prelude: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    kind: str = "call"  # "call", "special" (a register read) or "syntax"
    text: bool = False  # takes strings and f-strings (as core.printf.Text)
    lanewise: bool | None = None  # None: True for kdsl.math's entries
    arch: str | None = None  # "sm_90a": instances calling it compile for it
    helper: Callable | None = None  # call -> (key, C++ text) | None

    def __post_init__(self):
        object.__setattr__(self, "__doc__", self.doc)  # help(kdsl.syncthreads)
        if self.lanewise is None:
            object.__setattr__(self, "lanewise", self.name.startswith("math."))

    def __call__(self, *args, **kwargs):
        raise error("outside-kernel", callee=self.spelled)

    @property
    def spelled(self) -> str:
        """How the user wrote it: ``kdsl.syncthreads``, ``kdsl.math.exp``, ``min``."""
        return self.name if self.name in PYTHON_BUILTINS else f"kdsl.{self.name}"

    def __repr__(self) -> str:
        return self.spelled


REGISTRY: dict[str, Builtin] = {}
# entries a kernel calls by Python's name
PYTHON_BUILTINS = ("min", "max", "print", "abs", "int", "float", "bool", "len")
_KINDS = ("call", "special", "syntax")
_COLLECTIVES = (None, "warp", "block", "grid")


def register(name: str, doc: str, lower: Callable, **fields) -> Builtin:
    """Add a built-in; a second entry of one name is a kdsl bug."""
    if name in REGISTRY:
        raise ValueError(f"built-in {name!r} is registered twice")
    entry = Builtin(name, doc, lower, **fields)
    _check(entry)
    REGISTRY[name] = entry
    return entry


def _check(entry: Builtin) -> None:
    """Each backend can handle ``entry`` (raised at import, by the module
    that registers it)."""
    problems = []
    if entry.kind not in _KINDS:
        problems.append(f"kind {entry.kind!r} is not one of {_KINDS}")
    if entry.collective not in _COLLECTIVES:
        problems.append(f"collective {entry.collective!r} is not one of {_COLLECTIVES}")
    if entry.lanewise and entry.kind != "call":
        problems.append(f"a {entry.kind} entry cannot be lane-wise")
    if entry.kind != "syntax":
        if not callable(entry.cuda):
            problems.append("it has no CUDA rendering (cuda=)")
        if not callable(entry.interpret):
            problems.append("it has no interpreter implementation (interpret=)")
    if not callable(entry.lower):
        problems.append("it has no typing rule (lower=)")
    if not entry.doc:
        problems.append("it has no doc line")
    if problems:
        raise TypeError(f"built-in {entry.name!r}: " + "; ".join(problems))


def get(name: str) -> Builtin:
    """The entry of ``name``; an unknown name is a kdsl bug (E999)."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise error("internal", what=f"no built-in named {name!r}") from None


# -- what an entry may use of each backend ---------------------------------------
class Lowering(Protocol):
    """The lowerer, as a built-in's ``lower`` sees it."""

    def emit(self, stmt) -> None:
        """Append a statement (a call whose result is unused) to the block."""

    def is_memory(self, value) -> bool:
        """Whether ``value`` is a pointer, an ``Array`` or a fixed array."""

    def address(self, target, indices) -> tuple:
        """``(base, index expressions)`` of ``target[indices]``, checked."""

    def mark_written(self, target) -> None:
        """Record that the kernel writes through ``target``."""

    def static_integer(self, value, what: str) -> int:
        """``value`` as a Python int, or a located error naming ``what``."""

    def declare_array(self, elem, shape: tuple, space: str) -> Any:
        """Declare a fixed-shape ``shared``/``local`` array; its value."""

    def describe(self, value) -> str:
        """What ``value`` is, for an error: ``pointer 'x'``, ``a Float32x4``."""

    def hold(self, value, name: str, callee: str) -> Any:
        """``value`` computed once, here, into a new C++ variable (named after
        ``name``); its value (a variable read).  A located error naming
        ``callee`` where that would not run it exactly where Python does: in
        an arm of ``a if c else b``, an operand of ``and``/``or`` or of a
        chained comparison, or a ``while`` condition."""

    def assume(self, entry, cond) -> None:
        """Lower ``kdsl.assume(cond)`` here (``lower_debug``): an
        ``ir.Assume``, and in a debug build its check."""

    def align_dynamic_shared(self, nbytes: int) -> None:
        """Align the dynamic shared buffer to at least ``nbytes`` (if the
        kernel has one so far)."""

    def dynamic_shared_view(self, elem, nbytes: int, size) -> Any:
        """A view of the dynamic shared memory as ``nbytes``-byte elements
        ``elem``, after the kernel's earlier views; ``size`` is its element
        count as written (checked here), or None for the rest."""


class CudaRenderer(Protocol):
    """The CUDA emitter, as a built-in's ``cuda`` sees it."""

    def convert(self, src, dst, value: CExpr) -> CExpr:
        """``value`` (of kdsl type ``src``) converted to ``dst`` in C++."""


class Threads(Protocol):
    """The interpreter's batch of threads, as a built-in's ``interpret`` sees
    it.  Values are numpy arrays with one element per thread.  The
    interpreter's ``together.Threads`` satisfies it
    (``tests/unit/test_interpreter_threads.py`` checks the two agree)."""

    n: int  # the threads of the batch
    lane: Any  # each thread's lane in its warp (Int32)

    def special(self, name: str) -> Any:
        """The special register ``name`` (``thread_idx.x`` …) of each thread."""

    def barrier(self, mask) -> None:
        """The threads of ``mask`` reached a block (or grid) barrier: the
        shared-memory race interval of their blocks ends."""

    def from_lanes(self, call, mask, value, source, members=None) -> Any:
        """``value`` read, in each thread of ``mask``, from the thread of the
        same warp whose lane is ``source`` (an error if it is not running,
        or, given each thread's lane mask ``members``, not in it)."""

    def warp_reduce(self, members, mask, values, ufunc, key=None) -> Any:
        """For each thread of ``mask``, ``ufunc`` reduced over ``values`` of
        the threads taking part with it: its warp's threads at the call that
        pass the same lane mask in ``members`` (and the same ``key``, if
        given); 0 in the other threads."""

    def wait(self, call, arrived, describe) -> None:
        """The threads wait until ``arrived()`` (a signal of another rank,
        which runs meanwhile); ``describe()`` says what they wait for, in
        the located error (E762) of a wait no rank can end."""

    def peer(self, call, address, mask) -> Any:
        """The memory at the Uint64 ``address`` (one for every thread of
        ``mask``): an array some rank's launch was given, typed as the
        call's pointer (E763, E764 otherwise)."""

    def gpu_only(self, call, what: str) -> None:
        """Raise the located error (E362) of a built-in the interpreter
        does not model (``what``: what it would need)."""

    def warpgroups(self, call, mask) -> Any:
        """The threads of each warpgroup with a thread in ``mask``, a
        (groups, 128) array in thread order; an error unless all 128 are."""

    def shared_bytes(self, call, threads) -> tuple:
        """``(bytes, base)``: the dynamic shared memory as uint8 and where
        each thread's block's copy of it starts."""

    def whole_warps(self, call, mask) -> Any:
        """The threads of each warp with a thread in ``mask``, a (warps, 32)
        array in lane order; an error unless all 32 lanes are in ``mask``."""

    def warp_rows(self, call, slot, mask, used, verb) -> tuple:
        """``(threads, rows)`` of a warp instruction whose lanes 0 .. used - 1
        each give the address (``slot``) of a row of shared memory it reads
        or writes (``verb``): as ``whole_warps``, and each row's address."""

    def copy_elements(self, call, dst, src, mask, full) -> None:
        """Copy each thread's element at ``src`` to ``dst`` (zeros where
        ``full`` is False), as a race-logged store."""

    def warp_barrier(self, members, mask) -> None:
        """The threads of ``mask`` passed ``__syncwarp(members)``: shared
        memory they accessed is ordered for the lanes of their mask."""

    def load(self, call, slot, mask) -> Any:
        """A plain load of each thread's element at ``slot`` (an address
        operand): a lane array, or a tuple of them for a vector."""

    def store(self, call, slot, value, mask) -> None:
        """A plain store of ``value`` to each thread's element at ``slot``."""

    def atomic(self, call, slot, operands, mask, update) -> Any:
        """Apply ``update(old, operands, type) -> new`` at ``slot`` one thread
        at a time in thread order; the old values."""

    def atomic_unused(self, call, slot, operands, mask, ufunc) -> bool:
        """The same when the old value is unused, as one ``ufunc.at`` when
        the element type allows (True), else nothing done (False)."""


# -- argument checks shared by entries -----------------------------------------------
def want_args(entry: Builtin, args, n: int, most: int | None = None) -> None:
    """``n`` arguments, or ``n`` to ``most`` when ``most`` is given."""
    most = n if most is None else most
    if not n <= len(args) <= most:
        n = n if most == n else f"{n} or {most}" if most == n + 1 else f"{n} to {most}"
        raise error("wrong-arg-count", callee=entry.spelled, n=n, got=len(args))


def check_keywords(entry: Builtin, kwargs) -> None:
    unknown = [k for k in kwargs if k not in entry.keywords]
    if unknown:
        takes = (
            "takes only " + ", ".join(f"{k}=" for k in entry.keywords) + " as keywords"
            if entry.keywords
            else "takes no keyword arguments"
        )
        raise error(
            "unexpected-keyword",
            callee=entry.spelled,
            keyword=unknown[0],
            accepts=takes,
        )


def emit_statement(lw, entry: Builtin, operands=(), options=()) -> None:
    """Lower a call of ``entry`` that returns nothing: one statement."""
    lw.emit(ir.ExprStmt(ir.BuiltinCall(None, entry.name, tuple(operands), options)))


def lower_call(lw, entry: Builtin, args, kwargs):
    """Lower a call of ``entry`` (keywords checked first)."""
    check_keywords(entry, kwargs)
    return entry.lower(lw, entry, list(args), dict(kwargs))
