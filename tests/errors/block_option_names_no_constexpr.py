# expect: E125 line 8
import kdsl
from kdsl import Constexpr, Int32, Pointer, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(block="BLOK")
def bad(x: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 256):
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        x[i] = x[i] + 1.0
