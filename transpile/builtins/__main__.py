"""``python -m kdsl.transpile.builtins``: print the built-in reference that
docs/language.md carries (a test keeps the two equal)."""

from kdsl.transpile.builtins import reference

print(reference(), end="")
