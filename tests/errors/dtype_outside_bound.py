# expect: E405 line 8
import kdsl
from kdsl import Int32, Pointer, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Int32])
def bad(x: Pointer[D], out: Pointer[D], n: Int32):
    i = block_idx.x * 256 + thread_idx.x
    out[i] = x[i]
