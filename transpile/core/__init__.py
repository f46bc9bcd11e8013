"""The arithmetic core: types, promotion, exact values (folding), narrow
floats, math functions, the same semantics on numpy arrays (``lanes``), and
``arith``, which folds a static operation or builds its IR node; and
``cxx``, the C++ expression trees the CUDA backend and the built-ins'
renderings build."""
