"""``@kdsl.kernel``: the kernel object, its dtype sets, dispatch and instances."""

from __future__ import annotations

from dataclasses import dataclass, field

from kdsl.transpile.errors import DSLError, error
from kdsl.transpile.parse import parse_function
from kdsl.transpile.pipeline import transpile_instance
from kdsl.transpile.signature import (
    check_dtypes,
    dtype_combinations,
    instance_name,
    read_signature,
    resolve_dtype,
    supported_dtypes,
)


@dataclass
class KernelInstance:
    """One compiled specialisation: a kernel at fixed dtypes and constexprs."""

    kernel: "Kernel"
    name: str
    dtypes: tuple
    constexprs: dict
    backward: "KernelInstance | None" = None
    _source: str | None = field(default=None, repr=False)

    @property
    def source(self) -> str:
        """The generated CUDA C++ (transpiled on first use; no GPU needed)."""
        if self._source is None:
            self._source = self.kernel._transpile(self)
        return self._source

    def render(self, *, line_directives: bool = False) -> str:
        """The CUDA C++, optionally with ``#line`` directives to the Python file."""
        if not line_directives:
            return self.source
        return self.kernel._transpile(self, line_directives=True)


class Kernel:
    """A ``@kdsl.kernel`` function: one CUDA kernel per (dtypes, constexprs)."""

    def __init__(self, fn, dtypes=None, backward=None):
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__
        self.signature = read_signature(fn, f"kernel '{self.name}'")
        self._dtypes_option = dtypes
        self.supported = supported_dtypes(self.name, self.signature, dtypes)
        self.backward = backward
        if backward is not None:
            self._check_backward(backward)
        self._parsed = None
        self._instances: dict = {}

    @property
    def parsed(self):
        if self._parsed is None:
            self._parsed = parse_function(self.fn)
        return self._parsed

    @property
    def supported_dtypes(self):
        """The supported dtypes: a tuple for one dtype parameter, else a dict."""
        if len(self.supported) == 1:
            return next(iter(self.supported.values()))
        return dict(self.supported)

    def combinations(self) -> list[tuple]:
        return dtype_combinations(self.supported)

    def _check_backward(self, other):
        if not isinstance(other, Kernel):
            raise DSLError(
                f"backward= of '{self.name}' must be a @kdsl.kernel", code="E404"
            )
        mine = (
            [t.name for t in self.signature.typevars],
            [c.name for c in self.signature.constexprs],
        )
        theirs = (
            [t.name for t in other.signature.typevars],
            [c.name for c in other.signature.constexprs],
        )
        if mine != theirs:
            raise DSLError(
                f"backward kernel '{other.name}' must have the same dtype parameters and "
                f"constexpr names as '{self.name}': {mine} vs {theirs}",
                code="E404",
            )

    # -- dispatch ---------------------------------------------------------------------
    def dispatch(self, *args, **kwargs) -> KernelInstance:
        """``kernel.dispatch(dtype..., *constexprs, **constexprs)``."""
        n = len(self.signature.typevars)
        if len(args) < n:
            raise error(
                "bad-call", what=f"dispatch() of '{self.name}' needs {n} dtype(s) first"
            )
        dtypes = tuple(resolve_dtype(d) for d in args[:n])
        check_dtypes(self.name, self.supported, dtypes)
        constexprs = self._constexpr_values(args[n:], kwargs)
        return self.instance(dtypes, constexprs)

    def _constexpr_values(self, positional, named) -> dict:
        specs = self.signature.constexprs
        if len(positional) > len(specs):
            raise error(
                "bad-call",
                what=f"'{self.name}' has {len(specs)} constexpr(s), got {len(positional)}",
            )
        values = dict(zip((c.name for c in specs), positional))
        for key, value in named.items():
            if key not in {c.name for c in specs}:
                raise error("bad-call", what=f"'{self.name}' has no constexpr '{key}'")
            if key in values:
                raise error("bad-call", what=f"constexpr '{key}' given twice")
            values[key] = value
        out = {}
        for c in specs:
            if c.name in values:
                value = values[c.name]
            elif c.has_default:
                value = c.default
            else:
                raise error(
                    "bad-call",
                    what=f"'{self.name}' needs a value for constexpr '{c.name}'",
                )
            out[c.name] = check_constexpr(self.name, c, value)
        return out

    def instance(self, dtypes: tuple, constexprs: dict) -> KernelInstance:
        key = (dtypes, tuple(constexprs.values()))
        inst = self._instances.get(key)
        if inst is None:
            name = instance_name(self.name, dtypes, tuple(constexprs.values()))
            inst = KernelInstance(self, name, dtypes, constexprs)
            if self.backward is not None:
                inst.backward = self.backward.instance(dtypes, constexprs)
            self._instances[key] = inst
        return inst

    def instances(self) -> list[KernelInstance]:
        """The instances made so far, in order."""
        return list(self._instances.values())

    def _transpile(self, inst, line_directives=False) -> str:
        return transpile_instance(
            self,
            inst.name,
            inst.dtypes,
            inst.constexprs,
            line_directives=line_directives,
        )

    def __repr__(self) -> str:
        return f"<kdsl.kernel {self.name}>"


def check_constexpr(kernel_name, spec, value):
    """A constexpr value checked against its declared kind (int, bool, float)."""
    kind = spec.spec.kind
    ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    if not ok:
        raise error(
            "bad-call",
            what=f"constexpr '{spec.name}' of '{kernel_name}' is Constexpr[{kind.__name__}], "
            f"got {value!r}",
        )
    return value


def kernel(fn=None, *, dtypes=None, backward=None):
    """Decorator: ``@kdsl.kernel`` or ``@kdsl.kernel(dtypes=[...], backward=k)``."""
    if fn is None:
        return lambda f: Kernel(f, dtypes=dtypes, backward=backward)
    return Kernel(fn)
