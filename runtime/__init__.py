"""kdsl's runtime: compiling, dispatching and launching kernels."""
