"""The example kernels and all their instances, for golden and compile tests."""

import importlib.util
import sys
from functools import lru_cache
from pathlib import Path

from kdsl import Kernel

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@lru_cache(maxsize=None)
def example_modules():
    # examples import their siblings (block_reduce), as `python examples/x.py` can
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    modules = {}
    for path in sorted(EXAMPLES.glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"examples.{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        modules[path.stem] = module
    return modules


def example_instances():
    """``(module name, instance)`` for every dtype of every example kernel."""
    out = []
    for mod_name, module in example_modules().items():
        kernels = [v for v in vars(module).values() if isinstance(v, Kernel)]
        for k in sorted(kernels, key=lambda k: k.name):
            for dtypes in k.combinations():
                out.append((mod_name, k.dispatch(*dtypes)))
    return out
