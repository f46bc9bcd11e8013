"""What a backend of the verified IR is: one handler per IR node class.

The CUDA emitter and the CPU interpreter both subclass :class:`Backend`.
Defining a subclass builds its dispatch tables and fails (at import) when a
node class has no handler, so a new node cannot be forgotten by one backend;
a node met at run time without a handler (a class made after import) is an
internal error that names it.  Built-in calls dispatch further through the
registry (``kdsl.transpile.builtins``)."""

from __future__ import annotations

from kdsl.transpile.errors import error
from kdsl.transpile.ir import nodes


def node_classes(base) -> list:
    """Every concrete node class of the IR (``ir.nodes``) under ``base``
    (``Expr`` or ``Stmt``)."""
    out = []
    for cls in base.__subclasses__():
        if cls.__module__ != nodes.__name__:
            continue
        subs = cls.__subclasses__()
        out.extend(node_classes(cls) if subs else [cls])
    return out


class _Table(dict):
    def __init__(self, backend: str, handlers: dict):
        super().__init__(handlers)
        self.backend = backend

    def __missing__(self, cls):
        raise error(
            "internal",
            what=f"the {self.backend} has no handler for IR node {cls.__name__}",
        )


class Backend:
    """A backend: ``<expr_prefix><Node>`` for each expression node and
    ``<stmt_prefix><Node>`` for each statement node."""

    backend_name = "backend"
    expr_prefix = "e_"
    stmt_prefix = "s_"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.EXPR = cls._table(cls.expr_prefix, nodes.Expr)
        cls.STMT = cls._table(cls.stmt_prefix, nodes.Stmt)

    @classmethod
    def _table(cls, prefix, base) -> _Table:
        missing = [
            c.__name__
            for c in node_classes(base)
            if not hasattr(cls, prefix + c.__name__)
        ]
        if missing:
            raise TypeError(
                f"{cls.__name__} has no handler for IR node(s) {', '.join(missing)} "
                f"(methods {prefix}<Node>)"
            )
        return _Table(
            cls.backend_name,
            {c: getattr(cls, prefix + c.__name__) for c in node_classes(base)},
        )
