# expect: E240 line 10
import kdsl
from kdsl import Constexpr, Int32, Pointer, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[D], out: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 256):
    BLOCK = 128
    i = block_idx.x * BLOCK + thread_idx.x
    out[i] = x[i]
