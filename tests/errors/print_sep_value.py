# expect: E266 line 24
import kdsl
from kdsl import (
    Array,
    Constexpr,
    Float16,
    Float32,
    Int32,
    Pointer,
    block_idx,
    thread_idx,
)

D = kdsl.TypeVar("D", bound=kdsl.Float)


def helper(v):
    return v


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[D], out: Pointer[D], n: Int32):
    i = block_idx.x * 256 + thread_idx.x
    print(i, n, sep=x[i])
    out[i] = x[i]
