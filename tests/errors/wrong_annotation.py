# expect: E401 line 9
import kdsl
from kdsl import Int32, Pointer, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[D], out: list, n: Int32):
    i = block_idx.x * 256 + thread_idx.x
    out[i] = x[i]
