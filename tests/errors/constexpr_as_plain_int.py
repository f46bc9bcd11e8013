# expect: E401 line 12
import kdsl
from kdsl import Int32, Pointer, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(
    x: Pointer[D],
    n: Int32,
    BLOCK: int = 256,
):
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        x[i] = x[i] + 1.0
