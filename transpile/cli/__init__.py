"""``kdsl-transpile``: the command line, above the compiler and the runtime."""
