"""kdsl's version (``kdsl.__version__``; written into every generated file)."""

__version__ = "0.1.0"
